// A port's verification records two labelled runs (original and port) in the port's run
// history; opening the port in the Runs tab shows both curves overlaid, each under its label,
// and an ordinary newest run still shows alone.
#include "views/profile/plot_theme.h"
#include "views/runs/loss_chart.h"
#include "views/runs/run_event.h"
#include "views/runs/run_history.h"
#include "views/runs/run_panel.h"

#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan::views;

namespace {

qint64 addRun(RunHistory& h, const QString& label)
{
    QJsonObject config;
    if (!label.isEmpty())
        config = {{"verification", true}, {"label", label}};
    const qint64 id = h.beginRun(label.isEmpty() ? "dry_run" : "verify", config);
    h.appendEvent(id, RunEvent::fromJson(QJsonObject{{"event", "started"}, {"model", "m"}}));
    for (int i = 1; i <= 3; ++i)
        h.appendEvent(id, RunEvent::makeStep(i, 3.0 - i, 0));
    h.finishRun(id, QStringLiteral("completed"), QStringLiteral("completed"));
    return id;
}

} // namespace

class TestVerificationOverlay : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void overlaid_data()
    {
        QTest::addColumn<QStringList>("labels"); // oldest first; "" an ordinary run
        QTest::addColumn<int>("shown");
        QTest::addRow("verification pair") << QStringList{"", "original", "port"} << 2;
        QTest::addRow("ordinary run after it") << QStringList{"original", "port", ""} << 1;
        QTest::addRow("one labelled run") << QStringList{"", "port"} << 1;
    }
    void overlaid()
    {
        QFETCH(QStringList, labels);
        QFETCH(int, shown);
        QTemporaryDir tmp;
        QList<qint64> ids;
        {
            RunHistory h;
            QVERIFY(h.open(tmp.path()));
            for (const QString& l : labels)
                ids << addRun(h, l);
        }
        RunPanel panel;
        panel.setInteractive(false);
        panel.setProject(tmp.path());
        const QList<qint64> onChart = panel.chart()->runIds();
        QCOMPARE(onChart.size(), shown);
        QVERIFY(onChart.contains(ids.last()));
        if (shown == 2)
            QVERIFY(onChart.contains(ids[ids.size() - 2]));
    }

    // One fixed pair: the original and the port keep their colours whichever was recorded
    // first, whatever their ids, and beside other curves (issue 26: they swapped between
    // targets and between the port dialog and the Runs tab).
    void sidesKeepTheirColours_data()
    {
        QTest::addColumn<QStringList>("labels"); // oldest first
        QTest::addRow("original first") << QStringList{"original", "port"};
        QTest::addRow("port first") << QStringList{"port", "original"};
        QTest::addRow("after an ordinary run") << QStringList{"", "original", "port"};
    }
    void sidesKeepTheirColours()
    {
        QFETCH(QStringList, labels);
        QTemporaryDir tmp;
        QMap<QString, qint64> idOf;
        {
            RunHistory h;
            QVERIFY(h.open(tmp.path()));
            for (const QString& l : labels)
                idOf[l] = addRun(h, l);
        }
        RunPanel panel;
        panel.setInteractive(false);
        panel.setProject(tmp.path());
        LossChart* chart = panel.chart();
        QCOMPARE(chart->colourOf(idOf["original"]), comparisonColor(0, chart->palette()));
        QCOMPARE(chart->colourOf(idOf["port"]), comparisonColor(1, chart->palette()));

        // The chart alone: the same pair with the ids the port dialog uses, with other runs.
        for (const bool others : {false, true}) {
            LossChart c;
            const QVector<QPointF> curve{{1, 2.0}, {2, 1.5}};
            if (others)
                c.setRun(0, QStringLiteral("run 0"), curve, {});
            c.setRun(2, QStringLiteral("port"), curve, {});
            c.setSide(2, LossChart::Side::Port);
            c.setRun(1, QStringLiteral("original"), curve, {});
            c.setSide(1, LossChart::Side::Original);
            if (others)
                c.setRun(3, QStringLiteral("run 3"), curve, {});
            QCOMPARE(c.colourOf(1), comparisonColor(0, c.palette()));
            QCOMPARE(c.colourOf(2), comparisonColor(1, c.palette()));
            QVERIFY(comparisonColor(0, c.palette()) != comparisonColor(1, c.palette()));
            QVERIFY(comparisonColor(1, c.palette()) != alertColor(c.palette()));
        }
    }
};

QTEST_MAIN(TestVerificationOverlay)
#include "test_verification_overlay.moc"
