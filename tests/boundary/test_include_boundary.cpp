// docs/ARCHITECTURE.md, Floors: core/ never includes a Qt header; views/ and app/ never include
// LibTorch; no core library but core/workflow includes core/workflow (the layer above them). The
// build runs the same rule (cmake/CheckBoundaries.cmake); this test also proves the rule itself
// catches what it should.
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

namespace {

const QRegularExpression
    qtInclude(QStringLiteral(R"(^\s*#\s*include\s*[<"](Q[A-Za-z0-9_]+|Qt[A-Za-z]*/|qcustomplot))"));
const QRegularExpression
    torchInclude(QStringLiteral(R"(^\s*#\s*include\s*[<"](torch/|ATen/|c10/))"));
// Not a raw string: moc's lexer pairs the quotes of the two above, and a third would hide the
// class from it.
const QRegularExpression
    workflowInclude(QStringLiteral("^\\s*#\\s*include\\s*[<\"]core/workflow/"));

QStringList violations(const QString& dir, const QRegularExpression& rule)
{
    QStringList out;
    QDirIterator it(dir,
                    {QStringLiteral("*.h"), QStringLiteral("*.hpp"), QStringLiteral("*.cpp"),
                     QStringLiteral("*.cc"), QStringLiteral("*.c")},
                    QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        int line = 0;
        while (!f.atEnd()) {
            ++line;
            const QString text = QString::fromUtf8(f.readLine());
            if (rule.match(text).hasMatch())
                out << QStringLiteral("%1:%2: %3").arg(path).arg(line).arg(text.trimmed());
        }
    }
    return out;
}

} // namespace

class TestIncludeBoundary : public QObject
{
    Q_OBJECT
private slots:
    void rules_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<bool>("qt");
        QTest::addColumn<bool>("torch");
        QTest::addColumn<bool>("workflow");
        QTest::addRow("QString") << "#include <QString>" << true << false << false;
        QTest::addRow("QtCore/") << "#  include <QtCore/QObject>" << true << false << false;
        QTest::addRow("qcustomplot") << "#include \"qcustomplot.h\"" << true << false << false;
        QTest::addRow("torch") << "#include <torch/torch.h>" << false << true << false;
        QTest::addRow("ATen") << "#include <ATen/ATen.h>" << false << true << false;
        QTest::addRow("c10") << "#include <c10/core/Allocator.h>" << false << true << false;
        QTest::addRow("std") << "#include <string>" << false << false << false;
        QTest::addRow("comment") << "// #include <QString>" << false << false << false;
        QTest::addRow("core own") << "#include \"core/params/document.h\"" << false << false
                                  << false;
        QTest::addRow("workflow") << "#include \"core/workflow/graph_source.h\"" << false << false
                                  << true;
        QTest::addRow("workflow comment")
            << "// core/workflow/graph_source.h decides" << false << false << false;
    }
    void rules()
    {
        QFETCH(QString, line);
        QFETCH(bool, qt);
        QFETCH(bool, torch);
        QFETCH(bool, workflow);
        QCOMPARE(qtInclude.match(line).hasMatch(), qt);
        QCOMPARE(torchInclude.match(line).hasMatch(), torch);
        QCOMPARE(workflowInclude.match(line).hasMatch(), workflow);
    }

    void tree_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<bool>("forbidQt");
        QTest::addRow("core is Qt-free") << "core" << true;
        QTest::addRow("views is LibTorch-free") << "views" << false;
        QTest::addRow("app is LibTorch-free") << "app" << false;
    }
    void tree()
    {
        QFETCH(QString, folder);
        QFETCH(bool, forbidQt);
        const QString dir = QStringLiteral(PORTOLAN_SOURCE_DIR "/") + folder;
        QVERIFY(QDir(dir).exists());
        const QStringList bad = violations(dir, forbidQt ? qtInclude : torchInclude);
        if (!bad.isEmpty())
            QFAIL(qPrintable(bad.join(QLatin1Char('\n'))));
    }

    // Every core library but the workflow layer, one row each: none includes core/workflow.
    void belowWorkflow_data()
    {
        QTest::addColumn<QString>("folder");
        const QDir core(QStringLiteral(PORTOLAN_SOURCE_DIR "/core"));
        for (const QString& name : core.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (name != QLatin1String("workflow"))
                QTest::addRow("%s", qPrintable(name)) << core.filePath(name);
    }
    void belowWorkflow()
    {
        QFETCH(QString, folder);
        const QStringList bad = violations(folder, workflowInclude);
        if (!bad.isEmpty())
            QFAIL(qPrintable(bad.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestIncludeBoundary)
#include "test_include_boundary.moc"
