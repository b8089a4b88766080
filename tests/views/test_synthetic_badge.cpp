// A run on made-up inputs says so where its result is shown: the history row, the chart's
// title and legend, and the panel (the dry run's synthetic-data / synthetic-weights warnings).
#include "views/runs/loss_chart.h"
#include "views/runs/run_event.h"
#include "views/runs/run_history.h"
#include "views/runs/run_history_model.h"
#include "views/runs/run_panel.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

using namespace portolan::views;

namespace {

// A finished run with the given warning kinds in its events.
qint64 addRun(RunHistory& h, const QStringList& warningKinds)
{
    const qint64 id = h.beginRun(QStringLiteral("dry_run"), {});
    QJsonObject started{{"event", "started"}, {"model", "model.ResidualNet"}};
    for (const QString& kind : warningKinds)
        if (kind.startsWith(QLatin1String("started:")))
            started.insert("data", QJsonObject{{kind.mid(8), QJsonObject{{"synthetic", true}}}});
    h.appendEvent(id, RunEvent::fromJson(started));
    for (const QString& kind : warningKinds)
        if (!kind.startsWith(QLatin1String("started:")))
            h.appendEvent(id, RunEvent::fromJson(QJsonObject{
                                  {"event", "warning"}, {"kind", kind}, {"message", "made up"}}));
    for (int i = 1; i <= 3; ++i)
        h.appendEvent(
            id, RunEvent::fromJson(QJsonObject{{"event", "step"}, {"step", i}, {"loss", 3.0 - i}}));
    h.finishRun(id, QStringLiteral("completed"), QStringLiteral("completed"));
    return id;
}

} // namespace

class TestSyntheticBadge : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void historyRowAndChart_data()
    {
        QTest::addColumn<QStringList>("warnings");
        QTest::addColumn<QString>("badge");
        QTest::addRow("real data") << QStringList{} << QString();
        QTest::addRow("other warning") << QStringList{"download-failed"} << QString();
        QTest::addRow("synthetic data")
            << QStringList{"synthetic-data", "synthetic-data"} << "synthetic data";
        QTest::addRow("synthetic weights")
            << QStringList{"synthetic-weights"} << "synthetic weights";
        QTest::addRow("both") << QStringList{"synthetic-weights", "synthetic-data"}
                              << "synthetic data and weights";
        // The built-in runtime marks generated data in its started event instead.
        QTest::addRow("runtime's generated data")
            << QStringList{"started:train"} << "synthetic data";
    }
    void historyRowAndChart()
    {
        QFETCH(QStringList, warnings);
        QFETCH(QString, badge);
        QTemporaryDir tmp;
        RunHistory h;
        QVERIFY(h.open(tmp.path()));
        const qint64 id = addRun(h, warnings);
        const RunRecord r = h.run(id);
        QCOMPARE(syntheticBadge(r.synthetic), badge);
        QCOMPARE(syntheticBadge(h.runs().first().synthetic), badge);

        RunHistoryModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns(h.runs());
        const QString status = model.index(0, RunHistoryModel::Status).data().toString();
        QVERIFY(status.startsWith(QStringLiteral("completed")));
        QCOMPARE(status.contains(QStringLiteral("synthetic")), !badge.isEmpty());
        if (!badge.isEmpty())
            QVERIFY(model.index(0, RunHistoryModel::Status)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains(badge));

        LossChart chart;
        chart.setRun(id, QStringLiteral("run 1"), h.lossCurve(id), {});
        chart.markSynthetic(id, badge);
        QCOMPARE(chart.title().contains(badge) && !badge.isEmpty(), !badge.isEmpty());
        QCOMPARE(chart.title().isEmpty(), badge.isEmpty());
        if (!badge.isEmpty()) {
            // A second run on the same made-up input joins its line: one line per kind, not
            // one long line that the chart cuts at both ends.
            chart.setRun(id + 1, QStringLiteral("run 2"), h.lossCurve(id), {});
            chart.markSynthetic(id + 1, badge);
            const QStringList lines = chart.title().split(QLatin1Char('\n'));
            QCOMPARE(lines.size(), 2);
            QVERIFY2(lines[1].contains(QStringLiteral("run 1, run 2")), qPrintable(chart.title()));
            chart.removeRun(id + 1);
        }
        chart.removeRun(id); // the title goes with the last synthetic run
        QVERIFY(chart.title().isEmpty());
    }

    // Runs read in the order they were started, whichever was drawn first: in the title, the
    // legend and the history (the title read "run 2, run 1").
    void runsInTheOrderStarted_data()
    {
        QTest::addColumn<QList<int>>("drawn"); // the order setRun sees the runs
        QTest::addRow("in order") << QList<int>{1, 2, 3};
        QTest::addRow("newest first") << QList<int>{3, 2, 1};
        QTest::addRow("live run kept, others drawn again") << QList<int>{2, 3, 1};
    }
    void runsInTheOrderStarted()
    {
        QFETCH(QList<int>, drawn);
        LossChart chart;
        for (const int id : drawn) {
            chart.setRun(id, QStringLiteral("run %1").arg(id), {{1, 2.0}, {2, 1.0}}, {});
            chart.markSynthetic(id, QStringLiteral("synthetic data"));
        }
        QVERIFY2(chart.title().contains(QStringLiteral("run 1, run 2, run 3 on synthetic data")),
                 qPrintable(chart.title()));
        QStringList legend;
        for (int i = 0; i < chart.plot()->legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(chart.plot()->legend->item(i)))
                legend << item->plottable()->name().section(QLatin1Char(' '), 0, 1);
        QCOMPARE(legend, (QStringList{"run 1", "run 2", "run 3"}));

        QTemporaryDir tmp;
        RunHistory h;
        QVERIFY(h.open(tmp.path()));
        QList<qint64> ids;
        for (int i = 0; i < 3; ++i)
            ids << addRun(h, {});
        QList<qint64> listed;
        for (const RunRecord& r : h.runs())
            listed << r.id;
        QCOMPARE(listed, ids);
    }

    // At 1024 pixels the history's status of a synthetic run ("completed · synthetic") gives
    // way before the model's name: it is elided to its first word with its warning icon, and
    // the model stays readable without a sideways scroll bar (it was a sliver behind one).
    void modelReadableBesideASyntheticStatus_data()
    {
        QTest::addColumn<int>("width");
        QTest::addRow("1024 window") << 1024 - 210;
        QTest::addRow("1400 window") << 1400 - 210;
    }
    void modelReadableBesideASyntheticStatus()
    {
        QFETCH(int, width);
        QTemporaryDir tmp;
        {
            RunHistory h;
            QVERIFY(h.open(tmp.path()));
            addRun(h, {QStringLiteral("synthetic-weights"), QStringLiteral("synthetic-data")});
            addRun(h, {});
        }
        RunPanel panel;
        panel.setInteractive(false);
        panel.setProject(tmp.path());
        panel.resize(width, 640);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* view = panel.findChild<QTableView*>();
        QVERIFY(view);
        QCOMPARE(view->model()->rowCount(), 2);
        const QModelIndex status = view->model()->index(0, RunHistoryModel::Status);
        QVERIFY(status.data().toString().contains(QStringLiteral("synthetic")));
        QVERIFY(status.data(Qt::DecorationRole).isValid()); // the badge, whatever the width
        QVERIFY(
            !view->model()->index(1, RunHistoryModel::Status).data(Qt::DecorationRole).isValid());
        const QHeaderView* header = view->horizontalHeader();
        const QAbstractItemView* base = view;
        const int model = RunHistoryModel::Model;
        const QString widths = QStringLiteral("model %1 px (wants %2), status %3, viewport %4")
                                   .arg(header->sectionSize(model))
                                   .arg(base->sizeHintForColumn(model))
                                   .arg(header->sectionSize(RunHistoryModel::Status))
                                   .arg(view->viewport()->width());
        QTRY_VERIFY2(header->length() <= view->viewport()->width(), qPrintable(widths));
        // A model's name of 17 characters ("model.ResidualNet") reads whole at 1,024 pixels:
        // the status gives way first, down to its icon and a few letters (its tooltip is
        // whole); before, the name was cut to about 12 characters beside it.
        QVERIFY2(header->sectionSize(model) >= base->sizeHintForColumn(model), qPrintable(widths));
        for (int c : {int(RunHistoryModel::Id), int(RunHistoryModel::Loss),
                      int(RunHistoryModel::Steps), int(RunHistoryModel::Status)})
            QVERIFY(!header->isSectionHidden(c));
    }

    // Selecting a synthetic run in the Runs panel's history puts the badge in the chart title.
    void panelOverlay()
    {
        QTemporaryDir tmp;
        {
            RunHistory h;
            QVERIFY(h.open(tmp.path()));
            addRun(h, {QStringLiteral("synthetic-data")});
        }
        RunPanel panel;
        panel.setInteractive(false);
        panel.setProject(tmp.path());
        auto* view = panel.findChild<QTableView*>();
        QVERIFY(view);
        QCOMPARE(view->model()->rowCount(), 1);
        view->selectRow(0);
        QVERIFY2(panel.chart()->title().contains(QStringLiteral("synthetic data")),
                 qPrintable(panel.chart()->title()));
    }
};

QTEST_MAIN(TestSyntheticBadge)
#include "test_synthetic_badge.moc"
