// The trust store: a project runs only once trusted; the answer is kept outside every project,
// by canonical path, and a damaged store trusts nothing.
#include "core/dryrun/dry_run.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

using portolan::dryrun::TrustStore;

class TestDryRunTrust : public QObject
{
    Q_OBJECT

private slots:
    void trustIsKeptByCanonicalPath_data();
    void trustIsKeptByCanonicalPath();
    void damagedStoreTrustsNothing_data();
    void damagedStoreTrustsNothing();
    void defaultFileFollowsTheEnvironment();
    void childCommand();
    void childGetsTheRulesParamsFile_data();
    void childGetsTheRulesParamsFile();
};

void TestDryRunTrust::trustIsKeptByCanonicalPath_data()
{
    QTest::addColumn<QString>("asked"); // how the project is named when asked about
    QTest::addRow("same path") << "project";
    QTest::addRow("trailing slash") << "project/";
    QTest::addRow("dot segments") << "other/../project/.";
    QTest::addRow("through a symlink") << "link";
}

void TestDryRunTrust::trustIsKeptByCanonicalPath()
{
    QFETCH(QString, asked);
    QTemporaryDir tmp;
    QDir(tmp.path()).mkpath("project");
    QDir(tmp.path()).mkpath("other");
    QVERIFY(QFile::link(tmp.filePath("project"), tmp.filePath("link")));
    TrustStore store((tmp.filePath("config/trusted-projects.json")).toStdString());
    const std::string project = tmp.filePath("project").toStdString();
    const std::string query = tmp.filePath(asked).toStdString();
    QVERIFY(!store.isTrusted(query));
    QVERIFY(!store.setTrusted(project, true));
    QVERIFY(store.isTrusted(query));
    QCOMPARE(store.projects().size(), std::size_t(1));
    QVERIFY(!store.isTrusted(tmp.filePath("other").toStdString()));
    // Trusting twice keeps one entry; revoking removes it.
    QVERIFY(!store.setTrusted(query, true));
    QCOMPARE(store.projects().size(), std::size_t(1));
    QVERIFY(!store.setTrusted(query, false));
    QVERIFY(!store.isTrusted(project));
}

void TestDryRunTrust::damagedStoreTrustsNothing_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addRow("not json") << QByteArray("{trusted: [");
    QTest::addRow("wrong shape") << QByteArray(R"({"trusted": "everything"})");
    QTest::addRow("array") << QByteArray(R"(["/"])");
    QTest::addRow("binary") << QByteArray("\x00\xff\xfe", 3);
}

void TestDryRunTrust::damagedStoreTrustsNothing()
{
    QFETCH(QByteArray, content);
    QTemporaryDir tmp;
    const QString file = tmp.filePath("trusted-projects.json");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(content);
    f.close();
    TrustStore store(file.toStdString());
    QVERIFY(!store.isTrusted("/"));
    QVERIFY(!store.isTrusted(tmp.path().toStdString()));
    // Trusting again rewrites a valid store.
    QVERIFY(!store.setTrusted(tmp.path().toStdString(), true));
    QVERIFY(store.isTrusted(tmp.path().toStdString()));
}

void TestDryRunTrust::defaultFileFollowsTheEnvironment()
{
    QTemporaryDir tmp;
    qputenv("PORTOLAN_CONFIG_DIR", tmp.path().toUtf8());
    QCOMPARE(QString::fromStdString(TrustStore::defaultFile().string()),
             tmp.filePath("trusted-projects.json"));
    qunsetenv("PORTOLAN_CONFIG_DIR");
    qputenv("XDG_CONFIG_HOME", tmp.path().toUtf8());
    QCOMPARE(QString::fromStdString(TrustStore::defaultFile().string()),
             tmp.filePath("portolan/trusted-projects.json"));
}

void TestDryRunTrust::childCommand()
{
    portolan::dryrun::DryRunOptions o;
    o.project = "/p";
    o.flavour = "plain-pytorch";
    o.steps = 5;
    o.memoryLimitMb = 0;
    o.args = {"--dataset", "fake"};
    const auto cmd = portolan::dryrun::childCommand(o, "/r/python");
    const std::vector<std::string> expected{"/usr/bin/python3",
                                            "-m",
                                            "portolan_dryrun",
                                            "--project",
                                            "/p",
                                            "--events-fd",
                                            "3",
                                            "--steps",
                                            "5",
                                            "--batch",
                                            "2",
                                            "--flavour",
                                            "plain-pytorch",
                                            "--",
                                            "--dataset",
                                            "fake"};
    QCOMPARE(cmd, expected);
    QVERIFY(portolan::dryrun::defaultMemoryLimitMb() > 0);
}

// The child is given the params file of core's one rule (for a CPU dry run) when its flavour
// reads one; it never chooses one itself. Files are "path|content"; `saved` is the user's choice.
void TestDryRunTrust::childGetsTheRulesParamsFile_data()
{
    QTest::addColumn<QString>("flavour");
    QTest::addColumn<QStringList>("files");
    QTest::addColumn<QString>("saved");
    QTest::addColumn<QString>("given");
    QTest::addColumn<QString>("expected"); // relative to the project; empty: no --params
    const QString big = "train_input: {}\nmodel: {hidden_size: 1024, num_hidden_layers: 24}\n";
    const QString tiny = "train_input: {}\nmodel: {hidden_size: 64, num_hidden_layers: 2}\n";
    const QStringList zoo{"configs/a_big.yaml|" + big, "configs/b_tiny.yaml|" + tiny};
    const QStringList experiments{"adaptive.yaml|entrypoint: m:T\n",
                                  "const.yaml|entrypoint: m:T\n"};
    QTest::addRow("model zoo: the smallest") << "cerebras-pytorch" << zoo << ""
                                             << ""
                                             << "configs/b_tiny.yaml";
    QTest::addRow("model zoo: the saved choice") << "cerebras-layers" << zoo << "configs/a_big.yaml"
                                                 << ""
                                                 << "configs/a_big.yaml";
    QTest::addRow("determined: const.yaml") << "determined-pytorchtrial" << experiments << ""
                                            << ""
                                            << "const.yaml";
    QTest::addRow("determined: the saved choice")
        << "determined-pytorchtrial" << experiments << "adaptive.yaml"
        << ""
        << "adaptive.yaml";
    QTest::addRow("given over saved") << "determined-pytorchtrial" << experiments << "adaptive.yaml"
                                      << "const.yaml"
                                      << "const.yaml";
    QTest::addRow("a script reads none") << "plain-pytorch" << zoo << ""
                                         << ""
                                         << "";
    QTest::addRow("no YAML at all") << "cerebras-pytorch" << QStringList{} << ""
                                    << ""
                                    << "";
}

void TestDryRunTrust::childGetsTheRulesParamsFile()
{
    QFETCH(QString, flavour);
    QFETCH(QStringList, files);
    QFETCH(QString, saved);
    QFETCH(QString, given);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    for (const QString& f : files) {
        const QString path = dir.filePath(f.section('|', 0, 0));
        QVERIFY(QDir().mkpath(QFileInfo(path).path()));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(f.section('|', 1).toUtf8());
    }
    if (!saved.isEmpty()) {
        QVERIFY(QDir(dir.path()).mkpath(".portolan"));
        QFile out(dir.filePath(".portolan/params-file"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(saved.toUtf8() + "\n");
    }
    portolan::dryrun::DryRunOptions o;
    o.project = dir.path().toStdString();
    o.flavour = flavour.toStdString();
    if (!given.isEmpty())
        o.params = dir.filePath(given).toStdString();
    const auto cmd = portolan::dryrun::childCommand(o, "/r/python");
    const auto at = std::find(cmd.begin(), cmd.end(), "--params");
    if (expected.isEmpty()) {
        QVERIFY(at == cmd.end());
        return;
    }
    QVERIFY(at != cmd.end() && at + 1 != cmd.end());
    QCOMPARE(QString::fromStdString(at[1]), dir.filePath(expected));
}

QTEST_GUILESS_MAIN(TestDryRunTrust)
#include "test_dryrun_trust.moc"
