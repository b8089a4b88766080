// The run-event format (core/runtime/EVENTS.md) and its one reader and writer
// (core/runtime/run_event.h): what the Python dry-run driver writes is read with no refusal,
// fields of the wrong type are refused with a message (never an exception), and what the
// writer writes reads back the same.
#include "core/dryrun/dry_run.h"
#include "core/runtime/run_event.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace portolan;

namespace {

bool copyTree(const QString& from, const QString& to)
{
    QDirIterator it(from, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString target = to + QLatin1Char('/') + QDir(from).relativeFilePath(file);
        if (!QDir().mkpath(QFileInfo(target).path()) || !QFile::copy(file, target))
            return false;
    }
    return true;
}

} // namespace

namespace {
void refusesWrongTypes_dataTest()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::addRow("loss is text")
        << QByteArray(R"({"event": "step", "step": 1, "loss": "0.5"})") << "events.field-type"
        << R"(the "loss" of a "step" event is string, not a number or null)";
    QTest::addRow("step is an object")
        << QByteArray(R"({"event": "step", "step": {"n": 1}})") << "events.field-type"
        << R"(the "step" of a "step" event is object, not an integer)";
    QTest::addRow("step is a fraction")
        << QByteArray(R"({"event": "eval", "step": 1.5})") << "events.field-type"
        << R"(the "step" of a "eval" event is number, not an integer)";
    QTest::addRow("code is a number")
        << QByteArray(R"({"event": "failed", "code": 5})") << "events.field-type"
        << R"(the "code" of a "failed" event is number, not a string)";
    QTest::addRow("time is text") << QByteArray(R"({"event": "info", "time": "now"})")
                                  << "events.field-type"
                                  << R"(the "time")";
    QTest::addRow("event is a number") << QByteArray(R"({"event": 5})") << "events.not-event"
                                       << "not a run event";
    QTest::addRow("array") << QByteArray(R"([{"event": "step"}])") << "events.not-event"
                           << "not a run event";
    QTest::addRow("truncated") << QByteArray(R"({"event": "st)") << "events.not-event"
                               << "not JSON";
    QTest::addRow("invalid UTF-8") << QByteArray("{\"event\": \"\xff\"}") << "events.not-event"
                                   << "not JSON";
}

void refusesWrongTypesTest()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, code);
    QFETCH(QString, message);
    const auto e = runtime::parseRunEvent(std::string_view(line.constData(), line.size()));
    QVERIFY(!e);
    QCOMPARE(QString::fromStdString(e.error.code), code);
    QVERIFY2(QString::fromStdString(e.error.message).contains(message), e.error.message.c_str());
}

void readsDocumentedFormsTest()
{
    // Nulls where EVENTS.md allows them, whole floats as counts, unknown fields kept.
    const auto e = runtime::parseRunEvent(
        R"({"event": "step", "time": 1.5, "step": 3.0, "loss": null, "lr": null, "x": [1]})");
    QVERIFY2(e, e.error.message.c_str());
    QCOMPARE(int(e.value->kind), int(runtime::RunEventKind::Step));
    QCOMPARE(e.value->step, std::int64_t(3));
    QVERIFY(!e.value->loss);
    QCOMPARE(e.value->fields["x"][0].get<int>(), 1);
    const auto f = runtime::parseRunEvent(R"({"event": "finished", "final_loss": 0.25})");
    QVERIFY(f && f.value->isTerminal() && f.value->loss == 0.25);
}

void writerRoundTripTest()
{
    runtime::RunEvent e = runtime::makeRunEvent("step", 100.25);
    e.step = 7;
    e.loss = 1.5;
    e.lr = 0.01;
    e.samplesPerSec = 400;
    e.fields["epoch"] = 2;
    const std::string line = runtime::toJsonLine(e);
    const auto back = runtime::parseRunEvent(line);
    QVERIFY2(back, back.error.message.c_str());
    QCOMPARE(back.value->step, std::int64_t(7));
    QCOMPARE(*back.value->loss, 1.5);
    QCOMPARE(*back.value->lr, 0.01);
    QCOMPARE(back.value->time, 100.25);
    QCOMPARE(back.value->fields["epoch"].get<int>(), 2);
    QCOMPARE(runtime::toJsonLine(*back.value), line);
}

// The Python driver's own output, read by the C++ reader: not one line refused.
void pythonDriverOutputReads_dataTest()
{
    QTest::addColumn<QString>("source");
    QTest::addRow("tiny") << QStringLiteral(PORTOLAN_FIXTURES "/projects/tiny");
    QTest::addRow("mnist-mlp-original") << QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-original");
}

void pythonDriverOutputReadsTest()
{
    QFETCH(QString, source);
    QTemporaryDir tmp;
    const QString project = tmp.filePath("project");
    QVERIFY(copyTree(source, project));
    dryrun::DryRunOptions o;
    o.project = project.toStdString();
    o.flavour = dryrun::detectFlavour(o.project);
    o.steps = 2;
    const std::filesystem::path pythonDir = PORTOLAN_SOURCE_DIR "/resources/python";
    dryrun::ChildLimits limits;
    limits.timeoutSeconds = 240;
    limits.workingDirectory = o.project;
    limits.environment = dryrun::childEnvironment(pythonDir);
    limits.environment.emplace_back("PORTOLAN_CONFIG_DIR", tmp.filePath("config").toStdString());
    QStringList refused;
    QStringList types;
    const auto outcome = dryrun::runChild(
        dryrun::childCommand(o, pythonDir), limits, [&](dryrun::Stream s, const std::string& line) {
            if (s != dryrun::Stream::Events)
                return;
            const auto e = runtime::parseRunEvent(line);
            if (e)
                types << QString::fromStdString(e.value->type);
            else
                refused << QString::fromStdString(e.error.message + ": " + line);
        });
    QVERIFY2(outcome.started, outcome.startError.c_str());
    QVERIFY2(refused.isEmpty(), qPrintable(refused.join('\n')));
    QVERIFY(!types.isEmpty()); // tiny fails before "started" (no entry): still one event
    QVERIFY2(types.last() == "finished" || types.last() == "failed", qPrintable(types.join(' ')));
}

} // namespace

// moc does not read raw string literals in a class body: the tests are free functions.
class TestRunEvent : public QObject
{
    Q_OBJECT

private slots:
    void refusesWrongTypes_data() { refusesWrongTypes_dataTest(); }
    void refusesWrongTypes() { refusesWrongTypesTest(); }
    void readsDocumentedForms() { readsDocumentedFormsTest(); }
    void writerRoundTrip() { writerRoundTripTest(); }
    void pythonDriverOutputReads_data() { pythonDriverOutputReads_dataTest(); }
    void pythonDriverOutputReads() { pythonDriverOutputReadsTest(); }
};

QTEST_GUILESS_MAIN(TestRunEvent)
#include "test_run_event.moc"
