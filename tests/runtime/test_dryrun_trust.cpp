// The trust store: a project runs only once trusted; the answer is kept outside every project,
// by canonical path, and a damaged store trusts nothing.
#include "core/dryrun/dry_run.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

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

QTEST_GUILESS_MAIN(TestDryRunTrust)
#include "test_dryrun_trust.moc"
