// Benchmark (prints figures, not a test): the main window opens a hostile project of full size
// (100,000 files, folders nested 1,000 deep, unreadable files, a params file that is a folder,
// a file rewritten during the analysis) and an event-loop watchdog prints the longest
// GUI-thread stall. Arguments: [FILES [DEPTH]].
#include "app/gui/main_window.h"
#include "hostile_project.h"
#include "stall_watchdog.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    portolan::test::HostileSize size;
    if (argc > 1)
        size.files = std::atoi(argv[1]);
    if (argc > 2)
        size.depth = std::atoi(argv[2]);
    QTemporaryDir dir;
    QElapsedTimer timer;
    timer.start();
    if (!portolan::test::makeHostileProject(dir.path(), size)) {
        std::fprintf(stderr, "bench_gui_hostile_project: could not write the project\n");
        return 2;
    }
    std::printf("project: %d files, %d deep, %d unreadable (written in %.1f s)\n", size.files,
                size.depth, size.unreadable, double(timer.elapsed()) / 1000);

    portolan::app::MainWindow w;
    w.setInteractive(false);
    w.resize(1400, 900);
    w.show();
    bool opened = false, analysed = false;
    QObject::connect(&w, &portolan::app::MainWindow::projectOpened, [&] { opened = true; });
    QObject::connect(&w, &portolan::app::MainWindow::projectFailed,
                     [&] { opened = analysed = true; });
    QObject::connect(&w, &portolan::app::MainWindow::projectAnalysed, [&] { analysed = true; });
    QTimer churn;
    QObject::connect(&churn, &QTimer::timeout, [&] {
        QFile f(dir.path() + "/model.py");
        if (f.open(QIODevice::WriteOnly))
            f.write("x = 1\n");
    });
    portolan::test::StallWatchdog watchdog;
    watchdog.start();
    churn.start(20);
    timer.restart();
    w.openProject(dir.path());
    qint64 openedAt = -1;
    while (!(analysed && !w.isBusy()) && timer.elapsed() < 600000) {
        app.processEvents(QEventLoop::AllEvents, 50);
        if (opened && openedAt < 0)
            openedAt = timer.elapsed();
    }
    watchdog.stop();
    std::printf("opened in %.1f s, analysed in %.1f s%s\n", double(openedAt) / 1000,
                double(timer.elapsed()) / 1000, analysed ? "" : " (gave up after 600 s)");
    std::printf("longest GUI-thread stall: %lld ms busy (GUI thread's own CPU time), %lld ms wall "
                "clock (%d watchdog ticks)\n",
                static_cast<long long>(watchdog.longestBusyStallMs()),
                static_cast<long long>(watchdog.longestStallMs()), watchdog.ticks());
    std::fflush(stdout); // the figures before the long removal of the project
    portolan::test::unlockHostileProject(dir.path());
    return 0;
}
