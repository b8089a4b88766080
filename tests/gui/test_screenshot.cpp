// `portolan --screenshot FILE.png [PROJECT]` renders offscreen and exits.
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestScreenshot : public QObject
{
    Q_OBJECT
private slots:
    void screenshot_data()
    {
        QTest::addColumn<QStringList>("extraArgs");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<bool>("png");
        QTest::addRow("no project") << QStringList{} << 0 << true;
        QTest::addRow("fixture project")
            << QStringList{PORTOLAN_FIXTURES "/projects/tiny"} << 0 << true;
        QTest::addRow("overview view")
            << QStringList{"--view", "overview", PORTOLAN_FIXTURES "/projects/tiny"} << 0 << true;
        QTest::addRow("missing project") << QStringList{"/nonexistent/project"} << 1 << true;
        QTest::addRow("unknown view") << QStringList{"--view", "nosuchview"} << 2 << false;
    }
    void screenshot()
    {
        QFETCH(QStringList, extraArgs);
        QFETCH(int, exitCode);
        QFETCH(bool, png);
        QTemporaryDir tmp;
        const QString file = tmp.filePath(QStringLiteral("shot.png"));
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("QT_QPA_PLATFORM")); // the option itself must choose offscreen
        env.remove(QStringLiteral("DISPLAY"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), tmp.path());
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(PORTOLAN_GUI),
                QStringList{"--screenshot", file, "--size", "1000x700"} + extraArgs);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), exitCode);
        QCOMPARE(QFileInfo::exists(file), png);
        if (png) {
            const QImage img(file);
            QCOMPARE(img.size(), QSize(1000, 700));
        }
    }

    // A screenshot of a view leaves the project as it was: no .portolan/ folder, no file
    // changed (issue 26). Only a run (runs:new, runs:dry) keeps its history there, as --help says.
    void viewsWriteNothing_data()
    {
        QTest::addColumn<QString>("view");
        for (const char* view : {"overview", "wizard", "flow", "code", "params", "runs",
                                 "profile:summary", "profile:graph", "runs:slurm"})
            QTest::addRow("%s", view) << QString::fromLatin1(view);
    }
    void viewsWriteNothing()
    {
        QFETCH(QString, view);
        QTemporaryDir tmp;
        const QString project = tmp.filePath(QStringLiteral("project"));
        QVERIFY(QDir().mkpath(project));
        const QDir fixture(QStringLiteral(PORTOLAN_FIXTURES "/projects/tiny"));
        QDirIterator files(fixture.path(), QDir::Files, QDirIterator::Subdirectories);
        while (files.hasNext()) {
            const QString to = QDir(project).filePath(fixture.relativeFilePath(files.next()));
            QVERIFY(QDir().mkpath(QFileInfo(to).path()));
            QVERIFY(QFile::copy(files.filePath(), to));
        }
        const auto listing = [&] {
            QStringList files;
            QDirIterator it(project, QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                it.next();
                files << it.filePath() + QLatin1Char(' ') +
                             it.fileInfo().lastModified().toString(Qt::ISODateWithMs);
            }
            files.sort();
            return files;
        };
        const QStringList before = listing();
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), tmp.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(PORTOLAN_GUI),
                {"--screenshot", tmp.filePath(QStringLiteral("s.png")), "--size", "1024x700",
                 "--view", view, project});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(listing(), before);
    }

    // Without a display, help and version still answer, and a plain start says what to do
    // instead of Qt's platform-plugin abort.
    void withoutDisplay_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("says");
        QTest::addRow("help") << QStringList{"--help"} << 0 << "--screenshot <FILE>";
        QTest::addRow("version") << QStringList{"--version"} << 0 << "Portolan";
        QTest::addRow("plain start") << QStringList{} << 2 << "no display";
        QTest::addRow("project, no display")
            << QStringList{PORTOLAN_FIXTURES "/projects/tiny"} << 2 << "QT_QPA_PLATFORM=offscreen";
    }
    void withoutDisplay()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, says);
        QTemporaryDir tmp;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
            env.remove(QString::fromLatin1(name));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), tmp.path());
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(PORTOLAN_GUI), args);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), exitCode);
        const QString out =
            QString::fromLocal8Bit(p.readAllStandardOutput() + p.readAllStandardError());
        QVERIFY2(out.contains(says), qPrintable(out));
        QVERIFY2(!out.contains(QLatin1String("qt.qpa")), qPrintable(out));
    }
};

QTEST_GUILESS_MAIN(TestScreenshot)
#include "test_screenshot.moc"
