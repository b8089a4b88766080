// portolan-cli as a script would use it: exit codes, --help, --version, info in text and JSON.
#include "cli_runner.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

class TestCli : public QObject
{
    Q_OBJECT
private slots:
    void usage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("expectOut"); // substring of stdout
        QTest::addColumn<QString>("expectErr"); // substring of stderr
        QTest::addRow("help") << QStringList{"--help"} << 0 << "info" << "";
        QTest::addRow("version") << QStringList{"--version"} << 0 << "LibTorch" << "";
        QTest::addRow("info help") << QStringList{"info", "--help"} << 0 << "--format" << "";
        QTest::addRow("no subcommand") << QStringList{} << 2 << "" << "subcommand";
        QTest::addRow("unknown subcommand") << QStringList{"frobnicate"} << 2 << "" << "frobnicate";
        QTest::addRow("info without project") << QStringList{"info"} << 2 << "" << "PROJECT";
        QTest::addRow("bad format") << QStringList{"info", ".", "--format", "xml"} << 2 << "" << "xml";
        QTest::addRow("unknown option") << QStringList{"info", ".", "--colour"} << 2 << "" << "--colour";
        QTest::addRow("missing project") << QStringList{"info", "/nonexistent/project"} << 2 << ""
                                         << "does not exist";
    }
    void usage()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, expectOut);
        QFETCH(QString, expectErr);
        const CliRun r = runCli(args);
        QCOMPARE(r.exitCode, exitCode);
        if (!expectOut.isEmpty())
            QVERIFY2(r.out.contains(expectOut.toUtf8()), r.out.constData());
        if (!expectErr.isEmpty())
            QVERIFY2(r.err.contains(expectErr.toUtf8()), r.err.constData());
    }

    void infoJson()
    {
        const CliRun r = runCli({"info", PORTOLAN_FIXTURES "/projects/tiny", "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out, &err);
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        const QJsonObject o = doc.object();
        QVERIFY(o.value("root").toString().endsWith("projects/tiny"));
        QStringList paths;
        for (const auto& f : o.value("files").toArray())
            paths << f.toObject().value("path").toString();
        QVERIFY(paths.contains("model.py"));
        QVERIFY(paths.contains("configs/params.yaml"));
        QCOMPARE(o.value("file_counts").toObject().value("python").toInt(), 2);
        // The syntax error in broken.py is reported with its position.
        bool syntax = false;
        for (const auto& d : o.value("diagnostics").toArray()) {
            const QJsonObject dd = d.toObject();
            if (dd.value("code").toString() == "python.syntax") {
                syntax = true;
                QCOMPARE(dd.value("location").toObject().value("file").toString(), QStringLiteral("broken.py"));
                QCOMPARE(dd.value("location").toObject().value("line").toInt(), 1);
            }
        }
        QVERIFY(syntax);
    }

    void infoSkippedJson()
    {
        QTemporaryDir tmp;
        QFile bin(tmp.filePath("weights.py"));
        QVERIFY(bin.open(QIODevice::WriteOnly));
        bin.write(QByteArray("\0\1\2\3", 4));
        bin.close();
        const CliRun r = runCli({"info", tmp.path(), "--format=json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QJsonArray skipped = o.value("skipped").toArray();
        QCOMPARE(skipped.size(), 1);
        QCOMPARE(skipped[0].toObject().value("reason").toString(), QStringLiteral("binary"));
    }

    // check --format json uses the same location shape as info: {file, line, column}.
    void checkJsonShape()
    {
        const CliRun r =
            runCli({"check", PORTOLAN_FIXTURES "/projects/tiny", "--target", "cerebras-pytorch",
                    "--format", "json"});
        QVERIFY2(r.exitCode == 0 || r.exitCode == 1, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value("guide").toString(), QStringLiteral("cerebras-pytorch"));
        QCOMPARE(o.value("guide_reason").toString(), QStringLiteral("asked for"));
        QVERIFY(o.value("params_file").isObject());
        QCOMPARE(o.value("params_file").toObject().value("path").toString(),
                 QStringLiteral("configs/params.yaml"));
        QVERIFY(o.value("flavour_evidence").isArray());
        bool syntax = false;
        for (const auto& d : o.value("diagnostics").toArray()) {
            const QJsonObject loc = d.toObject().value("location").toObject();
            QVERIFY(loc.contains("file"));
            syntax = syntax || (d.toObject().value("code").toString() == "python.syntax" &&
                                loc.value("line").toInt() == 1);
        }
        QVERIFY(syntax);
        int findings = 0;
        for (const auto& s : o.value("steps").toArray())
            for (const auto& f : s.toObject().value("findings").toArray()) {
                const QJsonObject loc = f.toObject().value("location").toObject();
                QVERIFY(loc.contains("file"));
                QVERIFY(f.toObject().value("related").isArray());
                ++findings;
            }
        QVERIFY(findings > 0);
    }

    // The params file a project uses: the default, a saved choice, --params over both.
    void paramsChoice()
    {
        QTemporaryDir tmp;
        QDir().mkpath(tmp.filePath("configs"));
        for (const char* name : {"configs/small.yaml", "configs/large.yaml"}) {
            QFile f(tmp.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("model:\n  hidden_size: 4\n");
        }
        CliRun r = runCli({"info", tmp.path()});
        QVERIFY2(r.out.contains("Params file: configs/large.yaml (the first by name of 2"),
                 r.out.constData());
        r = runCli({"info", tmp.path(), "--use-params", "configs/small.yaml"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(QFileInfo::exists(tmp.filePath(".portolan/params-file")));
        r = runCli({"check", tmp.path(), "--target", "cerebras-pytorch"});
        QVERIFY2(r.out.contains("Params file: configs/small.yaml (chosen by the user"),
                 r.out.constData());
        r = runCli({"check", tmp.path(), "--target", "cerebras-pytorch", "--params",
                    "configs/large.yaml"});
        QVERIFY2(r.out.contains("Params file: configs/large.yaml (given with --params)"),
                 r.out.constData());
        r = runCli({"info", tmp.path(), "--use-params", "configs/missing.yaml"});
        QCOMPARE(r.exitCode, 2);
        r = runCli({"info", tmp.path(), "--forget-params"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!QFileInfo::exists(tmp.filePath(".portolan/params-file")));
    }

    // One finding per command-line flag, with every other place it is used.
    void checkGroupsFlags()
    {
        const CliRun r = runCli({"check", PORTOLAN_SAMPLES "/mnist-mlp-original", "--target",
                                 "cerebras-pytorch"});
        QCOMPARE(r.exitCode, 1);
        int flags = 0;
        for (const QByteArray& line : r.out.split('\n'))
            flags += line.contains("[cerebras-pytorch.no-args]") ? 1 : 0;
        QVERIFY(flags > 0);
        QVERIFY2(r.out.contains("also at: train.py:"), r.out.constData());
        QVERIFY(r.out.contains("because: "));
    }

    void infoText()
    {
        const CliRun r = runCli({"info", PORTOLAN_FIXTURES "/projects/tiny"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("Files: 4"));
        QVERIFY(r.out.contains("broken.py:1:"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
