// The incremental IPU simulation (sim::IpuSimCache): a compile that reuses the stages and IPUs of
// earlier ones (a split edit, the advice's remedies, the automatic split's alternatives) must
// give the same report, byte for byte, as a compile from nothing. Models of three families
// built from small params written here, each through a series of split edits and option
// changes; the advice's figures-only remedies against the same remedies simulated in full; and
// the summary `portolan-cli compile` prints from a Summary-detail compile against a full one.
#include "core/families/families.h"
#include "core/report/report.h"
#include "core/report/trace.h"
#include "core/sim/compile.h"
#include "core/sim/ipu_sim.h"
#include "core/sim/remedies.h"
#include "core/sim/summary.h"
#include "core/targets/target.h"

#include <QTest>

using namespace portolan;
using namespace portolan::sim;

namespace {

// The report without its timing, which is the one field that may differ.
std::string reportText(const CompileResult& r)
{
    auto j = report::toJson(r);
    j.erase("compile_milliseconds");
    return j.dump();
}

// What `portolan-cli compile` prints of a result, and its trace (`withTrace`), without the
// timing line.
std::string printedText(const CompileResult& r, bool withTrace = true)
{
    const CompileSummary s = summarize(r, 1000);
    std::string text = s.headline + "\n";
    for (const auto* part : {&s.lines, &s.tableHeader, &s.advice, &s.diagnostics})
        for (const auto& line : *part)
            text += line + "\n";
    for (const auto& row : s.table)
        for (const auto& cell : row)
            text += cell + "|";
    return withTrace ? text + "\n" + report::chromeTrace(r) : text;
}

const char* kGpt = R"(model:
  name: gpt2
  vocab_size: 8192
  hidden_size: 256
  num_hidden_layers: 8
  num_heads: 4
  filter_size: 1024
  max_position_embeddings: 512
  share_embedding_weights: true
train_input:
  batch_size: 8
  max_sequence_length: 256
)";

const char* kBert = R"(model:
  name: bert
  vocab_size: 30522
  hidden_size: 512
  num_hidden_layers: 6
  num_heads: 8
  filter_size: 2048
  max_position_embeddings: 512
train_input:
  batch_size: 16
  max_sequence_length: 128
  max_predictions_per_seq: 20
)";

const char* kLlama = R"(model:
  name: llama
  vocab_size: 16000
  hidden_size: 512
  num_hidden_layers: 10
  num_heads: 8
  filter_size: 1408
  position_embedding_type: rotary
  rotary_dim: 64
  share_embedding_weights: false
  norm_type: rmsnorm
  nonlinearity: swiglu
  max_position_embeddings: 1024
train_input:
  batch_size: 4
  max_sequence_length: 512
)";

// Adam on `ipus` IPU Mk2s, the settings the rows start from.
CompileOptions adamOnMk2(int ipus, int microBatch, int gradAccum)
{
    CompileOptions o;
    o.target = "ipu-mk2";
    o.ipus = ipus;
    o.training.optimizer = Optimizer::Adam;
    o.training.microBatch = microBatch;
    o.training.gradAccum = gradAccum;
    return o;
}

} // namespace

class TestSimIncremental : public QObject
{
    Q_OBJECT

private slots:
    void sameAsFull_data()
    {
        QTest::addColumn<QByteArray>("params");
        QTest::addColumn<int>("ipus");
        QTest::addColumn<bool>("fp16");
        QTest::addRow("gpt2 tied head, 4 IPUs") << QByteArray(kGpt) << 4 << false;
        QTest::addRow("bert, 3 IPUs, fp16") << QByteArray(kBert) << 3 << true;
        QTest::addRow("llama, 5 IPUs, fp16") << QByteArray(kLlama) << 5 << true;
    }
    // A series of compiles through one cache, each compared with a compile without it: split
    // edits (a boundary moved one way and back, two at once, a stage count change), the
    // automatic split, and options that change every stage.
    void sameAsFull()
    {
        QFETCH(QByteArray, params);
        QFETCH(int, ipus);
        QFETCH(bool, fp16);
        auto built = families::buildFromParamsText(params.toStdString(), "model.yaml");
        QVERIFY2(built, built ? "" : built.error.toString().c_str());
        const graph::OpGraph& g = built.value->graph;
        const int layers = int(g.layerNames.size());
        QVERIFY(layers >= 2 * ipus);
        CompileOptions base;
        base.target = "ipu-mk2";
        base.ipus = ipus;
        base.training.precision = fp16 ? Precision::Fp16 : Precision::Fp32;
        base.training.optimizer = Optimizer::Adam;
        base.training.microBatch = 2;
        base.training.gradAccum = 8;
        std::vector<int> even(std::size_t(ipus), layers / ipus);
        even.back() += layers - (layers / ipus) * ipus;

        std::vector<CompileOptions> series;
        const auto withSplit = [&](std::vector<int> split) {
            CompileOptions o = base;
            o.split = std::move(split);
            o.ipus = int(o.split.size());
            series.push_back(o);
        };
        withSplit(even);
        auto moved = even;
        ++moved[0];
        --moved[1];
        withSplit(moved); // one boundary moved by a layer
        withSplit(even);  // and back
        auto two = even;
        ++two[0];
        --two[1];
        --two[std::size_t(ipus) - 2];
        ++two[std::size_t(ipus) - 1];
        withSplit(two); // two boundaries at once
        auto fewer = even;
        fewer[std::size_t(ipus) - 2] += fewer.back();
        fewer.pop_back();
        withSplit(fewer);       // one stage fewer: every stage's pipeline place changes
        series.push_back(base); // the automatic split
        CompileOptions recompute = base;
        recompute.training.recompute = true;
        recompute.split = moved;
        series.push_back(recompute); // every stage's memory changes
        CompileOptions inference = base;
        inference.training.inference = true;
        series.push_back(inference);

        IpuSimCache cache;
        for (std::size_t i = 0; i < series.size(); ++i) {
            const auto incremental = compileGraph(g, series[i], &cache);
            const auto full = compileGraph(g, series[i]);
            QVERIFY2(incremental && full, qPrintable(QString::number(i)));
            QVERIFY(incremental.value->ipu && !incremental.value->ipu->variables.empty());
            QVERIFY2(reportText(*incremental.value) == reportText(*full.value),
                     qPrintable(QStringLiteral("compile %1 of the series differs").arg(i)));
        }
        // A cache cleared, or used with another graph, starts again from nothing.
        cache.clear();
        const auto again = compileGraph(g, series[1], &cache);
        const auto full = compileGraph(g, series[1]);
        QVERIFY(again && full);
        QCOMPARE(reportText(*again.value), reportText(*full.value));
    }

    void summaryAsFull_data()
    {
        QTest::addColumn<QByteArray>("params");
        QTest::addColumn<int>("ipus");
        QTest::addColumn<QString>("settings");
        QTest::addRow("gpt2 tied head, automatic split on 4 IPUs") << QByteArray(kGpt) << 4 << "";
        QTest::addRow("bert, user split, fp16") << QByteArray(kBert) << 3 << "split fp16";
        QTest::addRow("llama, 2 IPUs, does not fit (advice)") << QByteArray(kLlama) << 2 << "";
        QTest::addRow("llama, recompute, I/O tiles") << QByteArray(kLlama) << 5 << "recompute io";
        QTest::addRow("gpt2, inference") << QByteArray(kGpt) << 2 << "inference";
        QTest::addRow("bert, state off chip, 4 replicas")
            << QByteArray(kBert) << 2 << "offchip replicas";
    }
    // `portolan-cli compile` without --report or --trace simulates in Summary detail (no
    // variables, steps, bytes per tile or schedule events) and moves the graph in: what it
    // prints must be what a full compile prints.
    void summaryAsFull()
    {
        QFETCH(QByteArray, params);
        QFETCH(int, ipus);
        QFETCH(QString, settings);
        auto built = families::buildFromParamsText(params.toStdString(), "model.yaml");
        QVERIFY(built);
        const graph::OpGraph& g = built.value->graph;
        CompileOptions o = adamOnMk2(ipus, 4, 8);
        if (settings.contains(QLatin1String("split"))) {
            const int layers = int(g.layerNames.size());
            o.split.assign(std::size_t(ipus), layers / ipus);
            o.split.back() += layers - (layers / ipus) * ipus;
        }
        if (settings.contains(QLatin1String("fp16")))
            o.training.precision = Precision::Fp16;
        o.training.recompute = settings.contains(QLatin1String("recompute"));
        o.training.ioTiles = settings.contains(QLatin1String("io")) ? 32 : 0;
        o.training.inference = settings.contains(QLatin1String("inference"));
        o.training.optimizerOffChip = settings.contains(QLatin1String("offchip"));
        o.training.replicas = settings.contains(QLatin1String("replicas")) ? 4 : 1;
        const auto full = compileGraph(g, o, nullptr, SimDetail::Full);
        auto summary = compileGraph(g, o, nullptr, SimDetail::Summary);
        QVERIFY(full && summary && summary.value->ipu);
        QVERIFY(summary.value->ipu->variables.empty() && summary.value->ipu->steps.empty());
        QVERIFY(summary.value->ipu->tileBytes[0].empty());
        QVERIFY(summary.value->ipu->schedule.empty());
        summary.value->graph = g; // as workflow::compileProject moves the model's in
        QCOMPARE(printedText(*summary.value, false), printedText(*full.value, false));
    }

    // At many IPUs a repeated layer's stages come back every few stages, and outside full
    // detail a stage whose ops are the same as an earlier one's is that stage shifted, not
    // placed again (ipu_shift.cpp); so is its IPU's memory. The figures must be those of a full
    // simulation, which places every stage; also when per-IPU settings, I/O tiles or a layer
    // that differs break the repetition.
    void shiftedStagesAsFull_data()
    {
        QTest::addColumn<QByteArray>("params");
        QTest::addColumn<int>("ipus");
        QTest::addColumn<QString>("settings");
        QTest::addRow("llama, 36 IPUs") << QByteArray(kLlama) << 36 << "";
        QTest::addRow("llama, 36 IPUs, I/O tiles, recompute")
            << QByteArray(kLlama) << 36 << "io recompute";
        QTest::addRow("llama, 40 IPUs, gpipe") << QByteArray(kLlama) << 40 << "gpipe";
        QTest::addRow("llama, 36 IPUs, per-IPU settings") << QByteArray(kLlama) << 36 << "per-ipu";
        QTest::addRow("llama, 36 IPUs, one layer differs") << QByteArray(kLlama) << 36 << "differs";
        QTest::addRow("gpt2 tied head, 30 IPUs") << QByteArray(kGpt) << 30 << "";
        QTest::addRow("bert, 24 IPUs, inference") << QByteArray(kBert) << 24 << "inference";
    }
    void shiftedStagesAsFull()
    {
        QFETCH(QByteArray, params);
        QFETCH(int, ipus);
        QFETCH(QString, settings);
        auto built = families::buildFromParamsText(params.toStdString(), "model.yaml");
        QVERIFY(built);
        graph::OpGraph g = built.value->graph;
        if (settings.contains(QLatin1String("differs"))) {
            // One op of a middle layer with more parameters: its stages are no shift of others.
            const int layer = int(g.layerNames.size()) / 2;
            for (auto& op : g.ops)
                if (op.layer == layer && op.paramCount > 0) {
                    op.paramCount += 4096;
                    op.paramBytes += 4 * 4096;
                    break;
                }
        }
        CompileOptions o = adamOnMk2(ipus, 2, 3);
        o.training.recompute = settings.contains(QLatin1String("recompute"));
        o.training.ioTiles = settings.contains(QLatin1String("io")) ? 32 : 0;
        o.training.inference = settings.contains(QLatin1String("inference"));
        if (settings.contains(QLatin1String("gpipe")))
            o.training.schedule = Schedule::GPipe;
        if (settings.contains(QLatin1String("per-ipu")))
            for (int i = 0; i < ipus; ++i)
                o.training.availableMemoryProportionPerStage.push_back(i % 5 == 2 ? 0.3 : 0.6);
        auto target = targets::loadTarget("ipu-mk2");
        QVERIFY(target);
        const auto full =
            simulateIpu(g, *target.value, o, ipuModelConstants(), nullptr, SimDetail::Full);
        const auto figures =
            simulateIpu(g, *target.value, o, ipuModelConstants(), nullptr, SimDetail::Figures);
        QVERIFY(full && figures && full.value->ipu && figures.value->ipu);
        const IpuProfile& a = *full.value->ipu;
        const IpuProfile& b = *figures.value->ipu;
        QCOMPARE(b.stages.size(), a.stages.size());
        QVERIFY2(a.stages.size() > std::size_t(ipus) / 2, "the split must use many stages");
        for (std::size_t s = 0; s < a.stages.size(); ++s) {
            const auto& x = a.stages[s];
            const auto& y = b.stages[s];
            const auto where = QByteArray("stage ") + QByteArray::number(int(s));
            QVERIFY2(x.firstOp == y.firstOp && x.endOp == y.endOp && x.ipu == y.ipu, where);
            QVERIFY2(x.firstLayer == y.firstLayer && x.endLayer == y.endLayer, where);
            QVERIFY2(x.usedBytes == y.usedBytes && x.maxTileBytes == y.maxTileBytes, where);
            QVERIFY2(x.oomTiles == y.oomTiles && x.flops == y.flops, where);
            QVERIFY2(x.forwardSeconds == y.forwardSeconds, where);
            QVERIFY2(x.backwardSeconds == y.backwardSeconds && x.linkCycles == y.linkCycles, where);
        }
        QCOMPARE(b.maxTileBytes, a.maxTileBytes);
        QCOMPARE(b.oomTiles, a.oomTiles);
        QCOMPARE(b.totalBytes, a.totalBytes);
        QCOMPARE(b.stepSeconds, a.stepSeconds);
        QCOMPARE(figures.value->fits, full.value->fits);
    }

    // The advice simulates each remedy on figures only (no names, no bytes per tile): its lines
    // must read as a full compile of the remedy's options does.
    void adviceFiguresAsFull()
    {
        auto built = families::buildFromParamsText(kLlama, "llama.yaml");
        QVERIFY(built);
        const graph::OpGraph& g = built.value->graph;
        auto target = targets::loadTarget("ipu-mk2");
        QVERIFY(target);
        CompileOptions o;
        o.target = "ipu-mk2";
        o.ipus = 2;
        o.training.optimizer = Optimizer::Adam;
        o.training.microBatch = 8;
        auto r = compileGraph(g, *target.value, o);
        QVERIFY(r);
        QVERIFY2(!r.value->fits, "the fixture must not fit, so that advice is given");
        QVERIFY(r.value->advice.size() >= 3);
        for (const auto& remedy : r.value->advice) {
            auto options = applyRemedy(o, remedy.id, *target.value);
            QVERIFY(options);
            options->advice = false;
            auto each = compileGraph(g, *target.value, *options);
            QVERIFY(each);
            QCOMPARE(remedy.peakBytesAfter, each.value->peakBytes);
            QCOMPARE(remedy.fitsAfter, each.value->fits);
            QCOMPARE(remedy.samplesPerSecondAfter, each.value->samplesPerSecond);
        }
    }
};

QTEST_GUILESS_MAIN(TestSimIncremental)
#include "test_sim_incremental.moc"
