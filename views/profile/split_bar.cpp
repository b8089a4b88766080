#include "views/profile/split_bar.h"

#include "core/common/number_format.h"
#include "core/sim/layer_split.h"
#include "views/profile/plot_theme.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace portolan::views {

SplitBar::SplitBar(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("splitBar"));
    setMouseTracking(true); // the cursor shows where a boundary can be grabbed
    setFocusPolicy(Qt::ClickFocus);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize SplitBar::sizeHint() const
{
    return {600, fontMetrics().height() * 2 + 8};
}

QSize SplitBar::minimumSizeHint() const
{
    return {120, fontMetrics().height() * 2 + 8};
}

void SplitBar::setSplit(std::vector<int> layersPerStage)
{
    m_drag = -1; // a new result mid-drag wins: the drag was against the old split
    m_split = std::move(layersPerStage);
    unsetCursor();
    update();
}

int SplitBar::layerCount() const
{
    return std::accumulate(m_split.begin(), m_split.end(), 0);
}

QRectF SplitBar::barRect() const
{
    return QRectF(rect()).adjusted(4, 3, -4, -3);
}

double SplitBar::xOfLayer(double layer) const
{
    const QRectF bar = barRect();
    return bar.left() + bar.width() * layer / std::max(1, layerCount());
}

int SplitBar::boundaryX(int boundary) const
{
    if (boundary < 0 || boundary + 1 >= int(m_split.size()))
        return -1;
    const int end = std::accumulate(m_split.begin(), m_split.begin() + boundary + 1, 0);
    return int(std::lround(xOfLayer(end)));
}

int SplitBar::boundaryNear(double x) const
{
    // The nearest boundary within a few pixels; with many stages on few pixels, still the
    // nearest, so every boundary stays reachable by zooming the window.
    const double reach = 5;
    int best = -1;
    double bestDistance = reach + 1;
    for (int b = 0; b + 1 < int(m_split.size()); ++b) {
        const double d = std::abs(boundaryX(b) - x);
        if (d < bestDistance) {
            bestDistance = d;
            best = b;
        }
    }
    return bestDistance <= reach ? best : -1;
}

int SplitBar::stageOfLayer(int layer) const
{
    int end = 0;
    for (std::size_t s = 0; s < m_split.size(); ++s) {
        end += m_split[s];
        if (layer < end)
            return int(s);
    }
    return int(m_split.size()) - 1;
}

bool SplitBar::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && !m_split.empty()) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QRectF bar = barRect();
        const int layers = layerCount();
        const int layer =
            std::clamp(int((help->pos().x() - bar.left()) / std::max(1.0, bar.width()) * layers), 0,
                       layers - 1);
        const int stage = stageOfLayer(layer);
        const QString name =
            layer < m_layerNames.size() ? m_layerNames[layer] : QString::number(layer);
        QToolTip::showText(
            help->globalPos(),
            tr("Layer %1 (%2): stage %3 of %4.\nDrag a boundary to "
               "move layers between neighbouring stages.")
                .arg(layer)
                .arg(name)
                .arg(stage)
                .arg(QString::fromStdString(format::counted(m_split[std::size_t(stage)], "layer"))),
            this);
        return true;
    }
    return QWidget::event(event);
}

void SplitBar::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    const QRectF bar = barRect();
    p.fillRect(rect(), pal.color(QPalette::Window));
    if (m_split.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No pipeline split"));
        return;
    }
    const int stages = int(m_split.size());
    const int layers = layerCount();
    const QFontMetrics fm = fontMetrics();
    int start = 0;
    for (int s = 0; s < stages; ++s) {
        const int end = start + m_split[std::size_t(s)];
        const QRectF segment(QPointF(xOfLayer(start), bar.top()),
                             QPointF(xOfLayer(end), bar.bottom()));
        const QColor fill = seriesColor(s, stages, pal);
        p.fillRect(segment, fill);
        // Layer ticks where there is room to see them.
        if (bar.width() / std::max(1, layers) >= 6) {
            QColor tick = pal.color(QPalette::Base);
            tick.setAlpha(90);
            p.setPen(tick);
            for (int l = start + 1; l < end; ++l)
                p.drawLine(QPointF(xOfLayer(l), segment.bottom() - 4),
                           QPointF(xOfLayer(l), segment.bottom()));
        }
        // "stage: layers" when it fits, else just the layer count, else nothing.
        const int count = m_split[std::size_t(s)];
        const QString full =
            count == 1 ? tr("%1: 1 layer").arg(s) : tr("%1: %2 layers").arg(s).arg(count);
        const QString brief = QString::number(count);
        const QString text = fm.horizontalAdvance(full) + 6 <= segment.width()    ? full
                             : fm.horizontalAdvance(brief) + 4 <= segment.width() ? brief
                                                                                  : QString();
        if (!text.isEmpty()) {
            p.setPen(fill.lightnessF() > 0.55 ? Qt::black : Qt::white);
            p.drawText(segment, Qt::AlignCenter, text);
        }
        start = end;
    }
    // Boundaries as handles; the one being dragged in the highlight colour.
    for (int b = 0; b + 1 < stages; ++b) {
        const double x = boundaryX(b);
        const bool active = b == m_drag;
        p.setPen(QPen(active ? pal.color(QPalette::Highlight) : pal.color(QPalette::WindowText),
                      active ? 3 : 2));
        p.drawLine(QPointF(x, bar.top() - 2), QPointF(x, bar.bottom() + 2));
    }
    p.setPen(pal.color(QPalette::Mid));
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar);
}

void SplitBar::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    m_drag = boundaryNear(event->position().x());
    if (m_drag >= 0) {
        m_beforeDrag = m_split;
        setFocus(Qt::MouseFocusReason);
        update();
    }
}

void SplitBar::mouseMoveEvent(QMouseEvent* event)
{
    const double x = event->position().x();
    if (m_drag < 0) {
        if (boundaryNear(x) >= 0)
            setCursor(Qt::SplitHCursor);
        else
            unsetCursor();
        return;
    }
    // Snap to the nearest whole layer; the split keeps at least one layer on each side.
    const QRectF bar = barRect();
    const int layer =
        int(std::lround((x - bar.left()) / std::max(1.0, bar.width()) * layerCount()));
    sim::LayerSplit split(m_split);
    if (split.moveBoundary(m_drag, layer)) {
        m_split = split.perStage();
        update();
    }
}

void SplitBar::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || m_drag < 0) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    m_drag = -1;
    update();
    if (m_split != m_beforeDrag)
        emit splitDragged(m_split);
}

void SplitBar::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && m_drag >= 0) {
        m_split = m_beforeDrag;
        m_drag = -1;
        update();
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace portolan::views
