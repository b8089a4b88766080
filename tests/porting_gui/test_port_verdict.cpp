// The verdict the Verify page and the Runs tab show says why a port was not proven, in the same
// words as the CLI's status line and the JSON's `not_verified_because` (verify_outcome.h): the
// cause that left nothing compared, the steps that did not run, the check's errors. Rows are
// verification results as the engine returns them.
#include "core/port/generate.h"
#include "views/porting/port_verify_panel.h"
#include "views/runs/loss_chart.h"

#include <QTest>

using portolan::port::VerifyResult;
using portolan::views::PortVerifyPanel;

Q_DECLARE_METATYPE(VerifyResult)

namespace {

// Three steps asked and compared, losses and weights agreeing, no check error.
VerifyResult proven()
{
    VerifyResult v;
    v.checkErrors = 0;
    v.stepsAsked = 3;
    v.dryRunSteps = 3;
    v.stepsCompared = 3;
    v.originalLosses = {2.0, 1.5, 1.25};
    v.portLosses = v.originalLosses;
    v.maxRelLossDiff = 0;
    v.maxAbsWeightDiff = 0;
    v.agrees = true;
    return v;
}

} // namespace

class TestPortVerdict : public QObject
{
    Q_OBJECT
private slots:
    void verdictSaysWhy_data()
    {
        QTest::addColumn<VerifyResult>("result");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("absent");

        QTest::addRow("proven") << proven() << "The port trains like the original: 3 steps"
                                << "Not shown";
        VerifyResult parts = proven();
        parts.portLosses = {2.0, 2.5, 1.25};
        parts.firstDivergence = 2;
        parts.maxRelLossDiff = 2.0 / 3;
        parts.agrees = false;
        QTest::addRow("parts at a step")
            << parts << "parts from the original at step 2: loss 1.5 against 2.5"
            << "trains like";
        VerifyResult noOriginal;
        noOriginal.checkErrors = 0;
        noOriginal.stepsAsked = 3;
        noOriginal.dryRunSteps = 3;
        noOriginal.originalError = "FileNotFoundError: traindata.pt";
        QTest::addRow("the original reached no step")
            << noOriginal
            << "Not shown to train like the original: the original's dry run did not reach a "
               "training step (FileNotFoundError: traindata.pt): nothing was compared."
            << "trains like";
        VerifyResult short1 = proven();
        short1.dryRunSteps = 1;
        short1.stepsCompared = 1;
        short1.originalLosses.resize(1);
        short1.portLosses.resize(1);
        short1.dryRunError = "StopIteration";
        short1.agrees = false;
        QTest::addRow("the port stopped early")
            << short1
            << "the port's dry run reached 1 step(s) of the 3 asked (StopIteration): only 1 "
               "compared"
            << "trains like";
        VerifyResult checked = proven();
        checked.checkErrors = 2;
        checked.agrees = false;
        QTest::addRow("check errors")
            << checked << "the target's guide reports 2 error(s) in the port"
            << "trains like";
        // Everything agrees, but the original's steps moved no weight: the comparison could not
        // have failed, so it is no proof.
        VerifyResult still = proven();
        still.originalWeightChange = 0;
        QTest::addRow("the training moved no weight")
            << still
            << "Not shown to train like the original: the training did not change the weights: "
               "the comparison cannot show a difference."
            << "trains like";
        VerifyResult moved = proven();
        moved.originalWeightChange = 0.02;
        QTest::addRow("the training moved the weights")
            << moved << "The port trains like the original: 3 steps"
            << "Not shown";
        VerifyResult cancelled;
        cancelled.cancelled = true;
        QTest::addRow("cancelled") << cancelled << "the verification was cancelled"
                                   << "trains like";
    }
    void verdictSaysWhy()
    {
        QFETCH(VerifyResult, result);
        QFETCH(QString, expected);
        QFETCH(QString, absent);
        const QString verdict = PortVerifyPanel::verdictText(result);
        QVERIFY2(verdict.contains(expected), qPrintable(verdict));
        QVERIFY2(!verdict.contains(absent), qPrintable(verdict));
        // The Verify page shows the same sentence under the counts, each dry run's message
        // once (on its own line, not again inside the verdict), and its chart says why it is
        // empty.
        PortVerifyPanel panel;
        panel.showResult(result, true);
        // (Its claim is in bold: compared without the tags.)
        QString shown = panel.summaryText();
        shown.remove(QStringLiteral("<b>")).remove(QStringLiteral("</b>"));
        QVERIFY2(shown.contains(PortVerifyPanel::verdictText(result, false).toHtmlEscaped()),
                 qPrintable(shown));
        for (const std::string& error : {result.originalError, result.dryRunError})
            if (!error.empty())
                QCOMPARE(shown.count(QString::fromStdString(error).toHtmlEscaped()), 1);
        if (result.originalLosses.empty() && result.portLosses.empty())
            QVERIFY2(panel.findChild<portolan::views::LossChart*>()->placeholderText().contains(
                         QLatin1String("No step was compared")),
                     qPrintable(panel.findChild<portolan::views::LossChart*>()->placeholderText()));
    }
};

QTEST_MAIN(TestPortVerdict)
#include "test_port_verdict.moc"
