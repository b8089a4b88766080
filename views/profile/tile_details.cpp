#include "views/profile/tile_details.h"

#include "views/common/placeholder_table_view.h"
#include "views/profile/tile_stats.h"
#include "views/profile/variable_table_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QVBoxLayout>

namespace portolan::views {

TileDetails::TileDetails(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("tileSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_model = new VariableTableModel(this);
    m_view = new PlaceholderTableView(this);
    m_view->setObjectName(QStringLiteral("tileVariables"));
    m_view->setModel(m_model);
    m_view->setSortingEnabled(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    setUpVariableTable(m_view);
    layout->addWidget(m_summary);
    layout->addWidget(m_view, 1);
    setResult(nullptr);
}

void TileDetails::setResult(ResultPtr result)
{
    m_result = std::move(result);
    m_tile = -1;
    m_model->clear();
    // Until a tile is chosen, the empty table says what would fill it (and the line above it,
    // the chosen tile's header, has nothing to say).
    m_summary->clear();
    m_summary->hide();
    m_view->setPlaceholderText(
        m_result && m_result->ipu
            ? tr("Click a tile to list the variables it holds: their bytes on the tile, "
                 "category, stage and when they are live.")
            : noTilesText(m_result));
}

QString TileDetails::summary() const
{
    return m_summary->text();
}

void TileDetails::showTile(int tile)
{
    if (!m_result || !m_result->ipu || tile < 0 || tile >= int(m_result->ipu->tileBytes[0].size()))
        return;
    const auto& ipu = *m_result->ipu;
    m_tile = tile;
    QStringList parts;
    std::int64_t total = 0;
    for (int c = 0; c < sim::kMemoryCategories; ++c) {
        const std::int64_t b = ipu.tileBytes[std::size_t(c)][std::size_t(tile)];
        total += b;
        if (b > 0)
            parts << QStringLiteral("%1 %2").arg(memoryCategoryLabel(c), bytesText(double(b)));
    }
    const int perIpu = std::max(1, ipu.tilesPerIpu);
    int stage = -1;
    for (const auto& s : ipu.stages)
        if (s.ipu == tile / perIpu)
            stage = s.index;
    const bool oom = ipu.tileCapacity > 0 && total > ipu.tileCapacity;
    std::vector<int> vars = sim::variablesOnTile(ipu, tile);
    m_summary->setText(tr("Tile %1 (IPU %2, tile %3 of it%4): %5 of %6%7. %8 variables. %9")
                           .arg(tile)
                           .arg(tile / perIpu)
                           .arg(tile % perIpu)
                           .arg(stage >= 0 ? tr(", stage %1").arg(stage) : QString(),
                                bytesText(double(total)), bytesText(double(ipu.tileCapacity)),
                                oom ? tr(", OUT OF MEMORY") : QString())
                           .arg(vars.size())
                           .arg(parts.join(QStringLiteral(", "))));
    m_summary->show();
    m_view->setPlaceholderText(tr("Tile %1 holds no variables.").arg(tile));
    m_model->setVariables(m_result, std::move(vars), tile);
    m_model->sort(VariableTableModel::BytesHere, Qt::DescendingOrder);
}

} // namespace portolan::views
