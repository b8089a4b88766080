// Benchmark (prints figures, not a test): pan and zoom frame time of the memory chart with all
// 94,208 tiles of 64 IPUs, offscreen. Each frame moves or scales the tile axis and replots
// immediately (QCustomPlot::rpImmediateRefresh), which includes re-decimating the visible tiles.
#include "profile_fixture.h"
#include "views/profile/memory_chart.h"

#include <QApplication>
#include <QElapsedTimer>
#include <algorithm>
#include <cstdio>
#include <vector>

using namespace portolan;

namespace {

void report(const char* what, std::vector<double> ms, bool stacked)
{
    std::sort(ms.begin(), ms.end());
    double sum = 0;
    for (double v : ms)
        sum += v;
    std::printf("%-34s frames %3zu  mean %6.2f ms  median %6.2f ms  p95 %6.2f ms  max %6.2f ms%s "
                "(target < 16 ms)\n",
                what, ms.size(), sum / double(ms.size()), ms[ms.size() / 2],
                ms[ms.size() * 95 / 100], ms.back(), stacked ? "  [stacked bars]" : "  [envelope]");
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    auto result = test::bigResult(10000);
    if (!result) {
        std::fprintf(stderr, "bench_memory_chart: could not build the report\n");
        return 2;
    }
    views::MemoryChart chart;
    chart.resize(1920, 700);
    chart.show();
    app.processEvents();
    chart.setResult(result);
    const int tiles = chart.stats().tileCount;
    std::printf("memory chart: %d tiles, %zu OOM tiles, widget %dx%d\n", tiles,
                chart.stats().oomTiles.size(), chart.width(), chart.height());
    QElapsedTimer timer;
    auto frame = [&](auto change) {
        timer.restart();
        change();
        chart.replot(QCustomPlot::rpImmediateRefresh);
        return double(timer.nsecsElapsed()) / 1e6;
    };
    std::vector<double> ms;
    // Full view redraw: what "show all tiles" costs, decimation and one immediate repaint.
    for (int i = 0; i < 30; ++i) {
        timer.restart();
        chart.showTiles(-0.5, tiles - 0.5, QCustomPlot::rpImmediateRefresh);
        ms.push_back(double(timer.nsecsElapsed()) / 1e6);
    }
    report("redraw all tiles", ms, chart.isStacked());
    // Zoom in step by step from all tiles to 40 tiles, then back out.
    ms.clear();
    bool stackedSeen = false;
    for (int i = 0; i < 60; ++i)
        ms.push_back(frame([&] { chart.xAxis->scaleRange(0.85, chart.xAxis->range().center()); }));
    stackedSeen = chart.isStacked();
    report("zoom in (x0.85 per frame)", ms, stackedSeen);
    ms.clear();
    for (int i = 0; i < 60; ++i)
        ms.push_back(
            frame([&] { chart.xAxis->scaleRange(1.0 / 0.85, chart.xAxis->range().center()); }));
    report("zoom out", ms, chart.isStacked());
    // Pan at three zoom levels.
    for (double span : {double(tiles), 20000.0, 600.0}) {
        chart.showTiles(0, span);
        ms.clear();
        for (int i = 0; i < 60; ++i)
            ms.push_back(frame([&] { chart.xAxis->moveRange(span * 0.02); }));
        char label[64];
        std::snprintf(label, sizeof label, "pan, %.0f tiles visible", span);
        report(label, ms, chart.isStacked());
    }
    return 0;
}
