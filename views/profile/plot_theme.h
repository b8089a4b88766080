#pragma once

// Colours and formatting shared by the profile charts. Every colour derives from the widget's
// QPalette so light and dark themes both stay readable; charts re-apply it on PaletteChange.

#include "core/sim/profile.h"

#include <QColor>
#include <QPalette>
#include <QString>
#include <memory>

class QCustomPlot;

namespace portolan::views {

using ResultPtr = std::shared_ptr<const sim::CompileResult>;

bool isDarkPalette(const QPalette& p);
// One of n distinguishable hues, lightness adapted to the palette (stages, layers, kernels).
// Never a red: red means over capacity or an error (alertColor) in every view.
QColor seriesColor(int index, int count, const QPalette& p);
// The forward and backward pass: one hue, two strengths, apart from the stage colours' meaning.
// The two sides of a comparison (a verification's original and port): one fixed pair, neither
// red nor a stage's hue, side 0 the darker.
QColor comparisonColor(int side, const QPalette& p);
QColor forwardColor(const QPalette& p);
QColor backwardColor(const QPalette& p);
QColor memoryCategoryColor(int category, const QPalette& p);
QColor alertColor(const QPalette& p); // out of memory, over capacity
// A capacity line: red (alertColor) only when something is over it; else the text colour, half
// strength, so a model with room to spare shows no alarm (issue 26).
QColor capacityColor(const QPalette& p, bool over);
QString memoryCategoryLabel(int category); // "Always live", ...
QString bytesText(double bytes);           // "4.9 MiB"
QString secondsText(double seconds);       // "6.94 s", "5 µs"
QString countText(double value);           // "2.85 M"
QString samplesPerSecondText(double rate); // "2.85 M samples/s"
QString percentText(double fraction);      // "98.8%"
// Why a tile view is empty, and what would fill it: no report yet, or a CS report (no tiles).
QString noTilesText(const ResultPtr& result);
// Axis, grid, text and background colours of a QCustomPlot from the palette.
void applyPlotTheme(QCustomPlot* plot, const QPalette& p);
// Moves a plot's legend out of the axis rect into a row of its own above it, so it never
// covers bars or curves (the liveness peak, a pipeline's backward bar).
void legendAbovePlot(QCustomPlot* plot);

} // namespace portolan::views
