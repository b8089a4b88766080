#include "views/profile/gantt_chart.h"

#include "core/common/number_format.h"
#include "views/profile/plot_theme.h"

#include <QPainter>
#include <algorithm>

namespace portolan::views {

GanttChart::GanttChart(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("ganttChart"));
    setMinimumHeight(160);
}

void GanttChart::setResult(ResultPtr result)
{
    m_result = std::move(result);
    m_idle = 0;
    if (m_result && m_result->ipu && m_result->ipu->stepSeconds > 0) {
        const auto& ipu = *m_result->ipu;
        double busy = 0;
        for (const auto& e : ipu.schedule)
            busy += e.end - e.start;
        const double total = ipu.stepSeconds * double(std::max<std::size_t>(1, ipu.stages.size()));
        m_idle = std::clamp(1 - busy / total, 0.0, 1.0);
    }
    update();
}

void GanttChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    p.setPen(pal.color(QPalette::WindowText));
    if (!m_result || !m_result->ipu || m_result->ipu->schedule.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No pipeline schedule (a CS report or no report)"));
        return;
    }
    const auto& ipu = *m_result->ipu;
    const int stages = std::max<int>(1, int(ipu.stages.size()));
    double end = ipu.stepSeconds;
    int microBatches = 1;
    for (const auto& e : ipu.schedule) {
        end = std::max(end, e.end);
        microBatches = std::max(microBatches, e.microBatch + 1);
    }
    const QFontMetrics fm(font());
    const int left = fm.horizontalAdvance(QStringLiteral("stage 000")) + 8;
    const int bottom = fm.height() * 2 + 6;
    const QRect area(left, 4, std::max(10, width() - left - 8),
                     std::max(10, height() - bottom - 4));
    const double rowH = double(area.height()) / stages;
    auto xOf = [&](double t) {
        return area.left() + area.width() * t / std::max(end, 1e-12);
    };

    // The bubble: every row starts idle; busy boxes are drawn over it.
    QColor idle = pal.color(QPalette::WindowText);
    idle.setAlpha(28);
    p.fillRect(area, QBrush(idle, Qt::BDiagPattern));
    QColor grid = pal.color(QPalette::WindowText);
    grid.setAlpha(60);
    const bool drawLabels = stages <= 48;
    for (int s = 0; s < stages; ++s) {
        const int y = int(area.top() + s * rowH);
        p.setPen(grid);
        p.drawLine(area.left(), y, area.right(), y);
        if (drawLabels &&
            (rowH >= fm.height() || s % std::max(1, int(fm.height() / std::max(rowH, 1.0))) == 0)) {
            p.setPen(pal.color(QPalette::WindowText));
            p.drawText(QRect(0, y, left - 4, int(std::max(rowH, double(fm.height())))),
                       Qt::AlignRight | Qt::AlignVCenter, tr("stage %1").arg(s));
        }
    }
    p.setPen(Qt::NoPen);
    for (const auto& e : ipu.schedule) {
        const QColor c = seriesColor(e.microBatch, microBatches, pal);
        const QRectF box(xOf(e.start), area.top() + e.stage * rowH + 1,
                         std::max(1.0, xOf(e.end) - xOf(e.start)), std::max(1.0, rowH - 2));
        p.fillRect(box, c);
        if (e.backward)
            p.fillRect(box, QBrush(c.darker(160), Qt::Dense5Pattern));
    }
    // Time axis
    p.setPen(pal.color(QPalette::WindowText));
    p.drawLine(area.bottomLeft(), area.bottomRight());
    // Round times ("0 ms | 2 ms | 4 ms"), in one unit along the axis.
    const format::Ticks ticks = format::niceTicks(0, end, format::Axis::Seconds, 5);
    for (std::size_t k = 0; k < ticks.values.size(); ++k) {
        const int x = int(xOf(ticks.values[k]));
        p.drawLine(x, area.bottom(), x, area.bottom() + 4);
        // A label near the axis end ends there rather than running past the widget.
        const bool last = x + 60 > area.right();
        const QRect box = last ? QRect(x - 120, area.bottom() + 4, 120, fm.height())
                               : QRect(x - 60, area.bottom() + 4, 120, fm.height());
        p.drawText(box, last ? Qt::AlignRight : Qt::AlignHCenter,
                   QString::fromStdString(ticks.labels[k]));
    }
    // The key under the axis; a shorter wording when the chart is narrow, elided if need be.
    const QString bubble = QString::number(100 * ipu.bubble, 'f', 1);
    QString key = tr("solid: forward, dotted: backward, colour: micro-batch, hatched: idle "
                     "(bubble %1%)")
                      .arg(bubble);
    if (fm.horizontalAdvance(key) > area.width())
        key = tr("solid fwd, dotted bwd, hatched idle (bubble %1%)").arg(bubble);
    p.drawText(QRect(area.left(), area.bottom() + 4 + fm.height(), area.width(), fm.height()),
               Qt::AlignLeft, fm.elidedText(key, Qt::ElideRight, area.width()));
}

} // namespace portolan::views
