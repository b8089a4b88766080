// The Runs tab's side of a port's verification, and its empty and failed states (issues 24 and
// 26), offscreen: the two labelled runs of a verification overlaid with the verdict above the
// chart whether the port is the open project or not, live while they run; the progress bar
// hidden before any run; and the loss chart's legend (only curves that are drawn, never over the
// plot) and marks on short curves. The histories are written here for each pattern: no dry run.
#include "views/profile/plot_theme.h"
#include "views/runs/loss_chart.h"
#include "views/runs/run_history.h"
#include "views/runs/run_history_model.h"
#include "views/runs/run_panel.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

using namespace portolan::views;

namespace {

struct Side
{
    QString status; // running, completed, failed, stopped
    QList<double> losses;
    QString reason;
};

// A verification as the port dialog records it: two runs, "original" then "port", their steps,
// and for each finished one the verdict event and its reason.
std::pair<qint64, qint64> writeVerification(const QString& port, const Side& original,
                                            const Side& ported, bool agrees)
{
    RunHistory h;
    if (!h.open(port))
        return {0, 0};
    auto write = [&](const QString& side, const Side& s) {
        const qint64 id = h.beginRun(
            QStringLiteral("verify"),
            QJsonObject{{"verification", true}, {"side", side}, {"label", side}, {"port", port}});
        h.appendEvent(id,
                      RunEvent::fromJson(QJsonObject{
                          {"event", "started"}, {"time", 1.0}, {"model", side}, {"max_steps", 3}}));
        for (int i = 0; i < s.losses.size(); ++i)
            h.appendEvent(id, RunEvent::makeStep(i + 1, s.losses[i], 1.0));
        if (s.status == QLatin1String("completed"))
            h.appendEvent(id, RunEvent::fromJson(QJsonObject{{"event", "info"},
                                                             {"kind", "verification"},
                                                             {"agrees", agrees},
                                                             {"message", s.reason}}));
        if (s.status != QLatin1String("running"))
            h.finishRun(id, s.status, s.reason);
        return id;
    };
    const qint64 a = write(QStringLiteral("original"), original);
    const qint64 b = write(QStringLiteral("port"), ported);
    return {a, b};
}

// The legend's entries (its itemCount() counts the empty cells of its grid too).
int legendEntries(QCustomPlot* plot)
{
    int n = 0;
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        n += plot->legend->item(i) != nullptr;
    return n;
}

QColor verdictColour(RunPanel& panel)
{
    auto* label = panel.findChild<QLabel*>(QStringLiteral("verificationVerdict"));
    return label ? label->palette().color(QPalette::WindowText) : QColor();
}

} // namespace

class TestRunPanelVerify : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_config.isValid());
        qputenv("PORTOLAN_CONFIG_DIR", m_config.path().toUtf8());
    }

    void verification_data()
    {
        QTest::addColumn<bool>("portOpen");
        QTest::addColumn<QString>("originalStatus");
        QTest::addColumn<QString>("portStatus");
        QTest::addColumn<bool>("agrees");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<bool>("alert");
        const QString agree = QStringLiteral("The port trains like the original: 3 steps "
                                             "compared, largest relative loss difference 0.");
        const QString part = QStringLiteral("The port parts from the original at step 2: loss 2 "
                                            "against 2.5 (relative difference 0.25).");
        for (const bool open : {true, false}) {
            const char* where = open ? "port open" : "other project open";
            QTest::addRow("agrees, %s", where) << open << "completed"
                                               << "completed" << true << agree << agree << false;
            QTest::addRow("parts at a step, %s", where)
                << open << "completed"
                << "completed" << false << part << "at step 2" << true;
            QTest::addRow("port failed, %s", where)
                << open << "completed"
                << "failed" << false << "no module named x"
                << "The port's dry run failed: no module named x" << true;
            QTest::addRow("running, %s", where) << open << "running"
                                                << "running" << false << ""
                                                << "Verifying: the original has run 3" << false;
            QTest::addRow("cancelled, %s", where) << open << "stopped"
                                                  << "stopped" << false << "verification cancelled"
                                                  << "Cancelled before a verdict" << true;
        }
    }
    void verification()
    {
        QFETCH(bool, portOpen);
        QFETCH(QString, originalStatus);
        QFETCH(QString, portStatus);
        QFETCH(bool, agrees);
        QFETCH(QString, reason);
        QFETCH(QString, expected);
        QFETCH(bool, alert);
        QTemporaryDir tmp;
        const QString port = tmp.filePath(QStringLiteral("net-determined"));
        const QString other = tmp.filePath(QStringLiteral("net"));
        QVERIFY(QDir().mkpath(port) && QDir().mkpath(other));

        RunPanel panel;
        panel.setInteractive(false);
        QAbstractItemModelTester tester(panel.historyModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1024, 600);
        panel.show();
        // Opened before the verification wrote anything (the GUI opens the port as soon as it
        // is written, and verifies it after): the panel has no history open yet.
        panel.setProject(portOpen ? port : other);
        QVERIFY(panel.verificationText().isEmpty());

        const Side original{originalStatus,
                            {1.0, 2.0, 3.0},
                            originalStatus == QLatin1String("completed") ? reason : QString()};
        const Side ported{portStatus, {1.0, 2.5, 3.0}, reason};
        const auto [a, b] = writeVerification(port, original, ported, agrees);
        QVERIFY(a > 0 && b > 0);
        panel.showVerification(port, a, b);

        const QString text = panel.verificationText();
        QVERIFY2(text.contains(expected), qPrintable(text));
        QCOMPARE(text.contains(QLatin1String("not the open project")), !portOpen);
        const QColor alertColour = alertColor(panel.palette());
        QCOMPARE(verdictColour(panel) == alertColour, alert);
        // Both curves, every step, overlaid.
        QCOMPARE(panel.chart()->runIds().size(), qsizetype(2));
        for (const qint64 id : panel.chart()->runIds())
            QCOMPARE(panel.chart()->pointCount(id), 3);
        const bool failed = portStatus == QLatin1String("failed");
        const qint64 portInChart = portOpen ? b : -b;
        QCOMPARE(panel.chart()->isFailed(portInChart), failed);
        // In the port's own history, its two rows are the ones selected.
        auto* view = panel.findChild<QTableView*>();
        QVERIFY(view);
        QCOMPARE(view->selectionModel()->selectedRows().size(), qsizetype(portOpen ? 2 : 0));
        QCOMPARE(panel.historyModel()->rowCount(), portOpen ? 2 : 0);

        // Opening the port afterwards shows the verification again, from its history.
        if (!portOpen) {
            panel.setProject(port);
            QVERIFY2(panel.verificationText().contains(expected),
                     qPrintable(panel.verificationText()));
            QCOMPARE(view->selectionModel()->selectedRows().size(), qsizetype(2));
        }
    }

    // Live: each step the dialog records shows at once, and a run of the open project keeps its
    // chart while a verification elsewhere goes on.
    void liveSteps()
    {
        QTemporaryDir tmp;
        const QString port = tmp.filePath(QStringLiteral("p"));
        QVERIFY(QDir().mkpath(port));
        RunPanel panel;
        panel.setInteractive(false);
        panel.setProject(port);
        RunHistory h;
        QVERIFY(h.open(port));
        const QJsonObject original{{"verification", true}, {"side", "original"}};
        const QJsonObject ported{{"verification", true}, {"side", "port"}};
        const qint64 a = h.beginRun(QStringLiteral("verify"), original);
        const qint64 b = h.beginRun(QStringLiteral("verify"), ported);
        panel.showVerification(port, a, b);
        QVERIFY(panel.verificationText().contains(QLatin1String("Verifying")));
        for (int step = 1; step <= 3; ++step) {
            h.appendEvent(a, RunEvent::makeStep(step, 1.0 / step, 1.0));
            panel.showVerification(port, a, b);
            QCOMPARE(panel.chart()->pointCount(a), step);
            QCOMPARE(panel.chart()->pointCount(b), 0);
        }
        QVERIFY2(panel.verificationText().contains(QLatin1String("original has run 3 steps, "
                                                                 "the port 0")),
                 qPrintable(panel.verificationText()));
        // An ordinary run selected instead: no verdict.
        auto* view = panel.findChild<QTableView*>();
        view->selectionModel()->clearSelection();
        QVERIFY(panel.verificationText().isEmpty());
    }

    void progressHiddenBeforeARun()
    {
        QTemporaryDir tmp;
        RunPanel panel;
        panel.setInteractive(false);
        panel.show();
        QVERIFY(!panel.isProgressShown());
        panel.setProject(tmp.path());
        QVERIFY(!panel.isProgressShown());
        // A run that cannot start does not show an empty bar either.
        panel.setCliPath(QStringLiteral("/nonexistent/portolan-cli"));
        panel.start();
        QVERIFY(!panel.isProgressShown());
    }

    void chartLegend_data()
    {
        QTest::addColumn<int>("points");
        QTest::addColumn<bool>("withEval");
        QTest::addColumn<bool>("marked");
        QTest::addRow("dry run, no eval") << 3 << false << true;
        QTest::addRow("dry run with eval") << 3 << true << true;
        QTest::addRow("long run") << 400 << true << false;
    }
    void chartLegend()
    {
        QFETCH(int, points);
        QFETCH(bool, withEval);
        QFETCH(bool, marked);
        LossChart chart;
        chart.resize(600, 400);
        QVector<QPointF> loss, eval;
        for (int i = 1; i <= points; ++i)
            loss << QPointF(i, 1.0 / i);
        if (withEval)
            eval << QPointF(points, 0.5);
        chart.setRun(1, QStringLiteral("original"), loss, eval);
        chart.setRun(2, QStringLiteral("port"), loss, {});
        QCustomPlot* plot = chart.plot();
        // One entry per drawn curve: two losses, and an eval only where there is one.
        QCOMPARE(legendEntries(plot), 2 + (withEval ? 1 : 0));
        // The legend is laid out beside the axis rect, never inside it over the curves.
        QCOMPARE(plot->axisRect()->insetLayout()->elementCount(), 0);
        // Short curves mark each step, each curve with its own shape (two that agree are one
        // line; their marks show both).
        QList<int> shapes;
        for (int g = 0; g < plot->graphCount(); ++g)
            if (plot->graph(g)->dataCount() == points)
                shapes << int(plot->graph(g)->scatterStyle().shape());
        QCOMPARE(shapes.size(), 2);
        if (marked) {
            QVERIFY(shapes[0] != int(QCPScatterStyle::ssNone));
            QVERIFY(shapes[0] != shapes[1]);
        } else {
            QCOMPARE(shapes[0], int(QCPScatterStyle::ssNone));
        }
        // A live eval point adds its legend entry.
        chart.appendEval(2, points, 0.25);
        QCOMPARE(legendEntries(plot), 3 + (withEval ? 1 : 0));
    }

    // Two runs that failed before their first step (a verification whose dry runs could not
    // start): the reason in the chart, and the plot keeps its width (without legend entries, the
    // legend under it once squeezed the axes to a strip).
    void chartFailedEmpty()
    {
        LossChart chart;
        chart.resize(600, 400);
        chart.show();
        chart.setRun(1, QStringLiteral("original"), {}, {});
        chart.setRun(2, QStringLiteral("port"), {}, {});
        chart.markFailed(1, QStringLiteral("needs --dataset"));
        chart.markFailed(2, QStringLiteral("TypeError"));
        chart.rescale();
        chart.plot()->replot();
        QVERIFY(chart.placeholderText().contains(QLatin1String("failed before its first step")));
        // A long reason in short lines, which a narrow chart shows whole.
        chart.markFailed(2, QStringLiteral("model.py:96:9: error: TypeError: int() argument must "
                                           "be a string, a bytes-like object or a real number"));
        for (const QString& line : chart.placeholderText().split(QLatin1Char('\n')))
            QVERIFY2(line.size() <= 48, qPrintable(line));
        QCOMPARE(legendEntries(chart.plot()), 0);
        QVERIFY2(chart.plot()->axisRect()->width() > chart.plot()->width() / 2,
                 qPrintable(QStringLiteral("axis rect %1 of %2")
                                .arg(chart.plot()->axisRect()->width())
                                .arg(chart.plot()->width())));
    }

private:
    QTemporaryDir m_config;
};

QTEST_MAIN(TestRunPanelVerify)
#include "test_run_panel_verify.moc"
