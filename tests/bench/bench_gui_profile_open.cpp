// Benchmark (prints figures, not a test): open a 64-IPU report of 94,208 tiles with about 1 M
// variables. The result comes from the compiler (48-layer synthetic GPT, 64 IPUs), its variables
// split into tile pieces to reach the count; it is saved, then timed: loadReport, setResult on the
// profile panel, and the first paint of the memory page.
#include "core/report/report.h"
#include "profile_fixture.h"
#include "views/profile/profile_panel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <cstdio>
#include <cstdlib>

using namespace portolan;

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    const int variables = argc > 1 ? std::atoi(argv[1]) : 1000000;
    QElapsedTimer timer;
    timer.start();
    auto result = test::bigResult(variables);
    if (!result) {
        std::fprintf(stderr, "bench_profile_open: could not build the report\n");
        return 2;
    }
    std::printf("report: %zu tiles, %zu variables, %zu program steps (built in %.0f ms)\n",
                result->ipu->tileBytes[0].size(), result->ipu->variables.size(), result->ipu->steps.size(),
                double(timer.elapsed()));
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("big.json"));
    timer.restart();
    if (auto d = report::saveReport(file.toStdString(), *result)) {
        std::fprintf(stderr, "%s\n", d->toString().c_str());
        return 2;
    }
    std::printf("saveReport: %.0f ms, %.1f MB\n", double(timer.elapsed()), QFileInfo(file).size() / 1e6);
    result.reset();

    views::ProfilePanel panel;
    panel.resize(1600, 1000);
    panel.show();
    panel.showPage(QStringLiteral("memory"));
    app.processEvents();

    for (int run = 0; run < 3; ++run) {
        QElapsedTimer total;
        total.start();
        timer.restart();
        auto loaded = report::loadReport(file.toStdString());
        const double loadMs = double(timer.nsecsElapsed()) / 1e6;
        if (!loaded) {
            std::fprintf(stderr, "%s\n", loaded.error.toString().c_str());
            return 2;
        }
        timer.restart();
        panel.setResult(std::make_shared<const sim::CompileResult>(std::move(*loaded.value)));
        const double setMs = double(timer.nsecsElapsed()) / 1e6;
        timer.restart();
        panel.repaint(); // first paint of the memory page (envelope of all tiles)
        app.processEvents();
        const double paintMs = double(timer.nsecsElapsed()) / 1e6;
        std::printf("run %d: loadReport %.0f ms + setResult %.0f ms + first paint %.0f ms = %.0f ms "
                    "(target < 1000 ms)\n",
                    run, loadMs, setMs, paintMs, double(total.nsecsElapsed()) / 1e6);
    }
    return 0;
}
