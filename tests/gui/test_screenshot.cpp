// `portolan --screenshot FILE.png [PROJECT]` renders offscreen and exits.
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
        QTest::addRow("fixture project") << QStringList{PORTOLAN_FIXTURES "/projects/tiny"} << 0 << true;
        QTest::addRow("overview view") << QStringList{"--view", "overview", PORTOLAN_FIXTURES "/projects/tiny"}
                                       << 0 << true;
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
        p.start(QStringLiteral(PORTOLAN_GUI), QStringList{"--screenshot", file, "--size", "1000x700"} + extraArgs);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), exitCode);
        QCOMPARE(QFileInfo::exists(file), png);
        if (png) {
            const QImage img(file);
            QCOMPARE(img.size(), QSize(1000, 700));
        }
    }
};

QTEST_GUILESS_MAIN(TestScreenshot)
#include "test_screenshot.moc"
