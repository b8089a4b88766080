// IPU and CS simulation: accounting that adds up, hand-computed numbers, schedules, advice.
#include "core/graph/recorder.h"
#include "core/graph/synthetic.h"
#include "core/sim/auto_config.h"
#include "core/sim/compile.h"
#include "core/sim/ipu_memory.h"
#include "core/sim/ipu_sim.h"
#include "core/sim/remedies.h"
#include "core/sim/schedule.h"
#include "core/sim/summary.h"
#include "test_models.h"

#include <QTest>
#include <cctype>

using namespace portolan;
using namespace portolan::sim;

namespace {

graph::OpGraph mlpGraph(int hidden = 256)
{
    torch::manual_seed(0);
    auto r =
        graph::recordSequential(test::mlp(784, hidden, 10), torch::zeros({4, 1, 28, 28}), "mlp");
    return *r.value;
}

} // namespace

class TestSimIpu : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void accountingAddsUp_data()
    {
        QTest::addColumn<int>("ipus");
        QTest::addColumn<QString>("target");
        QTest::addColumn<int>("schedule");
        QTest::addRow("mk2-1") << 1 << "ipu-mk2" << int(Schedule::OneFOneB);
        QTest::addRow("mk2-2-gpipe") << 2 << "ipu-mk2" << int(Schedule::GPipe);
        QTest::addRow("mk1-4") << 4 << "ipu-mk1" << int(Schedule::OneFOneB);
        QTest::addRow("bow-3") << 3 << "ipu-bow" << int(Schedule::OneFOneB);
    }
    void accountingAddsUp()
    {
        QFETCH(int, ipus);
        QFETCH(QString, target);
        QFETCH(int, schedule);
        CompileOptions o;
        o.target = target.toStdString();
        o.ipus = ipus;
        o.training.microBatch = 8;
        o.training.gradAccum = 4;
        o.training.optimizer = Optimizer::Adam;
        o.training.schedule = Schedule(schedule);
        auto r = compileGraph(mlpGraph(), o);
        QVERIFY2(r, r.error.toString().c_str());
        const IpuProfile& p = *r.value->ipu;
        QCOMPARE(int(p.stages.size()), ipus);
        QCOMPARE(int(p.tileBytes[0].size()), ipus * p.tilesPerIpu);
        // Always-live: per-tile sum == sum of always-live variables' mapped bytes.
        std::int64_t tileAlways = 0, tileNal = 0, tileAll = 0;
        for (std::size_t t = 0; t < p.tileBytes[0].size(); ++t) {
            tileAlways += p.tileBytes[int(MemoryCategory::AlwaysLive)][t];
            tileNal += p.tileBytes[int(MemoryCategory::NotAlwaysLive)][t];
            tileAll += p.tileTotal(int(t));
        }
        std::int64_t varAlways = 0, modelStatic = 0;
        for (const auto& v : p.variables)
            if (v.alwaysLive)
                varAlways += v.bytesPerTile * v.tileCount;
        QCOMPARE(tileAlways, varAlways);
        // Not-always-live on tiles == the peak step's not-always-live bytes, stage by stage.
        std::int64_t peakNal = 0;
        for (const auto& st : p.stages) {
            std::int64_t stagePeak = 0;
            for (const auto& step : p.steps)
                if (step.stage == st.index)
                    stagePeak = std::max(stagePeak, step.notAlwaysLiveBytes);
            peakNal += stagePeak;
            for (const auto& m :
                 ipuOpMemory(r.value->graph, o.training, ipuModelConstants(), p.tileCapacity,
                             p.tilesPerIpu - p.ioTilesPerIpu, st.firstOp, st.endOp))
                modelStatic += m.weights + m.accumulators + m.optimizerState + m.masterWeights;
        }
        QCOMPARE(tileNal, peakNal);
        // The variables are the memory model's figures, rounded up to whole grains per tile.
        QVERIFY(varAlways >= modelStatic);
        QVERIFY(varAlways < modelStatic + 16 * std::int64_t(p.variables.size()) * p.tilesPerIpu);
        // Category totals == tile totals == the profile's total.
        std::int64_t categories = 0;
        for (const auto& cat : p.tileBytes)
            for (auto b : cat)
                categories += b;
        QCOMPARE(categories, tileAll);
        QCOMPARE(p.totalBytes, tileAll);
        std::int64_t stageSum = 0;
        for (const auto& st : p.stages)
            stageSum += st.usedBytes;
        QCOMPARE(stageSum, tileAll);
        // Schedule: every micro-batch forward and backward on every stage.
        QCOMPARE(int(p.schedule.size()), 2 * ipus * 4);
        QCOMPARE(p.bubble, double(ipus - 1) / double(4 + ipus - 1));
        QVERIFY(p.samplesPerSecond > 0);
        QVERIFY(r.value->fits);
    }

    void handComputedMapping()
    {
        // fc1 of the MLP: 784*256 + 256 = 200,960 parameters, 803,840 fp32 bytes. Spread over
        // all 1,472 Mk2 tiles (803,840 / 128 > 1,472): ceil(803,840 / 1,472) = 547 bytes,
        // rounded up to the 16-byte grain = 560 bytes per tile.
        CompileOptions o;
        auto r = compileGraph(mlpGraph(), o);
        QVERIFY(r);
        const auto& vars = r.value->ipu->variables;
        auto it = std::find_if(vars.begin(), vars.end(),
                               [](const Variable& v) { return v.name == "fc1/weight"; });
        QVERIFY(it != vars.end());
        QCOMPARE(it->bytes, std::int64_t(803840));
        QCOMPARE(it->tileCount, 1472);
        QCOMPARE(it->bytesPerTile, std::int64_t(560));
        // fc3: 2,570 params = 10,280 bytes -> ceil(10,280 / 128) = 81 tiles, 127 -> 128 bytes.
        it = std::find_if(vars.begin(), vars.end(),
                          [](const Variable& v) { return v.name == "fc3/weight"; });
        QCOMPARE(it->tileCount, 81);
        QCOMPARE(it->bytesPerTile, std::int64_t(128));
        // Stash of fc1's input: 784 floats per sample, micro-batch 1, one in flight.
        it = std::find_if(vars.begin(), vars.end(),
                          [](const Variable& v) { return v.kind == "stash"; });
        QVERIFY(it != vars.end());
    }

    void scheduleByHand()
    {
        // Two equal stages, forward 1 s, backward 2 s, m = 3, GPipe: F0 0-1, F1 1-2, F2 2-3 on
        // stage 0; stage 1 backwards start after its last forward at 4; the step ends when
        // stage 0 finishes its third backward: 4+2 (B0 s1) ... = 12.
        auto ev = simulateSchedule(Schedule::GPipe, {1, 1}, {2, 2}, {0, 0}, 3);
        double end = 0;
        for (const auto& e : ev)
            end = std::max(end, e.end);
        QCOMPARE(end, 12.0);
        // 1F1B gives the same makespan here and never runs more than p forwards ahead.
        ev = simulateSchedule(Schedule::OneFOneB, {1, 1}, {2, 2}, {0, 0}, 3);
        end = 0;
        for (const auto& e : ev)
            end = std::max(end, e.end);
        QCOMPARE(end, 12.0);
        QCOMPARE(bubbleFraction(4, 12), 3.0 / 15.0);
    }

    void scheduleEndWithoutEventsMatchesTheEvents()
    {
        // The figures read the end without the events: it must be the events' last end, bit for
        // bit, with 2 x p x m events, on uneven stages and links and both schedules (GPipe runs
        // as 1F1B with a warm-up of all m forwards).
        for (const Schedule kind : {Schedule::GPipe, Schedule::OneFOneB})
            for (const int p : {1, 2, 5, 33})
                for (const int m : {1, 3, 8, 40}) {
                    std::vector<double> fwd, bwd, link;
                    for (int s = 0; s < p; ++s) {
                        fwd.push_back(0.1 + 0.37 * ((s * 7) % 5) / 3.0);
                        bwd.push_back(0.23 + 0.61 * ((s * 3) % 4) / 7.0);
                        link.push_back(s % 3 == 0 ? 0.0 : 0.011 * s);
                    }
                    // Without the events first: computed, not taken from an earlier call.
                    const double alone = scheduleEnd(kind, fwd, bwd, link, m, nullptr);
                    std::vector<ScheduleEvent> ev;
                    const double withEvents = scheduleEnd(kind, fwd, bwd, link, m, &ev);
                    QCOMPARE(int(ev.size()), 2 * p * m);
                    double last = 0;
                    for (const auto& e : ev)
                        last = std::max(last, e.end);
                    QVERIFY(last == withEvents);
                    QVERIFY2(alone == withEvents,
                             (std::to_string(p) + " stages, " + std::to_string(m)).c_str());
                    QVERIFY(scheduleEnd(kind, fwd, bwd, link, m, nullptr) == withEvents);
                }
    }

    void scheduleEndIsReusedOnlyForTheSameInputs_data()
    {
        QTest::addColumn<int>("change");
        QTest::newRow("a stage's forward") << 0;
        QTest::newRow("a stage's backward") << 1;
        QTest::newRow("a link") << 2;
        QTest::newRow("the micro-batches") << 3;
        QTest::newRow("the schedule") << 4;
        QTest::newRow("one stage more") << 5;
    }

    void scheduleEndIsReusedOnlyForTheSameInputs()
    {
        // The advice asks for the same schedule again when a remedy leaves the stages' times as
        // they were; any change of an input is a schedule of its own, with the end its events
        // give.
        QFETCH(int, change);
        std::vector<double> fwd{1, 3, 2, 2}, bwd{2, 6, 4, 4}, link{0.5, 0.5, 0.5};
        Schedule kind = Schedule::OneFOneB;
        int m = 6;
        const double before = scheduleEnd(kind, fwd, bwd, link, m, nullptr);
        switch (change) {
        case 0:
            fwd[1] = 5;
            break;
        case 1:
            bwd[2] = 9;
            break;
        case 2:
            link[0] = 2;
            break;
        case 3:
            m = 7;
            break;
        case 4:
            kind = Schedule::GPipe;
            break;
        default:
            fwd.push_back(3);
            bwd.push_back(6);
            break;
        }
        const double after = scheduleEnd(kind, fwd, bwd, link, m, nullptr);
        std::vector<ScheduleEvent> ev;
        QCOMPARE(after, scheduleEnd(kind, fwd, bwd, link, m, &ev));
        QVERIFY(after != before);
    }

    void persistentTermsAreTheWholeModelsPersistentTerms_data()
    {
        QTest::addColumn<int>("change");
        QTest::newRow("adam, accumulation") << 0;
        QTest::newRow("recomputation") << 1;
        QTest::newRow("mixed, state off chip") << 2;
        QTest::newRow("inference") << 3;
        QTest::newRow("fp16 sgd, half partials, sharded") << 4;
    }

    void persistentTermsAreTheWholeModelsPersistentTerms()
    {
        // The automatic split reads only what stays live across a step: asked for those terms
        // alone, each op's are the same numbers as in full, and the temporaries are left out.
        QFETCH(int, change);
        TrainingConfig c;
        c.microBatch = 4;
        c.gradAccum = 8;
        c.optimizer = Optimizer::Adam;
        if (change == 1)
            c.recompute = true;
        if (change == 2) {
            c.precision = Precision::Mixed;
            c.optimizerOffChip = true;
        }
        if (change == 3)
            c.inference = true;
        if (change == 4) {
            c.precision = Precision::Fp16;
            c.optimizer = Optimizer::Sgd;
            c.halfPartials = true;
            c.replicas = 2;
            c.replicatedTensorSharding = true;
        }
        const auto g = mlpGraph();
        const int n = int(g.ops.size());
        const auto& k = ipuModelConstants();
        for (const auto& [first, end] : {std::pair{0, n}, std::pair{1, n - 1}}) {
            const auto all = ipuOpMemory(g, c, k, 638976, 1472, first, end);
            const auto persistent =
                ipuOpMemory(g, c, k, 638976, 1472, first, end, nullptr, OpMemoryTerms::Persistent);
            QCOMPARE(persistent.size(), all.size());
            std::int64_t temporaries = 0;
            for (std::size_t i = 0; i < all.size(); ++i) {
                QCOMPARE(persistent[i].weights, all[i].weights);
                QCOMPARE(persistent[i].accumulators, all[i].accumulators);
                QCOMPARE(persistent[i].optimizerState, all[i].optimizerState);
                QCOMPARE(persistent[i].masterWeights, all[i].masterWeights);
                QCOMPARE(persistent[i].stash, all[i].stash);
                QCOMPARE(persistent[i].updateTemp, all[i].updateTemp);
                QCOMPARE(persistent[i].vocabulary, all[i].vocabulary);
                QCOMPARE(persistent[i].forwardTemp + persistent[i].backwardTemp +
                             persistent[i].recomputeStash + persistent[i].outputGradient,
                         std::int64_t(0));
                temporaries += all[i].forwardTemp + all[i].backwardTemp;
            }
            QVERIFY(temporaries > 0); // the full terms do have temporaries to leave out
        }
    }

    void scheduleEventsOnlyInFullDetail_data()
    {
        QTest::addColumn<int>("ipus");
        QTest::addColumn<int>("schedule");
        QTest::newRow("1 IPU") << 1 << int(Schedule::OneFOneB);
        QTest::newRow("3 IPUs, 1F1B") << 3 << int(Schedule::OneFOneB);
        QTest::newRow("2 IPUs, GPipe") << 2 << int(Schedule::GPipe);
    }

    void scheduleEventsOnlyInFullDetail()
    {
        // The trace and the report read the schedule's events; the summary reads only the
        // step, which every detail gives the same.
        QFETCH(int, ipus);
        QFETCH(int, schedule);
        CompileOptions o;
        o.target = "ipu-mk1";
        o.ipus = ipus;
        o.training.gradAccum = 5;
        o.training.schedule = Schedule(schedule);
        const auto g = mlpGraph();
        auto full = compileGraph(g, o, nullptr, SimDetail::Full);
        auto summary = compileGraph(g, o, nullptr, SimDetail::Summary);
        QVERIFY2(full && summary, "compiles");
        QCOMPARE(int(full.value->ipu->schedule.size()), 2 * ipus * 5);
        QVERIFY(summary.value->ipu->schedule.empty());
        QCOMPARE(summary.value->ipu->stepSeconds, full.value->ipu->stepSeconds);
        QCOMPARE(summary.value->samplesPerSecond, full.value->samplesPerSecond);
    }

    void summaryHeadingsAreCapitalised_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<int>("ipus");
        QTest::newRow("one IPU") << "ipu-mk2" << 1;
        QTest::newRow("a pipeline of 3") << "ipu-mk1" << 3;
        QTest::newRow("a wafer") << "cs-2" << 1;
    }

    void summaryHeadingsAreCapitalised()
    {
        // A summary line's heading is what comes before its first colon outside parentheses,
        // when that is words (not figures): "Target:", "Pipeline (automatic split, 1f1b):",
        // "Tile memory:". Headings are capitalised whatever their indent.
        QFETCH(QString, target);
        QFETCH(int, ipus);
        CompileOptions o;
        o.target = target.toStdString();
        o.ipus = ipus;
        auto r = compileGraph(mlpGraph(), o);
        QVERIFY2(r, r.error.toString().c_str());
        int headings = 0;
        for (const std::string& line : summarize(*r.value).lines) {
            const std::size_t start = line.find_first_not_of(' ');
            int depth = 0;
            std::size_t colon = std::string::npos;
            bool words = true;
            for (std::size_t i = start; i < line.size() && colon == std::string::npos; ++i) {
                const char ch = line[i];
                if (ch == '(')
                    ++depth;
                else if (ch == ')')
                    --depth;
                else if (ch == ':' && depth == 0)
                    colon = i;
                else if (depth == 0 && !std::isalpha(static_cast<unsigned char>(ch)) && ch != ' ' &&
                         ch != '\'')
                    words = false;
            }
            if (colon == std::string::npos || !words || colon == start)
                continue;
            ++headings;
            QVERIFY2(std::isupper(static_cast<unsigned char>(line[start])), line.c_str());
        }
        QVERIFY(headings >= 3); // Model, Target and Memory at least
    }

    void userSplit()
    {
        CompileOptions o;
        o.ipus = 2;
        o.split = {3, 3};
        auto r = compileGraph(mlpGraph(), o);
        QVERIFY2(r, r.error.toString().c_str());
        QCOMPARE(r.value->ipu->splitSource, std::string("user"));
        QCOMPARE(r.value->ipu->splitUnit, std::string("layers"));
        QCOMPARE(r.value->ipu->stages[1].firstOp, 3);
        o.split = {3, 2};
        r = compileGraph(mlpGraph(), o);
        QVERIFY(!r);
        QVERIFY(r.error.message.find("6") != std::string::npos);
    }

    void doesNotFitAndAdvice()
    {
        // 784-4608-4608-10 with Adam in fp32 on one Mk1: ~25 M parameters x 12 bytes (weight and
        // two Adam slots) = 299 MB always live, with the weight gradient and the matmul
        // temporaries beyond 304 MiB (319 MB) of tiles.
        CompileOptions o;
        o.target = "ipu-mk1";
        o.training.optimizer = Optimizer::Adam;
        o.training.microBatch = 16;
        auto r = compileGraph(mlpGraph(4608), o);
        QVERIFY(r);
        QVERIFY(!r.value->fits);
        QVERIFY(r.value->ipu->oomTiles > 0);
        QVERIFY(!r.value->advice.empty());
        bool someFit = false;
        for (const auto& a : r.value->advice) {
            // Every remedy helps except recomputation, which has nothing to drop in an MLP whose
            // layers are single ops.
            // A smaller micro-batch with gradient accumulation adds accumulators, which here
            // cost more than the activations it saves: reported as a negative saving.
            if (a.id != "recompute" && a.id != "smaller-micro-batch")
                QVERIFY2(a.bytesSaved > 0, a.id.c_str());
            someFit = someFit || a.fitsAfter;
            std::printf("  %s: saves %lld bytes, %s\n", a.id.c_str(), (long long)a.bytesSaved,
                        a.fitsAfter ? "fits" : "does not fit");
            // Mk1 has no streaming memory: state off chip is never offered there.
            QVERIFY(a.id != "optimizer-off-chip");
        }
        // The largest layer (4608 x 4608 with Adam's two fp32 slots and its gradient) alone is
        // more than a Mk1 holds: only state off chip made one remedy enough, and a Mk1 has no
        // streaming memory to keep it in. No single remedy fits; each still helps.
        QVERIFY(!someFit);
    }

    // IPU Mk1 has no streaming memory (ipu-mk1.yaml streaming_memory: false): --auto and the
    // advice never propose optimizer state off chip there, and a compile that asks for it does
    // not fit, with the reason, instead of "fits" beside an error.
    void mk1NeverOffChip()
    {
        auto mk1 = targets::loadTarget("ipu-mk1");
        auto mk2 = targets::loadTarget("ipu-mk2");
        QVERIFY(mk1 && mk2);
        QVERIFY(!mk1.value->ipu.streamingMemory);
        QVERIFY(mk2.value->ipu.streamingMemory);
        QVERIFY(!canKeepStateOffChip(*mk1.value));
        CompileOptions o;
        o.target = "ipu-mk1";
        o.training.optimizer = Optimizer::Adam;
        o.training.microBatch = 16;
        for (const auto& rem : remedyOptions(o, *mk1.value))
            QVERIFY2(rem.id != "optimizer-off-chip", rem.description.c_str());
        bool offered = false;
        for (const auto& rem : remedyOptions(o, *mk2.value))
            offered = offered || rem.id == "optimizer-off-chip";
        QVERIFY(offered);

        const graph::OpGraph g = mlpGraph(4608);
        for (auto goal : {AutoRequest::Goal::FewestIpus, AutoRequest::Goal::HighestThroughput}) {
            AutoRequest req;
            req.goal = goal;
            req.base = o;
            req.base.training.optimizerOffChip = true; // asked for: still not proposed
            req.ipus = 2;
            auto found = findFittingConfiguration(g, *mk1.value, req);
            QVERIFY2(found, found.error.toString().c_str());
            QVERIFY(found.value->found);
            for (const auto& trial : found.value->trials)
                QVERIFY2(!trial.options.training.optimizerOffChip,
                         describeOptions(trial.options).c_str());
            QVERIFY(found.value->best.fits);
            for (const auto& d : found.value->best.diagnostics)
                QVERIFY2(d.severity != Severity::Error, d.toString().c_str());
        }

        CompileOptions off = o;
        off.training.optimizerOffChip = true;
        off.ipus = 4;
        auto r = compileGraph(g, *mk1.value, off);
        QVERIFY(r);
        QVERIFY(r.value->ipu->oomTiles == 0); // memory alone would fit on 4 IPUs
        QVERIFY(!r.value->fits);
        bool said = false;
        for (const auto& d : r.value->diagnostics)
            said = said || d.code == "compile.no-streaming-memory";
        QVERIFY(said);
    }

    // State kept off chip is streamed in for one weight's update at a time (PopART RemoteLoad,
    // VarUpdate, RemoteStore per weight), so what is live at the update is the largest weight's
    // state, not the stage's; fp16 first-order momentum takes 2 bytes off each Adam parameter.
    void offChipStreamsOneWeightAndHalfMomentum()
    {
        const graph::OpGraph g = mlpGraph(2048);
        CompileOptions o;
        o.target = "ipu-mk2";
        o.advice = false;
        o.training.optimizer = Optimizer::Adam;
        o.training.optimizerOffChip = true;
        o.training.microBatch = 4;
        auto r = compileGraph(g, o);
        QVERIFY(r);
        std::int64_t liveUpdate = 0, largest = 0;
        int updates = 0;
        for (const auto& v : r.value->ipu->variables)
            if (v.name.size() > 7 && v.name.compare(v.name.size() - 7, 7, "/update") == 0) {
                ++updates;
                liveUpdate += v.bytes;
            }
        for (const auto& op : g.ops)
            largest = std::max(largest, op.paramCount * 2 * 4);
        QCOMPARE(updates, 1);
        QCOMPARE(liveUpdate, largest);

        CompileOptions onChip = o;
        onChip.training.optimizerOffChip = false;
        CompileOptions half = onChip;
        half.training.halfFirstOrderMomentum = true;
        auto a = compileGraph(g, onChip);
        auto b = compileGraph(g, half);
        QVERIFY(a && b);
        std::int64_t stateA = 0, stateB = 0;
        for (const auto& v : a.value->ipu->variables)
            if (v.kind == "optimizer")
                stateA += v.bytes;
        for (const auto& v : b.value->ipu->variables)
            if (v.kind == "optimizer")
                stateB += v.bytes;
        QCOMPARE(stateB * 4, stateA * 3); // 8 bytes a parameter become 6
        QVERIFY(b.value->peakBytes < a.value->peakBytes);
        QVERIFY(b.value->memory.optimizerState < a.value->memory.optimizerState);
    }

    void csLayerPipelined()
    {
        CompileOptions o;
        o.target = "cs-2";
        o.training.microBatch = 32;
        auto r = compileGraph(mlpGraph(), o);
        QVERIFY2(r, r.error.toString().c_str());
        const CsProfile& cs = *r.value->cs;
        QCOMPARE(cs.mode, std::string("layer-pipelined"));
        QVERIFY(r.value->fits);
        // Kernels tile the grid: inside it, no overlap, areas add up to the grid.
        std::int64_t area = 0;
        double slowest = 1e300;
        for (std::size_t i = 0; i < cs.kernels.size(); ++i) {
            const auto& a = cs.kernels[i];
            QVERIFY(a.x >= 0 && a.y >= 0 && a.x + a.width <= cs.gridWidth &&
                    a.y + a.height <= cs.gridHeight);
            area += a.activePes;
            slowest = std::min(slowest, a.samplesPerSecond);
            QCOMPARE(a.samplesPerSecond,
                     std::min(a.computeSamplesPerSecond, a.transmissionSamplesPerSecond));
            for (std::size_t j = i + 1; j < cs.kernels.size(); ++j) {
                const auto& b = cs.kernels[j];
                const bool apart = a.x + a.width <= b.x || b.x + b.width <= a.x ||
                                   a.y + a.height <= b.y || b.y + b.height <= a.y;
                QVERIFY(apart);
            }
        }
        QCOMPARE(area, std::int64_t(cs.gridWidth) * cs.gridHeight);
        QCOMPARE(cs.samplesPerSecond, slowest);
        // The Linear kernels get more PEs than the ReLUs (compute share).
        QVERIFY(cs.kernels[1].activePes > cs.kernels[2].activePes);
    }

    void csWeightStreamingForBigModels()
    {
        // Over a billion parameters: weight streaming (Model Zoo README, R_1.6.0); the same
        // blocks at a fifth of the depth are layer-pipelined.
        graph::SyntheticTransformer spec;
        spec.layers = 30;
        spec.hidden = 2048;
        spec.heads = 16;
        spec.sequence = 32;
        spec.vocab = 1000;
        auto g = graph::recordSyntheticTransformer(spec);
        QVERIFY2(g, g.error.toString().c_str());
        QVERIFY(g.value->totalParams() > 1000000000);
        CompileOptions o;
        o.target = "cs-2";
        o.training.microBatch = 64;
        auto r = compileGraph(*g.value, o);
        QVERIFY(r);
        QCOMPARE(r.value->cs->mode, std::string("weight-streaming"));
        QVERIFY(r.value->cs->modeReason.find("1 B") != std::string::npos);
        QVERIFY(r.value->cs->microBatch >= 1);
        spec.layers = 6;
        g = graph::recordSyntheticTransformer(spec);
        QVERIFY(g);
        r = compileGraph(*g.value, o);
        QVERIFY(r);
        QCOMPARE(r.value->cs->mode, std::string("layer-pipelined"));
        o.csMode = "weight-streaming"; // the user's choice wins
        r = compileGraph(*g.value, o);
        QVERIFY(r);
        QCOMPARE(r.value->cs->mode, std::string("weight-streaming"));
    }

    void csLayerPipelinedAboveTheLimit()
    {
        // Forced layer-pipelined above the published limit (cs-2.yaml layer_pipelined, from the
        // Model Zoo README): not supported, with the source, never "fits".
        auto cs2 = targets::loadTarget("cs-2");
        QVERIFY(cs2);
        QCOMPARE(cs2.value->cs.layerPipelinedMaxParams, 1.0e9);
        QVERIFY(cs2.value->cs.layerPipelinedSource.find("Model Zoo README") != std::string::npos);
        graph::SyntheticTransformer spec;
        spec.layers = 30;
        spec.hidden = 2048;
        spec.heads = 16;
        spec.sequence = 32;
        spec.vocab = 1000;
        auto g = graph::recordSyntheticTransformer(spec);
        QVERIFY(g);
        QVERIFY(g.value->totalParams() > 1000000000);
        CompileOptions o;
        o.target = "cs-2";
        o.training.microBatch = 1;
        o.csMode = "layer-pipelined";
        auto r = compileGraph(*g.value, o);
        QVERIFY(r);
        QCOMPARE(r.value->cs->mode, std::string("layer-pipelined"));
        QVERIFY(!r.value->fits);
        bool said = false;
        for (const auto& d : r.value->diagnostics)
            if (d.code == "compile.cs-mode-unsupported") {
                said = true;
                QVERIFY2(d.message.find("not supported") != std::string::npos, d.message.c_str());
                QVERIFY2(d.message.find("Model Zoo README") != std::string::npos,
                         d.message.c_str());
            }
        QVERIFY(said);
        // The advice offers weight streaming, which runs it.
        bool streams = false;
        for (const auto& a : r.value->advice)
            streams = streams || (a.id == "weight-streaming" && a.fitsAfter);
        QVERIFY(streams);
        // Under the limit, a forced layer-pipelined compile is the user's to make.
        spec.layers = 6;
        g = graph::recordSyntheticTransformer(spec);
        QVERIFY(g);
        r = compileGraph(*g.value, o);
        QVERIFY(r);
        for (const auto& d : r.value->diagnostics)
            QVERIFY(d.code != "compile.cs-mode-unsupported");
    }

    void syntheticReplicationKeepsTheChain()
    {
        graph::SyntheticTransformer spec{3, 64, 4, 16, 100, true};
        auto g = graph::recordSyntheticTransformer(spec);
        QVERIFY(g);
        spec.layers = 1;
        auto one = graph::recordSyntheticTransformer(spec);
        const std::size_t block = one.value->ops.size() - 3; // wte, ln_f, lm_head
        QCOMPARE(g.value->ops.size(), 3 + 3 * block);
        for (std::size_t i = 0; i < g.value->ops.size(); ++i)
            for (int p : g.value->ops[i].inputOps)
                QVERIFY(p < int(i));
        QCOMPARE(g.value->ops.back().inputOps.front(), int(g.value->ops.size()) - 2);
        // The copies continue the block's numbering, and their ops carry their layer's name.
        const std::vector<std::string> layers{"wte", "h0", "h1", "h2", "ln_f", "lm_head"};
        QCOMPARE(g.value->layerNames, layers);
        for (const auto& op : g.value->ops)
            if (op.layer >= 1 && op.layer <= 3 && !op.modulePath.empty())
                QVERIFY2(op.modulePath.rfind(layers[std::size_t(op.layer)], 0) == 0,
                         op.modulePath.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSimIpu)
#include "test_sim_ipu.moc"
