#include "views/profile/tile_map.h"

#include "views/profile/plot_theme.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <utility>

namespace portolan::views {

TileMap::TileMap(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("tileMap"));
    setMinimumSize(200, 150);
    setMouseTracking(false);
}

void TileMap::setStats(TileStats stats)
{
    m_stats = std::move(stats);
    const int perIpu = std::max(1, m_stats.tilesPerIpu);
    const int ipus = std::max(1, (m_stats.tileCount + perIpu - 1) / perIpu);
    m_blockW = int(std::ceil(std::sqrt(double(perIpu) * 1.5)));
    m_blockH = (perIpu + m_blockW - 1) / m_blockW;
    m_ipuCols = int(std::ceil(std::sqrt(double(ipus))));
    m_ipuRows = (ipus + m_ipuCols - 1) / m_ipuCols;
    rebuildImage();
}

void TileMap::setScale(double fractionOfCapacity)
{
    m_scale = std::max(0.01, fractionOfCapacity);
    rebuildImage();
}

QPoint TileMap::cellOf(int tile) const
{
    const int perIpu = std::max(1, m_stats.tilesPerIpu);
    const int ipu = tile / perIpu, local = tile % perIpu;
    // One pixel gap between IPU blocks keeps the IPUs apart.
    return {(ipu % m_ipuCols) * (m_blockW + 1) + local % m_blockW,
            (ipu / m_ipuCols) * (m_blockH + 1) + local / m_blockW};
}

void TileMap::rebuildImage()
{
    if (m_stats.tileCount == 0) {
        m_image = QImage();
        update();
        return;
    }
    const QPalette p = palette();
    m_image = QImage(m_ipuCols * (m_blockW + 1) - 1, m_ipuRows * (m_blockH + 1) - 1,
                     QImage::Format_RGB32);
    m_image.fill(p.color(QPalette::Window));
    const QColor low = p.color(QPalette::Base);
    const QColor high = memoryCategoryColor(0, p);
    const QRgb alert = alertColor(p).rgb();
    const double top = std::max(1.0, double(m_stats.capacity) * m_scale);
    // A 256-entry ramp avoids a QColor per tile.
    QRgb ramp[256];
    for (int i = 0; i < 256; ++i) {
        const double f = i / 255.0;
        ramp[i] = qRgb(int(low.red() + f * (high.red() - low.red())),
                       int(low.green() + f * (high.green() - low.green())),
                       int(low.blue() + f * (high.blue() - low.blue())));
    }
    for (int t = 0; t < m_stats.tileCount; ++t) {
        const std::int64_t v = m_stats.total[std::size_t(t)];
        const QPoint c = cellOf(t);
        QRgb colour;
        if (m_stats.capacity > 0 && v > m_stats.capacity)
            colour = alert;
        else
            colour = ramp[std::clamp(int(255.0 * double(v) / top), 0, 255)];
        reinterpret_cast<QRgb*>(m_image.scanLine(c.y()))[c.x()] = colour;
    }
    update();
}

int TileMap::legendHeight() const
{
    return fontMetrics().height() + 12;
}

QRect TileMap::imageRect() const
{
    if (m_image.isNull())
        return {};
    // A pixel of room on each side for the IPU frames (at the edge, the right one was cut).
    const QSize room(std::max(1, width() - 2), std::max(1, height() - legendHeight() - 2));
    QSize s = m_image.size().scaled(room, Qt::KeepAspectRatio);
    return QRect(QPoint((width() - s.width()) / 2, 1 + (room.height() - s.height()) / 2), s);
}

int TileMap::tileAt(const QPoint& pos) const
{
    const QRect r = imageRect();
    if (r.isEmpty() || !r.contains(pos)) // an empty rectangle contains nothing: no division by 0
        return -1;
    const int x = (pos.x() - r.x()) * m_image.width() / r.width();
    const int y = (pos.y() - r.y()) * m_image.height() / r.height();
    const int bx = x / (m_blockW + 1), by = y / (m_blockH + 1);
    const int lx = x % (m_blockW + 1), ly = y % (m_blockH + 1);
    if (lx >= m_blockW || ly >= m_blockH)
        return -1; // the gap between IPUs
    const int perIpu = std::max(1, m_stats.tilesPerIpu);
    const int local = ly * m_blockW + lx;
    const int tile = (by * m_ipuCols + bx) * perIpu + local;
    return local < perIpu && tile < m_stats.tileCount ? tile : -1;
}

void TileMap::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Window));
    if (m_image.isNull()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                         m_emptyText);
        return;
    }
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(imageRect(), m_image);
    paintAxes(painter);
    paintLegend(painter);
}

// Each IPU's block framed and named with its tile range: the map keeps its bearings even when
// every tile is over capacity and the image is one red block.
std::vector<TileMap::BlockLabel> TileMap::blocks() const
{
    const QRect r = imageRect();
    if (r.isEmpty())
        return {};
    const QFontMetrics fm(font());
    const int perIpu = std::max(1, m_stats.tilesPerIpu);
    const int ipus = std::max(1, (m_stats.tileCount + perIpu - 1) / perIpu);
    const double sx = double(r.width()) / m_image.width();
    const double sy = double(r.height()) / m_image.height();
    std::vector<BlockLabel> out;
    for (int ipu = 0; ipu < ipus; ++ipu) {
        const QRectF block(r.x() + (ipu % m_ipuCols) * (m_blockW + 1) * sx,
                           r.y() + (ipu / m_ipuCols) * (m_blockH + 1) * sy, m_blockW * sx,
                           m_blockH * sy);
        const int first = ipu * perIpu;
        const int last = std::min(m_stats.tileCount, first + perIpu) - 1;
        QString label = tr("IPU %1 · tiles %2–%3").arg(ipu).arg(first).arg(last);
        if (fm.horizontalAdvance(label) + 8 > block.width())
            label = tr("IPU %1").arg(ipu);
        if (fm.horizontalAdvance(label) + 8 > block.width() || fm.height() + 4 > block.height())
            label.clear();
        out.push_back({block, label});
    }
    return out;
}

QStringList TileMap::blockLabels() const
{
    QStringList labels;
    for (const BlockLabel& b : blocks())
        if (!b.text.isEmpty())
            labels << b.text;
    return labels;
}

void TileMap::paintAxes(QPainter& painter)
{
    const QPalette p = palette();
    const QFontMetrics fm(font());
    for (const BlockLabel& b : blocks()) {
        painter.setPen(QPen(p.color(QPalette::WindowText), 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(b.block);
        if (b.text.isEmpty())
            continue;
        const QRectF box(b.block.left() + 2, b.block.top() + 2, fm.horizontalAdvance(b.text) + 6,
                         fm.height() + 2);
        QColor back = p.color(QPalette::Window);
        back.setAlpha(200);
        painter.fillRect(box, back);
        painter.drawText(box, Qt::AlignCenter, b.text);
    }
}

void TileMap::paintLegend(QPainter& painter)
{
    // The colour scale under the map: 0 to the scale top, then the out-of-memory colour.
    const QPalette p = palette();
    const QFontMetrics fm = fontMetrics();
    const int h = fm.height();
    const int y = height() - legendHeight() + 6;
    const QString zero = bytesText(0);
    const QString top = bytesText(double(m_stats.capacity) * m_scale);
    const QString oom = tr("over capacity");
    int x = 4;
    painter.setPen(p.color(QPalette::WindowText));
    painter.drawText(QRect(x, y, fm.horizontalAdvance(zero), h), Qt::AlignVCenter, zero);
    x += fm.horizontalAdvance(zero) + 6;
    const int barWidth = std::clamp(width() / 3, 60, 320);
    QLinearGradient ramp(x, 0, x + barWidth, 0);
    ramp.setColorAt(0, p.color(QPalette::Base));
    ramp.setColorAt(1, memoryCategoryColor(0, p));
    painter.fillRect(QRect(x, y + 2, barWidth, h - 4), ramp);
    painter.drawRect(QRect(x, y + 2, barWidth, h - 4));
    x += barWidth + 6;
    painter.drawText(QRect(x, y, fm.horizontalAdvance(top), h), Qt::AlignVCenter, top);
    x += fm.horizontalAdvance(top) + 16;
    painter.fillRect(QRect(x, y + 2, h - 4, h - 4), alertColor(p));
    x += h;
    painter.drawText(QRect(x, y, fm.horizontalAdvance(oom), h), Qt::AlignVCenter, oom);
}

void TileMap::mouseReleaseEvent(QMouseEvent* event)
{
    const int t = tileAt(event->pos());
    if (t >= 0)
        emit tileClicked(t);
}

void TileMap::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuildImage();
}

} // namespace portolan::views
