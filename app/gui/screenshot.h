#pragma once

#include <QString>

class QWidget;

namespace portolan::app {

// Renders a widget (normally the main window) to a PNG file. Returns an empty string on success,
// otherwise the reason.
QString saveScreenshot(QWidget* widget, const QString& file);

} // namespace portolan::app
