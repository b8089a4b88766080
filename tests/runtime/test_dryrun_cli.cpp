// `portolan-cli run PROJECT --dry-run` on Portolan's own samples and fixtures: trust, the event
// stream, the capture, the stand-ins' strictness, the declared pipeline split, required
// arguments, a Model Zoo checkout, and the child's limits (timeout, crash, memory, stop).
#include "dryrun_support.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <utility>

namespace {

const QString kFixtures = QStringLiteral(PORTOLAN_FIXTURES "/projects");

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

QString describe(const DryRunResult& r)
{
    const QJsonObject t = r.terminal();
    return QStringLiteral("exit %1, %2 events, terminal %3; stderr: %4")
        .arg(r.exitCode)
        .arg(r.events.size())
        .arg(QString::fromUtf8(QJsonDocument(t).toJson(QJsonDocument::Compact)).left(1500),
             QString::fromUtf8(r.err.right(1500)));
}

} // namespace

class TestDryRunCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_config; // the trust store of these tests
    QTemporaryDir m_work;   // project copies
    QString copy(const QString& source, const QString& name)
    {
        const QString target = m_work.filePath(name);
        QDir(target).removeRecursively();
        if (!copyProject(source, target))
            return {};
        return target;
    }

private slots:
    void initTestCase();
    void untrustedProjectIsRefused();
    void trustIsRememberedOnlyByTheTrustCommand();
    void samples_data();
    void samples();
    void strictness_data();
    void strictness();
    void declaredPipeline_data();
    void declaredPipeline();
    void declaredStrategy_data();
    void declaredStrategy();
    void paramsFileFromCore_data();
    void paramsFileFromCore();
    void requiredArguments();
    void modelZooCheckout();
    void limits_data();
    void limits();
    void stopEndsTheRun();
};

void TestDryRunCli::initTestCase()
{
    QVERIFY(m_config.isValid() && m_work.isValid());
    qputenv("PORTOLAN_CONFIG_DIR", m_config.path().toUtf8());
}

void TestDryRunCli::untrustedProjectIsRefused()
{
    const QString project = copy(kFixtures + "/pipelined-poptorch", "untrusted");
    const DryRunResult r = runDry(project, {});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.terminal().value("code").toString(), QStringLiteral("dryrun.untrusted"));
    QVERIFY2(r.terminal().value("message").toString().contains("--trust"), qPrintable(describe(r)));
    // Nothing of the project ran: no started event, no capture.
    QVERIFY(r.last("started").isEmpty());
    QVERIFY(!QFileInfo::exists(project + "/.portolan/capture/capture.json"));
}

namespace {

int cli(const QStringList& args, QString* out = nullptr)
{
    QProcess p;
    p.start(PORTOLAN_CLI, args);
    if (!p.waitForFinished(60000))
        return -1;
    if (out)
        *out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    return p.exitCode();
}

// The projects in the trust store the GUI reads (core/dryrun TrustStore, PORTOLAN_CONFIG_DIR).
QStringList trustedInStore(const QString& configDir)
{
    QFile f(configDir + "/trusted-projects.json");
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QStringList out;
    for (const auto& v : QJsonDocument::fromJson(f.readAll()).object().value("trusted").toArray())
        out << v.toString();
    return out;
}

} // namespace

void TestDryRunCli::trustIsRememberedOnlyByTheTrustCommand()
{
    const QString project = copy(kFixtures + "/pipelined-poptorch", "trust-command");
    const QString canonical = QFileInfo(project).canonicalFilePath();
    // --trust runs this once and records nothing.
    const DryRunResult once = runDry(project, {"--trust", "--steps", "1"});
    QVERIFY2(!once.last("started").isEmpty(), qPrintable(describe(once)));
    QVERIFY(!trustedInStore(m_config.path()).contains(canonical));
    QCOMPARE(runDry(project, {}).terminal().value("code").toString(),
             QStringLiteral("dryrun.untrusted"));
    // `trust PROJECT` records it in the GUI's store; later runs need no --trust.
    QString text;
    QCOMPARE(cli({"trust", project}, &text), 0);
    QVERIFY2(text.contains("trusted: ") && text.contains("trusted-projects.json"),
             qPrintable(text));
    QVERIFY(trustedInStore(m_config.path()).contains(canonical));
    QCOMPARE(cli({"trust", "--list"}, &text), 0);
    QVERIFY2(text.contains(canonical), qPrintable(text));
    const DryRunResult later = runDry(project, {"--steps", "1"});
    QVERIFY2(!later.last("started").isEmpty(), qPrintable(describe(later)));
    // --forget takes it back.
    QCOMPARE(cli({"trust", "--forget", project}, &text), 0);
    QVERIFY2(text.contains("no longer trusted"), qPrintable(text));
    QVERIFY(!trustedInStore(m_config.path()).contains(canonical));
    QCOMPARE(runDry(project, {}).terminal().value("code").toString(),
             QStringLiteral("dryrun.untrusted"));
    // A folder that does not exist is refused, with its name.
    QCOMPARE(cli({"trust", project + "/nothing-here"}, &text), 2);
    QVERIFY2(text.contains("not a project folder"), qPrintable(text));
}

void TestDryRunCli::samples_data()
{
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("flavour");
    QTest::addRow("mnist-mlp-original") << "mnist-mlp-original"
                                        << "plain-pytorch";
    QTest::addRow("mnist-mlp-cerebras-pytorch") << "mnist-mlp-cerebras-pytorch"
                                                << "cerebras-pytorch";
    QTest::addRow("alphabet-transformer-original") << "alphabet-transformer-original"
                                                   << "plain-pytorch";
    QTest::addRow("alphabet-transformer-cerebras-layers") << "alphabet-transformer-cerebras-layers"
                                                          << "cerebras-layers";
    QTest::addRow("image-classifier-original") << "image-classifier-original"
                                               << "plain-pytorch";
    QTest::addRow("image-classifier-determined") << "image-classifier-determined"
                                                 << "determined-pytorchtrial";
    QTest::addRow("small-cnn-original") << "small-cnn-original"
                                        << "plain-pytorch";
    QTest::addRow("small-cnn-poptorch") << "small-cnn-poptorch"
                                        << "graphcore-poptorch";
}

void TestDryRunCli::samples()
{
    QFETCH(QString, sample);
    QFETCH(QString, flavour);
    const QString project = copy(QStringLiteral(PORTOLAN_SAMPLES "/") + sample, sample);
    const DryRunResult r = runDry(project, {"--trust"});
    QVERIFY2(r.allLinesValid, "stdout holds only JSON events");
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(r.last("started").value("flavour").toString(), flavour);
    QCOMPARE(r.terminal().value("reason").toString(), QStringLiteral("completed"));
    const auto steps = r.all("step");
    QCOMPARE(steps.size(), 3);
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(steps[i].value("step").toInt(), i + 1);
        QVERIFY(steps[i].value("loss").isDouble());
    }
    // The capture: written after the first step, traced, consistent with its modules.
    const QJsonObject capture = r.last("capture");
    QVERIFY(!capture.isEmpty());
    const QJsonObject sidecar = readJson(project + "/.portolan/capture/capture.json");
    QCOMPARE(sidecar.value("format").toString(), QStringLiteral("portolan-capture"));
    QCOMPARE(sidecar.value("version").toInt(), 1);
    QCOMPARE(sidecar.value("steps").toInt(), 3);
    QCOMPARE(sidecar.value("flavour").toString(), flavour);
    QVERIFY2(sidecar["model"]["trace"].toString() == "model.pt",
             qPrintable(sidecar["model"]["trace_error"].toString()));
    QVERIFY(QFileInfo(project + "/.portolan/capture/model.pt").size() > 0);
    qint64 params = 0;
    const QJsonArray modules = sidecar.value("modules").toArray();
    QCOMPARE(modules.first().toObject().value("path").toString(), QString());
    for (const QJsonValue& m : modules)
        params += m.toObject().value("params").toInteger();
    QCOMPARE(params, capture.value("parameters").toInteger());
    QVERIFY(params > 0);
    QCOMPARE(sidecar["batch"]["dry_run"].toInt(), 2);
    QVERIFY2(sidecar["batch"]["full"].toInt() > 2, "the project's own batch is on record");
    const QJsonArray inputs = sidecar.value("inputs").toArray();
    QVERIFY(!inputs.isEmpty());
    // The dry-run batch: first dimension, or second for a sequence-first model (the original
    // alphabet transformer takes [sequence, batch]).
    const QJsonArray shape = inputs.first()["shape"].toArray();
    QVERIFY2(shape.first().toInt() == 2 || (shape.size() > 1 && shape[1].toInt() == 2),
             qPrintable(QJsonDocument(inputs).toJson(QJsonDocument::Compact)));
    QVERIFY(sidecar["pipeline"].isNull());
}

void TestDryRunCli::strictness_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("where");
    // What the real SDKs raise for these porting bugs, at the project's line.
    QTest::addRow("get_hparam with a keyword")
        << "determined-wrong-keyword"
        << "get_hparam() got an unexpected keyword argument 'default'"
        << "model_def.py:15:";
    QTest::addRow("trainingModel with four arguments")
        << "poptorch-wrong-arity"
        << "trainingModel() takes from 1 to 3 positional arguments but 4 were given"
        << "train.py:25:";
}

void TestDryRunCli::strictness()
{
    QFETCH(QString, fixture);
    QFETCH(QString, message);
    QFETCH(QString, where);
    const QString project = copy(kFixtures + "/" + fixture, fixture);
    const DryRunResult r = runDry(project, {"--trust"});
    QCOMPARE(r.exitCode, 1);
    const QJsonObject failed = r.terminal();
    QCOMPARE(failed.value("event").toString(), QStringLiteral("failed"));
    QCOMPARE(failed.value("code").toString(), QStringLiteral("dryrun.sdk-api"));
    QVERIFY2(failed.value("message").toString().contains(message), qPrintable(describe(r)));
    QVERIFY2(failed.value("diagnostic").toString().startsWith(where), qPrintable(describe(r)));
    QVERIFY(r.all("step").isEmpty());
}

void TestDryRunCli::declaredPipeline_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("stages"); // "ipu:module,module"
    QTest::addRow("three IPUs") << QStringList{}
                                << QStringList{"0:embedding,blocks.0,blocks.1", "1:blocks.2",
                                               "2:blocks.3,head,loss"};
    QTest::addRow("two IPUs") << QStringList{"--", "--ipus", "2"}
                              << QStringList{"0:embedding,blocks.0,blocks.1",
                                             "1:blocks.2,blocks.3,head,loss"};
}

void TestDryRunCli::declaredPipeline()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, stages);
    const QString project = copy(kFixtures + "/pipelined-poptorch", "pipelined");
    const DryRunResult r = runDry(project, QStringList{"--trust"} + args);
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject sidecar = readJson(project + "/.portolan/capture/capture.json");
    const QJsonObject pipeline = sidecar.value("pipeline").toObject();
    QCOMPARE(pipeline.value("source").toString(), QStringLiteral("poptorch.BeginBlock"));
    QStringList got;
    for (const QJsonValue& s : pipeline.value("stages").toArray()) {
        QStringList names;
        for (const QJsonValue& m : s["modules"].toArray())
            names << m.toString();
        got << QString::number(s["ipu"].toInt()) + ":" + names.join(',');
    }
    QCOMPARE(got, stages);
    QCOMPARE(r.last("capture").value("pipeline_stages").toInt(), stages.size());
    // Every leaf that ran has the IPU of its stage; the options and the batch are recorded.
    for (const QJsonValue& v : sidecar.value("modules").toArray()) {
        const QJsonObject m = v.toObject();
        if (m["leaf"].toBool() && m["calls"].toInt() > 0)
            QVERIFY2(m["ipu"].isDouble(), qPrintable(m["path"].toString()));
    }
    const QJsonObject options = sidecar["options"]["poptorch"].toObject();
    const int ipus = stages.size();
    QCOMPARE(options["device_iterations"].toInt(), 2);
    QCOMPARE(options["gradient_accumulation"].toInt(), 2 * ipus);
    QCOMPARE(options["available_memory_proportion"].toObject().size(), ipus);
    QCOMPARE(sidecar["batch"]["full"].toInt(), 8);
    QCOMPARE(sidecar["optimizer"]["class"].toString(), QStringLiteral("poptorch.optim.AdamW"));
    // One optimizer step covers the gradient-accumulation micro-batches.
    QCOMPARE(r.all("step").first().value("samples").toInt(), 2 * 2 * ipus);
}

void TestDryRunCli::declaredStrategy_data()
{
    // block-stage-poptorch: `with poptorch.Block("B1")` scopes without ipu_id, placed by the
    // Options' execution strategy (Stage(...).ipu(n)), 3 device iterations, accumulation 8.
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QStringList>("stages"); // "ipu:module,module"
    QTest::addRow("four stages") << "pipelined"
                                 << "PipelinedExecution"
                                 << QStringList{"0:stem", "1:mixer_a", "2:mixer_b", "3:head,loss"};
    // Stage("B2", "B3").ipu(1): two blocks share an IPU, one stage.
    QTest::addRow("two blocks on one IPU")
        << "shared-ipu"
        << "PipelinedExecution" << QStringList{"0:stem", "1:mixer_a,mixer_b", "2:head,loss"};
    QTest::addRow("sharded") << "sharded"
                             << "ShardedExecution"
                             << QStringList{"0:stem,mixer_a", "1:mixer_b", "2:head,loss"};
}

void TestDryRunCli::declaredStrategy()
{
    QFETCH(QString, strategy);
    QFETCH(QString, kind);
    QFETCH(QStringList, stages);
    const QString project = copy(kFixtures + "/block-stage-poptorch", "strategy-" + strategy);
    const DryRunResult r = runDry(project, {"--trust", "--", "--strategy", strategy});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject sidecar = readJson(project + "/.portolan/capture/capture.json");
    const QJsonObject pipeline = sidecar.value("pipeline").toObject();
    QCOMPARE(pipeline.value("source").toString(), QStringLiteral("poptorch.Block"));
    QCOMPARE(pipeline.value("strategy").toString(), kind);
    QStringList got;
    for (const QJsonValue& s : pipeline.value("stages").toArray()) {
        QStringList names;
        for (const QJsonValue& m : s["modules"].toArray())
            names << m.toString();
        got << QString::number(s["ipu"].toInt()) + ":" + names.join(',');
    }
    QCOMPARE(got, stages);
    QCOMPARE(pipeline.value("ipus").toInt(), stages.size());
    const QJsonObject options = sidecar["options"]["poptorch"].toObject();
    QCOMPARE(options["device_iterations"].toInt(), 3);
    QCOMPARE(options["gradient_accumulation"].toInt(), 8);
    // One optimizer step covers the accumulated micro-batches.
    QCOMPARE(r.all("step").first().value("samples").toInt(), 2 * 8);

    // The compile opens on the project's strategy and Options, and simulates its split.
    const QString reportPath = m_work.filePath("strategy-" + strategy + ".json");
    QString out;
    const int code = cli({"compile", project, "--target", "ipu-mk2", "--report", reportPath}, &out);
    QVERIFY2(code == 0 || code == 1, qPrintable(out));
    QVERIFY2(out.contains("Project: poptorch.Block, " + kind + " on " +
                          QString::number(stages.size()) +
                          " IPUs, device iterations 3, "
                          "gradient accumulation 8, micro-batch 4"),
             qPrintable(out));
    QVERIFY2(out.contains("The project's split (poptorch.Block, " + kind + ")"), qPrintable(out));
    const QJsonObject report = readJson(reportPath);
    const QJsonObject o = report["options"].toObject();
    QCOMPARE(o["ipus"].toInt(), stages.size());
    QCOMPARE(o["device_iterations"].toInt(), 3);
    QCOMPARE(o["grad_accum"].toInt(), 8);
    QCOMPARE(o["micro_batch"].toInt(), 4);
    QCOMPARE(o["available_memory_proportion_per_stage"].toArray().size(), stages.size());
    const QJsonObject split = report["project_split"].toObject();
    QCOMPARE(split["strategy"].toString(), kind);
    QCOMPARE(split["ipu_count"].toInt(), stages.size());
    QCOMPARE(split["ipus"].toArray().size(), stages.size());
    QCOMPARE(split["device_iterations"].toInt(), 3);
    QCOMPARE(split["gradient_accumulation"].toInt(), 8);
    QVERIFY2(split["error"].toString().isEmpty(), qPrintable(split["error"].toString()));
    // What the command line says stays.
    QVERIFY2(cli({"compile", project, "--target", "ipu-mk2", "--ipus", "2", "--grad-accum", "5",
                  "--report", reportPath},
                 &out) <= 1,
             qPrintable(out));
    const QJsonObject mine = readJson(reportPath)["options"].toObject();
    QCOMPARE(mine["ipus"].toInt(), 2);
    QCOMPARE(mine["grad_accum"].toInt(), 5);
    QCOMPARE(mine["device_iterations"].toInt(), 3);
}

// The dry run reads the params file of core's one rule, never one of the driver's choosing: the
// saved choice, else the default for a CPU dry run (the smallest of several models). Each row
// copies a sample and gives it several params files.
void TestDryRunCli::paramsFileFromCore_data()
{
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("saved");
    QTest::addColumn<QString>("config");
    QTest::addRow("experiment configs, saved") << "image-classifier-determined"
                                               << "adaptive.yaml"
                                               << "adaptive.yaml";
    QTest::addRow("experiment configs, default") << "image-classifier-determined"
                                                 << ""
                                                 << "const.yaml";
    QTest::addRow("model zoo, several models") << "mnist-mlp-cerebras-pytorch"
                                               << ""
                                               << "configs/b_narrow.yaml";
    QTest::addRow("model zoo, saved") << "mnist-mlp-cerebras-pytorch"
                                      << "configs/a_wide.yaml"
                                      << "configs/a_wide.yaml";
}

void TestDryRunCli::paramsFileFromCore()
{
    QFETCH(QString, sample);
    QFETCH(QString, saved);
    QFETCH(QString, config);
    const QString project = copy(QStringLiteral(PORTOLAN_SAMPLES "/") + sample, "params-" + sample);
    QVERIFY(!project.isEmpty());
    // A Model Zoo folder with two models and no params.yaml: the wider one first by name.
    if (QFile::exists(project + "/configs/params.yaml")) {
        QFile f(project + "/configs/params.yaml");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        f.close();
        QVERIFY(text.contains("hidden_size: 128"));
        for (const auto& [name, width] :
             {std::pair{"a_wide", "512"}, std::pair{"b_narrow", "32"}}) {
            QFile out(project + "/configs/" + name + ".yaml");
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(
                QByteArray(text).replace("hidden_size: 128", QByteArray("hidden_size: ") + width));
        }
        QVERIFY(QFile::remove(project + "/configs/params.yaml"));
    }
    if (!saved.isEmpty()) {
        QVERIFY(QDir(project).mkpath(".portolan"));
        QFile f(project + "/.portolan/params-file");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(saved.toUtf8() + "\n");
    }
    const DryRunResult r = runDry(project, {"--trust", "--steps", "1"});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject started = r.last("started");
    QCOMPARE(started.value("config").toString(), config);
    QVERIFY2(started.value("config_reason").toString().contains(saved.isEmpty() ? "" : "saved"),
             qPrintable(started.value("config_reason").toString()));
}

void TestDryRunCli::requiredArguments()
{
    const QString project = copy(kFixtures + "/required-args-original", "required-args");
    const DryRunResult missing = runDry(project, {"--trust"});
    QCOMPARE(missing.exitCode, 2);
    const QJsonObject failed = missing.terminal();
    QCOMPARE(failed.value("code").toString(), QStringLiteral("dryrun.required-argument"));
    const QJsonArray arguments = failed.value("arguments").toArray();
    QCOMPARE(arguments.size(), 2);
    QCOMPARE(arguments[0]["flag"].toString(), QStringLiteral("--width"));
    QCOMPARE(arguments[0]["type"].toString(), QStringLiteral("int"));
    QCOMPARE(arguments[1]["flag"].toString(), QStringLiteral("--activation"));
    QCOMPARE(arguments[1]["choices"].toArray().size(), 2);
    QVERIFY(failed.value("message").toString().contains("after --"));

    const DryRunResult given =
        runDry(project, {"--trust", "--", "--width", "8", "--activation", "tanh"});
    QVERIFY2(given.exitCode == 0, qPrintable(describe(given)));
    const QJsonObject used = given.last("arguments");
    QCOMPARE(used["values"]["width"].toInt(), 8);
    QCOMPARE(used["values"]["lr"].toDouble(), 0.05);
    QVERIFY(used["defaults"].toArray().contains(QJsonValue("lr")));
}

void TestDryRunCli::modelZooCheckout()
{
    const QString project = copy(kFixtures + "/modelzoo-port-needs-checkout", "modelzoo-port");
    const DryRunResult without = runDry(project, {"--trust"});
    QCOMPARE(without.exitCode, 1);
    const QJsonObject failed = without.terminal();
    QCOMPARE(failed.value("code").toString(), QStringLiteral("dryrun.needs-modelzoo"));
    QCOMPARE(failed.value("module").toString(),
             QStringLiteral("modelzoo.transformers.pytorch.toy_common.toy_layers"));
    QVERIFY(failed.value("message").toString().contains("Model Zoo checkout"));

    const DryRunResult with =
        runDry(project, {"--trust", "--sdk-path",
                         QStringLiteral(PORTOLAN_FIXTURES "/dryrun/modelzoo-checkout")});
    QVERIFY2(with.exitCode == 0, qPrintable(describe(with)));
    QCOMPARE(with.last("started").value("modelzoo_mount").toString(),
             QStringLiteral("modelzoo.transformers.pytorch.toyport"));
    const QJsonObject sidecar = readJson(project + "/.portolan/capture/capture.json");
    QCOMPARE(sidecar["model"]["class"].toString(),
             QStringLiteral("modelzoo.transformers.pytorch.toy_common.toy_layers.ToyEncoder"));
    QCOMPARE(sidecar["batch"]["source"].toString(), QStringLiteral("train_input.batch_size"));
    QCOMPARE(sidecar["batch"]["full"].toInt(), 16);
    QCOMPARE(sidecar["options"]["runconfig"]["max_steps"].toInt(), 10);
}

void TestDryRunCli::limits_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("stepsKept");
    QTest::addRow("timeout") << "slow-original" << QStringList{"--timeout", "40"}
                             << "dryrun.timeout"
                             << "within 40 s" << 1;
    QTest::addRow("crash") << "crash-original" << QStringList{} << "dryrun.crashed"
                           << "signal 11" << 1;
    QTest::addRow("memory limit") << "memory-hog-original" << QStringList{"--memory-limit", "2000"}
                                  << "dryrun.out-of-memory"
                                  << "2000 MB" << 0;
}

void TestDryRunCli::limits()
{
    QFETCH(QString, fixture);
    QFETCH(QStringList, args);
    QFETCH(QString, code);
    QFETCH(QString, message);
    QFETCH(int, stepsKept);
    const QString project = copy(kFixtures + "/" + fixture, fixture);
    const DryRunResult r = runDry(project, QStringList{"--trust"} + args);
    QVERIFY2(!r.crashed, "the CLI itself survives its child");
    QCOMPARE(r.exitCode, 1);
    const QJsonObject failed = r.terminal();
    QCOMPARE(failed.value("code").toString(), code);
    QVERIFY2(failed.value("message").toString().contains(message), qPrintable(describe(r)));
    // What arrived before the end is kept.
    QCOMPARE(r.all("step").size(), stepsKept);
    QVERIFY(!r.last("started").isEmpty());
}

void TestDryRunCli::stopEndsTheRun()
{
    const QString project = copy(kFixtures + "/slow-original", "stopped");
    const DryRunResult r =
        runDry(project, {"--trust"}, 120000, [](const QJsonObject& e, QProcess& p) {
            if (e.value("event").toString() == "step")
                p.terminate();
        });
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.terminal().value("reason").toString(), QStringLiteral("stopped"));
    QCOMPARE(r.all("step").size(), 1);
    QVERIFY2(r.seconds < 60, "stopped, not timed out");
}

QTEST_GUILESS_MAIN(TestDryRunCli)
#include "test_dryrun_cli.moc"
