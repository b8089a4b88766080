#include "views/profile/tile_map_page.h"

#include "views/profile/chart_export.h"
#include "views/profile/tile_details.h"
#include "views/profile/tile_map.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

namespace portolan::views {

TileMapPage::TileMapPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    m_map = new TileMap(this);
    m_details = new TileDetails(this);
    m_scale = new QSlider(Qt::Horizontal, this);
    m_scale->setObjectName(QStringLiteral("colourScale"));
    m_scale->setRange(5, 200); // percent of tile capacity at the top of the colour scale
    m_scale->setValue(100);
    m_scaleLabel = new QLabel(this);
    bar->addWidget(new QLabel(tr("Colour scale top"), this));
    bar->addWidget(m_scale, 1);
    bar->addWidget(m_scaleLabel);
    bar->addWidget(makeExportButton(m_map, this));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_map);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addLayout(bar);
    layout->addWidget(split, 1);
    auto updateScale = [this](int v) {
        m_scaleLabel->setText(tr("%1% of capacity").arg(v));
        m_map->setScale(v / 100.0);
    };
    connect(m_scale, &QSlider::valueChanged, this, updateScale);
    updateScale(m_scale->value());
    connect(m_map, &TileMap::tileClicked, m_details, &TileDetails::showTile);
}

void TileMapPage::setResult(ResultPtr result)
{
    m_map->setStats(result && result->ipu ? TileStats::from(*result->ipu) : TileStats{});
    m_details->setResult(std::move(result));
}

} // namespace portolan::views
