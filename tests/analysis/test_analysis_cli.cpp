// portolan-cli check / flow / info on the samples: exit codes and output formats.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

namespace {

struct Run
{
    int code = -1;
    QByteArray out;
    QByteArray err;
};

Run cli(const QStringList& args)
{
    QProcess p;
    p.start(PORTOLAN_CLI, args);
    p.waitForFinished(120000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

QString sample(const char* name)
{
    return QString(PORTOLAN_SAMPLES) + "/" + name;
}

} // namespace

class TestAnalysisCli : public QObject
{
    Q_OBJECT
private slots:
    void checkExitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addRow("port-clean") << QStringList{"check", sample("small-cnn-poptorch")} << 0;
        QTest::addRow("original-errors") << QStringList{"check", sample("small-cnn-original")} << 1;
        QTest::addRow("explicit-target") << QStringList{"check",    sample("mnist-mlp-original"),
                                                        "--target", "cerebras-pytorch",
                                                        "--format", "json"}
                                         << 1;
        QTest::addRow("unknown-target")
            << QStringList{"check", sample("mnist-mlp-original"), "--target", "nope"} << 2;
        QTest::addRow("missing-project") << QStringList{"check", "/nonexistent/project"} << 2;
        QTest::addRow("bad-format")
            << QStringList{"check", sample("mnist-mlp-original"), "--format", "xml"} << 2;
        QTest::addRow("list-guides") << QStringList{"check", "--list-guides"} << 0;
    }
    void checkExitCodes()
    {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        const Run r = cli(args);
        QVERIFY2(r.code == code, r.err.constData());
    }

    void checkJson()
    {
        const Run r = cli({"check", sample("image-classifier-original"), "--format", "json"});
        QCOMPARE(r.code, 1);
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["guide"].toString(), QStringLiteral("determined-pytorchtrial"));
        QVERIFY(j["errors"].toInt() > 10);
        QCOMPARE(j["steps_total"].toInt(), 6);
    }

    // Issue 26: the memory step of a ported PopTorch project said "passed" with nothing behind
    // it; it is "not-verified" with its reason and the compile that verifies it.
    void checkSaysNotVerified()
    {
        const Run r = cli({"check", sample("small-cnn-poptorch"), "--format", "json"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QJsonObject memory;
        for (const auto& s : j["steps"].toArray())
            if (s.toObject()["id"].toString() == QLatin1String("memory"))
                memory = s.toObject();
        QCOMPARE(memory["status"].toString(), QStringLiteral("not-verified"));
        QCOMPARE(memory["verify_action"].toString(), QStringLiteral("compile"));
        QVERIFY(!memory["reason"].toString().isEmpty());
        QCOMPARE(j["steps_done"].toInt(), j["steps_total"].toInt() - 2);
        const Run text = cli({"check", sample("small-cnn-poptorch")});
        QVERIFY2(text.out.contains("Fits in memory  [not-verified"), text.out.constData());
        QVERIFY(text.out.contains("to verify: portolan-cli compile"));
    }

    void checkTextShowsDiffs()
    {
        const Run r = cli({"check", sample("alphabet-transformer-original"), "--target",
                           "cerebras-layers", "--diff"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.out.contains("--- a/model.py"));
        QVERIFY(r.out.contains(
            "+    return mask.masked_fill(mask == 1, torch.finfo(torch.float16).min)"));
    }

    void flow_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("starts");
        QTest::addRow("dot") << QStringList{"flow", sample("mnist-mlp-cerebras-pytorch")}
                             << QByteArray("digraph flow {");
        QTest::addRow("svg") << QStringList{"flow", sample("image-classifier-determined"),
                                            "--format", "svg"}
                             << QByteArray("<?xml");
        QTest::addRow("guide-order") << QStringList{"flow", "--guide", "graphcore-poptorch"}
                                     << QByteArray("digraph guide {");
    }
    void flow()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, starts);
        const Run r = cli(args);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.startsWith(starts), r.out.left(80).constData());
    }

    // Scripts that never train (analysis/port_scope.h): the check output says which files were
    // not checked as the port, and why, in text and in JSON.
    void checkListsFilesOffThePort()
    {
        const QString project = QString(PORTOLAN_SAMPLES) +
                                "/../tests/analysis/fixtures/projects/inference-script-original";
        const Run r = cli({"check", project, "--format", "json"});
        QCOMPARE(r.code, 1);
        QStringList off;
        for (const auto& e : QJsonDocument::fromJson(r.out).object()["not_port"].toArray()) {
            off << e.toObject()["file"].toString();
            QVERIFY(!e.toObject()["reason"].toString().isEmpty());
        }
        QCOMPARE(off, (QStringList{"predict.py", "render.py", "tests/test_fit.py"}));
        const Run text = cli({"check", project});
        QVERIFY2(
            text.out.contains("Not checked as the port: predict.py: a script that never trains"),
            text.out.constData());
    }

    void infoFlavour()
    {
        const Run r = cli({"info", sample("small-cnn-poptorch"), "--format", "json"});
        QCOMPARE(r.code, 0);
        const QJsonObject f = QJsonDocument::fromJson(r.out).object()["flavour"].toObject();
        QCOMPARE(f["id"].toString(), QStringLiteral("graphcore-poptorch"));
        QCOMPARE(f["suggested_guide"].toString(), QStringLiteral("graphcore-poptorch"));
        const Run t = cli({"info", sample("mnist-mlp-original")});
        QVERIFY(t.out.contains("Flavour: plain PyTorch"));
    }
};

QTEST_GUILESS_MAIN(TestAnalysisCli)
#include "test_analysis_cli.moc"
