// portolan-cli as a script would use it: exit codes, --help, --version, info in text and JSON.
#include "cli_runner.h"

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
