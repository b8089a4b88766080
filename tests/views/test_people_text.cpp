// Status lines show a diagnostic as a sentence for people; the position, the code and any
// further lines stay within reach (tooltip and a Details link), never in the way.
#include "views/common/status_line.h"

#include <QTest>

using portolan::views::peopleText;
using portolan::views::StatusLine;

class TestPeopleText : public QObject
{
    Q_OBJECT
private slots:
    void sentences_data()
    {
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("sentence");
        QTest::addColumn<bool>("detail"); // the whole message is kept behind the sentence
        QTest::addRow("diagnostic with position and code")
            << "/tmp/proj/conf.yaml:13:3: error: the model has no layers [params.empty]"
            << "The model has no layers." << true;
        QTest::addRow("path with a colon and a space")
            << "/tmp/a: b/p: warning: no capture of a dry run yet [compile.no-model]"
            << "No capture of a dry run yet." << true;
        QTest::addRow("further lines (a child's stderr)")
            << "child ended with exit code 1: x.json: error: not a graph [graph.document]\n"
               "Traceback (most recent call last):\n  boom"
            << "Not a graph." << true;
        QTest::addRow("already a sentence") << "Simulated in 1.2 s: fits."
                                            << "Simulated in 1.2 s: fits." << false;
        QTest::addRow("lower case, no stop") << "recording cancelled"
                                             << "Recording cancelled." << false;
        QTest::addRow("empty") << ""
                               << "" << false;
    }
    void sentences()
    {
        QFETCH(QString, message);
        QFETCH(QString, sentence);
        QFETCH(bool, detail);
        const auto t = peopleText(message);
        QCOMPARE(t.sentence, sentence);
        QCOMPARE(t.detail, detail ? message.trimmed() : QString());

        StatusLine line;
        line.setMessage(message);
        QCOMPARE(line.sentence(), sentence);
        QCOMPARE(line.message(), message);
        // Nothing raw in the window: no bracketed code, no "error:" with its position.
        QVERIFY2(!line.text().contains(QLatin1String("error:")) || !detail,
                 qPrintable(line.text()));
        QVERIFY2(!line.text().contains(QLatin1Char('[')), qPrintable(line.text()));
        // The detail is on hover and behind a link, only when there is one.
        QCOMPARE(line.text().contains(QLatin1String("<a href")), detail);
        QCOMPARE(line.toolTip().isEmpty(), !detail);
    }
};

QTEST_MAIN(TestPeopleText)
#include "test_people_text.moc"
