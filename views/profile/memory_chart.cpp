#include "views/profile/memory_chart.h"

#include "views/common/nice_axis_ticker.h"

#include <algorithm>
#include <cmath>

namespace portolan::views {

MemoryChart::MemoryChart(QWidget* parent) : QCustomPlot(parent)
{
    setObjectName(QStringLiteral("memoryChart"));
    setMinimumHeight(220);
    setNotAntialiasedElements(QCP::aeAll); // thousands of bars: antialiasing costs frame time
    setPlottingHint(QCP::phFastPolylines, true);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Horizontal);
    axisRect()->setRangeZoom(Qt::Horizontal);
    xAxis->setLabel(tr("Tile"));
    yAxis->setLabel(tr("Memory"));

    m_max = addGraph();
    m_min = addGraph();
    m_mean = addGraph();
    m_max->setName(tr("max"));
    m_min->setName(tr("min"));
    m_mean->setName(tr("mean"));
    m_max->setChannelFillGraph(m_min);
    m_oom = addGraph();
    m_oom->setName(tr("out of memory"));
    m_oom->setLineStyle(QCPGraph::lsNone);
    for (int c = 0; c < sim::kMemoryCategories; ++c) {
        auto* bars = new QCPBars(xAxis, yAxis);
        bars->setName(memoryCategoryLabel(c));
        bars->setWidth(0.9);
        bars->setStackingGap(0);
        if (c > 0)
            bars->moveAbove(m_bars.back());
        m_bars.push_back(bars);
    }
    m_capacity = new QCPItemStraightLine(this);
    m_capacity->setClipToAxisRect(true);
    m_empty = new QCPItemText(this); // why the chart is empty
    m_empty->setClipToAxisRect(false);
    m_empty->position->setType(QCPItemPosition::ptViewportRatio);
    m_empty->position->setCoords(0.5, 0.5);
    m_empty->setPositionAlignment(Qt::AlignCenter);
    legend->setVisible(true);
    legend->setFont(font());
    // The legend gets a column of its own right of the plot, top-aligned, so it never hides a
    // tile's data and a narrow window only loses plot width.
    axisRect()->insetLayout()->take(legend);
    axisRect()->insetLayout()->simplify();
    auto* side = new QCPLayoutGrid;
    plotLayout()->addElement(0, 1, side);
    plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, legend);
    side->addElement(1, 0, new QCPLayoutElement(this)); // takes the height below the legend
    side->setRowStretchFactor(0, 0.001);
    side->setMargins(QMargins(0, 0, 6, 0)); // keeps the legend frame off the widget edge
    legend->setMargins(QMargins(4, 2, 4, 2));
    connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this](const QCPRange& r) { clampRange(r); });
    restyle();
    rebuild(); // the empty state until a report comes
}

void MemoryChart::restyle()
{
    const QPalette p = palette();
    applyPlotTheme(this, p);
    const QColor c = memoryCategoryColor(0, p);
    QColor fill = c;
    fill.setAlpha(90);
    m_max->setPen(QPen(c));
    m_max->setBrush(fill);
    m_min->setPen(QPen(c));
    m_mean->setPen(QPen(p.color(QPalette::WindowText), 1));
    m_oom->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssTriangle, alertColor(p), alertColor(p), 7));
    for (int c2 = 0; c2 < m_bars.size(); ++c2) {
        const QColor bc = memoryCategoryColor(c2, p);
        m_bars[c2]->setPen(Qt::NoPen);
        m_bars[c2]->setBrush(bc);
    }
    m_capacity->setPen(QPen(capacityColor(p, !m_stats.oomTiles.empty()), 1.5, Qt::DashLine));
    m_empty->setColor(p.color(QPalette::WindowText));
}

void MemoryChart::changeEvent(QEvent* event)
{
    QCustomPlot::changeEvent(event);
    // Enabling or disabling changes the palette's colour group the pens were taken from.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::EnabledChange) {
        restyle();
        replot();
    }
}

void MemoryChart::setEmptyText(const QString& text)
{
    m_emptyText = text;
    m_empty->setText(m_emptyText.isEmpty() || m_result ? noTilesText(m_result) : m_emptyText);
    replot();
}

void MemoryChart::setResult(ResultPtr result)
{
    m_result = std::move(result);
    m_emptyText.clear();
    m_stats = m_result && m_result->ipu ? TileStats::from(*m_result->ipu) : TileStats{};
    m_first = 0;
    m_end = m_stats.tileCount;
    const double cap = double(m_stats.capacity);
    m_capacity->point1->setCoords(0, cap);
    m_capacity->point2->setCoords(1, cap);
    m_capacity->setVisible(cap > 0);
    restyle(); // the capacity line is red only when a tile is over it
    applyHeight();
    showTiles(-0.5, m_end - 0.5);
}

void MemoryChart::setHeightMode(Height height)
{
    m_height = height;
    applyHeight();
    replot();
}

bool MemoryChart::capacityInView() const
{
    return m_stats.capacity > 0 && yAxis->range().upper >= double(m_stats.capacity);
}

void MemoryChart::applyHeight()
{
    const double cap = double(m_stats.capacity);
    const double top = m_stats.total.empty()
                           ? 1.0
                           : double(*std::max_element(m_stats.total.begin(), m_stats.total.end()));
    const bool toData =
        m_height == Height::Data || (m_height == Height::Auto && cap > 0 && top < 0.25 * cap);
    const double ymax = (toData ? top : std::max(top, cap)) * 1.08 + 1;
    yAxis->setRange(0, ymax);
    yAxis->setTicker(NiceAxisTicker::make(format::Axis::Bytes, 5));
}

void MemoryChart::setTileRange(int first, int end)
{
    m_first = std::clamp(first, 0, m_stats.tileCount);
    m_end = end < 0 ? m_stats.tileCount : std::clamp(end, m_first, m_stats.tileCount);
    showTiles(m_first - 0.5, m_end - 0.5);
}

void MemoryChart::showTiles(double lo, double hi, QCustomPlot::RefreshPriority refresh)
{
    const QCPRange before = xAxis->range();
    xAxis->setRange(lo, hi); // a changed range reaches clampRange(), which rebuilds
    if (xAxis->range() == before)
        rebuild(); // same range, no signal: the data may still be new (setResult)
    replot(refresh);
}

void MemoryChart::clampRange(const QCPRange& range)
{
    if (m_rebuilding)
        return;
    const double lo = m_first - 0.5, hi = std::max(m_end - 0.5, lo + 1);
    QCPRange r = range;
    if (r.size() < 8)
        r = QCPRange(r.center() - 4, r.center() + 4);
    if (r.size() > hi - lo)
        r = QCPRange(lo, hi);
    if (r.lower < lo)
        r = QCPRange(lo, lo + r.size());
    if (r.upper > hi)
        r = QCPRange(hi - r.size(), hi);
    m_rebuilding = true;
    if (r != range)
        xAxis->setRange(r);
    rebuild();
    m_rebuilding = false;
}

void MemoryChart::rebuild()
{
    const QCPRange r = xAxis->range();
    const int first = std::max(m_first, int(std::floor(r.lower + 0.5)));
    const int end = std::min(m_end, int(std::ceil(r.upper + 0.5)));
    const int columns = std::max(1, axisRect()->width());
    m_stacked = end - first <= columns / 2;
    for (auto* g : {m_max, m_min, m_mean})
        g->data()->clear();
    for (auto* b : m_bars)
        b->data()->clear();
    const bool empty = m_stats.tileCount == 0 || end <= first;
    m_empty->setVisible(m_stats.tileCount == 0);
    m_empty->setText(m_emptyText.isEmpty() || m_result ? noTilesText(m_result) : m_emptyText);
    xAxis->setVisible(m_stats.tileCount > 0);
    yAxis->setVisible(m_stats.tileCount > 0);
    if (empty) {
        // Nothing drawn, nothing in the legend (it listed every series, and an out-of-memory
        // marker, before any report).
        m_oom->data()->clear();
        for (auto* g : {m_max, m_min, m_mean, m_oom})
            g->setVisible(false);
        for (auto* b : m_bars)
            b->setVisible(false);
        syncLegend();
        return;
    }
    if (m_stacked) {
        const auto& tileBytes = m_result->ipu->tileBytes;
        QVector<double> keys;
        for (int t = first; t < end; ++t)
            keys.push_back(t);
        for (int c = 0; c < sim::kMemoryCategories; ++c) {
            QVector<double> values;
            values.reserve(keys.size());
            for (int t = first; t < end; ++t)
                values.push_back(t < int(tileBytes[std::size_t(c)].size())
                                     ? double(tileBytes[std::size_t(c)][std::size_t(t)])
                                     : 0.0);
            m_bars[c]->setData(keys, values, true);
        }
    } else {
        const Envelope e = decimate(m_stats, first, end, columns);
        m_max->setData(e.key, e.max, true);
        m_min->setData(e.key, e.min, true);
        m_mean->setData(e.key, e.mean, true);
    }
    for (auto* g : {m_max, m_min, m_mean})
        g->setVisible(!m_stacked);
    for (auto* b : m_bars)
        b->setVisible(m_stacked);
    // Out-of-memory markers: at most one per pixel column, so millions never reach the painter.
    QVector<double> ok, ov;
    const auto begin = std::lower_bound(m_stats.oomTiles.begin(), m_stats.oomTiles.end(), first);
    const double perPixel = double(end - first) / columns;
    double lastKey = -1e300;
    for (auto it = begin; it != m_stats.oomTiles.end() && *it < end; ++it) {
        if (*it - lastKey < perPixel)
            continue;
        lastKey = *it;
        ok.push_back(*it);
        ov.push_back(double(m_stats.total[std::size_t(*it)]));
    }
    m_oom->setData(ok, ov, true);
    // Only what is drawn is in the legend (a hidden legend item would still take its row), and
    // the out-of-memory marker only when some tile in view is out of memory.
    m_oom->setVisible(!ok.isEmpty());
    syncLegend();
}

void MemoryChart::syncLegend()
{
    std::vector<QCPAbstractPlottable*> plottables{m_max, m_min, m_mean};
    plottables.insert(plottables.end(), m_bars.begin(), m_bars.end());
    plottables.push_back(m_oom);
    std::vector<bool> shown;
    shown.reserve(plottables.size());
    for (QCPAbstractPlottable* p : plottables)
        shown.push_back(p->visible());
    if (shown == m_legendShown)
        return; // panning: same items, no need to rebuild the legend every frame
    m_legendShown = shown;
    for (QCPAbstractPlottable* p : plottables) {
        p->removeFromLegend();
        if (p->visible())
            p->addToLegend();
    }
    legend->setVisible(legend->itemCount() > 0); // an empty legend still drew its frame
}

int MemoryChart::tileAt(int pixelX) const
{
    const int t = int(std::lround(xAxis->pixelToCoord(pixelX)));
    return t >= m_first && t < m_end ? t : -1;
}

void MemoryChart::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = event->pos();
    QCustomPlot::mousePressEvent(event);
}

void MemoryChart::mouseReleaseEvent(QMouseEvent* event)
{
    QCustomPlot::mouseReleaseEvent(event);
    if (event->button() == Qt::LeftButton && (event->pos() - m_pressPos).manhattanLength() < 4 &&
        axisRect()->rect().contains(event->pos())) {
        const int t = tileAt(event->pos().x());
        if (t >= 0)
            emit tileClicked(t);
    }
}

void MemoryChart::resizeEvent(QResizeEvent* event)
{
    QCustomPlot::resizeEvent(event);
    rebuild();
}

} // namespace portolan::views
