// portolan-cli submit --slurm against a real Slurm cluster started for the test (LocalSlurm): a
// 2-rank training job whose events come back from its output file (the loss falls, both ranks
// end with identical weights, the run's events are complete), a cancelled job ends "stopped"
// with its earlier events kept, and the partitions sinfo lists. Skipped, with the reason, only
// where the daemons cannot start.
#include "core/cluster/cluster.h"
#include "local_slurm.h"
#include "views/runs/loss_chart.h"
#include "views/runs/run_history.h"
#include "views/runs/run_panel.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

namespace {

const QString kParams = QStringLiteral(RUNTIME_FIXTURES "/data_parallel_mlp.yaml");

QList<QJsonObject> eventsOf(const QByteArray& out)
{
    QList<QJsonObject> events;
    for (const QByteArray& line : out.split('\n')) {
        const QJsonDocument doc = QJsonDocument::fromJson(line);
        if (doc.isObject())
            events << doc.object();
    }
    return events;
}

QList<QJsonObject> ofType(const QList<QJsonObject>& events, const QString& type)
{
    QList<QJsonObject> out;
    for (const auto& e : events)
        if (e["event"].toString() == type)
            out << e;
    return out;
}

} // namespace

class TestClusterLocal : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void partitions();
    void trainingJob();
    void cancelledJobIsStopped();
    void dryRunJob();
    void runsTabOnSlurm();

private:
    LocalSlurm m_slurm;
};

void TestClusterLocal::initTestCase()
{
    const QString problem = m_slurm.start();
    if (!problem.isEmpty())
        QSKIP(qPrintable("no local Slurm cluster: " + problem));
    qInfo("local Slurm cluster idle %.2f s after start (%s)", m_slurm.startSeconds(),
          qPrintable(m_slurm.confPath()));
}

void TestClusterLocal::partitions()
{
    const auto p = portolan::cluster::listPartitions();
    QVERIFY2(p, p.error.toString().c_str());
    QCOMPARE(p.value->size(), std::size_t(1));
    QCOMPARE(p.value->front().name, std::string("debug"));
    QVERIFY(p.value->front().isDefault);
}

void TestClusterLocal::trainingJob()
{
    QTemporaryDir project;
    QProcess cli;
    QElapsedTimer timer;
    timer.start();
    cli.start(PORTOLAN_CLI, {"submit", project.path(), "--slurm", "--ntasks-per-node", "2",
                             "--params", kParams, "--steps", "30", "--events", "jsonl"});
    QVERIFY(cli.waitForFinished(120000));
    const QByteArray err = cli.readAllStandardError();
    const auto events = eventsOf(cli.readAllStandardOutput());
    QVERIFY2(cli.exitCode() == 0, err.constData());

    const auto submitted = ofType(events, "submitted");
    QCOMPARE(submitted.size(), 1);
    QVERIFY(QFile::exists(submitted[0]["script"].toString()));
    QVERIFY(submitted[0]["script"].toString().contains("/.portolan/jobs/"));
    QVERIFY(QFile::exists(submitted[0]["output"].toString()));
    const auto started = ofType(events, "started");
    QCOMPARE(started.size(), 1);
    const QJsonObject dist = started[0]["distributed"].toObject();
    QCOMPARE(dist["world_size"].toInt(), 2);
    QCOMPARE(dist["source"].toString(), QString("slurm"));
    QCOMPARE(dist["job_id"].toInteger(), submitted[0]["job_id"].toInteger());
    const auto steps = ofType(events, "step");
    QCOMPARE(steps.size(), 30);
    double first = 0, last = 0;
    for (int i = 0; i < 5; ++i) {
        first += steps[i]["loss"].toDouble() / 5;
        last += steps[steps.size() - 1 - i]["loss"].toDouble() / 5;
    }
    QVERIFY2(last < first, qPrintable(QString("loss %1 -> %2").arg(first).arg(last)));
    const auto finished = ofType(events, "finished");
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished[0]["reason"].toString(), QString("completed"));
    QCOMPARE(finished[0]["ranks"].toInt(), 2);
    QVERIFY(finished[0]["rank_weights_identical"].toBool());
    QVERIFY(QFile::exists(finished[0]["checkpoint"].toString()));
    QCOMPARE(ofType(events, "job").last()["state"].toString(), QString("COMPLETED"));
    QVERIFY(ofType(events, "failed").isEmpty());
    const double firstStep = steps[0]["time"].toDouble() - submitted[0]["time"].toDouble();
    qInfo("2-rank job: submit to first step %.2f s, whole job %.2f s, loss %.3f -> %.3f", firstStep,
          double(timer.elapsed()) / 1000.0, first, last);
}

void TestClusterLocal::cancelledJobIsStopped()
{
    QTemporaryDir project;
    QProcess cli;
    cli.start(PORTOLAN_CLI, {"submit", project.path(), "--slurm", "--ntasks-per-node", "2",
                             "--params", kParams, "--steps", "10000000", "--events", "jsonl"});
    QByteArray out;
    QElapsedTimer waiting;
    waiting.start();
    while (!out.contains("\"event\":\"step\"") && waiting.elapsed() < 60000) {
        cli.waitForReadyRead(200);
        out += cli.readAllStandardOutput();
    }
    QVERIFY2(out.contains("\"event\":\"step\""), cli.readAllStandardError().constData());
    ::kill(pid_t(cli.processId()), SIGTERM); // what the GUI's Stop does: scancel
    QVERIFY(cli.waitForFinished(60000));
    out += cli.readAllStandardOutput();
    QCOMPARE(cli.exitCode(), 0);
    const auto events = eventsOf(out);
    QVERIFY(!ofType(events, "step").isEmpty()); // kept
    QCOMPARE(ofType(events, "job").last()["state"].toString(), QString("CANCELLED"));
    const auto finished = ofType(events, "finished");
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished[0]["reason"].toString(), QString("stopped"));
}

// A project's own Python code as its own job: `submit --dry-run` writes a one-task srun script
// of `portolan-cli run --dry-run`, and the dry run's events (steps, the capture) come back from
// the job's output file as a training job's do. Trust is not passed to the job: the project must
// already be trusted where it runs, here through the store the job inherits (PORTOLAN_CONFIG_DIR).
void TestClusterLocal::dryRunJob()
{
    QTemporaryDir tmp;
    const QString project = tmp.filePath("pipelined");
    QVERIFY(QProcess::execute("/bin/cp", {"-r", PROJECT_FIXTURES "/pipelined-poptorch", project}) ==
            0);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PORTOLAN_CONFIG_DIR", tmp.filePath("config"));
    QProcess cli;
    cli.setProcessEnvironment(env);
    cli.start(PORTOLAN_CLI, {"trust", project});
    QVERIFY(cli.waitForFinished(30000));
    QCOMPARE(cli.exitCode(), 0);

    QElapsedTimer timer;
    timer.start();
    cli.start(PORTOLAN_CLI,
              {"submit", project, "--slurm", "--dry-run", "--steps", "2", "--events", "jsonl"});
    QVERIFY(cli.waitForFinished(240000));
    const QByteArray err = cli.readAllStandardError();
    const auto events = eventsOf(cli.readAllStandardOutput());
    QVERIFY2(cli.exitCode() == 0, err.constData());
    const auto submitted = ofType(events, "submitted");
    QCOMPARE(submitted.size(), 1);
    QVERIFY(QFile(submitted[0]["script"].toString()).open(QIODevice::ReadOnly));
    const auto started = ofType(events, "started");
    QCOMPARE(started.size(), 1);
    QCOMPARE(started[0]["mode"].toString(), QString("dry_run"));
    QCOMPARE(ofType(events, "step").size(), 2);
    QCOMPARE(ofType(events, "capture").size(), 1);
    const auto finished = ofType(events, "finished");
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished[0]["reason"].toString(), QString("completed"));
    QVERIFY(finished[0]["captured"].toBool());
    QCOMPARE(ofType(events, "job").last()["state"].toString(), QString("COMPLETED"));
    qInfo("dry-run job: submit to finished %.2f s", double(timer.elapsed()) / 1000.0);
}

// The Runs tab with "Run on: Slurm cluster": the same live chart and history entry as a local run.
void TestClusterLocal::runsTabOnSlurm()
{
    QTemporaryDir tmp;
    const QString project = tmp.filePath("mnist");
    QVERIFY(QProcess::execute(
                "/bin/cp", {"-r", PORTOLAN_SAMPLES "/mnist-mlp-cerebras-pytorch", project}) == 0);
    portolan::views::RunPanel panel;
    panel.setInteractive(false);
    panel.setCliPath(PORTOLAN_CLI);
    panel.setProject(project);
    panel.setRunOn(portolan::views::RunPanel::RunOn::Slurm);
    panel.setRanks(2);
    panel.setSteps(12);
    QVERIFY(panel.jobScriptPreview().contains("#SBATCH --ntasks-per-node=2"));
    QSignalSpy done(&panel, &portolan::views::RunPanel::runFinished);
    panel.start();
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 120000);
    QCOMPARE(done.first().at(1).toString(), QStringLiteral("completed"));
    const qint64 run = panel.currentRun();
    const auto entry = panel.history()->run(run);
    QCOMPARE(entry.status, QStringLiteral("completed"));
    QCOMPARE(entry.config.value("run_on").toString(), QStringLiteral("slurm"));
    QCOMPARE(panel.history()->lossCurve(run).size(), 12);
    QCOMPARE(panel.chart()->pointCount(run), 12);
    QVERIFY(QFileInfo::exists(project + "/.portolan/runs.sqlite"));
    QVERIFY(!QDir(project + "/.portolan/jobs").entryList({"*.sbatch"}).isEmpty());
}

QTEST_MAIN(TestClusterLocal)
#include "test_cluster_local.moc"
