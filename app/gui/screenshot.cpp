#include "app/gui/screenshot.h"

#include <QFileInfo>
#include <QImageWriter>
#include <QPixmap>
#include <QWidget>

namespace portolan::app {

QString saveScreenshot(QWidget* widget, const QString& file)
{
    const QPixmap pixmap = widget->grab();
    if (pixmap.isNull())
        return QStringLiteral("nothing to grab");
    QImageWriter writer(file, "png");
    if (!writer.write(pixmap.toImage()))
        return writer.errorString() + QStringLiteral(" (") + QFileInfo(file).absoluteFilePath() +
               QStringLiteral(")");
    return {};
}

} // namespace portolan::app
