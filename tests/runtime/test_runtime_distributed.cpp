// Data parallel over c10d/Gloo with real processes on this machine (issue 14): N ranks at a share
// of the batch end with the weights of one process at the whole batch; a run resumed under
// another number of ranks follows the uninterrupted one; a killed rank ends the job within the
// Gloo timeout with a message, not a hang.
#include "core/cluster/cluster.h"
#include "core/runtime/checkpoint.h"
#include "core/runtime/models.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <torch/torch.h>
#include <yaml-cpp/yaml.h>

using namespace portolan::runtime;
namespace fs = std::filesystem;

namespace {

const QString kParams = QStringLiteral(RUNTIME_FIXTURES "/data_parallel_mlp.yaml");

struct Run
{
    int exitCode = -1;
    QList<QJsonObject> events;
    QByteArray err;

    QJsonObject last(const QString& type) const
    {
        for (auto it = events.rbegin(); it != events.rend(); ++it)
            if (it->value("event").toString() == type)
                return *it;
        return {};
    }
    QList<double> losses() const
    {
        QList<double> l;
        for (const auto& e : events)
            if (e.value("event").toString() == "step")
                l << e.value("loss").toDouble();
        return l;
    }
};

QList<QJsonObject> parseEvents(const QByteArray& out)
{
    QList<QJsonObject> events;
    for (const QByteArray& line : out.split('\n')) {
        const QJsonDocument doc = QJsonDocument::fromJson(line);
        if (doc.isObject())
            events << doc.object();
    }
    return events;
}

Run train(const QString& project, QStringList extra)
{
    QProcess p;
    QStringList args{"train", project, "--params", kParams, "--events", "jsonl", "--threads", "1"};
    args += extra;
    p.start(PORTOLAN_CLI, args);
    Run r;
    if (!p.waitForFinished(180000)) {
        p.kill();
        p.waitForFinished();
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.events = parseEvents(p.readAllStandardOutput());
    r.err = p.readAllStandardError();
    return r;
}

std::vector<at::Tensor> weightsOf(const QString& checkpoint)
{
    const YAML::Node params = YAML::LoadFile(kParams.toStdString());
    auto model = buildModel(params["model"], kParams.toStdString());
    if (!model)
        qFatal("%s", model.error.toString().c_str());
    auto state =
        loadCheckpoint(checkpoint.toStdString(), model.value->net, nullptr, model.value->name);
    if (!state)
        qFatal("%s", state.error.toString().c_str());
    return model.value->net->parameters();
}

double maxDifference(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b)
{
    if (a.size() != b.size())
        return 1e9;
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
    return worst;
}

} // namespace

class TestRuntimeDistributed : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameWeightsAsOneProcess_data();
    void sameWeightsAsOneProcess();
    void resumeUnderOtherRankCount_data();
    void resumeUnderOtherRankCount();
    void lostRankEndsTheJob_data();
    void lostRankEndsTheJob();
    void rankEnvironmentErrors_data();
    void rankEnvironmentErrors();
};

void TestRuntimeDistributed::sameWeightsAsOneProcess_data()
{
    QTest::addColumn<int>("ranks");
    QTest::addColumn<QString>("bucketMb");
    QTest::addRow("2 ranks, 1 MB buckets") << 2 << "1";
    QTest::addRow("2 ranks, a bucket per layer") << 2 << "0.001";
    QTest::addRow("2 ranks, one all-reduce after backward") << 2 << "0";
    // 32 samples over 3 ranks: shares of 11, 11 and 10, weighted by their size.
    QTest::addRow("3 ranks, uneven shares") << 3 << "0.01";
}

// Weights are broadcast only at step 0, so equal weights after 10 steps mean that every step's
// all-reduce handed every rank the mean gradient of the whole batch.
void TestRuntimeDistributed::sameWeightsAsOneProcess()
{
    QFETCH(int, ranks);
    QFETCH(QString, bucketMb);
    QTemporaryDir one, many;
    const Run single = train(one.path(), {});
    QCOMPARE(single.exitCode, 0);
    const Run parallel =
        train(many.path(), {"--ranks", QString::number(ranks), "--bucket-mb", bucketMb});
    QVERIFY2(parallel.exitCode == 0, parallel.err.constData());

    const QJsonObject started = parallel.last("started");
    QCOMPARE(started["distributed"].toObject()["world_size"].toInt(), ranks);
    const QJsonObject step = parallel.last("step");
    QCOMPARE(step["rank_samples_per_sec"].toArray().size(), ranks);
    QVERIFY(step.contains("allreduce_s"));
    const QJsonObject finished = parallel.last("finished");
    QCOMPARE(finished["ranks"].toInt(), ranks);
    QVERIFY2(finished["rank_weights_identical"].toBool(),
             QJsonDocument(finished).toJson().constData());
    QCOMPARE(parallel.losses().size(), 10);

    const double diff = maxDifference(weightsOf(single.last("finished")["checkpoint"].toString()),
                                      weightsOf(finished["checkpoint"].toString()));
    qInfo("largest weight difference, %d ranks at B/%d vs 1 rank at B after 10 steps: %.3g", ranks,
          ranks, diff);
    QVERIFY2(diff < 1e-5, qPrintable(QString::number(diff)));
    const auto a = single.losses(), b = parallel.losses();
    for (int i = 0; i < a.size(); ++i)
        QVERIFY2(std::abs(a[i] - b[i]) < 1e-5, qPrintable(QString("step %1").arg(i + 1)));
}

void TestRuntimeDistributed::resumeUnderOtherRankCount_data()
{
    QTest::addColumn<int>("firstRanks");
    QTest::addColumn<int>("thenRanks");
    QTest::addRow("2 ranks, then 1") << 2 << 1;
    QTest::addRow("1 rank, then 2") << 1 << 2;
}

// Checkpoints count global batches, so the resumed run takes the same data in the same order.
void TestRuntimeDistributed::resumeUnderOtherRankCount()
{
    QFETCH(int, firstRanks);
    QFETCH(int, thenRanks);
    QTemporaryDir whole, split;
    const Run uninterrupted = train(whole.path(), {"--ranks", "2"});
    QCOMPARE(uninterrupted.exitCode, 0);
    const Run first = train(split.path(), {"--ranks", QString::number(firstRanks), "--steps", "5"});
    QCOMPARE(first.exitCode, 0);
    const QString checkpoint = first.last("finished")["checkpoint"].toString();
    QVERIFY(checkpoint.endsWith("step_0000000005.ckpt"));
    const Run then =
        train(split.path(), {"--ranks", QString::number(thenRanks), "--resume", checkpoint});
    QVERIFY2(then.exitCode == 0, then.err.constData());
    QCOMPARE(then.last("started")["resumed_from"].toObject()["step"].toInt(), 5);

    const QList<double> curve = first.losses() + then.losses();
    const QList<double> reference = uninterrupted.losses();
    QCOMPARE(curve.size(), reference.size());
    double distance = 0;
    for (int i = 0; i < curve.size(); ++i)
        distance = std::max(distance, std::abs(curve[i] - reference[i]));
    qInfo("resume %d -> %d ranks: largest loss difference from the uninterrupted run: %.3g",
          firstRanks, thenRanks, distance);
    QVERIFY(distance < 1e-5);
}

void TestRuntimeDistributed::lostRankEndsTheJob_data()
{
    QTest::addColumn<int>("signal");
    QTest::addRow("killed: its sockets close") << int(SIGKILL);
    QTest::addRow("stopped: it hangs, the Gloo timeout ends the job") << int(SIGSTOP);
}

// Two portolan-torch ranks started by hand (RANK/WORLD_SIZE): rank 1 is killed or stopped after
// rank 0's first step; rank 0 must end by itself, with a message naming the lost rank, within
// the timeout.
void TestRuntimeDistributed::lostRankEndsTheJob()
{
    QFETCH(int, signal);
    QTemporaryDir dir;
    const int port = portolan::cluster::freeTcpPort();
    const int timeoutS = 5;
    QProcess ranks[2];
    for (int r = 0; r < 2; ++r) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("RANK", QString::number(r));
        env.insert("WORLD_SIZE", "2");
        env.insert("MASTER_ADDR", "127.0.0.1");
        env.insert("MASTER_PORT", QString::number(port));
        ranks[r].setProcessEnvironment(env);
        ranks[r].start(PORTOLAN_TORCH,
                       {"train", dir.path(), "--params", kParams, "--events", "jsonl", "--threads",
                        "1", "--steps", "1000000", "--log-steps", "1", "--dist-timeout",
                        QString::number(timeoutS)});
    }
    QByteArray out;
    QElapsedTimer waiting;
    waiting.start();
    while (!out.contains("\"event\":\"step\"") && waiting.elapsed() < 60000) {
        ranks[0].waitForReadyRead(200);
        out += ranks[0].readAllStandardOutput();
    }
    QVERIFY2(out.contains("\"event\":\"step\""), ranks[0].readAllStandardError().constData());
    ::kill(pid_t(ranks[1].processId()), signal);
    QElapsedTimer ending;
    ending.start();
    const bool ended = ranks[0].waitForFinished((timeoutS + 20) * 1000);
    const double seconds = double(ending.elapsed()) / 1000.0;
    if (!ended)
        ranks[0].kill();
    ranks[0].waitForFinished();
    ranks[1].kill();
    ranks[1].waitForFinished();
    QVERIFY2(ended, "rank 0 still running after its rank was killed");
    qInfo("rank 1 %s: rank 0 ended %.2f s later (Gloo timeout %d s)",
          signal == SIGKILL ? "killed" : "stopped", seconds, timeoutS);
    QVERIFY(ranks[0].exitCode() != 0);
    out += ranks[0].readAllStandardOutput();
    const QJsonObject failed = Run{0, parseEvents(out), {}}.last("failed");
    QCOMPARE(failed["code"].toString(), QString("runtime.rank-lost"));
    QVERIFY2(seconds < timeoutS + 5, qPrintable(QString::number(seconds)));
}

void TestRuntimeDistributed::rankEnvironmentErrors_data()
{
    QTest::addColumn<QStringList>("variables"); // NAME=VALUE
    QTest::addColumn<QString>("expected");      // part of the message, empty: valid
    QTest::addRow("none: one process") << QStringList{} << "";
    QTest::addRow("torchrun's") << QStringList{"RANK=1", "WORLD_SIZE=2", "MASTER_PORT=29400"} << "";
    QTest::addRow("rank outside the world")
        << QStringList{"RANK=2", "WORLD_SIZE=2", "MASTER_PORT=29400"} << "RANK";
    QTest::addRow("port not a number")
        << QStringList{"RANK=0", "WORLD_SIZE=2", "MASTER_PORT=http"} << "MASTER_PORT";
    QTest::addRow("slurm") << QStringList{"SLURM_PROCID=1", "SLURM_NTASKS=4", "SLURM_JOB_ID=1234",
                                          "SLURM_JOB_NODELIST=node[07-09]"}
                           << "";
    QTest::addRow("slurm, bad task count")
        << QStringList{"SLURM_PROCID=0", "SLURM_NTASKS=zero", "SLURM_JOB_ID=1"} << "SLURM_NTASKS";
}

void TestRuntimeDistributed::rankEnvironmentErrors()
{
    QFETCH(QStringList, variables);
    QFETCH(QString, expected);
    std::map<std::string, std::string> vars;
    for (const QString& v : variables)
        vars[v.section('=', 0, 0).toStdString()] = v.section('=', 1).toStdString();
    const auto env =
        portolan::cluster::rankEnvFrom([&](const std::string& name) -> std::optional<std::string> {
            const auto it = vars.find(name);
            return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
        });
    if (!expected.isEmpty()) {
        QVERIFY(!env);
        QVERIFY2(QString::fromStdString(env.error.message).contains(expected),
                 env.error.message.c_str());
        return;
    }
    QVERIFY2(env, env.error.toString().c_str());
    if (vars.count("SLURM_PROCID")) {
        QCOMPARE(env.value->source, std::string("slurm"));
        QCOMPARE(env.value->rank, 1);
        QCOMPARE(env.value->worldSize, 4);
        QCOMPARE(env.value->masterAddr, std::string("node07"));
        QCOMPARE(env.value->masterPort, portolan::cluster::rendezvousPortForJob(1234));
    } else if (vars.count("RANK")) {
        QCOMPARE(env.value->rank, 1);
        QCOMPARE(env.value->masterPort, 29400);
    } else {
        QVERIFY(!env.value->distributed());
    }
}

QTEST_GUILESS_MAIN(TestRuntimeDistributed)
#include "test_runtime_distributed.moc"
