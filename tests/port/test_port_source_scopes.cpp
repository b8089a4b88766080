// What a definition reads from outside itself (Stmt::uses of a def or class, source.cpp): the
// slicer carries a definition with the bindings of those names, so a name local to a function
// (bound in its body, a parameter, a comprehension's variable, a nested function's own) is not
// one, and a name the function declares global, a default, a decorator or a base class is.
// Before, a method's local `optimizer` made the class read the caller's `optimizer`, which the
// port could not move; and the names an f-string reads were not seen, so a print of epoch
// figures the port does not compute was kept, reading names bound nowhere.
#include "core/port/source.h"

#include <QObject>
#include <QTest>

using namespace portolan;

class TestPortSourceScopes : public QObject
{
    Q_OBJECT

private slots:
    void readsFromOutside_data();
    void readsFromOutside();
};

void TestPortSourceScopes::readsFromOutside_data()
{
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("name"); // the definition
    QTest::addColumn<QStringList>("reads");
    QTest::addColumn<QStringList>("local");
    QTest::addRow("function") << "def fit(rows):\n    total = 0\n    for r in rows:\n"
                                 "        total += r * SCALE\n    return total\n"
                              << "fit" << QStringList{"SCALE"} << QStringList{"rows", "total", "r"};
    QTest::addRow("bound after a read") << "def fit():\n    print(rate)\n    rate = 2\n"
                                        << "fit" << QStringList{"print"} << QStringList{"rate"};
    QTest::addRow("declared global") << "def slow():\n    global rate\n    rate = rate / 2\n"
                                     << "slow" << QStringList{"rate"} << QStringList{};
    QTest::addRow("a default and an annotation")
        << "def fit(x, rate=BASE) -> Result:\n    return x\n"
        << "fit" << QStringList{"BASE", "Result"} << QStringList{"x", "rate"};
    QTest::addRow("a comprehension") << "def ids(words):\n    return [index[w] for w in words]\n"
                                     << "ids" << QStringList{"index"} << QStringList{"w", "words"};
    QTest::addRow("a nested function")
        << "def outer(n):\n    def inner():\n        kept = n + OFFSET\n        return kept\n"
           "    return inner()\n"
        << "outer" << QStringList{"OFFSET"} << QStringList{"kept", "inner", "n"};
    // Names in an f-string's interpolations and in a nested format specifier are read; the
    // text around them, a conversion and a plain string's words are not.
    QTest::addRow("an f-string")
        << "def report(ep):\n    print(f\"ep {ep} cost {mean_cost:.4f} {held!r:>{width}}\", "
           "\"mean_cost\")\n"
        << "report" << QStringList{"print", "mean_cost", "held", "width"}
        << QStringList{"ep", "cost", "r", "f"};
    QTest::addRow("a class") << "@dataclass\nclass Net(Base):\n    def make(self, rate):\n"
                                "        optimizer = SGD(self.parameters(), lr=rate)\n"
                                "        return optimizer\n"
                             << "Net" << QStringList{"dataclass", "Base", "SGD"}
                             << QStringList{"optimizer", "rate", "self"};
}

void TestPortSourceScopes::readsFromOutside()
{
    QFETCH(QString, code);
    QFETCH(QString, name);
    QFETCH(QStringList, reads);
    QFETCH(QStringList, local);
    const port::SourceFile f("main.py", code.toStdString());
    const port::Stmt* def = f.topDefinition(name.toStdString());
    QVERIFY(def);
    QStringList uses;
    for (const auto& u : def->uses)
        uses << QString::fromStdString(u);
    for (const auto& r : reads)
        QVERIFY2(uses.contains(r), qPrintable(r + " not in " + uses.join(' ')));
    for (const auto& l : local)
        QVERIFY2(!uses.contains(l), qPrintable(l + " in " + uses.join(' ')));
}

QTEST_GUILESS_MAIN(TestPortSourceScopes)
#include "test_port_source_scopes.moc"
