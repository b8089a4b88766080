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

QColor GanttChart::passColor(bool backward, const QPalette& p)
{
    return backward ? backwardColor(p) : forwardColor(p);
}

QBrush GanttChart::idleBrush(const QPalette& p)
{
    // Thin lines of the text's colour, at about half strength: seen in the key's small swatch
    // on light and dark palettes (at an alpha of 28 the swatch read as empty), yet lighter than
    // any box drawn over them.
    QColor lines = p.color(QPalette::WindowText);
    lines.setAlpha(130);
    return {lines, Qt::BDiagPattern};
}

QRect GanttChart::plotArea() const
{
    const QFontMetrics fm(font());
    const int left = fm.horizontalAdvance(QStringLiteral("stage 000")) + 8;
    const int bottom = fm.height() * 2 + 10;
    return QRect(left, 4, std::max(10, width() - left - 8), std::max(10, height() - bottom - 4));
}

QRect GanttChart::keyArea() const
{
    const QFontMetrics fm(font());
    const QRect area = plotArea();
    return QRect(area.left(), area.bottom() + 8 + fm.height(), area.width(), fm.height());
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
    for (const auto& e : ipu.schedule)
        end = std::max(end, e.end);
    const QFontMetrics fm(font());
    const QRect area = plotArea();
    const int left = area.left();
    const double rowH = double(area.height()) / stages;
    auto xOf = [&](double t) {
        return area.left() + area.width() * t / std::max(end, 1e-12);
    };

    // The bubble: every row starts idle; busy boxes are drawn over it.
    const QBrush idle = idleBrush(pal);
    p.fillRect(area, idle);
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
        const QRectF box(xOf(e.start), area.top() + e.stage * rowH + 1,
                         std::max(1.0, xOf(e.end) - xOf(e.start)), std::max(1.0, rowH - 2));
        p.fillRect(box, passColor(e.backward, pal));
        // One micro-batch from the next: a gap of the background where the box is wide enough.
        if (box.width() >= 4)
            p.fillRect(QRectF(box.right() - 1, box.top(), 1, box.height()),
                       pal.color(QPalette::Base));
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
    // The key under the axis: a swatch per meaning, in the colours the boxes use.
    const QRect keyRect = keyArea();
    const QString bubble = QString::number(100 * ipu.bubble, 'f', 1);
    struct Entry
    {
        QBrush brush;
        QString text;
    };
    const Entry entries[] = {{passColor(false, pal), tr("forward")},
                             {passColor(true, pal), tr("backward")},
                             {idle, tr("idle (bubble %1%)").arg(bubble)},
                             {Qt::NoBrush, tr("one box per micro-batch")}};
    int x = keyRect.left();
    const int sw = fm.height() - 4;
    for (const Entry& entry : entries) {
        if (entry.brush.style() != Qt::NoBrush) {
            const QRect swatch(x, keyRect.top() + 2, sw, sw);
            p.fillRect(swatch, entry.brush);
            p.setPen(pal.color(QPalette::WindowText));
            p.drawRect(swatch);
            x += sw + 4;
        }
        const int room = keyRect.right() - x;
        if (room <= 0)
            break;
        p.setPen(pal.color(QPalette::WindowText));
        const QString text = fm.elidedText(entry.text, Qt::ElideRight, room);
        p.drawText(QRect(x, keyRect.top(), room, keyRect.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, text);
        x += fm.horizontalAdvance(text) + 14;
    }
}

} // namespace portolan::views
