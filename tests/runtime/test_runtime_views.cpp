// The GUI side of runs: event parsing, the child-process controller (garbage, crashes, stop,
// kill), the SQLite run history, the loss chart (scales, smoothing, export, 1 M points) and the
// run panel driving the real portolan-cli.
#include "core/dryrun/dry_run.h"
#include "dryrun_support.h"
#include "views/runs/argument_dialog.h"
#include "views/runs/loss_chart.h"
#include "views/runs/run_controller.h"
#include "views/runs/run_history.h"
#include "views/runs/run_panel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

using namespace portolan::views;

namespace {

const QString kFakeCli = QStringLiteral(RUNTIME_FIXTURES "/fake_cli.sh");

// A copy of a sample project, so that runs never write into the repository.
QString copySample(const QTemporaryDir& tmp, const QString& name)
{
    const QString src = QStringLiteral(PORTOLAN_SAMPLES "/") + name;
    const QString dst = tmp.filePath(name);
    QDir().mkpath(dst + "/configs");
    for (const QString& f : QDir(src).entryList(QDir::Files))
        QFile::copy(src + "/" + f, dst + "/" + f);
    for (const QString& f : QDir(src + "/configs").entryList(QDir::Files))
        QFile::copy(src + "/configs/" + f, dst + "/configs/" + f);
    return dst;
}

} // namespace

class TestRuntimeViews : public QObject
{
    Q_OBJECT

private slots:
    void parseEventLine_data();
    void parseEventLine();
    void garbageIsHandled();
    void crashKeepsEarlierEventsInHistory();
    void runThatCannotStartSaysWhy();
    void builtinNeedsAKnownModel_data();
    void builtinNeedsAKnownModel();
    void failedRunInTheChart();
    void exitWithoutFinalEvent();
    void historyPersistsAndModelIsSane();
    void lossChart();
    void lossChartMillionPoints();
    void panelRunsTheCli();
    void panelLocalRanks();
    void panelSlurmScript_data();
    void panelSlurmScript();
    void panelDryRun();
    void panelDryRunAsksForArguments();
    void argumentDialog_data();
    void argumentDialog();
    void panelStopAndKill();
};

void TestRuntimeViews::parseEventLine_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("type");
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("hasLoss");
    QTest::addColumn<double>("loss");
    using K = portolan::views::RunEvent::Kind;
    QTest::addRow("step") << QByteArray(R"({"event":"step","step":3,"loss":1.0})") << "step"
                          << int(K::Step) << true << 1.0;
    QTest::addRow("spaces") << QByteArray("  {\"event\": \"eval\"}  \r") << "eval" << int(K::Eval)
                            << false << 0.0;
    // A dry run writes null for a loss that was not a number: no point on the chart.
    QTest::addRow("null loss") << QByteArray(R"({"event":"step","step":2,"loss":null})") << "step"
                               << int(K::Step) << false << 0.0;
    QTest::addRow("finished final loss")
        << QByteArray(R"({"event":"finished","final_loss":0.25,"reason":"completed"})")
        << "finished" << int(K::Finished) << true << 0.25;
    QTest::addRow("capture") << QByteArray(R"({"event":"capture","model":"m.Net"})") << "capture"
                             << int(K::Capture) << false << 0.0;
    QTest::addRow("unknown kind") << QByteArray(R"({"event":"later"})") << "later" << int(K::Other)
                                  << false << 0.0;
    QTest::addRow("text") << QByteArray("step 10 loss 0.5") << "" << int(K::Other) << false << 0.0;
    QTest::addRow("truncated") << QByteArray(R"({"event":"step","loss":)") << "" << int(K::Other)
                               << false << 0.0;
    QTest::addRow("array") << QByteArray("[{\"event\":\"step\"}]") << "" << int(K::Other) << false
                           << 0.0;
    QTest::addRow("no event") << QByteArray(R"({"step":1})") << "" << int(K::Other) << false << 0.0;
    QTest::addRow("event not a string")
        << QByteArray(R"({"event":7})") << "" << int(K::Other) << false << 0.0;
    QTest::addRow("empty event") << QByteArray(R"({"event":""})") << "" << int(K::Other) << false
                                 << 0.0;
    QTest::addRow("binary") << QByteArray("\xff\xfe{\x01") << "" << int(K::Other) << false << 0.0;
}

void TestRuntimeViews::parseEventLine()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, type);
    QFETCH(int, kind);
    QFETCH(bool, hasLoss);
    QFETCH(double, loss);
    const auto e = portolan::views::RunEvent::parse(line);
    QCOMPARE(e.type, type);
    QCOMPARE(e.isValid(), !type.isEmpty());
    QCOMPARE(int(e.kind), kind);
    QCOMPARE(e.loss.has_value(), hasLoss);
    if (hasLoss)
        QCOMPARE(*e.loss, loss);
}

void TestRuntimeViews::garbageIsHandled()
{
    QTemporaryDir tmp;
    QDir().mkpath(tmp.filePath("garbage"));
    RunController c;
    QSignalSpy events(&c, &RunController::eventReceived);
    QSignalSpy finished(&c, &RunController::finished);
    QVERIFY(c.startBuiltin(kFakeCli, tmp.filePath("garbage"), {}));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20000);
    // started, two steps and the final event without a trailing newline
    QCOMPARE(events.size(), 4);
    QCOMPARE(c.garbageLines(), 5);
    QCOMPARE(finished.first().at(0).value<RunStatus>(), RunStatus::Completed);
}

void TestRuntimeViews::crashKeepsEarlierEventsInHistory()
{
    QTemporaryDir tmp;
    const QString project = tmp.filePath("crash");
    QDir().mkpath(project + "/configs");
    // A built-in run needs a params file to start (the fake CLI does not read it).
    QFile params(project + "/configs/params.yaml");
    QVERIFY(params.open(QIODevice::WriteOnly));
    params.write("model: {name: fc_mnist}\n");
    params.close();
    RunPanel panel;
    panel.setCliPath(kFakeCli);
    panel.setProject(project);
    QSignalSpy done(&panel, &RunPanel::runFinished);
    panel.start();
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 20000);
    QCOMPARE(done.first().at(1).toString(), QStringLiteral("failed"));
    const qint64 run = panel.currentRun();
    // A fresh connection, as after a restart of the GUI: everything reported is there.
    RunHistory reopened;
    QVERIFY(reopened.open(project));
    const RunRecord r = reopened.run(run);
    QCOMPARE(r.status, QStringLiteral("failed"));
    QVERIFY2(r.reason.contains("crashed"), qPrintable(r.reason));
    QVERIFY2(r.reason.contains("boom"), qPrintable(r.reason));
    QCOMPARE(reopened.events(run).size(), 3);
    QCOMPARE(reopened.lossCurve(run).size(), 2);
    QCOMPARE(r.model, QStringLiteral("fc_mnist"));
    QCOMPARE(panel.chart()->pointCount(run), 2);
    // Marked failed in the chart (its legend says so) and in the history (alert colour, icon).
    QVERIFY(panel.chart()->isFailed(run));
    QCOMPARE(panel.historyModel()->index(0, RunHistoryModel::Status).data().toString(),
             QStringLiteral("failed"));
    QVERIFY(
        panel.historyModel()->index(0, RunHistoryModel::Status).data(Qt::ForegroundRole).isValid());
    QVERIFY(
        panel.historyModel()->index(0, RunHistoryModel::Status).data(Qt::DecorationRole).isValid());
}

// Issue 26: a run that cannot start (no params file) had Start enabled and failed in the log
// with "give --params". Start is disabled, and the reason is next to it; a dry run can start.
void TestRuntimeViews::runThatCannotStartSaysWhy()
{
    QTemporaryDir tmp;
    const QString project = tmp.filePath("no-params");
    QDir().mkpath(project);
    QFile code(project + "/train.py");
    QVERIFY(code.open(QIODevice::WriteOnly));
    code.write("print('hi')\n");
    code.close();
    RunPanel panel;
    panel.setInteractive(false);
    panel.setCliPath(kFakeCli);
    panel.setProject(project);
    panel.setRunKind(RunPanel::RunKind::Builtin);
    panel.show();
    QVERIFY(!panel.startButton()->isEnabled());
    QVERIFY2(panel.startBlockedReason().contains(QStringLiteral("No params file")),
             qPrintable(panel.startBlockedReason()));
    QVERIFY(!panel.startBlockedReason().contains(QStringLiteral("--params")));
    bool shown = false;
    for (const QLabel* l : panel.findChildren<QLabel*>())
        shown = shown || (l->isVisible() && l->text() == panel.startBlockedReason());
    QVERIFY2(shown, "the reason is shown next to Start");
    panel.start(); // ignored: nothing is run, nothing is written
    QVERIFY(!panel.isRunning());
    QCOMPARE(panel.currentRun(), 0);
    QVERIFY(!QFileInfo::exists(project + "/.portolan/runs.sqlite"));
    // A dry run needs no params file.
    panel.setRunKind(RunPanel::RunKind::DryRun);
    QVERIFY(panel.startBlockedReason().isEmpty());
    QVERIFY(panel.startButton()->isEnabled());
    // A params file chosen meanwhile (in the Porting tab) enables Start when the tab shows.
    panel.setRunKind(RunPanel::RunKind::Builtin);
    QFile params(project + "/params.yaml");
    QVERIFY(params.open(QIODevice::WriteOnly));
    params.write("model: {name: fc_mnist}\n");
    params.close();
    panel.hide();
    panel.show();
    QVERIFY(panel.startBlockedReason().isEmpty());
    QVERIFY(panel.startButton()->isEnabled());
}

// Issue 26: a project whose params file names no model the built-in runtime knows (a Graphcore
// application's configs.yml) had Start enabled, and the run failed in the log ("the params file
// has no model: section"). Start is off with the reason, and its link switches to the dry run.
void TestRuntimeViews::builtinNeedsAKnownModel_data()
{
    QTest::addColumn<QByteArray>("params");
    QTest::addColumn<bool>("startable");
    QTest::addRow("Graphcore named configs")
        << QByteArray("b16_cifar10:\n  model:\n    hidden_size: 768\n") << false;
    QTest::addRow("unknown model name") << QByteArray("model: {name: resnet50}\n") << false;
    QTest::addRow("not YAML") << QByteArray("model: [unclosed\n") << false;
    QTest::addRow("known model") << QByteArray("model: {name: fc_mnist}\n") << true;
    // The Trainer API generation keeps its model under trainer.init (issue 26: "names none of
    // its models").
    QTest::addRow("Trainer configuration")
        << QByteArray("trainer:\n  init:\n    model: {name: fc_mnist}\n") << true;
    QTest::addRow("Determined CIFAR trial")
        << QByteArray("hyperparameters: {conv1_channels: 8, conv2_channels: 16}\n") << true;
}

void TestRuntimeViews::builtinNeedsAKnownModel()
{
    QFETCH(QByteArray, params);
    QFETCH(bool, startable);
    QTemporaryDir tmp;
    QFile file(tmp.filePath("params.yaml"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(params);
    file.close();
    RunPanel panel;
    panel.setInteractive(false);
    panel.setCliPath(kFakeCli);
    panel.setProject(tmp.path());
    panel.setRunKind(RunPanel::RunKind::Builtin);
    panel.show();
    QCOMPARE(panel.startButton()->isEnabled(), startable);
    QCOMPARE(panel.startBlockedReason().isEmpty(), startable);
    // The history's header reads whole up to the model's name at this narrow width (a stretched
    // Model column shrank to nothing and read "Aode").
    panel.resize(1024 - 210, 640);
    QCoreApplication::processEvents();
    auto* history = panel.findChild<QTableView*>();
    QVERIFY(history);
    const QHeaderView* header = history->horizontalHeader();
    for (int c : {int(RunHistoryModel::Status), int(RunHistoryModel::Loss),
                  int(RunHistoryModel::Steps), int(RunHistoryModel::Model)}) {
        QVERIFY2(header->sectionSize(c) >= header->sectionSizeHint(c) - 4,
                 qPrintable(QStringLiteral("column %1: %2 px for %3")
                                .arg(c)
                                .arg(header->sectionSize(c))
                                .arg(header->sectionSizeHint(c))));
        QVERIFY(header->sectionViewportPosition(c) + header->sectionSize(c) <=
                history->viewport()->width());
    }
    // No sideways scroll bar: the mode and start time give way (hidden) first.
    QVERIFY2(
        header->length() <= history->viewport()->width(),
        qPrintable(
            QStringLiteral("%1 px in %2").arg(header->length()).arg(history->viewport()->width())));
    if (startable)
        return;
    QVERIFY2(panel.startBlockedReason().contains(QStringLiteral("cannot rebuild this model")),
             qPrintable(panel.startBlockedReason()));
    auto* reason = panel.findChild<QLabel*>(QStringLiteral("startReason"));
    QVERIFY(reason && reason->isVisible());
    QCOMPARE(reason->text(), panel.startBlockedReason());
    // Its link is the way such a project runs: the dry run of its own code.
    emit reason->linkActivated(QStringLiteral("dryrun"));
    QCOMPARE(panel.runKind(), RunPanel::RunKind::DryRun);
    QVERIFY(panel.startBlockedReason().isEmpty());
    QVERIFY(panel.startButton()->isEnabled());
}

// A run that failed before its first step shows why in the chart, not an empty legend.
void TestRuntimeViews::failedRunInTheChart()
{
    LossChart chart;
    chart.setRun(1, QStringLiteral("run 1"), {}, {});
    chart.markFailed(1, QStringLiteral("the run could not be started"));
    QVERIFY(chart.isFailed(1));
    QVERIFY2(chart.placeholderText().contains(QStringLiteral("failed before its first step")),
             qPrintable(chart.placeholderText()));
    QVERIFY(chart.placeholderText().contains(QStringLiteral("could not be started")));
    QVERIFY(!chart.plot()->legend->visible());
    // Another run with points: its curve and legend are shown.
    chart.setRun(2, QStringLiteral("run 2"), {{1, 2.0}, {2, 1.5}}, {});
    QVERIFY(chart.plot()->legend->visible());
    QVERIFY(chart.placeholderText().isEmpty());
}

void TestRuntimeViews::exitWithoutFinalEvent()
{
    QTemporaryDir tmp;
    QDir().mkpath(tmp.filePath("exit3"));
    RunController c;
    QSignalSpy finished(&c, &RunController::finished);
    QVERIFY(c.startBuiltin(kFakeCli, tmp.filePath("exit3"), {}));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20000);
    QCOMPARE(finished.first().at(0).value<RunStatus>(), RunStatus::Failed);
    const QString reason = finished.first().at(1).toString();
    QVERIFY2(reason.contains("status 3") && reason.contains("something went wrong"),
             qPrintable(reason));

    RunController missing;
    QSignalSpy failed(&missing, &RunController::finished);
    missing.startBuiltin(tmp.filePath("no-such-cli"), tmp.path(), {});
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 20000);
    QCOMPARE(failed.first().at(0).value<RunStatus>(), RunStatus::Failed);
}

void TestRuntimeViews::historyPersistsAndModelIsSane()
{
    QTemporaryDir tmp;
    {
        RunHistory h;
        QVERIFY(h.open(tmp.path()));
        QSqlQuery q(QSqlDatabase::database(QSqlDatabase::connectionNames().first()));
        const qint64 a = h.beginRun("train", QJsonObject{{"arguments", "--steps 3"}});
        using portolan::views::RunEvent;
        h.appendEvent(a, RunEvent::fromJson(QJsonObject{{"event", "started"},
                                                        {"model", "small_cnn"},
                                                        {"config", QJsonObject{{"seed", 1}}}}));
        for (int i = 1; i <= 3; ++i)
            h.appendEvent(a, RunEvent::fromJson(
                                 QJsonObject{{"event", "step"}, {"step", i}, {"loss", 3.0 - i}}));
        // A step whose loss was not a number: kept in the events, not on the curve.
        h.appendEvent(a, RunEvent::fromJson(QJsonObject{
                             {"event", "step"}, {"step", 4}, {"loss", QJsonValue::Null}}));
        h.appendEvent(
            a, RunEvent::fromJson(QJsonObject{{"event", "eval"}, {"step", 3}, {"loss", 0.7}}));
        h.finishRun(a, "completed", "completed");
        const qint64 b = h.beginRun("eval", {});
        h.finishRun(b, "failed", "no checkpoint");
    }
    QVERIFY(QFileInfo::exists(tmp.filePath(".portolan/runs.sqlite")));
    RunHistory h;
    QVERIFY(h.open(tmp.path()));
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "wal-check");
        db.setDatabaseName(h.databasePath());
        QVERIFY(db.open());
        QSqlQuery q("PRAGMA journal_mode", db);
        QVERIFY(q.next());
        QCOMPARE(q.value(0).toString(), QStringLiteral("wal"));
    }
    QSqlDatabase::removeDatabase("wal-check");
    // In the order they were started, as the chart's legend and title list them.
    const auto runs = h.runs();
    QCOMPARE(runs.size(), 2);
    QCOMPARE(runs[0].model, QStringLiteral("small_cnn"));
    QCOMPARE(runs[0].lastStep, qint64(4)); // the step without a loss counts as a step
    QCOMPARE(runs[0].config["resolved"].toObject()["seed"].toInt(), 1);
    QCOMPARE(runs[1].status, QStringLiteral("failed"));
    QCOMPARE(h.lossCurve(runs[0].id), (QVector<QPointF>{{1, 2}, {2, 1}, {3, 0}}));
    QCOMPARE(h.evalPoints(runs[0].id), (QVector<QPointF>{{3, 0.7}}));

    RunHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRuns(runs);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, RunHistoryModel::Status).data().toString(),
             QStringLiteral("completed"));
    model.setRuns({});
    QCOMPARE(model.rowCount(), 0);

    QVERIFY(!RunHistory::gitignoreCoversPortolan(tmp.path()));
    QVERIFY(RunHistory::addPortolanToGitignore(tmp.path()));
    QVERIFY(RunHistory::gitignoreCoversPortolan(tmp.path()));
}

void TestRuntimeViews::lossChart()
{
    QTemporaryDir tmp;
    LossChart chart;
    chart.resize(600, 400);
    QVector<QPointF> loss;
    for (int i = 1; i <= 100; ++i)
        loss << QPointF(i, 2.0 / i + (i % 2 ? 0.1 : -0.1));
    chart.setRun(1, "run 1", loss, {{50, 0.05}, {100, 0.03}});
    chart.appendLoss(2, 1, 2.0);
    chart.appendLoss(2, 2, 1.0);
    chart.appendEval(2, 2, 0.9);
    QCOMPARE(chart.runIds().size(), 2);
    QCOMPARE(chart.pointCount(1), 100);
    chart.setLogScale(true);
    QCOMPARE(chart.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    chart.setSmoothing(0.9);
    // Smoothed display, raw values kept: the shown last point is between the raw extremes.
    const double shown = chart.plot()->graph(0)->data()->at(99)->value;
    QVERIFY(shown > 0.0 && std::abs(shown - loss.last().y()) > 1e-6);
    for (const char* suffix : {"png", "pdf", "csv"}) {
        const QString file = tmp.filePath(QStringLiteral("chart.") + suffix);
        QString error;
        QVERIFY2(chart.exportTo(file, &error), qPrintable(error));
        QVERIFY(QFileInfo(file).size() > 0);
    }
    QFile csv(tmp.filePath("chart.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.first(), QStringLiteral("run,kind,step,loss"));
    QCOMPARE(lines.size(), 1 + 100 + 2 + 2 + 1); // raw values, not smoothed
    QVERIFY(
        lines.contains(QStringLiteral("\"run 1\",train,100,%1").arg(loss.last().y(), 0, 'g', 10)));
    QString error;
    QVERIFY(!chart.exportTo(tmp.filePath("chart.bmp"), &error));
    QVERIFY(error.contains("unknown export format"));
    chart.removeRun(1);
    QCOMPARE(chart.runIds(), QList<qint64>{2});
}

void TestRuntimeViews::lossChartMillionPoints()
{
    // A long run's curve is kept whole (the redraw figure is tests/bench/bench_gui_loss_chart).
    LossChart chart;
    chart.resize(1200, 700);
    QVector<QPointF> loss;
    loss.reserve(1000000);
    for (int i = 0; i < 1000000; ++i)
        loss << QPointF(i, 2.0 * std::exp(-i / 2e5) + 0.01 * std::sin(i));
    chart.setRun(1, "1 M points", loss, {});
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCOMPARE(chart.pointCount(1), 1000000);
}

void TestRuntimeViews::panelRunsTheCli()
{
    QTemporaryDir tmp;
    const QString project = copySample(tmp, "mnist-mlp-cerebras-pytorch");
    RunPanel panel;
    panel.resize(1200, 800);
    panel.setCliPath(PORTOLAN_CLI);
    panel.setProject(project);
    panel.setSteps(20);
    panel.setMode("train_and_eval");
    QSignalSpy done(&panel, &RunPanel::runFinished);
    panel.start();
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 120000);
    QCOMPARE(done.first().at(1).toString(), QStringLiteral("completed"));
    const qint64 run = panel.currentRun();
    QCOMPARE(panel.history()->lossCurve(run).size(), 20);
    QCOMPARE(panel.history()->evalPoints(run).size(), 1);
    QCOMPARE(panel.chart()->pointCount(run), 20);
    QCOMPARE(panel.historyModel()->rowCount(), 1);
    QCOMPARE(panel.history()->run(run).status, QStringLiteral("completed"));
    QVERIFY(panel.history()->run(run).config.contains("resolved"));
    QVERIFY(QFileInfo::exists(project + "/.portolan/runs.sqlite"));
    QVERIFY(!QFileInfo::exists(project + "/.gitignore")); // never written without asking
}

// Run on: local processes: portolan-cli train --ranks 2, one history entry like a local run's.
void TestRuntimeViews::panelLocalRanks()
{
    QTemporaryDir tmp;
    const QString project = copySample(tmp, "mnist-mlp-cerebras-pytorch");
    RunPanel panel;
    panel.setCliPath(PORTOLAN_CLI);
    panel.setProject(project);
    panel.setSteps(10);
    panel.setRunOn(RunPanel::RunOn::LocalProcesses);
    panel.setRanks(2);
    QVERIFY(panel.jobScriptPreview().isEmpty());
    QSignalSpy done(&panel, &RunPanel::runFinished);
    panel.start();
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 120000);
    QCOMPARE(done.first().at(1).toString(), QStringLiteral("completed"));
    QVERIFY(panel.controller()->arguments().contains("--ranks"));
    const qint64 run = panel.currentRun();
    QCOMPARE(panel.history()->lossCurve(run).size(), 10);
    QCOMPARE(panel.history()->run(run).config.value("run_on").toString(),
             QStringLiteral("local processes"));
}

void TestRuntimeViews::panelSlurmScript_data()
{
    QTest::addColumn<int>("kind"); // RunPanel::RunKind
    QTest::addColumn<int>("ranks");
    QTest::addColumn<QString>("partition");
    QTest::addColumn<QStringList>("expected");
    QTest::addRow("training, 3 ranks")
        << int(RunPanel::RunKind::Builtin) << 3 << ""
        << QStringList{"#SBATCH --ntasks-per-node=3", "srun --label --kill-on-bad-exit=1",
                       "portolan-torch train", "--steps 7"};
    QTest::addRow("training, a partition")
        << int(RunPanel::RunKind::Builtin) << 2 << "gpu"
        << QStringList{"#SBATCH --partition=gpu", "#SBATCH --ntasks-per-node=2"};
    QTest::addRow("dry run: one task")
        << int(RunPanel::RunKind::DryRun) << 4 << ""
        << QStringList{"#SBATCH --ntasks-per-node=1", "portolan-cli run", "--dry-run"};
}

// The job script shown before submitting is core/cluster's, with the panel's fields.
void TestRuntimeViews::panelSlurmScript()
{
    QFETCH(int, kind);
    QFETCH(int, ranks);
    QFETCH(QString, partition);
    QFETCH(QStringList, expected);
    QTemporaryDir tmp;
    const QString project = copySample(tmp, "mnist-mlp-cerebras-pytorch");
    RunPanel panel;
    panel.setCliPath(PORTOLAN_CLI);
    panel.setProject(project);
    panel.setRunKind(RunPanel::RunKind(kind));
    panel.setRunOn(RunPanel::RunOn::Slurm);
    panel.setSteps(7);
    panel.setRanks(ranks);
    if (!partition.isEmpty())
        panel.findChild<QComboBox*>(QStringLiteral("partition"))->setCurrentText(partition);
    const QString script = panel.jobScriptPreview();
    QVERIFY(script.startsWith("#!/bin/bash\n"));
    QVERIFY(script.contains(project));
    for (const QString& e : expected)
        QVERIFY2(script.contains(e), qPrintable(e + "\n" + script));
    panel.setRunOn(RunPanel::RunOn::ThisMachine);
    QVERIFY(panel.jobScriptPreview().isEmpty());
}

void TestRuntimeViews::panelStopAndKill()
{
    QTemporaryDir tmp;
    const QString project = copySample(tmp, "mnist-mlp-cerebras-pytorch");
    RunPanel panel;
    panel.setCliPath(PORTOLAN_CLI);
    panel.setProject(project);
    panel.setSteps(10000000);
    QSignalSpy done(&panel, &RunPanel::runFinished);
    panel.start();
    QTRY_VERIFY_WITH_TIMEOUT(panel.chart()->pointCount(panel.currentRun()) >= 3, 60000);
    panel.stop();
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 60000);
    QCOMPARE(done.last().at(1).toString(), QStringLiteral("stopped"));
    const qint64 first = panel.currentRun();
    bool checkpointed = false;
    for (const auto& e : panel.history()->events(first))
        checkpointed = checkpointed || e.value("event").toString() == "checkpoint";
    QVERIFY(checkpointed);

    panel.start();
    QTRY_VERIFY_WITH_TIMEOUT(panel.chart()->pointCount(panel.currentRun()) >= 2, 60000);
    panel.kill();
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 60000);
    QCOMPARE(done.last().at(1).toString(), QStringLiteral("failed"));
    QVERIFY(panel.history()->run(panel.currentRun()).reason.contains("killed"));
    QVERIFY(panel.history()->lossCurve(panel.currentRun()).size() >= 2);
    QCOMPARE(panel.historyModel()->rowCount(), 2);
}

void TestRuntimeViews::panelDryRun()
{
    QStandardPaths::setTestModeEnabled(true); // settings go to a test location
    QTemporaryDir config;
    QTemporaryDir tmp;
    qputenv("PORTOLAN_CONFIG_DIR", config.path().toUtf8());
    const QString project = tmp.filePath("small-cnn-poptorch");
    QVERIFY(copyProject(PORTOLAN_SAMPLES "/small-cnn-poptorch", project));
    RunPanel panel;
    panel.setInteractive(false);
    panel.setCliPath(PORTOLAN_CLI);
    panel.setProject(project);
    panel.setRunKind(RunPanel::RunKind::DryRun);
    panel.setSteps(3);
    panel.setBatch(2);
    QSignalSpy done(&panel, &RunPanel::runFinished);
    // Not trusted, and nobody to ask: nothing of the project runs.
    QVERIFY(!panel.isTrusted());
    panel.start();
    QVERIFY(!panel.isRunning());
    QCOMPARE(panel.currentRun(), qint64(0));
    QVERIFY(!QFileInfo::exists(project + "/.portolan/capture"));

    QVERIFY(!portolan::dryrun::TrustStore().setTrusted(project.toStdString(), true));
    panel.setProject(project);
    QVERIFY(panel.isTrusted());
    panel.start();
    QVERIFY(panel.isRunning());
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 240000);
    QCOMPARE(done.first().at(1).toString(), QStringLiteral("completed"));
    const qint64 run = panel.currentRun();
    // The live chart got the three steps; the history keeps the run and names the model.
    QCOMPARE(panel.chart()->pointCount(run), 3);
    const RunRecord record = panel.history()->run(run);
    QCOMPARE(record.mode, QStringLiteral("dry_run"));
    QCOMPARE(record.model, QStringLiteral("model.SmallCNN"));
    QCOMPARE(record.lastStep, qint64(3));
    QCOMPARE(panel.history()->lossCurve(run).size(), 3);
    QCOMPARE(record.config.value("runtime").toString(), QStringLiteral("dry_run"));
    bool captured = false;
    for (const QJsonObject& e : panel.history()->events(run))
        captured = captured || e.value("event").toString() == "capture";
    QVERIFY(captured);
    QVERIFY(QFileInfo::exists(project + "/.portolan/capture/capture.json"));
    QAbstractItemModelTester tester(panel.historyModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(panel.historyModel()->index(0, RunHistoryModel::Mode).data().toString(),
             QStringLiteral("dry_run"));
}

void TestRuntimeViews::panelDryRunAsksForArguments()
{
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir config;
    QTemporaryDir tmp;
    qputenv("PORTOLAN_CONFIG_DIR", config.path().toUtf8());
    const QString project = tmp.filePath("required-args");
    QVERIFY(copyProject(PORTOLAN_FIXTURES "/projects/required-args-original", project));
    QVERIFY(!portolan::dryrun::TrustStore().setTrusted(project.toStdString(), true));
    RunPanel panel;
    panel.setInteractive(false);
    panel.setCliPath(PORTOLAN_CLI);
    panel.setProject(project);
    panel.setRunKind(RunPanel::RunKind::DryRun);
    QSignalSpy asked(&panel, &RunPanel::argumentsRequired);
    QSignalSpy done(&panel, &RunPanel::runFinished);
    panel.start();
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 240000);
    QCOMPARE(done.first().at(1).toString(), QStringLiteral("failed"));
    QCOMPARE(asked.size(), 1);
    const QJsonArray arguments = asked.first().at(0).toJsonArray();
    QCOMPARE(arguments.size(), 2);
    // The answers, as the dialog gives them, make the next run work.
    ArgumentDialog dialog("train.py", arguments);
    dialog.setAnswer(0, "8");
    dialog.setAnswer(1, "tanh");
    panel.setDryRunArguments(dialog.words().join(' '));
    panel.start();
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 240000);
    QCOMPARE(done.last().at(1).toString(), QStringLiteral("completed"));
    // Kept for this project.
    RunPanel again;
    again.setProject(project);
    QCOMPARE(again.dryRunArguments(), QStringLiteral("--width 8 --activation tanh"));
}

void TestRuntimeViews::argumentDialog_data()
{
    QTest::addColumn<QByteArray>("arguments");
    QTest::addColumn<QStringList>("answers");
    QTest::addColumn<QStringList>("words");
    QTest::addRow("options") << QByteArray(R"([{"flag":"--dataset","choices":["fake","mnist"]},
                                             {"flag":"--dataroot","type":"str"}])")
                             << QStringList{"fake", "/data"}
                             << QStringList{"--dataset", "fake", "--dataroot", "/data"};
    QTest::addRow("positional") << QByteArray(R"([{"flag":"config","positional":true}])")
                                << QStringList{"a b.yaml"} << QStringList{"a b.yaml"};
    QTest::addRow("left empty") << QByteArray(R"([{"flag":"--x"},{"flag":"--y"}])")
                                << QStringList{"", "2"} << QStringList{"--y", "2"};
}

void TestRuntimeViews::argumentDialog()
{
    QFETCH(QByteArray, arguments);
    QFETCH(QStringList, answers);
    QFETCH(QStringList, words);
    ArgumentDialog dialog("main.py", QJsonDocument::fromJson(arguments).array());
    for (int i = 0; i < answers.size(); ++i)
        dialog.setAnswer(i, answers[i]);
    QCOMPARE(dialog.words(), words);
}

QTEST_MAIN(TestRuntimeViews)
#include "test_runtime_views.moc"
