// The Torch-free side of the link boundary: choosing where a project's op graph comes from
// (core/workflow/graph_source.h), the op graph document the Torch child writes (graph_json.h), the
// layers a capture's module tree is cut into (capture.h) and finding portolan-torch. This test
// links no LibTorch, and checks that it did not load it.
#include "core/graph/graph_json.h"
#include "core/graph/torch_child.h"
#include "core/workflow/graph_source.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portolan::graph;
using namespace portolan::workflow;

namespace {

QString samples(const char* rel)
{
    return QStringLiteral(PORTOLAN_SAMPLES "/") + QString::fromUtf8(rel);
}

bool writeText(const QString& path, const QByteArray& text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

// A minimal capture: one Linear on IPU 0, one on IPU 1.
const QByteArray kCapture = R"({"format": "portolan-capture", "version": 1, "entry": "run.py",
 "inputs": [{"name": "x", "shape": [4, 8], "dtype": "float32"}],
 "batch": {"dry_run": 4, "full": 64},
 "model": {"class": "m.Net", "trace": null, "trace_error": "no", "training": true},
 "modules": [{"path": "", "type": "m.Net", "params": 0},
  {"path": "a", "type": "torch.nn.modules.linear.Linear", "params": 72,
   "inputs": [{"shape": [4, 8], "dtype": "float32"}], "outputs": [{"shape": [4, 8], "dtype": "float32"}]},
  {"path": "b", "type": "torch.nn.modules.linear.Linear", "params": 72, "ipu": 1,
   "inputs": [{"shape": [4, 8], "dtype": "float32"}], "outputs": [{"shape": [4, 8], "dtype": "float32"}]}],
 "pipeline": {"source": "poptorch.BeginBlock", "stages": []},
 "optimizer": {"class": "torch.optim.SGD", "param_groups": [{"lr": 0.1, "momentum": 0.9, "params": 144}]}})";

} // namespace

class TestGraphSource : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QDir(m_dir.path()).mkpath(QStringLiteral("captured/.portolan/capture"));
        QDir(m_dir.path()).mkpath(QStringLiteral("capture-only"));
        QDir(m_dir.path()).mkpath(QStringLiteral("nothing"));
        QVERIFY(writeText(m_dir.filePath("captured/.portolan/capture/capture.json"), kCapture));
        QVERIFY(writeText(m_dir.filePath("capture-only/capture.json"), kCapture));
        QVERIFY(writeText(m_dir.filePath("nothing/train.py"), "import torch\n"));
    }

    void choose_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("child");   // the first argument for portolan-torch
        QTest::addColumn<QString>("message"); // part of the message, when one is expected
        QTest::addColumn<int>("batch");       // the project's batch (0: unknown)
        const int runtime = int(GraphSourceKind::RuntimeModel);
        const int capture = int(GraphSourceKind::Capture);
        const int none = int(GraphSourceKind::None);
        QTest::addRow("sample: runtime model")
            << samples("small-cnn-poptorch") << runtime << "record"
            << "" << 32;
        QTest::addRow("sample params file")
            << samples("mnist-mlp-cerebras-pytorch/configs/params.yaml") << runtime << "record"
            << "" << 0;
        QTest::addRow("Determined sample")
            << samples("image-classifier-determined") << runtime << "record"
            << "" << 0;
        QTest::addRow("original: nothing known")
            << samples("mnist-mlp-original") << none << ""
            << "run a dry run first: portolan-cli run " + samples("mnist-mlp-original") +
                   " --dry-run --trust"
            << 0;
        QTest::addRow("project with a capture")
            << m_dir.filePath("captured") << capture << "capture"
            << "using the capture" << 64;
        QTest::addRow("capture folder") << m_dir.filePath("capture-only") << capture << "capture"
                                        << "" << 64;
        QTest::addRow("capture.json")
            << m_dir.filePath("capture-only/capture.json") << capture << "capture"
            << "" << 64;
        QTest::addRow("script only") << m_dir.filePath("nothing") << none << ""
                                     << "Run a dry run first" << 0;
        QTest::addRow("no such folder") << m_dir.filePath("missing") << none << ""
                                        << "no such project" << 0;
        const QByteArray corpus = qgetenv("PORTOLAN_CORPUS");
        if (!corpus.isEmpty()) {
            // Model Zoo's BERT port: several configs/*.yaml, none of a runtime model. The first
            // in directory order (roberta_base.yaml) must not be taken for the project's: the
            // params-file rule picks the first by name, bert_base_msl128.yaml (batch 256), and
            // its model is built from its model: keys.
            QTest::addRow("corpus: Model Zoo BERT")
                << QString::fromUtf8(corpus + "/projects/cerebras-pt-bert")
                << int(GraphSourceKind::ModelFamily) << ""
                << "bert_base_msl128.yaml; building it from the model: keys" << 256;
            QTest::addRow("corpus: Determined CIFAR-10")
                << QString::fromUtf8(corpus + "/projects/determined-cifar10") << none << ""
                << "does not rebuild the model of const.yaml" << 0;
        }
    }
    void choose()
    {
        QFETCH(QString, input);
        QFETCH(int, kind);
        QFETCH(QString, child);
        QFETCH(QString, message);
        QFETCH(int, batch);
        const GraphSource s = chooseGraphSource(input.toStdString());
        QCOMPARE(int(s.kind), kind);
        const auto args = torchChildArguments(s, 3);
        QCOMPARE(QString::fromStdString(args.empty() ? std::string() : args.front()), child);
        const QString text = QString::fromStdString(s.message.toString());
        if (!message.isEmpty())
            QVERIFY2(text.contains(message, Qt::CaseInsensitive), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("hyperparameters.name")), qPrintable(text));
        if (batch > 0) {
            QVERIFY(s.training);
            QCOMPARE(s.training->batchSize, batch);
        }
        if (s.kind == GraphSourceKind::RuntimeModel)
            QCOMPARE(args, (std::vector<std::string>{"record", s.params.string(), "--batch", "3"}));
        if (s.kind == GraphSourceKind::Capture) {
            QCOMPARE(args, (std::vector<std::string>{"capture", s.capture.string()}));
            QCOMPARE(s.training->optimizer, std::string("sgd-momentum"));
        }
    }

    // The same reason in both wordings; only the CLI's names a portolan-cli command, where the
    // GUI has a button (workflow::guiWording). Other messages read the same in both.
    void guiWording_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<bool>("split"); // the two wordings differ
        QTest::addRow("original: nothing known") << samples("mnist-mlp-original") << true;
        QTest::addRow("script only") << m_dir.filePath("nothing") << true;
        QTest::addRow("no such folder") << m_dir.filePath("missing") << false;
    }
    void guiWording()
    {
        QFETCH(QString, input);
        QFETCH(bool, split);
        const GraphSource s = chooseGraphSource(input.toStdString());
        QCOMPARE(s.kind, GraphSourceKind::None);
        const Diagnostic gui = workflow::guiWording(s.message);
        const QString cli = QString::fromStdString(s.message.message);
        const QString text = QString::fromStdString(gui.message);
        QCOMPARE(gui.code, s.message.code);
        QCOMPARE(gui.location.file, s.message.location.file);
        QVERIFY2(!text.contains(QLatin1String("portolan-cli")), qPrintable(text));
        if (!split) {
            QCOMPARE(text, cli);
            return;
        }
        QVERIFY2(cli.contains("portolan-cli run " + input + " --dry-run --trust"), qPrintable(cli));
        const QString reason = cli.section(QStringLiteral(". Run a dry run first"), 0, 0);
        QVERIFY2(!reason.isEmpty() && text.startsWith(reason), qPrintable(text));
        QVERIFY2(
            text.endsWith(QLatin1String("A dry run of the project's own code captures its model")),
            qPrintable(text));
    }

    void documentRoundTrip()
    {
        OpGraph g;
        g.name = "net";
        g.origin = "capture: run.py, dry-run batch 4";
        g.inputShape = {8};
        g.recordedBatch = 4;
        g.layerNames = {"a", "b"};
        Op a;
        a.name = "a/aten::linear#0";
        a.kind = "aten::linear";
        a.modulePath = "a";
        a.inputShapes = {{4, 8}, {8, 8}};
        a.outputShape = {4, 8};
        a.paramCount = 72;
        a.paramBytes = 288;
        a.forwardFlops = 128;
        a.backwardFlops = 256;
        a.activationBytes = 32;
        a.savesInputs = true;
        a.inputOps = {-1};
        a.location = {"run.py", 3, 5};
        Op b = a;
        b.name = "b/aten::linear#1";
        b.layer = 1;
        b.inputOps = {0};
        g.ops = {a, b};
        g.declaredSplit = {"poptorch.BeginBlock", {0, 1}, {0, 1}};
        g.diagnostics.push_back({Severity::Warning, "compile.x", "a warning", {"run.py", 7, 1}});
        auto back = parseGraphDocument(graphDocument(g), "child");
        QVERIFY2(back, back.error.toString().c_str());
        const OpGraph& r = *back.value;
        QCOMPARE(r.origin, g.origin);
        QCOMPARE(r.ops.size(), std::size_t(2));
        QCOMPARE(r.ops[1].inputOps, std::vector<int>{0});
        QCOMPARE(r.ops[1].layer, 1);
        QCOMPARE(r.ops[0].location.toString(), std::string("run.py:3:5"));
        QCOMPARE(r.totalParams(), g.totalParams());
        QCOMPARE(r.totalForwardFlops(), g.totalForwardFlops());
        QCOMPARE(r.declaredSplit.ipus, g.declaredSplit.ipus);
        QCOMPARE(r.declaredSplit.layerStarts, g.declaredSplit.layerStarts);
        QCOMPARE(r.diagnostics.size(), std::size_t(1));
        QCOMPARE(r.diagnostics[0].location.line, 7);
    }

    void documentErrors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("line");
        QTest::addRow("nothing written") << QByteArray() << "graph.document"
                                         << "no op graph was written" << 0;
        QTest::addRow("truncated")
            << QByteArray("{\"format\": \"portolan-op-graph\",\n \"gra") << "graph.document"
            << "not valid JSON" << 2;
        QTest::addRow("other format")
            << QByteArray(R"({"format": "x", "version": 1})") << "graph.document"
            << "not a Portolan op graph" << 0;
        QTest::addRow("newer version")
            << QByteArray(R"({"format": "portolan-op-graph", "version": 2, "graph": {}})")
            << "graph.document"
            << "version 2 is not supported" << 0;
        QTest::addRow("malformed graph")
            << QByteArray(R"({"format": "portolan-op-graph", "version": 1, "graph": {"ops": 3}})")
            << "graph.document"
            << "malformed op graph" << 0;
        QTest::addRow("the child's error")
            << QByteArray(errorDocument({Severity::Error,
                                         "compile.corrupt-torchscript",
                                         "not a readable TorchScript archive",
                                         {"m.pt", 0, 0}})
                              .c_str())
            << "compile.corrupt-torchscript"
            << "not a readable TorchScript archive" << 0;
        // Members of another type than expected are refused or left out, never thrown out of
        // the reader (found by fuzz_capture: the program ended on nlohmann's type_error).
        QTest::addRow("format is a number")
            << QByteArray(R"({"format": 8, "version": 1})") << "graph.document"
            << "not a Portolan op graph" << 0;
        QTest::addRow("number beyond a double")
            << QByteArray("{\"format\": \"portolan-op-graph\",\n \"version\": 1e400}")
            << "graph.document"
            << "number overflow parsing '1e400'" << 2;
        QTest::addRow("the child's error with odd members")
            << QByteArray(
                   R"({"format": "portolan-op-graph", "version": 1, "error": {"severity": 3,)"
                   R"( "code": "compile.x", "message": "broken", "location": {"line": "7"}}})")
            << "compile.x"
            << "broken" << 0;
    }
    void documentErrors()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, code);
        QFETCH(QString, message);
        QFETCH(int, line);
        auto r = parseGraphDocument(text.toStdString(), "portolan-torch");
        QVERIFY(!r);
        QCOMPARE(QString::fromStdString(r.error.code), code);
        QVERIFY2(QString::fromStdString(r.error.message).contains(message),
                 r.error.toString().c_str());
        QCOMPARE(r.error.location.line, line);
    }

    void layering()
    {
        // A BERT-like tree: the encoder holds most parameters and a ModuleList of layers, so it
        // opens down to the layers; the annotated attention of layer 1 opens layer 1 too.
        std::vector<CaptureModule> m;
        const auto add = [&m](std::string path, std::string type, std::int64_t params,
                              std::optional<int> ipu = {}) {
            CaptureModule c;
            c.path = std::move(path);
            c.type = std::move(type);
            c.params = params;
            c.ipu = ipu;
            m.push_back(c);
        };
        add("", "m.Bert", 0);
        add("embeddings", "m.Embeddings", 0);
        add("embeddings.word", "torch.nn.modules.sparse.Embedding", 1000);
        add("embeddings.norm", "torch.nn.modules.normalization.LayerNorm", 20);
        add("encoder", "m.Encoder", 0);
        add("encoder.layer", "torch.nn.modules.container.ModuleList", 0);
        for (int l = 0; l < 4; ++l) {
            const std::string p = "encoder.layer." + std::to_string(l);
            add(p, "m.Layer", 0);
            add(p + ".attention", "m.Attention", 3000,
                l == 1 ? std::optional<int>(1) : std::nullopt);
            add(p + ".ffn", "torch.nn.modules.linear.Linear", 3000);
        }
        add("pooler", "torch.nn.modules.linear.Linear", 100);
        const CaptureLayering l = captureLayering(m);
        QCOMPARE(l.units,
                 (std::vector<std::string>{"embeddings", "encoder.layer.0",
                                           "encoder.layer.1.attention", "encoder.layer.1.ffn",
                                           "encoder.layer.2", "encoder.layer.3", "pooler"}));
        QCOMPARE(l.unitOf("encoder.layer.1.attention.query"),
                 std::string("encoder.layer.1.attention"));
        QCOMPARE(l.unitOf("encoder.layer.10"), std::string()); // not "encoder.layer.1..."
        QCOMPARE(l.ipuOf("encoder.layer.1.attention"), std::optional<int>(1));
        Capture c;
        c.modules = m;
        c.pipelineSource = "poptorch.BeginBlock";
        const DeclaredSplit d = declaredSplit(c, l, l.units);
        QCOMPARE(d.layerStarts, (std::vector<int>{0, 2}));
        QCOMPARE(d.ipus, (std::vector<int>{0, 1}));
    }

    void torchChildIsFound()
    {
        const auto path = torchChildPath();
        QVERIFY2(!path.empty(), torchChildSearchText().c_str());
        QCOMPARE(QString::fromStdString(path.filename().string()),
                 QStringLiteral("portolan-torch"));
        // A PORTOLAN_TORCH that is not a program is passed over.
        qputenv("PORTOLAN_TORCH", QByteArray(PORTOLAN_SAMPLES));
        QCOMPARE(torchChildPath(), path);
        qunsetenv("PORTOLAN_TORCH");
    }

    void noLibTorchLoaded()
    {
        QFile maps(QStringLiteral("/proc/self/maps"));
        QVERIFY(maps.open(QIODevice::ReadOnly));
        const QByteArray text = maps.readAll();
        QVERIFY2(!text.contains("libtorch") && !text.contains("libc10"), "LibTorch is loaded");
    }
};

QTEST_GUILESS_MAIN(TestGraphSource)
#include "test_graph_source.moc"
