// Training runs of every sample model: the loss goes down, a seed makes a run deterministic, a
// resumed run continues exactly like an uninterrupted one, a stop request ends a run cleanly.
#include "core/runtime/checkpoint.h"
#include "core/runtime/run_config.h"
#include "core/runtime/trainer.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>
#include <torch/torch.h>

using namespace portolan::runtime;
namespace fs = std::filesystem;

namespace {

RunConfig sampleConfig(const QString& project, const QString& params = {})
{
    const fs::path dir = fs::path(PORTOLAN_SAMPLES) / project.toStdString();
    const fs::path file = params.isEmpty() ? *findParamsFile(dir) : fs::path(params.toStdString());
    auto c = loadRunConfig(dir, file);
    if (!c)
        qFatal("%s", c.error.toString().c_str());
    return *c.value;
}

RunConfig fixtureConfig(const QString& name, const fs::path& projectDir)
{
    auto c = loadRunConfig(projectDir, fs::path(RUNTIME_FIXTURES) / name.toStdString());
    if (!c)
        qFatal("%s", c.error.toString().c_str());
    return *c.value;
}

double mean(const std::vector<double>& v, std::size_t from, std::size_t count)
{
    double s = 0;
    for (std::size_t i = from; i < from + count; ++i)
        s += v[i];
    return s / double(count);
}

// What a run's losses show, by windows of ten steps (one batch's loss is noisy): the first
// window's mean, the last's, and the best (the lowest mean of ten consecutive losses).
struct Progress
{
    double first = 0, last = 0, best = 0;
};

Progress progressOf(const std::vector<double>& losses)
{
    const std::size_t w = 10;
    Progress p;
    p.first = mean(losses, 0, w);
    p.last = mean(losses, losses.size() - w, w);
    p.best = p.first;
    for (std::size_t i = 1; i + w <= losses.size(); ++i)
        p.best = std::min(p.best, mean(losses, i, w));
    return p;
}

// A run trained when it reached a loss well below where it started and ended below it: a run
// that does nothing (a rate of 0, no optimizer step) stays at its first window's level, while
// one that trained and then wandered on a seed's path still shows its best.
bool trained(const Progress& p)
{
    return p.best < 0.75 * p.first && p.last < p.first;
}

struct Collected
{
    std::vector<nlohmann::json> events;
    EventSink sink()
    {
        return [this](const nlohmann::json& e) {
            events.push_back(e);
        };
    }
    int count(const std::string& type) const
    {
        int n = 0;
        for (const auto& e : events)
            n += e.value("event", "") == type;
        return n;
    }
};

} // namespace

class TestRuntimeTraining : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setComputeThreads(1); } // the machine is shared; keep runs steady
    void lossDecreases_data();
    void lossDecreases();
    void sameSeedSameRun();
    void resumeMatchesUninterrupted_data();
    void resumeMatchesUninterrupted();
    void stopRequestCheckpoints();
    void evalModeUsesLatestCheckpoint();
    void corruptCheckpointFails();
    void emptyTrainingSetFails();
};

void TestRuntimeTraining::lossDecreases_data()
{
    QTest::addColumn<QString>("project");
    QTest::addColumn<int>("steps");
    QTest::addColumn<bool>("frozen"); // the learning rate set to 0: the run must not pass
    QTest::addRow("mnist-mlp") << "mnist-mlp-cerebras-pytorch" << 200 << false;
    QTest::addRow("alphabet-transformer") << "alphabet-transformer-cerebras-layers" << 100 << false;
    QTest::addRow("small-cnn") << "small-cnn-poptorch" << 120 << false;
    QTest::addRow("determined-cifar") << "image-classifier-determined" << 150 << false;
    QTest::addRow("mnist-mlp, rate 0") << "mnist-mlp-cerebras-pytorch" << 200 << true;
    QTest::addRow("determined-cifar, rate 0") << "image-classifier-determined" << 150 << true;
}

// The loss goes down, judged on windows of steps rather than on one seed's path: the run's seed
// first, then two others if it did not train (an initialisation that stalls is the seed's, not
// the runtime's); every seed tried is reported. With a rate of 0 no seed may pass.
void TestRuntimeTraining::lossDecreases()
{
    QFETCH(QString, project);
    QFETCH(int, steps);
    QFETCH(bool, frozen);
    RunConfig c = sampleConfig(project);
    if (frozen)
        c.optimizer.schedule = LrSchedule::constant(0.0);
    bool any = false;
    QString said;
    for (int k = 0; k < 3 && !any; ++k) {
        QTemporaryDir tmp;
        TrainOptions o;
        o.steps = steps;
        o.seed = c.seed + k;
        o.checkpointDir = tmp.path().toStdString();
        o.checkpointSteps = 0;
        Collected got;
        QElapsedTimer timer;
        timer.start();
        auto r = runTraining(c, o, got.sink());
        QVERIFY2(r, r.error.toString().c_str());
        const auto& losses = r.value->losses;
        QCOMPARE(int(losses.size()), steps);
        const Progress p = progressOf(losses);
        const QString line = QString("%1 seed %2: loss %3 -> %4, best %5 in %6 steps, %7 s")
                                 .arg(project)
                                 .arg(*o.seed)
                                 .arg(p.first, 0, 'f', 4)
                                 .arg(p.last, 0, 'f', 4)
                                 .arg(p.best, 0, 'f', 4)
                                 .arg(steps)
                                 .arg(double(timer.elapsed()) / 1000.0, 0, 'f', 1);
        qInfo("%s", qPrintable(line));
        said += line + "\n";
        any = trained(p);
        QCOMPARE(got.count("started"), 1);
        QCOMPARE(got.count("finished"), 1);
        QCOMPARE(got.events.back().value("reason", ""), std::string("completed"));
        QVERIFY(fs::exists(r.value->lastCheckpoint));
    }
    QVERIFY2(any != frozen, qPrintable(said));
}

void TestRuntimeTraining::sameSeedSameRun()
{
    QTemporaryDir tmp;
    RunConfig c = fixtureConfig("mlp_hidden_sizes.yaml", tmp.path().toStdString());
    TrainOptions o;
    o.steps = 15;
    o.checkpointDir = tmp.path().toStdString();
    auto a = runTraining(c, o, {});
    auto b = runTraining(c, o, {});
    o.seed = 4;
    auto other = runTraining(c, o, {});
    QVERIFY(a && b && other);
    QCOMPARE(a.value->losses, b.value->losses);
    QVERIFY(a.value->losses != other.value->losses);
}

void TestRuntimeTraining::resumeMatchesUninterrupted_data()
{
    QTest::addColumn<QString>("project"); // empty: the MLP fixture (AdamW, warm-up, accumulation)
    QTest::addColumn<int>("total");
    QTest::addColumn<int>("interruptAt");
    QTest::addRow("mlp adamw accumulation dropout") << QString() << 60 << 20;
    QTest::addRow("transformer adam dropout") << "alphabet-transformer-cerebras-layers" << 40 << 13;
    QTest::addRow("small cnn sgd momentum dropout") << "small-cnn-poptorch" << 30 << 11;
}

void TestRuntimeTraining::resumeMatchesUninterrupted()
{
    QFETCH(QString, project);
    QFETCH(int, total);
    QFETCH(int, interruptAt);
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const RunConfig c =
        project.isEmpty() ? fixtureConfig("mlp_hidden_sizes.yaml", dir) : sampleConfig(project);
    TrainOptions full;
    full.steps = total;
    full.mode = RunMode::TrainAndEval;
    full.evalEvery = 7; // evaluations in between must not disturb the training stream
    full.checkpointDir = dir / "full";
    full.checkpointSteps = 0;
    auto uninterrupted = runTraining(c, full, {});
    QVERIFY2(uninterrupted, uninterrupted.error.toString().c_str());

    TrainOptions first = full;
    first.steps = interruptAt;
    first.checkpointDir = dir / "part";
    auto part = runTraining(c, first, {});
    QVERIFY(part);
    QVERIFY(fs::exists(part.value->lastCheckpoint));

    TrainOptions second = full;
    second.checkpointDir = dir / "part";
    second.resumeFrom = part.value->lastCheckpoint;
    Collected got;
    auto rest = runTraining(c, second, got.sink());
    QVERIFY2(rest, rest.error.toString().c_str());
    QCOMPARE(int(rest.value->losses.size()), total - interruptAt);
    QVERIFY(got.events.front().contains("resumed_from"));
    std::vector<double> resumed = part.value->losses;
    resumed.insert(resumed.end(), rest.value->losses.begin(), rest.value->losses.end());
    // Exact, not approximate: the same bits as the uninterrupted run.
    QCOMPARE(resumed, uninterrupted.value->losses);
    QCOMPARE(rest.value->evals.back().loss, uninterrupted.value->evals.back().loss);
}

void TestRuntimeTraining::stopRequestCheckpoints()
{
    QTemporaryDir tmp;
    RunConfig c = fixtureConfig("mlp_hidden_sizes.yaml", tmp.path().toStdString());
    std::atomic<bool> stop{false};
    TrainOptions o;
    o.steps = 100000;
    o.checkpointDir = tmp.path().toStdString();
    o.stopRequested = &stop;
    Collected got;
    int steps = 0;
    auto sink = [&](const nlohmann::json& e) {
        got.events.push_back(e);
        if (e.value("event", "") == "step" && ++steps == 5)
            stop = true;
    };
    auto r = runTraining(c, o, sink);
    QVERIFY(r);
    QCOMPARE(r.value->reason, std::string("stopped"));
    QCOMPARE(r.value->step, int64_t(6)); // asked after step 5 was reported: step 6 finishes
    QCOMPARE(got.events.back().value("reason", ""), std::string("stopped"));
    QCOMPARE(got.count("checkpoint"), 1);
    QVERIFY(fs::exists(r.value->lastCheckpoint));
}

void TestRuntimeTraining::evalModeUsesLatestCheckpoint()
{
    QTemporaryDir tmp;
    RunConfig c = fixtureConfig("mlp_hidden_sizes.yaml", tmp.path().toStdString());
    TrainOptions train;
    train.steps = 40;
    train.checkpointDir = tmp.path().toStdString();
    QVERIFY(runTraining(c, train, {}));
    TrainOptions eval;
    eval.mode = RunMode::Eval;
    eval.checkpointDir = train.checkpointDir;
    Collected got;
    auto r = runTraining(c, eval, got.sink());
    QVERIFY2(r, r.error.toString().c_str());
    QCOMPARE(got.count("eval"), 1);
    QCOMPARE(got.count("step"), 0);
    QCOMPARE(got.events.front()["resumed_from"].value("step", 0), 40);
    // 256 synthetic eval samples, drop_last false with batch 64.
    QCOMPARE(r.value->evals.back().samples, int64_t(256));
    QVERIFY(r.value->evals.back().accuracy > 0.2); // trained: well above chance (0.1)
}

void TestRuntimeTraining::corruptCheckpointFails()
{
    QTemporaryDir tmp;
    const fs::path bad = fs::path(tmp.path().toStdString()) / "step_0000000001.ckpt";
    QFile f(QString::fromStdString(bad.string()));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a checkpoint");
    f.close();
    RunConfig c = fixtureConfig("mlp_hidden_sizes.yaml", tmp.path().toStdString());
    TrainOptions o;
    o.steps = 5;
    o.resumeFrom = bad;
    o.checkpointDir = tmp.path().toStdString();
    Collected got;
    auto r = runTraining(c, o, got.sink());
    QVERIFY(!r);
    QCOMPARE(r.error.code, std::string("runtime.checkpoint-corrupt"));
    QCOMPARE(got.events.back().value("event", ""), std::string("failed"));
    QCOMPARE(got.count("finished"), 0);
}

void TestRuntimeTraining::emptyTrainingSetFails()
{
    QTemporaryDir tmp;
    RunConfig c = fixtureConfig("mlp_hidden_sizes.yaml", tmp.path().toStdString());
    c.train.samples = 5; // fewer than one batch of 32 with drop_last
    TrainOptions o;
    o.steps = 5;
    o.checkpointDir = tmp.path().toStdString();
    Collected got;
    auto r = runTraining(c, o, got.sink());
    QVERIFY(!r);
    QVERIFY(QString::fromStdString(r.error.message).contains("fewer samples than one batch"));
    QCOMPARE(got.events.back().value("event", ""), std::string("failed"));
}

QTEST_GUILESS_MAIN(TestRuntimeTraining)
#include "test_runtime_training.moc"
