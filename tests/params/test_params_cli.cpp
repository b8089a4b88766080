// portolan-cli params get|set|validate, run as a user would.
#include "../cli/cli_runner.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

namespace {
QString fixture(const char* name)
{
    return QStringLiteral(PARAMS_FIXTURES "/") + name;
}
QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
} // namespace

class TestParamsCli : public QObject
{
    Q_OBJECT

private slots:
    void get_data();
    void get();
    void setIsLossless();
    void setRefusals_data();
    void setRefusals();
    void validate_data();
    void validate();
    void validateJson();
};

void TestParamsCli::get_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("key");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("out");
    QTest::addRow("scalar") << fixture("classic_ok.yaml") << "optimizer.learning_rate" << 0
                            << QByteArray("0.001\n");
    QTest::addRow("quoted") << fixture("classic_ok.yaml") << "model.name" << 0
                            << QByteArray("fc_mnist\n");
    QTest::addRow("list item") << fixture("classic_errors.yaml")
                               << "optimizer.learning_rate[0].scheduler" << 0
                               << QByteArray("Linear\n");
    QTest::addRow("missing key") << fixture("classic_ok.yaml") << "model.nope" << 1 << QByteArray();
    QTest::addRow("syntax error") << fixture("broken_syntax.yaml") << "model" << 2 << QByteArray();
    QTest::addRow("no file") << fixture("does_not_exist.yaml") << "a" << 2 << QByteArray();
}

void TestParamsCli::get()
{
    QFETCH(QString, file);
    QFETCH(QString, key);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, out);
    const CliRun r = runCli({"params", "get", file, key});
    QCOMPARE(r.exitCode, exitCode);
    if (exitCode == 0)
        QCOMPARE(r.out, out);
    else
        QVERIFY(!r.err.isEmpty());
}

void TestParamsCli::setIsLossless()
{
    QTemporaryDir dir;
    const QString file = dir.filePath("params.yaml");
    QVERIFY(QFile::copy(fixture("classic_ok.yaml"), file));
    const QByteArray before = readAll(file);
    CliRun r = runCli({"params", "set", file, "optimizer.learning_rate", "3.0e-4"});
    QCOMPARE(r.exitCode, 0);
    QByteArray expected = before;
    expected.replace("learning_rate: 0.001 # constant", "learning_rate: 3.0e-4 # constant");
    QCOMPARE(readAll(file), expected);
    r = runCli({"params", "set", file, "model.name", "deep mnist"});
    QCOMPARE(r.exitCode, 0);
    expected.replace("name: \"fc_mnist\"", "name: \"deep mnist\"");
    QCOMPARE(readAll(file), expected);
    r = runCli({"params", "set", "--create", file, "runconfig.checkpoint_steps", "500"});
    QCOMPARE(r.exitCode, 0);
    expected.replace("    seed: 1\n", "    seed: 1\n    checkpoint_steps: 500\n");
    QCOMPARE(readAll(file), expected);
    QCOMPARE(runCli({"params", "get", file, "runconfig.checkpoint_steps"}).out,
             QByteArray("500\n"));
    // Only the file itself is in the folder: no temporary files left.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
}

void TestParamsCli::setRefusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::addRow("missing key") << QStringList{"model.nope", "1"} << "no key";
    QTest::addRow("set a mapping") << QStringList{"model", "1"} << "only single values";
    QTest::addRow("invalid raw YAML") << QStringList{"--raw", "model.depth", "[1,"} << "invalid";
}

void TestParamsCli::setRefusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString file = dir.filePath("params.yaml");
    QVERIFY(QFile::copy(fixture("classic_ok.yaml"), file));
    const QByteArray before = readAll(file);
    QStringList all{"params", "set", file};
    // options first, then the positional KEY VALUE
    const CliRun r = runCli(all + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QCOMPARE(readAll(file), before);
}

void TestParamsCli::validate_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("expectedLines");
    QTest::addRow("clean classic") << fixture("classic_ok.yaml") << QStringList{} << 0
                                   << QStringList{"modelzoo-classic (detected): 0 errors"};
    QTest::addRow("errors at line:column")
        << fixture("classic_errors.yaml") << QStringList{} << 1
        << QStringList{"classic_errors.yaml:3:17: error: train_input.batch_size: expected an "
                       "integer, got the string 'many'",
                       "classic_errors.yaml:5:20: error: model.activation_fn: 'rleu' is not one "
                       "of",
                       "did you mean 'relu'?",
                       "classic_errors.yaml:12:24: error: "
                       "optimizer.learning_rate[0].total_iters: -5 is out of range",
                       "classic_errors.yaml:13:5: warning: unknown key 'lerning_rate_decay' in "
                       "optimizer"};
    QTest::addRow("determined with deprecated key")
        << fixture("determined_ok.yaml") << QStringList{} << 0
        << QStringList{"determined_ok.yaml:9:1: warning: records_per_epoch: deprecated",
                       "determined-experiment (detected): 0 errors, 2 warnings"};
    QTest::addRow("forced schema")
        << fixture("determined_ok.yaml") << QStringList{"--schema", "modelzoo-classic"} << 1
        << QStringList{"missing the required key 'model'"};
    QTest::addRow("syntax error") << fixture("broken_syntax.yaml") << QStringList{} << 2
                                  << QStringList{"broken_syntax.yaml:3:"};
    QTest::addRow("unknown schema")
        << fixture("classic_ok.yaml") << QStringList{"--schema", "nonesuch"} << 2 << QStringList{};
}

void TestParamsCli::validate()
{
    QFETCH(QString, file);
    QFETCH(QStringList, extra);
    QFETCH(int, exitCode);
    QFETCH(QStringList, expectedLines);
    const CliRun r = runCli(QStringList{"params", "validate", file} + extra);
    QCOMPARE(r.exitCode, exitCode);
    for (const QString& line : expectedLines)
        QVERIFY2(r.out.contains(line.toUtf8()), qPrintable(line + "\nnot in:\n" + r.out));
}

void TestParamsCli::validateJson()
{
    const CliRun r =
        runCli({"params", "validate", fixture("classic_errors.yaml"), "--format", "json"});
    QCOMPARE(r.exitCode, 1);
    QJsonParseError err;
    const QJsonObject j = QJsonDocument::fromJson(r.out, &err).object();
    QCOMPARE(err.error, QJsonParseError::NoError);
    QCOMPARE(j["schema"].toString(), QString("modelzoo-classic"));
    QCOMPARE(j["detected"].toBool(), true);
    QCOMPARE(j["errors"].toInt(), 3);
    const QJsonArray diags = j["diagnostics"].toArray();
    QVERIFY(!diags.isEmpty());
    QVERIFY(diags[0].toObject().contains("severity"));
}

QTEST_GUILESS_MAIN(TestParamsCli)
#include "test_params_cli.moc"
