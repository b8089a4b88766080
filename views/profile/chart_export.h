#pragma once

// Export of any profile chart as PNG, SVG or PDF (by the file's suffix). QCustomPlot charts are
// written as vectors (savePdf; SVG through QSvgGenerator and QCustomPlot::toPainter); painted
// widgets render themselves into the generator or a QPdfWriter.

#include <QString>

class QToolButton;
class QWidget;

namespace portolan::views {

bool exportChart(QWidget* chart, const QString& file, QString* error);
// A tool button with a menu "Export as PNG/SVG/PDF..." that asks for a file and exports `chart`.
QToolButton* makeExportButton(QWidget* chart, QWidget* parent);

} // namespace portolan::views
