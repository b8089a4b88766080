// `portolan-cli train` as the GUI runs it: a child process writing JSON events, one per line;
// SIGTERM stops it gracefully with a checkpoint, SIGKILL ends it at once; bad params fail with a
// positioned message.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

namespace {

struct CliRun
{
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::NormalExit;
    QList<QJsonObject> events;
    QByteArray out;
    QByteArray err;
};

QList<QJsonObject> parseLines(const QByteArray& out, bool* allValid)
{
    QList<QJsonObject> events;
    *allValid = true;
    for (const QByteArray& line : out.split('\n')) {
        if (line.isEmpty())
            continue;
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject()) {
            *allValid = false;
            continue;
        }
        events << doc.object();
    }
    return events;
}

CliRun runCli(const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(PORTOLAN_CLI, args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    r.exitCode = p.exitCode();
    r.status = p.exitStatus();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    bool valid = false;
    r.events = parseLines(r.out, &valid);
    if (!valid)
        r.exitCode = -100; // reported by the caller's QCOMPARE
    return r;
}

QString sample(const char* name)
{
    return QStringLiteral(PORTOLAN_SAMPLES "/") + name;
}

} // namespace

class TestRuntimeCli : public QObject
{
    Q_OBJECT

private slots:
    void eventsAreJsonLines();
    void trainAndEvalOnDetermined();
    void badParamsFailWithPosition_data();
    void badParamsFailWithPosition();
    void sigtermStopsGracefully();
    void sigkillEndsAtOnce();
    void textOutputWithoutEvents();
    void resumeFromCli();
};

void TestRuntimeCli::eventsAreJsonLines()
{
    QTemporaryDir tmp;
    const CliRun r =
        runCli({"train", sample("mnist-mlp-cerebras-pytorch"), "--steps", "12", "--events", "jsonl",
                "--log-steps", "1", "--threads", "1", "--checkpoint-dir", tmp.path()});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.events.size() >= 15);
    QCOMPARE(r.events.first().value("event").toString(), QStringLiteral("started"));
    QCOMPARE(r.events.last().value("event").toString(), QStringLiteral("finished"));
    QCOMPARE(r.events.last().value("reason").toString(), QStringLiteral("completed"));
    const QJsonObject started = r.events.first();
    QCOMPARE(started.value("model").toString(), QStringLiteral("fc_mnist"));
    QCOMPARE(started.value("max_steps").toInt(), 12);
    QCOMPARE(started["config"]["model"]["hidden_size"].toInt(), 128);
    // No MNIST files in the sample: the data is synthetic, and the events say so.
    QVERIFY(started["data"]["train"]["synthetic"].toBool());
    bool warned = false;
    int steps = 0;
    int checkpoints = 0;
    for (const QJsonObject& e : r.events) {
        QVERIFY(e.contains("time"));
        const QString type = e.value("event").toString();
        warned =
            warned || (type == "warning" && e.value("message").toString().contains("synthetic"));
        if (type == "step") {
            ++steps;
            QCOMPARE(e.value("step").toInt(), steps);
            QVERIFY(e.value("loss").toDouble() > 0);
            QCOMPARE(e.value("lr").toDouble(), 0.05);
            QVERIFY(e.value("samples_per_sec").toDouble() > 0);
        }
        if (type == "checkpoint") {
            ++checkpoints;
            QVERIFY(QFileInfo::exists(e.value("path").toString()));
        }
    }
    QVERIFY(warned);
    QCOMPARE(steps, 12);
    QCOMPARE(checkpoints, 1);
}

void TestRuntimeCli::trainAndEvalOnDetermined()
{
    QTemporaryDir tmp;
    const CliRun r = runCli({"train", sample("image-classifier-determined"), "--mode",
                             "train_and_eval", "--steps", "6", "--eval-every", "3", "--events",
                             "jsonl", "--threads", "1", "--checkpoint-dir", tmp.path()});
    QCOMPARE(r.exitCode, 0);
    int evals = 0;
    for (const QJsonObject& e : r.events)
        if (e.value("event").toString() == "eval") {
            ++evals;
            QCOMPARE(e.value("samples").toInt(), 10000); // synthetic test split: a fifth
            QVERIFY(e.value("accuracy").toDouble() >= 0.0);
        }
    QCOMPARE(evals, 2);
    QCOMPARE(r.events.first()["config"]["layout"].toString(), QStringLiteral("determined"));
}

void TestRuntimeCli::badParamsFailWithPosition_data()
{
    QTest::addColumn<QString>("params");
    QTest::addColumn<QString>("where");
    QTest::addRow("unknown model") << "unknown_model.yaml"
                                   << "unknown_model.yaml:4:11";
    QTest::addRow("bad depth") << "bad_depth.yaml"
                               << "bad_depth.yaml:5:12";
    QTest::addRow("bad scheduler") << "bad_scheduler.yaml"
                                   << "bad_scheduler.yaml:14:22";
}

void TestRuntimeCli::badParamsFailWithPosition()
{
    QFETCH(QString, params);
    QFETCH(QString, where);
    QTemporaryDir tmp;
    const CliRun r = runCli({"train", tmp.path(), "--params",
                             QStringLiteral(RUNTIME_FIXTURES "/") + params, "--events", "jsonl"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(!r.events.isEmpty());
    const QJsonObject failed = r.events.last();
    QCOMPARE(failed.value("event").toString(), QStringLiteral("failed"));
    QVERIFY2(failed.value("diagnostic").toString().contains(where),
             qPrintable(failed.value("diagnostic").toString()));
    QVERIFY(failed["location"]["line"].toInt() > 0);

    // Without --events the same message goes to stderr, compiler style.
    const CliRun text =
        runCli({"train", tmp.path(), "--params", QStringLiteral(RUNTIME_FIXTURES "/") + params});
    QCOMPARE(text.exitCode, 2);
    QVERIFY2(QString::fromUtf8(text.err).contains(where), text.err.constData());
}

void TestRuntimeCli::sigtermStopsGracefully()
{
    QTemporaryDir tmp;
    QProcess p;
    p.start(PORTOLAN_CLI,
            {"train", sample("mnist-mlp-cerebras-pytorch"), "--steps", "1000000", "--events",
             "jsonl", "--log-steps", "1", "--threads", "1", "--checkpoint-dir", tmp.path()});
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += p.readAllStandardOutput()).count("\"event\":\"step\"") >= 3,
                             60000);
    p.terminate(); // SIGTERM
    QVERIFY(p.waitForFinished(60000));
    out += p.readAllStandardOutput();
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    bool valid = false;
    const auto events = parseLines(out, &valid);
    QVERIFY(valid);
    QCOMPARE(events.last().value("event").toString(), QStringLiteral("finished"));
    QCOMPARE(events.last().value("reason").toString(), QStringLiteral("stopped"));
    const QJsonObject checkpoint = events.at(events.size() - 2);
    QCOMPARE(checkpoint.value("event").toString(), QStringLiteral("checkpoint"));
    QVERIFY(QFileInfo::exists(checkpoint.value("path").toString()));
    QCOMPARE(checkpoint.value("step").toInt(), events.last().value("step").toInt());
}

void TestRuntimeCli::sigkillEndsAtOnce()
{
    QTemporaryDir tmp;
    QProcess p;
    p.start(PORTOLAN_CLI, {"train", sample("alphabet-transformer-cerebras-layers"), "--steps",
                           "1000000", "--events", "jsonl", "--log-steps", "1", "--threads", "1",
                           "--checkpoint-dir", tmp.path()});
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += p.readAllStandardOutput()).count("\"event\":\"step\"") >= 1,
                             60000);
    p.kill(); // SIGKILL
    QVERIFY(p.waitForFinished(10000));
    out += p.readAllStandardOutput();
    QCOMPARE(p.exitStatus(), QProcess::CrashExit);
    QVERIFY(!out.contains("\"event\":\"finished\""));
    QVERIFY(QDir(tmp.path()).entryList({"*.ckpt"}, QDir::Files).isEmpty());
}

void TestRuntimeCli::textOutputWithoutEvents()
{
    QTemporaryDir tmp;
    const CliRun r = runCli({"train", sample("small-cnn-poptorch"), "--steps", "3", "--log-steps",
                             "1", "--threads", "1", "--checkpoint-dir", tmp.path()});
    QCOMPARE(r.exitCode, -100); // not JSON: text
    const QString text = QString::fromUtf8(r.out);
    QVERIFY2(text.contains("Training small_cnn"), qPrintable(text));
    QVERIFY(text.contains("step      3  loss"));
    QVERIFY(text.contains("finished (completed) at step 3"));
}

void TestRuntimeCli::resumeFromCli()
{
    QTemporaryDir tmp;
    const QString project = sample("mnist-mlp-cerebras-pytorch");
    const QStringList common{"--events", "jsonl", "--log-steps", "1", "--threads", "1"};
    const CliRun full = runCli(
        QStringList{"train", project, "--steps", "8", "--checkpoint-dir", tmp.path() + "/full"} +
        common);
    const CliRun part = runCli(
        QStringList{"train", project, "--steps", "5", "--checkpoint-dir", tmp.path() + "/part"} +
        common);
    QCOMPARE(full.exitCode, 0);
    QCOMPARE(part.exitCode, 0);
    QString checkpoint;
    for (const auto& e : part.events)
        if (e.value("event").toString() == "checkpoint")
            checkpoint = e.value("path").toString();
    const CliRun rest = runCli(QStringList{"train", project, "--steps", "8", "--checkpoint-dir",
                                           tmp.path() + "/part", "--resume", checkpoint} +
                               common);
    QCOMPARE(rest.exitCode, 0);
    const auto losses = [](const CliRun& r) {
        QList<double> out;
        for (const auto& e : r.events)
            if (e.value("event").toString() == "step")
                out << e.value("loss").toDouble();
        return out;
    };
    QCOMPARE(losses(part) + losses(rest), losses(full));
}

QTEST_GUILESS_MAIN(TestRuntimeCli)
#include "test_runtime_cli.moc"
