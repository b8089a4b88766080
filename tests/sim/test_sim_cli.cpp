// portolan-cli compile and compare, run as a user would.
#include "../cli/cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

class TestSimCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString file(const char* name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void compileProjectForIpu()
    {
        const auto r = runCli({"compile", QString(PORTOLAN_SAMPLES) + "/small-cnn-poptorch",
                               "--target", "ipu-mk2", "--ipus", "2", "--grad-accum", "8",
                               "--report", file("a.json"), "--trace", file("a.trace.json")});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY(r.out.contains("FITS"));
        QVERIFY(r.out.contains("bubble"));
        QFile f(file("a.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto doc = QJsonDocument::fromJson(f.readAll());
        QCOMPARE(doc.object()["schema_version"].toInt(), 1);
        QFile t(file("a.trace.json"));
        QVERIFY(t.open(QIODevice::ReadOnly));
        QVERIFY(QJsonDocument::fromJson(t.readAll()).object().contains("traceEvents"));
    }

    void compareReports()
    {
        const auto b = runCli({"compile", QString(PORTOLAN_SAMPLES) + "/small-cnn-poptorch",
                               "--target", "ipu-mk2", "--ipus", "2", "--grad-accum", "8",
                               "--precision", "fp16", "--report", file("b.json")});
        QVERIFY2(b.exitCode == 0, (b.out + b.err).constData());
        const auto c = runCli({"compare", file("a.json"), file("b.json")});
        QVERIFY2(c.exitCode == 0, (c.out + c.err).constData());
        QVERIFY(c.out.contains("memory.weights"));
        QVERIFY(c.out.contains("precision: fp32 -> fp16"));
        const auto j = runCli({"compare", file("a.json"), file("b.json"), "--format", "json"});
        QVERIFY(QJsonDocument::fromJson(j.out).object().contains("rows"));
    }

    void compileForCs()
    {
        const auto r = runCli({"compile", QString(PORTOLAN_SAMPLES) + "/mnist-mlp-cerebras-pytorch",
                               "--target", "cs-2", "--micro-batch", "64"});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY(r.out.contains("layer-pipelined"));
    }

    void doesNotFit()
    {
        const auto r = runCli({"compile", "--synthetic", "24x1024", "--synthetic-heads", "16",
                               "--synthetic-sequence", "64", "--synthetic-vocab", "1000",
                               "--target", "ipu-mk2", "--optimizer", "adam"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.contains("DOES NOT FIT"));
        QVERIFY2(r.out.contains("1 stage on 1 IPU\n"), r.out.constData()); // not "1 stages"
        QVERIFY(r.out.contains("Advice"));
        QVERIFY(r.out.contains("more-stages"));
    }

    // --no-advice: the same verdict and the same report, without the remedies.
    void noAdvice_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addRow("one Mk2") << QStringList{"--target", "ipu-mk2"};
        QTest::addRow("two Mk1") << QStringList{"--target", "ipu-mk1", "--ipus", "2"};
    }
    void noAdvice()
    {
        QFETCH(QStringList, settings);
        const QStringList model{"compile", "--synthetic",          "24x1024", "--synthetic-heads",
                                "16",      "--synthetic-sequence", "64",      "--synthetic-vocab",
                                "1000",    "--optimizer",          "adam"};
        const auto with = runCli(model + settings + QStringList{"--report", file("adv.json")});
        const auto without =
            runCli(model + settings + QStringList{"--no-advice", "--report", file("noadv.json")});
        QCOMPARE(with.exitCode, 1);
        QCOMPARE(without.exitCode, 1);
        QVERIFY(with.out.contains("Advice"));
        QVERIFY2(!without.out.contains("Advice"), without.out.constData());
        QVERIFY(without.out.contains("DOES NOT FIT"));
        const auto read = [](const QString& path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object()
                                               : QJsonObject{};
        };
        QJsonObject a = read(file("adv.json"));
        QJsonObject b = read(file("noadv.json"));
        QVERIFY(!a.value("advice").toArray().isEmpty());
        QVERIFY(b.value("advice").toArray().isEmpty());
        for (QJsonObject* r : {&a, &b})
            for (const char* key : {"advice", "compile_milliseconds"})
                r->remove(key);
        QCOMPARE(a, b);
    }

    // The training a params file asks for, on each kind of target, through the rule the Profile
    // tab uses too (sim::applyProjectTraining): BERT-Base's batch 32 and LAMB.
    void paramsTraining_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("expected");
        QTest::addRow("ipu") << QStringList{"--target", "ipu-mk2", "--ipus", "4"}
                             << "optimizer lamb, micro-batch 1, gradient accumulation 32";
        QTest::addRow("ipu, 4 replicas")
            << QStringList{"--target", "ipu-mk2", "--ipus", "4", "--replicas", "4"}
            << "optimizer lamb, micro-batch 1, gradient accumulation 8";
        QTest::addRow("ipu, micro-batch given")
            << QStringList{"--target", "ipu-mk2", "--ipus", "4", "--micro-batch", "4"}
            << "optimizer lamb, micro-batch 4, gradient accumulation 1";
        QTest::addRow("cs-2") << QStringList{"--target", "cs-2"}
                              << "optimizer lamb, micro-batch 32, gradient accumulation 1";
    }
    void paramsTraining()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, expected);
        const QString params = QString(PORTOLAN_SOURCE_DIR) +
                               "/tests/sim/fixtures/fidelity/bert_base_pretraining.yaml";
        const auto r = runCli(QStringList{"compile", params} + extra);
        QVERIFY2(r.exitCode == 0 || r.exitCode == 1, (r.out + r.err).constData());
        QVERIFY2(r.out.contains(expected.toUtf8()), r.out.constData());
    }

    // The report carries how the model was built from its params: the family, whether it was
    // inferred (a params file without model.name, like the R1.6 GPT-2 configs) and the notes.
    void reportModelFamily_data()
    {
        QTest::addColumn<bool>("named");
        QTest::addRow("model.name") << true;
        QTest::addRow("inferred") << false;
    }
    void reportModelFamily()
    {
        QFETCH(bool, named);
        QFile in(QString(PORTOLAN_SOURCE_DIR) + "/tests/sim/fixtures/fidelity/gpt2_small.yaml");
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        if (!named)
            text.replace("  name: gpt2\n", "");
        const QString params = m_dir.filePath(named ? "named.yaml" : "params_gpt2_small.yaml");
        QFile out(params);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
        out.close();
        const QString report = m_dir.filePath("family-report.json");
        const auto r = runCli({"compile", params, "--target", "cs-2", "--report", report});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject family =
            QJsonDocument::fromJson(f.readAll()).object()["model_family"].toObject();
        QCOMPARE(family["family"].toString(), QString("gpt2"));
        QCOMPARE(family["inferred"].toBool(), !named);
        QCOMPARE(family["layout"].toString(), QString("classic"));
        QVERIFY(family["params"].toString().endsWith(".yaml"));
        QVERIFY(family["notes"].isArray());
        if (!named)
            QVERIFY2(family["reason"].toString() != "model.name",
                     qPrintable(family["reason"].toString()));
    }

    // The vendor's hardware first (issue 26): a Cerebras config on its own compiles for a CS-2
    // without --target, and says why; an input that names no vendor gets the Profile's IPU Mk2.
    void defaultTargetOfAConfigOnItsOwn_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("reason");
        QTest::addRow("Model Zoo config")
            << QString(PORTOLAN_SOURCE_DIR) +
                   "/tests/sim/fixtures/fidelity/bert_base_pretraining.yaml"
            << "cs-2"
            << "a Cerebras Model Zoo config (bert_base_pretraining.yaml): Cerebras CS-2";
        QTest::addRow("runtime model")
            << QString(PORTOLAN_SAMPLES "/small-cnn-poptorch") << "ipu-mk2"
            << "the input names no vendor's hardware";
    }
    void defaultTargetOfAConfigOnItsOwn()
    {
        QFETCH(QString, input);
        QFETCH(QString, target);
        QFETCH(QString, reason);
        const QString report = m_dir.filePath("default-target.json");
        const auto r = runCli({"compile", input, "--report", report});
        QVERIFY2(r.exitCode == 0 || r.exitCode == 1, (r.out + r.err).constData());
        QVERIFY2(r.err.contains(("target " + target + ": " + reason).toUtf8()), r.err.constData());
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(j["options"].toObject()["target"].toString(), target);
    }

    void compileParamsFile()
    {
        // A Model Zoo params file compiles directly; Graphcore's BERT-Base split counts blocks,
        // its 0 an IPU with the embeddings and the tied head.
        const QString fixtures = QString(PORTOLAN_SOURCE_DIR) + "/tests/sim/fixtures/fidelity/";
        const auto r = runCli({"compile",
                               fixtures + "bert_base_pretraining.yaml",
                               "--target",
                               "ipu-mk2",
                               "--ipus",
                               "4",
                               "--split",
                               "0,4,4,4",
                               "--replicas",
                               "4",
                               "--micro-batch",
                               "32",
                               "--grad-accum",
                               "512",
                               "--precision",
                               "fp16",
                               "--recompute",
                               "--optimizer",
                               "lamb",
                               "--optimizer-off-chip",
                               "--replicated-tensor-sharding",
                               "--half-partials",
                               "--available-memory-proportion",
                               "0.25"});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY(r.out.contains("Params: bert (encoder, model.name)"));
        QVERIFY(r.out.contains("user split in blocks"));
        QVERIFY(r.out.contains("5 stages on 4 IPUs"));
        QVERIFY(r.out.contains("IPU-M2000 (4 IPUs) x 4 replicas (IPU-POD16)"));
        QVERIFY(r.out.contains("FITS"));
        // Per-IPU settings as Graphcore's configs give them (matmul_proportion per IPU).
        QStringList perIpu = {"compile",
                              fixtures + "bert_base_pretraining.yaml",
                              "--target",
                              "ipu-mk2",
                              "--ipus",
                              "4",
                              "--split",
                              "0,4,4,4",
                              "--precision",
                              "fp16",
                              "--amp-per-ipu",
                              "0.1,0.25,0.25,0.25",
                              "--recompute-per-ipu",
                              "0,1,1,1"};
        const auto p = runCli(perIpu);
        QVERIFY2(p.exitCode == 0, (p.out + p.err).constData());
        QVERIFY2(p.out.contains("recomputation per stage 0,1,1,1"), p.out.constData());
        QVERIFY2(p.out.contains("available memory proportion 0.1,0.25,0.25,0.25 per stage"),
                 p.out.constData());
        perIpu.last() = "0,1,2,1";
        const auto bad = runCli(perIpu);
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--recompute-per-ipu: each value is 0 or 1"),
                 bad.err.constData());
        perIpu.last() = "0,1";
        const auto count = runCli(perIpu);
        QVERIFY(count.exitCode != 0);
        QVERIFY2(count.err.contains("2 per-IPU recomputation settings for 4 IPUs"),
                 count.err.constData());
        // On a CS-2 the batch comes from the params file; the mode is named.
        const auto cs = runCli({"compile", fixtures + "gpt2_small.yaml", "--target", "cs-2"});
        QVERIFY2(cs.exitCode == 0, (cs.out + cs.err).constData());
        QVERIFY(cs.out.contains("in layer-pipelined mode"));
    }

    void autoSearch()
    {
        const QString fixtures = QString(PORTOLAN_SOURCE_DIR) + "/tests/sim/fixtures/fidelity/";
        const auto r = runCli({"compile", fixtures + "gpt2_medium.yaml", "--target", "ipu-mk2",
                               "--auto", "fewest-ipus", "--optimizer", "adamw", "--micro-batch",
                               "1", "--grad-accum", "64", "--precision", "fp16"});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY(r.out.contains("Search (fewest-ipus)"));
        QVERIFY(r.out.contains("pruned: 1 IPUs"));
        QVERIFY(r.out.contains("Best: "));
        QVERIFY(r.out.contains("FITS"));
    }

    // One verdict per result: the output never says FITS beside an error. The cases that did:
    // --auto on IPU Mk1 (it proposed optimizer state off chip, which Mk1 cannot keep), state
    // off chip asked for on Mk1, and a forced layer-pipelined compile of GPT-2 XL (1.5 B
    // parameters) on a CS-2, which Cerebras runs in weight streaming only.
    void oneVerdict_data()
    {
        const QString fixtures = QString(PORTOLAN_SOURCE_DIR) + "/tests/sim/fixtures/fidelity/";
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("needle");
        const QStringList small{"--synthetic",
                                "4x256",
                                "--synthetic-heads",
                                "4",
                                "--synthetic-sequence",
                                "64",
                                "--synthetic-vocab",
                                "1000",
                                "--target",
                                "ipu-mk1",
                                "--optimizer",
                                "adam",
                                "--optimizer-off-chip"};
        QTest::addRow("mk1 --auto") << (QStringList{"compile", "--auto", "fewest-ipus"} + small)
                                    << 0 << "has no streaming memory";
        QTest::addRow("mk1 off chip")
            << (QStringList{"compile", "--ipus", "2"} + small) << 1 << "has no streaming memory";
        QTest::addRow("cs-2 layer-pipelined 1.5B")
            << QStringList{"compile", fixtures + "gpt2_xl.yaml", "--target", "cs-2",
                           "--mode",  "layer-pipelined"}
            << 1 << "not supported";
    }
    void oneVerdict()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, needle);
        const auto r = runCli(args);
        const QString out = QString::fromUtf8(r.out + r.err);
        QVERIFY2(r.exitCode == exitCode, qPrintable(out));
        QVERIFY2(out.contains(needle), qPrintable(out));
        const bool fits = QRegularExpression(QStringLiteral("(^|\\n)FITS")).match(out).hasMatch();
        const bool error = out.contains(QLatin1String("error:"));
        QVERIFY2(!(fits && error), qPrintable(out));
        QVERIFY2(fits != out.contains(QLatin1String("DOES NOT FIT")) ||
                     out.contains(QLatin1String("No configuration fits")),
                 qPrintable(out));
        if (QTest::currentDataTag() == QByteArray("mk1 --auto"))
            QVERIFY2(!r.out.contains("off chip"), r.out.constData());
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("needle");
        QTest::addRow("unknown target")
            << QStringList{"compile", QString(PORTOLAN_SAMPLES) + "/small-cnn-poptorch", "--target",
                           "tpu-v4"}
            << "unknown target";
        QTest::addRow("pt without shape")
            << QStringList{"compile", "model.pt", "--target", "ipu-mk2"} << "--input-shape";
        QTest::addRow("bad split")
            << QStringList{"compile",  QString(PORTOLAN_SAMPLES) + "/small-cnn-poptorch",
                           "--target", "ipu-mk2",
                           "--split",  "2,x"}
            << "'x'";
        QTest::addRow("broken params")
            << QStringList{"compile",
                           QString(PORTOLAN_FIXTURES) + "/../sim/fixtures/fidelity/"
                                                        "../broken_params.yaml",
                           "--target", "ipu-mk2"}
            << "broken_params.yaml:5:";
        QTest::addRow("corrupt report")
            << QStringList{"compare", QString(PORTOLAN_SOURCE_DIR) + "/README.md",
                           QString(PORTOLAN_SOURCE_DIR) + "/README.md"}
            << "not valid JSON";
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, needle);
        const auto r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(needle.toUtf8()), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestSimCli)
#include "test_sim_cli.moc"
