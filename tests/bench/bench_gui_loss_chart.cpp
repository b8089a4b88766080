// Benchmark (prints figures, not a test): redraw time of the live loss chart holding a run of
// 1,000,000 steps, offscreen, at a typical panel size, in linear and log scale and with
// smoothing on. Usage: bench_gui_loss_chart [POINTS]
#include "views/runs/loss_chart.h"

#include <QApplication>
#include <QElapsedTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <qcustomplot.h>
#include <vector>

using namespace portolan::views;

namespace {

void timeRedraws(LossChart& chart, const char* what)
{
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh); // warm-up (layout, caches)
    std::vector<double> ms;
    for (int i = 0; i < 20; ++i) {
        QElapsedTimer t;
        t.start();
        chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
        ms.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    double sum = 0;
    for (double v : ms)
        sum += v;
    std::printf("%-28s mean %6.2f ms  median %6.2f ms  max %6.2f ms  (target < 16 ms)\n", what,
                sum / double(ms.size()), ms[ms.size() / 2], ms.back());
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int points = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1000000;
    QVector<QPointF> loss;
    loss.reserve(points);
    for (int i = 0; i < points; ++i)
        loss << QPointF(i, 2.0 * std::exp(-i / 2e5) + 0.05 * std::sin(i * 0.37) + 0.01);
    QVector<QPointF> eval;
    for (int i = 0; i < points; i += std::max(1, points / 100))
        eval << QPointF(i, loss[i].y() + 0.02);

    LossChart chart;
    chart.resize(1200, 700);
    QElapsedTimer t;
    t.start();
    chart.setRun(1, QStringLiteral("1 M steps"), loss, eval);
    std::printf("loss chart, %d points, 1200x700 offscreen\n", points);
    std::printf("%-28s %6.2f ms\n", "set the run's curve", double(t.nsecsElapsed()) / 1e6);
    timeRedraws(chart, "redraw, linear scale");
    chart.plot()->yAxis->setScaleType(QCPAxis::stLogarithmic);
    timeRedraws(chart, "redraw, log scale");
    chart.plot()->xAxis->setRange(points * 0.4, points * 0.6);
    timeRedraws(chart, "redraw, zoomed to 20%");
    return 0;
}
