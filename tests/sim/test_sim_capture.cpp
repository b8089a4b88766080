// Captures (core/graph/capture.h) imported into op graphs (capture_import.h), held against
// counts written here from the layer shapes: torchvision's ResNet-50 and a BERT-style encoder
// (parameters exactly, forward FLOPs within 2%), the stashed activations of a training step
// against the counting allocator (within 15%), a sample project's capture against the runtime's
// recording of the same model, the project's BeginBlock split, and broken captures. Fixtures are
// written at test time by fixtures/make_capture.py with /usr/bin/python3 (python3-torch,
// python3-torchvision).
#include "core/graph/capture_import.h"
#include "core/graph/project_graph.h"
#include "core/graph/script_import.h"
#include "core/report/report.h"
#include "core/sim/alloc_meter.h"
#include "core/sim/compile.h"
#include "core/sim/memory_model.h"

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace portolan;
using namespace portolan::graph;

namespace {

// The BERT-style encoder of make_capture.py (BERT_CONFIG).
struct BertSizes
{
    double vocab = 8000, hidden = 256, layers = 4, heads = 4, intermediate = 1024, positions = 512,
           types = 2, sequence = 128;
};

// torchvision's ResNet-50 (v1.5: the stride is on the 3x3 convolution), at 224 x 224.
struct Count
{
    double flops = 0; // per sample, 2 x multiply-accumulates of convolutions and linears
    double params = 0;
};

Count resnet50Count()
{
    Count c;
    const auto conv = [&c](double k, double cin, double cout, double hout) {
        c.flops += 2 * k * k * cin * cout * hout * hout;
        c.params += k * k * cin * cout;
    };
    const auto bn = [&c](double ch) {
        c.params += 2 * ch;
    };
    conv(7, 3, 64, 112);
    bn(64);
    double in = 64, size = 56; // after the 3x3 max-pool, stride 2
    const double widths[] = {64, 128, 256, 512};
    const int blocks[] = {3, 4, 6, 3};
    for (int s = 0; s < 4; ++s)
        for (int b = 0; b < blocks[s]; ++b) {
            const double w = widths[s];
            const double out = (b == 0 && s > 0) ? size / 2 : size;
            conv(1, in, w, size);
            bn(w);
            conv(3, w, w, out);
            bn(w);
            conv(1, w, 4 * w, out);
            bn(4 * w);
            if (b == 0) {
                conv(1, in, 4 * w, out);
                bn(4 * w);
            }
            in = 4 * w;
            size = out;
        }
    c.flops += 2 * 2048 * 1000;
    c.params += 2048 * 1000 + 1000;
    return c;
}

Count bertCount(const BertSizes& b)
{
    Count c;
    const double h = b.hidden, i = b.intermediate, s = b.sequence;
    const auto linear = [&c](double in, double out, double tokens) {
        c.flops += 2 * in * out * tokens;
        c.params += in * out + out;
    };
    c.params += (b.vocab + b.positions + b.types) * h + 2 * h; // embeddings and their norm
    for (int l = 0; l < int(b.layers); ++l) {
        for (int k = 0; k < 4; ++k) // query, key, value, attention output
            linear(h, h, s);
        linear(h, i, s);
        linear(i, h, s);
        c.params += 2 * 2 * h; // two layer norms
        // scores = Q K^T and context = P V: per head s x s x d, over all heads s x s x h, each.
        c.flops += 2 * (2 * s * s * h);
    }
    linear(h, h, 1); // the pooler reads the first token
    return c;
}

// The recurrent language models of make_capture.py (RNN_CONFIG): embedding, a stack of LSTM or
// GRU layers, a linear decoder over the vocabulary, per sample (one sequence of 35 tokens).
// A recurrent layer multiplies every token's layer input and previous hidden state by its gate
// weights: 2 x gates x (in + hidden) x hidden x tokens, twice when bidirectional.
Count recurrentCount(double gates, bool bidirectional)
{
    const double vocab = 1000, embedding = 64, hidden = 128, layers = 2, tokens = 35;
    const double directions = bidirectional ? 2 : 1;
    Count c;
    c.params += vocab * embedding;
    double in = embedding;
    for (int l = 0; l < int(layers); ++l) {
        c.flops += directions * 2 * gates * (in + hidden) * hidden * tokens;
        c.params += directions * (gates * hidden * (in + hidden) + 2 * gates * hidden);
        in = hidden * directions;
    }
    c.flops += 2 * in * vocab * tokens;
    c.params += in * vocab + vocab;
    return c;
}

double ratio(double a, double b)
{
    return b == 0 ? 0 : a / b;
}

// The stash of a training step, measured: the bytes that stay allocated after a forward pass
// with autograd on (what backward will read, plus the output), counted by the allocator.
std::int64_t measuredStash(const std::filesystem::path& model,
                           const std::vector<torch::jit::IValue>& inputs)
{
    auto m = loadTorchScript(model);
    if (!m)
        return -1;
    m.value->train();
    sim::AllocationMeter meter;
    const std::int64_t before = meter.liveBytes();
    torch::manual_seed(0);
    auto out = m.value->forward(inputs);
    const std::int64_t after = meter.liveBytes();
    (void)out;
    return after - before;
}

} // namespace

class TestSimCapture : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::filesystem::path fixture(const char* name) const
    {
        return m_dir.filePath(QString::fromUtf8(name)).toStdString();
    }
    std::map<std::string, OpGraph> m_graphs;
    const OpGraph* graph(const char* name)
    {
        if (auto it = m_graphs.find(name); it != m_graphs.end())
            return &it->second;
        auto g = importCapture(fixture(name));
        if (!g) {
            qWarning("%s", g.error.toString().c_str());
            return nullptr;
        }
        return &m_graphs.emplace(name, std::move(*g.value)).first->second;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo::exists("/usr/bin/python3"))
            QSKIP("/usr/bin/python3 with python3-torch is needed to make the fixtures");
        QProcess py;
        py.start(
            "/usr/bin/python3",
            {QString(PORTOLAN_SOURCE_DIR) + "/tests/sim/fixtures/make_capture.py", m_dir.path()});
        QVERIFY(py.waitForFinished(240000));
        if (py.exitCode() != 0 && py.readAllStandardError().contains("torchvision"))
            QSKIP("python3-torchvision is needed to make the ResNet-50 fixture");
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
    }

    void realShapesAndCounts_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("params");
        QTest::addColumn<double>("flops");
        const Count r = resnet50Count();
        QTest::addRow("resnet50") << "resnet50" << r.params << r.flops;
        const Count b = bertCount(BertSizes{});
        QTest::addRow("bert") << "bert" << b.params << b.flops;
        // Sequence-first, with the hidden state a tuple argument (input_structure).
        const Count l = recurrentCount(4, false);
        QTest::addRow("lstm") << "lstm" << l.params << l.flops;
        const Count g = recurrentCount(3, true);
        QTest::addRow("gru-bidirectional") << "gru-bidirectional" << g.params << g.flops;
    }
    void realShapesAndCounts()
    {
        QFETCH(QString, name);
        QFETCH(double, params);
        QFETCH(double, flops);
        const OpGraph* g = graph(name.toUtf8().constData());
        QVERIFY(g);
        for (const auto& op : g->ops)
            if (op.kind == "aten::_convolution" || op.kind == "aten::linear" ||
                op.kind == "aten::matmul")
                QVERIFY2(!op.outputShape.empty(), op.name.c_str());
        for (const auto& d : g->diagnostics)
            QVERIFY2(d.code != "compile.unknown-shape", d.toString().c_str());
        const double r = ratio(g->totalForwardFlops(), flops);
        qInfo("%s: %lld parameters (independent count %.0f), %.4g GFLOP forward per sample "
              "(independent %.4g, ratio %.4f), %zu ops in %zu layers, %.1f MiB activations per "
              "sample",
              qPrintable(name), (long long)g->totalParams(), params, g->totalForwardFlops() / 1e9,
              flops / 1e9, r, g->ops.size(), g->layerNames.size(),
              double(g->totalActivationBytes()) / (1 << 20));
        QCOMPARE(double(g->totalParams()), params);
        QVERIFY2(std::abs(r - 1) < 0.02, QByteArray::number(r).constData());
        QVERIFY(g->origin.rfind("capture: ", 0) == 0);
        QVERIFY2(g->origin.find("dry-run batch 2") != std::string::npos, g->origin.c_str());
    }

    void resnetKnownFigures()
    {
        // torchvision's documented figures: 25,557,032 parameters, 4.09 GMAC at 224 x 224.
        const Count r = resnet50Count();
        QCOMPARE(r.params, 25557032.0);
        QVERIFY(std::abs(r.flops / 2 / 4.09e9 - 1) < 0.01);
    }

    void stashedActivations_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("resnet50") << "resnet50";
        QTest::addRow("bert") << "bert";
        QTest::addRow("small-cnn") << "small-cnn";
        QTest::addRow("lstm") << "lstm";
        QTest::addRow("gru-bidirectional") << "gru-bidirectional";
    }
    void stashedActivations()
    {
        QFETCH(QString, name);
        const OpGraph* g = graph(name.toUtf8().constData());
        QVERIFY(g);
        auto c = loadCapture(fixture(name.toUtf8().constData()));
        QVERIFY(c);
        // The same inputs the import ran the model on.
        const auto inputs = captureExampleInputs(*c.value);
        QVERIFY2(inputs, inputs.error.toString().c_str());
        const std::int64_t measured = measuredStash(*c.value->trace, *inputs.value);
        QVERIFY(measured > 0);
        sim::TrainingConfig t;
        t.microBatch = int(*c.value->dryRunBatch);
        const auto e = sim::estimateTrainingMemory(*g, t);
        const double r = ratio(double(e.stashedActivations), double(measured));
        qInfo("%s batch %d: stashed activations estimated %.2f MiB, measured %.2f MiB, ratio "
              "%.3f",
              qPrintable(name), t.microBatch, double(e.stashedActivations) / (1 << 20),
              double(measured) / (1 << 20), r);
        QVERIFY2(r > 0.85 && r < 1.15, QByteArray::number(r).constData());
    }

    void sampleMatchesRuntime()
    {
        // small-cnn-poptorch's own model.py, captured, against the runtime's LibTorch rebuild
        // of the same model from its params file, both at batch 2.
        const OpGraph* captured = graph("small-cnn");
        QVERIFY(captured);
        auto recorded =
            recordProjectModel(std::string(PORTOLAN_SAMPLES) + "/small-cnn-poptorch", 2);
        QVERIFY2(recorded, recorded.error.toString().c_str());
        qInfo("small CNN: captured %lld parameters, %.6g FLOP; runtime %lld parameters, %.6g FLOP",
              (long long)captured->totalParams(), captured->totalForwardFlops(),
              (long long)recorded.value->totalParams(), recorded.value->totalForwardFlops());
        QCOMPARE(captured->totalParams(), recorded.value->totalParams());
        // The capture's forward also computes the loss (PopTorch), a log-softmax and an NLL over
        // 10 logits; nothing else may differ.
        QVERIFY(std::abs(ratio(captured->totalForwardFlops(), recorded.value->totalForwardFlops()) -
                         1) < 1e-3);
    }

    void declaredSplit()
    {
        const OpGraph* g = graph("small-cnn");
        QVERIFY(g);
        const DeclaredSplit& d = g->declaredSplit;
        QCOMPARE(d.source, std::string("poptorch.BeginBlock"));
        QCOMPARE(d.ipus, (std::vector<int>{0, 1}));
        QCOMPARE(d.layerStarts.size(), std::size_t(2));
        // fc1 starts the second stage: the layer holding it begins at layerStarts[1].
        const std::string second = g->layerNames[std::size_t(d.layerStarts[1])];
        QCOMPARE(second, std::string("fc1"));

        sim::CompileOptions o;
        o.target = "ipu-mk2";
        o.ipus = 1;
        auto r = sim::compileGraph(*g, o);
        QVERIFY2(r, r.error.toString().c_str());
        QVERIFY(r.value->projectSplit);
        const auto& p = *r.value->projectSplit;
        QVERIFY2(p.error.empty(), p.error.c_str());
        QCOMPARE(p.layersPerStage.size(), std::size_t(2));
        QCOMPARE(p.layersPerStage[0] + p.layersPerStage[1], int(g->layerNames.size()));
        QVERIFY(p.samplesPerSecond > 0);
        // The report keeps it.
        auto back = report::fromJson(report::toJson(*r.value));
        QVERIFY2(back, back.error.toString().c_str());
        QVERIFY(back.value->projectSplit);
        QCOMPARE(back.value->projectSplit->layersPerStage, p.layersPerStage);
        QCOMPARE(back.value->graph.declaredSplit.ipus, d.ipus);
        // A CS target has no pipeline to split.
        o.target = "cs-2";
        auto cs = sim::compileGraph(*g, o);
        QVERIFY(cs);
        QVERIFY(!cs.value->projectSplit);
    }

    void moduleTreeOnly()
    {
        auto c = loadCapture(fixture("no-trace"));
        QVERIFY2(c, c.error.toString().c_str());
        QVERIFY(!c.value->trace);
        auto g = importCapture(*c.value);
        QVERIFY2(g, g.error.toString().c_str());
        QCOMPARE(g.value->totalParams(), c.value->totalParams());
        bool warned = false;
        for (const auto& d : g.value->diagnostics)
            warned = warned || d.code == "capture.no-trace";
        QVERIFY(warned);
        QVERIFY(!g.value->declaredSplit.empty());
        QVERIFY(g.value->totalForwardFlops() > 0);
    }

    void brokenCaptures_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("code");
        QTest::addColumn<bool>("positioned");
        QTest::addRow("truncated") << "broken-truncated"
                                   << "capture.corrupt" << true;
        QTest::addRow("wrong member") << "broken-member"
                                      << "capture.member" << false;
        QTest::addRow("other format") << "broken-format"
                                      << "capture.format" << false;
        QTest::addRow("corrupt model.pt") << "broken-model"
                                          << "compile.corrupt-torchscript" << false;
        QTest::addRow("missing") << "nothing-here"
                                 << "capture.unreadable" << false;
        QTest::addRow("input named twice") << "broken-structure"
                                           << "capture.member" << false;
    }
    void brokenCaptures()
    {
        QFETCH(QString, name);
        QFETCH(QString, code);
        QFETCH(bool, positioned);
        auto g = importCapture(fixture(name.toUtf8().constData()));
        QVERIFY(!g);
        QCOMPARE(QString::fromStdString(g.error.code), code);
        QVERIFY2(g.error.location.hasPosition() == positioned, g.error.toString().c_str());
        QVERIFY(!g.error.location.file.empty());
    }

    // The same through the executables, as a user runs them.
    void compileProjectFromCapture()
    {
        QProcess p;
        p.start(PORTOLAN_CLI,
                {"compile", m_dir.filePath("bert-project"), "--target", "ipu-mk2", "--ipus", "2"});
        QVERIFY(p.waitForFinished(240000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 0 || p.exitCode() == 1, qPrintable(err));
        QVERIFY2(out.contains("(capture: run.py, dry-run batch 2)"), qPrintable(out + err));
        QVERIFY2(err.contains("using the capture"), qPrintable(err));
    }

    void compileShowsProjectSplit()
    {
        QProcess p;
        p.start(PORTOLAN_CLI, {"compile", m_dir.filePath("small-cnn"), "--target", "ipu-mk2"});
        QVERIFY(p.waitForFinished(240000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(out.contains("The project's split (poptorch.BeginBlock): layers per stage"),
                 qPrintable(out + p.readAllStandardError()));
        QVERIFY(out.contains("on IPUs 0,1"));
    }

    void compileWithoutModelSaysWhatToDo()
    {
        QTemporaryDir empty;
        QFile f(empty.filePath("train.py"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("import torch\n");
        f.close();
        QProcess p;
        p.start(PORTOLAN_CLI, {"compile", empty.path(), "--target", "ipu-mk2"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("run a dry run first", Qt::CaseInsensitive), qPrintable(err));
        QVERIFY2(err.contains("portolan-cli run " + empty.path() + " --dry-run --trust"),
                 qPrintable(err));
    }

    void corruptModelFailsInTheChild()
    {
        // LibTorch reads model.pt in the Torch child; the parent reports the child's message.
        QProcess p;
        p.start(PORTOLAN_CLI, {"compile", m_dir.filePath("broken-model"), "--target", "ipu-mk2"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("not a readable TorchScript archive"), qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestSimCapture)
#include "test_sim_capture.moc"
