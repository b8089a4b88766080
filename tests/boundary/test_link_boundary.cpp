// docs/ARCHITECTURE.md, Processes: LibTorch runs in portolan-torch only. The configure step walks
// the link graph (cmake/CheckLinkClosure.cmake); this test proves that rule catches each way
// LibTorch can be reached, and checks the built binaries themselves with ldd: neither the GUI nor
// portolan-cli loads libtorch, OpenCV or Qt 5 (Debian's libtorch_cpu pulls in Qt 5 through OpenCV's
// highgui).
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

// The shared libraries a binary loads, from ldd (the whole closure, as the loader resolves it).
QStringList loadedLibraries(const QString& binary, QString* error)
{
    QProcess ldd;
    ldd.start(QStringLiteral("ldd"), {binary});
    if (!ldd.waitForFinished(60000) || ldd.exitCode() != 0) {
        *error = QStringLiteral("ldd %1 failed: %2").arg(binary, ldd.readAllStandardError());
        return {};
    }
    QStringList libs;
    for (const QString& line : QString::fromLocal8Bit(ldd.readAllStandardOutput()).split('\n')) {
        const QString t = line.trimmed();
        if (!t.isEmpty())
            libs << t.section(QLatin1Char(' '), 0, 0);
    }
    return libs;
}

const QRegularExpression
    torchAndQt5(QStringLiteral(R"(^lib(torch|c10|caffe2|opencv_|Qt5)[^/]*\.so)"));
const QRegularExpression qt6(QStringLiteral(R"(^libQt6[^/]*\.so)"));

} // namespace

class TestLinkBoundary : public QObject
{
    Q_OBJECT
private slots:
    void builtBinaries_data()
    {
        QTest::addColumn<QString>("binary");
        QTest::addColumn<bool>("torchFree");
        QTest::addColumn<bool>("qtFree");
        QTest::addRow("portolan (GUI)") << PORTOLAN_GUI << true << false;
        QTest::addRow("portolan-cli") << PORTOLAN_CLI << true << true;
        // The positive control: the Torch child does load LibTorch (so ldd can see it), and no
        // Qt at all.
        QTest::addRow("portolan-torch") << PORTOLAN_TORCH << false << true;
    }
    void builtBinaries()
    {
        QFETCH(QString, binary);
        QFETCH(bool, torchFree);
        QFETCH(bool, qtFree);
        QVERIFY2(QFileInfo(binary).isExecutable(), qPrintable(binary));
        QString error;
        const QStringList libs = loadedLibraries(binary, &error);
        QVERIFY2(!libs.isEmpty(), qPrintable(error));
        const QStringList torch = libs.filter(torchAndQt5);
        const QStringList qt = libs.filter(qt6);
        qInfo("%s: %lld libraries, %lld of LibTorch/OpenCV/Qt 5, %lld of Qt 6",
              qPrintable(QFileInfo(binary).fileName()), qlonglong(libs.size()),
              qlonglong(torch.size()), qlonglong(qt.size()));
        if (torchFree)
            QVERIFY2(torch.isEmpty(), qPrintable(torch.join(QLatin1Char(' '))));
        else
            QVERIFY2(libs.filter(QRegularExpression(QStringLiteral("^libtorch"))).size() > 0,
                     qPrintable(libs.join(QLatin1Char(' '))));
        if (qtFree)
            QVERIFY2(qt.isEmpty(), qPrintable(qt.join(QLatin1Char(' '))));
    }

    // The configure-time rule on a small link graph (tests/boundary/link_closure): each CASE
    // reaches the stand-in for LibTorch in one way, and the message names the chain.
    void linkRule_data()
    {
        QTest::addColumn<QString>("kase");
        QTest::addColumn<QString>("chain"); // empty: the graph is clean
        QTest::addRow("clean") << "clean"
                               << "";
        QTest::addRow("direct") << "direct"
                                << "gui -> torch_stand_in";
        QTest::addRow("transitive") << "transitive"
                                    << "gui -> core_free -> core_torch";
        QTest::addRow("$<LINK_ONLY>") << "link-only"
                                      << "cli -> core_torch";
        QTest::addRow("generator expression") << "genex"
                                              << "gui -> core_torch";
        QTest::addRow("alias") << "alias"
                               << "gui -> core_free -> Portolan::torch";
        QTest::addRow("library file") << "file"
                                      << "cli -> /usr/lib/x86_64-linux-gnu/libtorch_cpu.so";
        QTest::addRow("Qt 5") << "qt5"
                              << "gui -> /usr/lib/x86_64-linux-gnu/libQt5Widgets.so.5";
    }
    void linkRule()
    {
        QFETCH(QString, kase);
        QFETCH(QString, chain);
        QTemporaryDir build;
        QProcess cmake;
        cmake.setProcessChannelMode(QProcess::MergedChannels);
        cmake.start(PORTOLAN_CMAKE,
                    {QStringLiteral("-S"),
                     QStringLiteral(PORTOLAN_SOURCE_DIR "/tests/boundary/link_closure"),
                     QStringLiteral("-B"), build.path(), QStringLiteral("-DCASE=") + kase,
                     QStringLiteral("-DPORTOLAN_CMAKE_DIR=" PORTOLAN_SOURCE_DIR "/cmake")});
        QVERIFY(cmake.waitForFinished(120000));
        // CMake wraps long messages; compare with the line breaks and indentation removed.
        const QString out =
            QString::fromLocal8Bit(cmake.readAll())
                .replace(QRegularExpression(QStringLiteral("\\s+")), QStringLiteral(" "));
        if (chain.isEmpty()) {
            QVERIFY2(cmake.exitCode() == 0, qPrintable(out));
            return;
        }
        QVERIFY2(cmake.exitCode() != 0, qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("Link boundary broken")), qPrintable(out));
        QVERIFY2(out.contains(chain), qPrintable(out));
    }
};

QTEST_GUILESS_MAIN(TestLinkBoundary)
#include "test_link_boundary.moc"
