#include "views/profile/chart_export.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QToolButton>
#include <qcustomplot.h>

namespace portolan::views {

namespace {

bool exportSvg(QWidget* chart, const QString& file)
{
    QSvgGenerator generator;
    generator.setFileName(file);
    generator.setSize(chart->size());
    generator.setViewBox(QRect(QPoint(0, 0), chart->size()));
    generator.setTitle(chart->objectName());
    if (auto* plot = qobject_cast<QCustomPlot*>(chart)) {
        QCPPainter painter;
        if (!painter.begin(&generator))
            return false;
        plot->toPainter(&painter, chart->width(), chart->height());
        return painter.end();
    }
    QPainter painter;
    if (!painter.begin(&generator))
        return false;
    chart->render(&painter);
    return painter.end();
}

bool exportPdf(QWidget* chart, const QString& file)
{
    if (auto* plot = qobject_cast<QCustomPlot*>(chart))
        return plot->savePdf(file, chart->width(), chart->height());
    QPdfWriter writer(file);
    writer.setPageSize(QPageSize(QSizeF(chart->size()), QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setResolution(72);
    QPainter painter;
    if (!painter.begin(&writer))
        return false;
    chart->render(&painter);
    return painter.end();
}

} // namespace

bool exportChart(QWidget* chart, const QString& file, QString* error)
{
    const QString suffix = QFileInfo(file).suffix().toLower();
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        if (auto* plot = qobject_cast<QCustomPlot*>(chart))
            ok = plot->savePng(file, chart->width(), chart->height());
        else
            ok = chart->grab().save(file, "PNG");
    } else if (suffix == QLatin1String("svg")) {
        ok = exportSvg(chart, file);
    } else if (suffix == QLatin1String("pdf")) {
        ok = exportPdf(chart, file);
    } else {
        if (error)
            *error = QObject::tr("%1: choose a .png, .svg or .pdf file").arg(file);
        return false;
    }
    if (!ok && error)
        *error = QObject::tr("%1: cannot write the chart there").arg(file);
    return ok && QFileInfo(file).size() > 0;
}

QToolButton* makeExportButton(QWidget* chart, QWidget* parent)
{
    auto* button = new QToolButton(parent);
    button->setText(QObject::tr("Export"));
    button->setToolTip(QObject::tr("Export this chart as PNG, SVG or PDF"));
    button->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(button);
    for (const char* format : {"PNG", "SVG", "PDF"}) {
        const QString f = QString::fromLatin1(format);
        menu->addAction(QObject::tr("Export as %1...").arg(f), button, [chart, button, f] {
            const QString name =
                (chart->objectName().isEmpty() ? QStringLiteral("chart") : chart->objectName()) +
                QLatin1Char('.') + f.toLower();
            const QString file =
                QFileDialog::getSaveFileName(button, QObject::tr("Export chart"), name,
                                             QObject::tr("%1 (*.%2)").arg(f, f.toLower()));
            if (file.isEmpty())
                return;
            QString error;
            if (!exportChart(chart, file, &error))
                QMessageBox::warning(button, QObject::tr("Export chart"), error);
        });
    }
    button->setMenu(menu);
    return button;
}

} // namespace portolan::views
