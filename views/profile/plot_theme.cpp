#include "views/profile/plot_theme.h"

#include "core/common/number_format.h"

#include <QCoreApplication>
#include <cmath>
#include <qcustomplot.h>

namespace portolan::views {

bool isDarkPalette(const QPalette& p)
{
    return p.color(QPalette::Base).lightness() < 128;
}

QColor seriesColor(int index, int count, const QPalette& p)
{
    // Golden-angle hues stay apart for any count; adjacent stages never look alike. They are
    // folded into 35..325 degrees, so no stage is red (over capacity), and kept moderately
    // saturated: a stage is a category, not a warning.
    const int hue = 35 + int(std::fmod(index * 137.508, 290.0));
    Q_UNUSED(count);
    return QColor::fromHsl(hue, 120, isDarkPalette(p) ? 150 : 120);
}

QColor forwardColor(const QPalette& p)
{
    return isDarkPalette(p) ? QColor::fromHsl(205, 150, 150) : QColor::fromHsl(205, 150, 95);
}

QColor backwardColor(const QPalette& p)
{
    return isDarkPalette(p) ? QColor::fromHsl(205, 110, 95) : QColor::fromHsl(205, 110, 170);
}

void legendAbovePlot(QCustomPlot* plot)
{
    QCPLegend* legend = plot->legend;
    if (legend->layout() == plot->plotLayout())
        return; // already moved
    plot->axisRect()->insetLayout()->take(legend);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, legend);
    plot->plotLayout()->setRowStretchFactor(0, 0.001); // as tall as the legend needs
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setMargins(QMargins(4, 2, 4, 2));
}

QColor memoryCategoryColor(int category, const QPalette& p)
{
    static const int hues[sim::kMemoryCategories] = {215, 120, 35, 280, 180, 330, 0};
    const bool dark = isDarkPalette(p);
    const int sat = category == int(sim::MemoryCategory::Gaps) ? 0 : 160;
    return QColor::fromHsl(hues[category % sim::kMemoryCategories], sat, dark ? 155 : 115);
}

QColor alertColor(const QPalette& p)
{
    return isDarkPalette(p) ? QColor(255, 110, 100) : QColor(200, 20, 20);
}

QColor comparisonColor(int side, const QPalette& p)
{
    const bool dark = isDarkPalette(p);
    // Blue and orange: told apart with every common colour-vision deficiency.
    return side == 0 ? (dark ? QColor(110, 170, 255) : QColor(31, 90, 180))
                     : (dark ? QColor(255, 170, 80) : QColor(220, 120, 20));
}

QColor capacityColor(const QPalette& p, bool over)
{
    if (over)
        return alertColor(p);
    QColor c = p.color(QPalette::WindowText);
    c.setAlphaF(0.55f);
    return c;
}

QString memoryCategoryLabel(int category)
{
    static const char* names[sim::kMemoryCategories] = {
        "Always live",   "Not always live", "Vertex code", "Vertex state",
        "Exchange code", "Control code",    "Gaps"};
    return QString::fromLatin1(names[category % sim::kMemoryCategories]);
}

// All of these are the core formatter's text (core/common/number_format.h), so a number reads the
// same in the GUI as in the CLI and the reports.
QString bytesText(double bytes)
{
    return QString::fromStdString(format::bytes(bytes));
}

QString secondsText(double seconds)
{
    return QString::fromStdString(format::seconds(seconds));
}

QString countText(double value)
{
    return QString::fromStdString(format::count(value));
}

QString samplesPerSecondText(double rate)
{
    return QString::fromStdString(format::samplesPerSecond(rate));
}

QString percentText(double fraction)
{
    return QString::fromStdString(format::percent(fraction));
}

QString noTilesText(const ResultPtr& result)
{
    if (result && result->cs)
        return QCoreApplication::translate(
            "portolan::views",
            "A CS report has no tiles: CS placement shows its kernels on the wafer.");
    return QCoreApplication::translate("portolan::views",
                                       "No report yet: compile a project or open a report.");
}

void applyPlotTheme(QCustomPlot* plot, const QPalette& p)
{
    const QColor text = p.color(QPalette::WindowText);
    QColor grid = text;
    grid.setAlpha(40);
    plot->setBackground(p.brush(QPalette::Base));
    for (QCPAxis* axis : plot->axisRect()->axes()) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
        axis->grid()->setZeroLinePen(QPen(grid));
    }
    if (plot->legend) {
        plot->legend->setBrush(p.brush(QPalette::Base));
        plot->legend->setTextColor(text);
        plot->legend->setBorderPen(QPen(grid));
    }
}

} // namespace portolan::views
