#include "views/profile/wafer_map.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace portolan::views {

WaferMap::WaferMap(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("waferMap"));
    setMinimumSize(200, 160);
}

void WaferMap::setResult(ResultPtr result)
{
    m_result = std::move(result);
    m_selected = -1;
    update();
}

void WaferMap::setSelectedKernel(int kernel)
{
    m_selected = kernel;
    update();
}

QRectF WaferMap::gridRect() const
{
    if (!m_result || !m_result->cs || m_result->cs->gridWidth <= 0 || m_result->cs->gridHeight <= 0)
        return {};
    const auto& cs = *m_result->cs;
    QSizeF s(cs.gridWidth, cs.gridHeight);
    // A line under the wafer is kept for the legend.
    const int legend = legendHeight();
    s.scale(QSizeF(width() - 8, height() - 8 - legend), Qt::KeepAspectRatio);
    return QRectF(QPointF((width() - s.width()) / 2, (height() - legend - s.height()) / 2), s);
}

int WaferMap::legendHeight() const
{
    return fontMetrics().height() + 8;
}

QRectF WaferMap::kernelRect(const sim::CsKernel& k, const QRectF& grid) const
{
    const auto& cs = *m_result->cs;
    const double sx = grid.width() / cs.gridWidth, sy = grid.height() / cs.gridHeight;
    return QRectF(grid.left() + k.x * sx, grid.top() + k.y * sy, std::max(1.0, k.width * sx),
                  std::max(1.0, k.height * sy));
}

int WaferMap::kernelAt(const QPoint& pos) const
{
    const QRectF grid = gridRect();
    if (grid.isEmpty())
        return -1;
    const auto& kernels = m_result->cs->kernels;
    for (std::size_t i = 0; i < kernels.size(); ++i)
        if (kernelRect(kernels[i], grid).contains(pos))
            return int(i);
    return -1;
}

void WaferMap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Window));
    const QRectF grid = gridRect();
    if (grid.isEmpty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No wafer placement (an IPU report or no report)"));
        return;
    }
    const auto& cs = *m_result->cs;
    p.fillRect(grid, pal.color(QPalette::Base));
    p.setPen(pal.color(QPalette::Mid));
    p.drawRect(grid);
    const int n = int(cs.kernels.size());
    const QFontMetrics fm(font());
    if (cs.mode == "weight-streaming") {
        // Every layer takes the whole wafer in turn: drawn one over the other, only the last
        // showed (its name and colour, a legend swatch of another colour, and a sentence cut
        // at the wafer's edge). One fill and the sentence, wrapped, say what happens.
        p.fillRect(grid, seriesColor(0, 1, pal));
        p.setPen(isDarkPalette(pal) ? Qt::black : Qt::white);
        p.drawText(grid.adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                   n == 1 ? tr("Weight streaming: the layer runs over the whole wafer, its "
                               "weights streamed in.")
                          : tr("Weight streaming: the %1 layers run one at a time, each over "
                               "the whole wafer, their weights streamed in.")
                                .arg(n));
        paintLegend(p);
        return;
    }
    int bottleneck = -1;
    for (int i = 0; i < n; ++i) {
        const auto& k = cs.kernels[std::size_t(i)];
        const QRectF r = kernelRect(k, grid);
        p.fillRect(r, seriesColor(i, n, pal));
        QPen pen(k.fits ? pal.color(QPalette::Base) : alertColor(pal), k.fits ? 1 : 2);
        if (i == m_selected)
            pen = QPen(pal.color(QPalette::Highlight), 3);
        p.setPen(pen);
        p.drawRect(r);
        if (k.name == cs.bottleneck)
            bottleneck = i;
        if (r.width() > fm.horizontalAdvance(QString::fromStdString(k.name)) + 4 &&
            r.height() > fm.height()) {
            p.setPen(isDarkPalette(pal) ? Qt::black : Qt::white);
            p.drawText(r, Qt::AlignCenter, QString::fromStdString(k.name));
        }
    }
    // The slowest kernel sets the wafer's pace: a dashed frame in the text colour marks it.
    if (bottleneck >= 0) {
        QPen dashed(pal.color(QPalette::WindowText), 2, Qt::DashLine);
        p.setPen(dashed);
        p.setBrush(Qt::NoBrush);
        p.drawRect(kernelRect(cs.kernels[std::size_t(bottleneck)], grid).adjusted(-2, -2, 2, 2));
    }
    paintLegend(p);
}

std::vector<WaferMap::LegendItem> WaferMap::legendItems() const
{
    if (!m_result || !m_result->cs || m_result->cs->kernels.empty())
        return {};
    const auto& cs = *m_result->cs;
    if (cs.mode == "weight-streaming")
        return {{LegendKind::Kernel, tr("the layer on the wafer (one at a time)")}};
    std::vector<LegendItem> items{{LegendKind::Kernel, tr("a kernel (one colour each)")}};
    if (std::any_of(cs.kernels.begin(), cs.kernels.end(), [](const auto& k) { return !k.fits; }))
        items.push_back({LegendKind::Over, tr("over its memory")});
    if (std::any_of(cs.kernels.begin(), cs.kernels.end(),
                    [&](const auto& k) { return k.name == cs.bottleneck; }))
        items.push_back({LegendKind::Bottleneck,
                         tr("bottleneck: %1").arg(QString::fromStdString(cs.bottleneck))});
    return items;
}

QStringList WaferMap::legendTexts() const
{
    QStringList texts;
    for (const LegendItem& item : legendItems())
        texts << item.text;
    return texts;
}

// Under the wafer: what the colours and frames mean, only for what is drawn.
void WaferMap::paintLegend(QPainter& p)
{
    const QPalette pal = palette();
    const QFontMetrics fm(font());
    const int h = fm.height();
    int x = 6;
    const int y = height() - legendHeight() + 4;
    auto swatch = [&](const QPen& pen, const QBrush& brush, const QString& text) {
        p.setPen(pen);
        p.setBrush(brush);
        p.drawRect(QRect(x, y + 2, h - 4, h - 4));
        x += h + 2;
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(QRect(x, y, width() - x, h), Qt::AlignLeft | Qt::AlignVCenter, text);
        x += fm.horizontalAdvance(text) + 14;
    };
    for (const LegendItem& item : legendItems())
        switch (item.kind) {
        case LegendKind::Kernel:
            // The colour of the first kernel drawn (or of the streamed wafer).
            swatch(QPen(pal.color(QPalette::Base)),
                   m_result->cs->mode == "weight-streaming"
                       ? seriesColor(0, 1, pal)
                       : seriesColor(0, int(m_result->cs->kernels.size()), pal),
                   item.text);
            break;
        case LegendKind::Over:
            swatch(QPen(alertColor(pal), 2), Qt::NoBrush, item.text);
            break;
        case LegendKind::Bottleneck:
            swatch(QPen(pal.color(QPalette::WindowText), 2, Qt::DashLine), Qt::NoBrush, item.text);
            break;
        }
    p.setBrush(Qt::NoBrush);
}

void WaferMap::mouseReleaseEvent(QMouseEvent* event)
{
    const int k = kernelAt(event->pos());
    if (k >= 0) {
        setSelectedKernel(k);
        emit kernelClicked(k);
    }
}

} // namespace portolan::views
