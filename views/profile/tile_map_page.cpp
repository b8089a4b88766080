#include "views/profile/tile_map_page.h"

#include "views/profile/chart_export.h"
#include "views/profile/dry_run_notice.h"
#include "views/profile/tile_details.h"
#include "views/profile/tile_map.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace portolan::views {

TileMapPage::TileMapPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    m_map = new TileMap(this);
    m_details = new TileDetails(this);
    m_scale = new QSlider(Qt::Horizontal, this);
    m_scale->setObjectName(QStringLiteral("colourScale"));
    m_scale->setRange(1, 200); // percent of tile capacity at the top of the colour scale
    m_scale->setValue(100);
    m_scaleLabel = new QLabel(this);
    bar->addWidget(new QLabel(tr("Colour scale top"), this));
    bar->addWidget(m_scale, 1);
    bar->addWidget(m_scaleLabel);
    m_export = makeExportButton(m_map, this);
    bar->addWidget(m_export);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_map);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    m_needsDryRun = new DryRunNotice(tr("the map of every tile's memory"), this);
    layout->addLayout(bar);
    layout->addWidget(m_needsDryRun);
    layout->addWidget(split, 1);
    connect(m_needsDryRun, &DryRunNotice::dryRunRequested, this, &TileMapPage::dryRunRequested);
    auto updateScale = [this](int v) {
        m_scaleLabel->setText(tr("%1% of tile capacity").arg(v));
        m_map->setScale(v / 100.0);
    };
    connect(m_scale, &QSlider::valueChanged, this, updateScale);
    updateScale(m_scale->value());
    setResult(nullptr);
    connect(m_map, &TileMap::tileClicked, m_details, &TileDetails::showTile);
}

void TileMapPage::setResult(ResultPtr result)
{
    TileStats stats = result && result->ipu ? TileStats::from(*result->ipu) : TileStats{};
    // Start with the fullest tile at the top of the scale (never above capacity), so a model
    // using 2% of the memory still shows where it sits; the slider goes on from there.
    if (stats.capacity > 0 && !stats.total.empty()) {
        const auto fullest = *std::max_element(stats.total.begin(), stats.total.end());
        const int percent = int(std::ceil(100.0 * double(fullest) / double(stats.capacity)));
        m_scale->setValue(std::clamp(percent, 1, 100));
    }
    m_map->setStats(std::move(stats));
    m_map->setEmptyText(noTilesText(result));
    m_needsDryRun->hide();
    m_hasResult = result != nullptr;
    // Nothing to scale or export without tiles.
    const bool tiles = result && result->ipu;
    m_scale->setEnabled(tiles);
    m_export->setEnabled(tiles);
    // Without tiles the map says why; an empty table under it would say it twice.
    m_details->setVisible(tiles);
    m_details->setResult(std::move(result));
}

void TileMapPage::showNeedsDryRun()
{
    if (m_hasResult)
        return; // a report is shown: it says more
    m_needsDryRun->show();
    // The notice above says it whole; the map says where the figures will be.
    m_map->setEmptyText(tr("The map of every tile shows here after a dry run."));
}

} // namespace portolan::views
