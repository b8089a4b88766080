#include "views/profile/memory_page.h"

#include "views/profile/chart_export.h"
#include "views/profile/dry_run_notice.h"
#include "views/profile/memory_chart.h"
#include "views/profile/tile_details.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

namespace portolan::views {

MemoryPage::MemoryPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    // The controls in a widget of their own: disabled without tiles, while the page stays
    // enabled for the dry run that fills it.
    m_controls = new QWidget(this);
    auto* bar = new QHBoxLayout(m_controls);
    bar->setContentsMargins(0, 0, 0, 0);
    m_ipu = new QComboBox(this);
    m_ipu->setObjectName(QStringLiteral("ipuFilter"));
    m_stage = new QComboBox(this);
    m_stage->setObjectName(QStringLiteral("stageFilter"));
    m_chart = new MemoryChart(this);
    m_details = new TileDetails(this);
    m_hint = new QLabel(tr("Wheel zooms, drag pans, click a tile for its details."), this);
    m_hint->setObjectName(QStringLiteral("memoryHint"));
    m_hint->setWordWrap(true);
    bar->addWidget(new QLabel(tr("IPU"), this));
    bar->addWidget(m_ipu);
    bar->addWidget(new QLabel(tr("Stage"), this));
    bar->addWidget(m_stage);
    m_height = new QComboBox(this);
    m_height->setObjectName(QStringLiteral("heightMode"));
    m_height->addItem(tr("auto"), int(MemoryChart::Height::Auto));
    m_height->addItem(tr("capacity"), int(MemoryChart::Height::Capacity));
    m_height->addItem(tr("fullest tile"), int(MemoryChart::Height::Data));
    m_height->setToolTip(tr("How high the memory axis reaches: the tile capacity, the fullest "
                            "tile, or auto (the fullest tile when it fills under a quarter of "
                            "the capacity)"));
    bar->addWidget(new QLabel(tr("Height"), this));
    bar->addWidget(m_height);
    bar->addStretch(1);
    auto* reset = new QToolButton(this);
    reset->setText(tr("Show all"));
    bar->addWidget(reset);
    bar->addWidget(makeExportButton(m_chart, this));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_chart);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    m_needsDryRun = new DryRunNotice(tr("the memory of every tile"), this);
    layout->addWidget(m_controls);
    layout->addWidget(m_hint); // a line of its own, so the controls above never wrap
    layout->addWidget(m_needsDryRun);
    layout->addWidget(split, 1);
    connect(m_needsDryRun, &DryRunNotice::dryRunRequested, this, &MemoryPage::dryRunRequested);

    connect(m_chart, &MemoryChart::tileClicked, this, &MemoryPage::showTile);
    connect(m_ipu, &QComboBox::currentIndexChanged, this, [this] { applyFilter(m_ipu); });
    connect(m_stage, &QComboBox::currentIndexChanged, this, [this] { applyFilter(m_stage); });
    connect(m_height, &QComboBox::currentIndexChanged, this, [this] {
        m_chart->setHeightMode(MemoryChart::Height(m_height->currentData().toInt()));
        updateHint();
    });
    connect(reset, &QToolButton::clicked, this, [this] {
        m_ipu->setCurrentIndex(0);
        m_stage->setCurrentIndex(0);
        applyFilter(nullptr);
    });
}

void MemoryPage::setResult(ResultPtr result)
{
    m_result = std::move(result);
    const QSignalBlocker b1(m_ipu), b2(m_stage);
    m_ipu->clear();
    m_stage->clear();
    m_ipu->addItem(tr("all"), -1);
    m_stage->addItem(tr("all"), -1);
    if (m_result && m_result->ipu) {
        for (int i = 0; i < m_result->ipu->ipusPerReplica; ++i)
            m_ipu->addItem(QString::number(i), i);
        for (const auto& s : m_result->ipu->stages)
            m_stage->addItem(tr("%1 (IPU %2)").arg(s.index).arg(s.ipu), s.ipu);
    }
    // A report without tiles (CS) leaves nothing to act on here; with no report at all the
    // page stays enabled for the dry run that may fill it, and only its controls are not.
    // Enabled before the chart takes the report: it styles itself from its current palette.
    const bool tiles = m_result && m_result->ipu;
    setEnabled(tiles || !m_result);
    for (QWidget* w : std::initializer_list<QWidget*>{m_controls, m_hint, m_chart})
        w->setEnabled(tiles);
    m_chart->setResult(m_result);
    m_details->setResult(m_result);
    m_needsDryRun->hide();
    m_hint->show();
    // Without tiles the chart says why; an empty table under it would say it twice.
    m_details->setVisible(m_result && m_result->ipu);
    updateHint();
}

void MemoryPage::showNeedsDryRun()
{
    if (m_result)
        return; // a report is shown: it says more
    m_hint->hide();
    m_needsDryRun->show();
    // The notice above says it whole; the chart says where the figures will be, in a line that
    // fits it.
    m_chart->setEmptyText(tr("The memory of every tile shows here after a dry run."));
}

void MemoryPage::updateHint()
{
    if (m_result && m_result->cs)
        m_hint->setText(noTilesText(m_result));
    else if (m_result && m_result->ipu)
        m_hint->setText(
            (m_chart->capacityInView()
                 ? tr("Dashed line: tile capacity (%1).")
                 : tr("Tile capacity (%1) is above the axis; Height: capacity shows it."))
                .arg(bytesText(double(m_result->ipu->tileCapacity))) +
            QLatin1Char(' ') + tr("Wheel zooms, drag pans, click a tile for its details."));
    else
        m_hint->setText(tr("Wheel zooms, drag pans, click a tile for its details."));
}

void MemoryPage::applyFilter(QComboBox* from)
{
    // IPU and stage both select one IPU's tiles; the other box follows.
    int ipu = from ? from->currentData().toInt() : -1;
    QComboBox* other = from == m_ipu ? m_stage : m_ipu;
    if (from) {
        const QSignalBlocker block(other);
        const int i = other->findData(ipu);
        other->setCurrentIndex(i >= 0 ? i : 0);
    }
    const int perIpu = std::max(1, m_chart->stats().tilesPerIpu);
    if (ipu < 0)
        m_chart->setTileRange(0, -1);
    else
        m_chart->setTileRange(ipu * perIpu, (ipu + 1) * perIpu);
}

void MemoryPage::showTile(int tile)
{
    m_details->showTile(tile);
}

} // namespace portolan::views
