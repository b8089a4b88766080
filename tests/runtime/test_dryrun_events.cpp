// Reading the dry-run child's pipes (core/dryrun events): lines cut from any chunking, event lines
// whose members have unexpected types, and portolan-cli fed such lines by a stand-in interpreter.
// Found by fuzz_dryrun_events: a member of another type than the driver writes ("max_steps":
// "three", "code": 5) made nlohmann's value() throw out of the line callback, and portolan-cli
// aborted (exit 134) instead of reporting the run.
#include "core/dryrun/dry_run.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace portolan::dryrun;

class TestDryRunEvents : public QObject
{
    Q_OBJECT

private slots:
    void readEventLine_data();
    void readEventLine();
    void describeEvent_data();
    void describeEvent();
    void lineSplitter_data();
    void lineSplitter();
    void cliSurvivesHostileEvents_data();
    void cliSurvivesHostileEvents();
    void projectStdoutIsNeverAnEvent();
    void savedParamsFileReachesTheDryRun();
};

void TestDryRunEvents::readEventLine_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("terminal");
    QTest::addColumn<bool>("usageError");
    QTest::addRow("step") << QByteArray(R"({"event": "step", "step": 1, "loss": 2.5})") << "step"
                          << false << false;
    QTest::addRow("finished") << QByteArray(R"({"event": "finished", "step": 2})") << "finished"
                              << true << false;
    QTest::addRow("failed by the project")
        << QByteArray(R"({"event": "failed", "code": "dryrun.exception"})") << "failed" << true
        << false;
    QTest::addRow("failed: usage")
        << QByteArray(R"({"event": "failed", "code": "dryrun.tensorflow"})") << "failed" << true
        << true;
    // The typed reader refuses a field of the wrong type: a warning, never the event it claims.
    QTest::addRow("failed: code is a number")
        << QByteArray(R"({"event": "failed", "code": 5})") << "warning" << false << false;
    QTest::addRow("failed: code is an object")
        << QByteArray(R"({"event": "failed", "code": {"dryrun.no-entry": 1}})") << "warning"
        << false << false;
    QTest::addRow("event is a number")
        << QByteArray(R"({"event": 5})") << "output" << false << false;
    QTest::addRow("no event member") << QByteArray(R"({"step": 1})") << "output" << false << false;
    QTest::addRow("array") << QByteArray(R"([{"event": "finished"}])") << "output" << false
                           << false;
    QTest::addRow("truncated") << QByteArray(R"({"event": "fini)") << "output" << false << false;
    QTest::addRow("invalid UTF-8")
        << QByteArray("\xff\xfe{\"event\"") << "output" << false << false;
}

void TestDryRunEvents::readEventLine()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, type);
    QFETCH(bool, terminal);
    QFETCH(bool, usageError);
    const EventLine e = portolan::dryrun::readEventLine(line.toStdString(), 12.5);
    QCOMPARE(QString::fromStdString(e.event["event"].get<std::string>()), type);
    QCOMPARE(e.terminal, terminal);
    QCOMPARE(e.usageError, usageError);
    if (type == "output") {
        QCOMPARE(QByteArray::fromStdString(e.event["text"].get<std::string>()), line);
        QCOMPARE(e.event["time"].get<double>(), 12.5);
    }
    // Written out as portolan-cli --events jsonl does, whatever the bytes.
    QVERIFY(!e.event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).empty());
}

void TestDryRunEvents::describeEvent_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<bool>("toStderr");
    QTest::addRow("started")
        << QByteArray(
               R"({"event": "started", "entry": "train.py", "flavour": "plain-pytorch", "max_steps": 3, "batch": 2, "entry_reason": "has a __main__ block"})")
        << "Dry run of train.py (plain-pytorch): 3 steps at batch 2" << false;
    // The config's reason has parentheses of its own: none around it.
    QTest::addRow("started with a config")
        << QByteArray(
               R"j({"event": "started", "entry": "train.py", "flavour": "plain-pytorch", "max_steps": 3, "batch": 2, "entry_reason": "has a __main__ block", "config": "a.yaml", "config_reason": "the file the code names (args.config)"})j")
        << "Dry run of train.py (plain-pytorch): 3 steps at batch 2\n  entry: has a __main__ "
           "block\n  config: a.yaml — the file the code names (args.config)\n"
        << false;
    QTest::addRow("started: max_steps is text")
        << QByteArray(R"({"event": "started", "entry": "train.py", "max_steps": "three"})")
        << "warning: event refused: the \"max_steps\" of a \"started\" event is string, not an "
           "integer"
        << false;
    QTest::addRow("started: entry is a number")
        << QByteArray(R"({"event": "started", "entry": 7, "config": 3})") << "Dry run of ? (?)"
        << false;
    QTest::addRow("step")
        << QByteArray(R"({"event": "step", "step": 12, "loss": 0.25, "samples_per_sec": 40.4})")
        << "step   12  loss 0.2500  40.4 samples/s" << false;
    QTest::addRow("step: loss is text")
        << QByteArray(R"({"event": "step", "step": [1], "loss": "nan"})")
        << "warning: event refused: the \"step\"" << false;
    QTest::addRow("step: a huge float")
        << QByteArray(R"({"event": "step", "step": 1e300})") << "warning: event refused" << false;
    QTest::addRow("capture: traced is text")
        << QByteArray(R"({"event": "capture", "path": "c", "traced": "yes", "trace_error": 1})")
        << "capture: c (, 0 parameters, not traced: )" << false;
    QTest::addRow("arguments without values")
        << QByteArray(R"({"event": "arguments"})") << "arguments: {}" << false;
    QTest::addRow("finished: mistyped")
        << QByteArray(R"({"event": "finished", "reason": 1, "step": "2", "captured": 1})")
        << "warning: event refused" << false;
    QTest::addRow("failed")
        << QByteArray(R"({"event": "failed", "diagnostic": "error: no entry [dryrun.no-entry]"})")
        << "portolan-cli: error: no entry [dryrun.no-entry]" << true;
    QTest::addRow("failed: diagnostic is a number")
        << QByteArray(R"({"event": "failed", "diagnostic": 1, "message": "it broke"})")
        << "warning: event refused: the \"diagnostic\"" << false;
    QTest::addRow("output prints nothing") << QByteArray("just text") << "" << false;
}

void TestDryRunEvents::describeEvent()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, expected);
    QFETCH(bool, toStderr);
    const EventText t = portolan::dryrun::describeEvent(
        portolan::dryrun::readEventLine(line.toStdString(), 0).event);
    const QString text = QString::fromStdString(t.text);
    if (expected.isEmpty())
        QVERIFY2(text.isEmpty(), qPrintable(text));
    else
        QVERIFY2(text.startsWith(expected), qPrintable(text));
    QCOMPARE(t.toStderr, toStderr);
}

void TestDryRunEvents::lineSplitter_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("chunk");
    QTest::addColumn<QStringList>("lines");
    const QByteArray bar = "epoch 1: 10%|\x1b[32m#\x1b[0m |\repoch 1: 100%|\x1b[32m##\x1b[0m|\n"
                           "\x1b[2K\x1b[1Adone\r\n";
    for (int chunk : {1, 2, 3, 7, 4096})
        QTest::addRow("progress bar, chunks of %d", chunk)
            << bar << chunk << QStringList{"epoch 1: 10%|# |", "epoch 1: 100%|##|", "done"};
    QTest::addRow("no final line end") << QByteArray("a\nb") << 1 << QStringList{"a", "b"};
    QTest::addRow("empty lines dropped") << QByteArray("\n\r\n\nx\n\n") << 2 << QStringList{"x"};
    QTest::addRow("escape at the end") << QByteArray("a\x1b") << 1 << QStringList{"a"};
    QTest::addRow("a line over 64 KiB is cut")
        << (QByteArray(70000, 'x') + "\ny") << 4096
        << QStringList{QString(64 * 1024, 'x'), QStringLiteral("y")};
}

void TestDryRunEvents::lineSplitter()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, chunk);
    QFETCH(QStringList, lines);
    QStringList got;
    const LineSplitter::Emit onLine = [&](const std::string& l) {
        got << QString::fromStdString(l);
    };
    LineSplitter s;
    for (qsizetype at = 0; at < bytes.size(); at += chunk)
        s.feed(bytes.constData() + at, std::size_t(std::min<qsizetype>(chunk, bytes.size() - at)),
               onLine);
    s.flush(onLine);
    QCOMPARE(got, lines);
}

void TestDryRunEvents::cliSurvivesHostileEvents_data()
{
    QTest::addColumn<QByteArray>("events");
    QTest::addColumn<bool>("jsonl");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("expected");
    const QByteArray startedText =
        R"({"event": "started", "entry": "train.py", "max_steps": "three"})"
        "\n"
        R"({"event": "finished", "reason": "completed", "step": 1})"
        "\n";
    QTest::addRow("text: max_steps is text")
        << startedText << false << 0 << "finished (completed) after 1 steps";
    QTest::addRow("jsonl: max_steps is text")
        << startedText << true << 0 << "\"kind\":\"refused-event\"";
    // A "failed" with a mistyped code is refused: the run ends without its final event.
    const QByteArray failedNumber = R"({"event": "failed", "code": 5, "message": "boom"})"
                                    "\n";
    QTest::addRow("text: failed code is a number") << failedNumber << false << 1 << "boom";
    QTest::addRow("jsonl: failed code is a number")
        << failedNumber << true << 1 << "without a final event";
}

void TestDryRunEvents::cliSurvivesHostileEvents()
{
    // A stand-in for /usr/bin/python3 (PORTOLAN_PYTHON) that writes the lines on the event
    // pipe, as a project's code could.
    QFETCH(QByteArray, events);
    QFETCH(bool, jsonl);
    QFETCH(int, exitCode);
    QFETCH(QString, expected);
    QTemporaryDir tmp;
    QVERIFY(QDir(tmp.path()).mkpath("project"));
    QFile train(tmp.filePath("project/train.py"));
    QVERIFY(train.open(QIODevice::WriteOnly));
    train.write("import torch\n");
    train.close();
    QFile lines(tmp.filePath("events.jsonl"));
    QVERIFY(lines.open(QIODevice::WriteOnly));
    lines.write(events);
    lines.close();
    QFile python(tmp.filePath("python"));
    QVERIFY(python.open(QIODevice::WriteOnly));
    python.write("#!/bin/sh\ncat '" + tmp.filePath("events.jsonl").toUtf8() + "' >&3\n");
    python.close();
    python.setPermissions(python.permissions() | QFileDevice::ExeOwner);

    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PORTOLAN_PYTHON", tmp.filePath("python"));
    env.insert("PORTOLAN_CONFIG_DIR", tmp.filePath("config"));
    p.setProcessEnvironment(env);
    QStringList args{"run", tmp.filePath("project"), "--dry-run", "--trust"};
    if (jsonl)
        args << "--events"
             << "jsonl";
    p.start(PORTOLAN_CLI, args);
    QVERIFY(p.waitForFinished(120000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == exitCode, qPrintable(QString::number(p.exitCode()) + out + err));
    QVERIFY2((out + err).contains(expected), qPrintable(out + err));
}

namespace {

QProcess* startCli(QProcess& p, const QString& configDir, const QStringList& args,
                   const QString& python = {})
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!python.isEmpty())
        env.insert("PORTOLAN_PYTHON", python);
    env.insert("PORTOLAN_CONFIG_DIR", configDir);
    p.setProcessEnvironment(env);
    p.start(PORTOLAN_CLI, args);
    return &p;
}

} // namespace

void TestDryRunEvents::projectStdoutIsNeverAnEvent()
{
    // The project prints an event-like line on its stdout (here: a "finished" at step 99) before
    // the driver's real events: only the event pipe is read as events.
    QTemporaryDir tmp;
    QVERIFY(QDir(tmp.path()).mkpath("project"));
    QFile train(tmp.filePath("project/train.py"));
    QVERIFY(train.open(QIODevice::WriteOnly));
    train.write("import torch\n");
    train.close();
    QFile python(tmp.filePath("python"));
    QVERIFY(python.open(QIODevice::WriteOnly));
    python.write("#!/bin/sh\n"
                 "echo '{\"event\": \"failed\", \"code\": \"x\", \"message\": \"fake\"}'\n"
                 "echo '{\"event\": \"step\", \"step\": 1, \"loss\": 0.5}' >&3\n"
                 "echo '{\"event\": \"finished\", \"reason\": \"completed\", \"step\": 1}' >&3\n");
    python.close();
    python.setPermissions(python.permissions() | QFileDevice::ExeOwner);
    QProcess p;
    startCli(p, tmp.filePath("config"),
             {"run", tmp.filePath("project"), "--dry-run", "--trust", "--events", "jsonl"},
             tmp.filePath("python"));
    QVERIFY(p.waitForFinished(120000));
    const QList<QByteArray> lines = p.readAllStandardOutput().split('\n');
    QCOMPARE(p.exitCode(), 0); // the fake "failed" did not end the run
    bool sawOutput = false;
    for (const QByteArray& line : lines) {
        const auto e = nlohmann::json::parse(line.toStdString(), nullptr, false);
        if (!e.is_object())
            continue;
        QVERIFY2(e["event"] != "failed", line.constData());
        if (e["event"] == "output" && e["stream"] == "stdout") {
            QVERIFY(e["text"].get<std::string>().find("fake") != std::string::npos);
            sawOutput = true;
        }
    }
    QVERIFY(sawOutput);
}

void TestDryRunEvents::savedParamsFileReachesTheDryRun()
{
    // The params file by the one rule (core/project/params_file.h): the choice saved with
    // `info --use-params` is the dry run's config, not the driver's own (const.yaml first).
    QTemporaryDir tmp;
    const QString project = tmp.filePath("image-classifier-determined");
    QVERIFY(QDir().mkpath(project));
    const QDir sample(PORTOLAN_SAMPLES "/image-classifier-determined");
    for (const QString& f : sample.entryList(QDir::Files))
        QVERIFY(QFile::copy(sample.filePath(f), project + "/" + f));
    QProcess info;
    startCli(info, tmp.filePath("config"), {"info", project, "--use-params", "adaptive.yaml"});
    QVERIFY(info.waitForFinished(120000));
    QVERIFY2(info.exitCode() == 0 || info.exitCode() == 1, info.readAllStandardError().constData());
    // A stand-in interpreter that prints the driver's arguments as its started event.
    QFile python(tmp.filePath("python"));
    QVERIFY(python.open(QIODevice::WriteOnly));
    python.write("#!/bin/sh\n"
                 "echo \"{\\\"event\\\": \\\"info\\\", \\\"message\\\": \\\"$*\\\"}\" >&3\n"
                 "echo '{\"event\": \"finished\", \"reason\": \"completed\", \"step\": 1}' >&3\n");
    python.close();
    python.setPermissions(python.permissions() | QFileDevice::ExeOwner);
    QProcess run;
    startCli(run, tmp.filePath("config"), {"run", project, "--dry-run", "--trust"},
             tmp.filePath("python"));
    QVERIFY(run.waitForFinished(120000));
    const QString out = QString::fromUtf8(run.readAllStandardOutput());
    QVERIFY2(out.contains("--params " + project + "/adaptive.yaml"), qPrintable(out));
    // And the real driver reports it as its config.
    QProcess real;
    startCli(real, tmp.filePath("config"),
             {"run", project, "--dry-run", "--trust", "--steps", "1"});
    QVERIFY(real.waitForFinished(300000));
    const QString realOut = QString::fromUtf8(real.readAllStandardOutput());
    QVERIFY2(realOut.contains("config: adaptive.yaml — the project's saved choice ("),
             qPrintable(realOut + real.readAllStandardError()));
}

QTEST_GUILESS_MAIN(TestDryRunEvents)
#include "test_dryrun_events.moc"
