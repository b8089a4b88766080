#include "views/profile/pipeline_page.h"

#include "core/sim/summary.h"
#include "views/common/nice_axis_ticker.h"
#include "views/profile/chart_export.h"
#include "views/profile/gantt_chart.h"
#include "views/profile/plot_theme.h"
#include "views/profile/split_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <numeric>
#include <qcustomplot.h>

namespace portolan::views {

QString projectSplitText(const sim::ProjectSplit& p)
{
    return QString::fromStdString(sim::projectSplitLine(p)) + QLatin1Char('.');
}

PipelinePage::PipelinePage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    m_gantt = new GanttChart(this);
    m_stagePlot = new QCustomPlot(this);
    m_stagePlot->setObjectName(QStringLiteral("stageChart"));
    m_stagePlot->setMinimumHeight(160);
    m_stagePlot->legend->setVisible(true);
    legendAbovePlot(m_stagePlot); // it covered the backward bar inside the plot
    m_balance = new QLabel(this);
    m_balance->setObjectName(QStringLiteral("balance"));
    m_balance->setWordWrap(true);
    m_splitBox = new QWidget(this);
    m_splitLayout = new QHBoxLayout(m_splitBox);
    m_splitLayout->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_splitBox);
    scroll->setWidgetResizable(true);
    // As tall as a row of spin boxes plus a scroll bar for the many-stage case, no taller.
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFixedHeight(QSpinBox().sizeHint().height() +
                           scroll->horizontalScrollBar()->sizeHint().height() + 2);

    auto* top = new QHBoxLayout;
    top->addWidget(m_balance, 1);
    QToolButton* exportGantt = makeExportButton(m_gantt, this);
    exportGantt->setText(tr("Export schedule"));
    QToolButton* exportStages = makeExportButton(m_stagePlot, this);
    exportStages->setText(tr("Export stages"));
    top->addWidget(exportGantt);
    top->addWidget(exportStages);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_gantt);
    split->addWidget(m_stagePlot);
    layout->addLayout(top);
    // The split the project declares (BeginBlock), simulated beside the one shown.
    m_projectSplit = new QLabel(this);
    m_projectSplit->setObjectName(QStringLiteral("projectSplit"));
    m_projectSplit->setWordWrap(true);
    m_useProjectSplit = new QPushButton(tr("Use the project's split"), this);
    m_useProjectSplit->setObjectName(QStringLiteral("useProjectSplit"));
    connect(m_useProjectSplit, &QPushButton::clicked, this, [this] {
        if (m_result && m_result->projectSplit)
            emit splitEdited(m_result->projectSplit->layersPerStage);
    });
    auto* declared = new QHBoxLayout;
    declared->addWidget(m_projectSplit, 1);
    declared->addWidget(m_useProjectSplit);
    layout->addLayout(declared);
    auto* splitHint = new QLabel(tr("Split: drag a boundary between two stages, or type the layers "
                                    "per stage (editing one moves its boundary with the next "
                                    "stage). Either re-simulates at once."),
                                 this);
    splitHint->setWordWrap(true); // so the page fits a narrow window
    m_splitBar = new SplitBar(this);
    connect(m_splitBar, &SplitBar::splitDragged, this, &PipelinePage::applySplit);
    layout->addWidget(splitHint);
    layout->addWidget(m_splitBar);
    layout->addWidget(scroll);
    layout->addWidget(split, 1);
    m_stageParts = {splitHint, m_splitBar, scroll, m_stagePlot, exportGantt, exportStages};
    applyPlotTheme(m_stagePlot, palette());
    setResult(nullptr);
}

void PipelinePage::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPlotTheme(m_stagePlot, palette());
        fillStageChart();
    }
}

QString PipelinePage::balanceText() const
{
    return m_balance->text();
}

QString PipelinePage::projectSplitText() const
{
    return m_projectSplit->text();
}

void PipelinePage::setResult(ResultPtr result)
{
    m_result = std::move(result);
    m_gantt->setResult(m_result);
    m_split = {};
    if (m_result && m_result->ipu) {
        const auto& ipu = *m_result->ipu;
        m_split = sim::LayerSplit::fromStages(
            ipu.stages, int(std::max<std::size_t>(1, m_result->graph.layerNames.size())));
        double slowest = 0;
        int slow = 0;
        for (const auto& s : ipu.stages)
            if (s.forwardSeconds + s.backwardSeconds > slowest) {
                slowest = s.forwardSeconds + s.backwardSeconds;
                slow = s.index;
            }
        // A single-IPU run is one stage: no "1 stages".
        const QString count =
            ipu.stages.size() == 1 ? tr("1 stage") : tr("%1 stages").arg(ipu.stages.size());
        m_balance->setText(tr("%1 (%2 split), balance %3 (least / most busy IPU), slowest "
                              "stage %4; bubble %5%; step %6, %7.")
                               .arg(count, QString::fromStdString(ipu.splitSource))
                               .arg(ipu.balance, 0, 'f', 2)
                               .arg(slow)
                               .arg(100 * ipu.bubble, 0, 'f', 1)
                               .arg(secondsText(ipu.stepSeconds))
                               .arg(samplesPerSecondText(ipu.samplesPerSecond)));
    } else {
        m_balance->setText(m_result ? tr("A CS report has no pipeline stages.")
                                    : tr("No report yet."));
    }
    const bool declared = m_result && m_result->projectSplit;
    m_projectSplit->setText(declared ? views::projectSplitText(*m_result->projectSplit)
                                     : QString());
    m_projectSplit->setVisible(declared);
    m_useProjectSplit->setVisible(declared && m_result->projectSplit->error.empty());
    QStringList layerNames;
    if (m_result)
        for (const auto& name : m_result->graph.layerNames)
            layerNames.push_back(QString::fromStdString(name));
    m_splitBar->setLayerNames(layerNames);
    m_splitBar->setSplit(m_split.perStage());
    rebuildSplitEditor();
    fillStageChart();
    for (QWidget* w : m_stageParts)
        w->setVisible(m_result && m_result->ipu);
}

void PipelinePage::applySplit(const std::vector<int>& layersPerStage)
{
    if (int(layersPerStage.size()) != m_split.stages() || layersPerStage == m_split.perStage())
        return;
    m_split = sim::LayerSplit(layersPerStage);
    showSplit();
    emit splitEdited(m_split.perStage());
}

void PipelinePage::showSplit()
{
    for (std::size_t i = 0; i < m_spins.size(); ++i) {
        const QSignalBlocker block(m_spins[i]);
        m_spins[i]->setValue(m_split.perStage()[i]);
    }
    if (m_splitBar->split() != m_split.perStage())
        m_splitBar->setSplit(m_split.perStage());
}

void PipelinePage::rebuildSplitEditor()
{
    m_spins.clear(); // the layout owns them; deleted below
    while (QLayoutItem* item = m_splitLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const int layers = m_split.total();
    for (std::size_t i = 0; i < std::size_t(m_split.stages()); ++i) {
        auto* spin = new QSpinBox(m_splitBox);
        spin->setObjectName(QStringLiteral("stage%1").arg(i));
        spin->setRange(1, std::max(1, layers - m_split.stages() + 1));
        spin->setValue(m_split.perStage()[i]);
        spin->setPrefix(QStringLiteral("%1: ").arg(i));
        spin->setKeyboardTracking(false);
        connect(spin, &QSpinBox::valueChanged, this, [this, i](int v) { editStage(int(i), v); });
        m_splitLayout->addWidget(spin);
        m_spins.push_back(spin);
    }
    m_splitLayout->addStretch();
}

bool PipelinePage::editStage(int stage, int layers)
{
    // The boundary moves with the neighbour: the next stage, or the previous for the last one.
    if (!m_split.setStage(stage, layers)) {
        if (stage >= 0 && std::size_t(stage) < m_spins.size()) {
            const QSignalBlocker block(m_spins[std::size_t(stage)]);
            m_spins[std::size_t(stage)]->setValue(m_split.perStage()[std::size_t(stage)]);
        }
        return false;
    }
    showSplit();
    emit splitEdited(m_split.perStage());
    return true;
}

void PipelinePage::fillStageChart()
{
    m_stagePlot->clearPlottables();
    if (!m_result || !m_result->ipu || m_result->ipu->stages.empty()) {
        m_stagePlot->replot();
        return;
    }
    const auto& stages = m_result->ipu->stages;
    m_stagePlot->yAxis2->setVisible(true);
    // Times stay in seconds; the ticker labels them in the unit of the axis ("2 ms", "4 ms").
    constexpr double unit = 1.0;
    QVector<double> keysT, keysM, fwd, bwd, mem;
    double tmax = 1e-12, mmax = 1;
    QSharedPointer<QCPAxisTickerText> stageTicker(new QCPAxisTickerText);
    for (const auto& s : stages) {
        keysT.push_back(s.index - 0.2);
        keysM.push_back(s.index + 0.2);
        fwd.push_back(s.forwardSeconds / unit);
        bwd.push_back(s.backwardSeconds / unit);
        mem.push_back(double(s.maxTileBytes));
        tmax = std::max(tmax, (s.forwardSeconds + s.backwardSeconds) / unit);
        mmax = std::max(mmax, double(std::max(s.maxTileBytes, m_result->ipu->tileCapacity)));
        stageTicker->addTick(s.index, QString::number(s.index));
    }
    m_stagePlot->xAxis->setTicker(stageTicker);
    auto* f = new QCPBars(m_stagePlot->xAxis, m_stagePlot->yAxis);
    auto* b = new QCPBars(m_stagePlot->xAxis, m_stagePlot->yAxis);
    auto* m = new QCPBars(m_stagePlot->xAxis, m_stagePlot->yAxis2);
    f->setName(tr("forward"));
    b->setName(tr("backward"));
    m->setName(tr("fullest tile"));
    f->setData(keysT, fwd, true);
    b->setData(keysT, bwd, true);
    b->moveAbove(f);
    m->setData(keysM, mem, true);
    const QPalette pal = palette();
    f->setBrush(forwardColor(pal));
    b->setBrush(backwardColor(pal));
    // Grey: memory beside the two blues of time, not a third blue.
    m->setBrush(QColor::fromHsl(0, 0, isDarkPalette(pal) ? 150 : 140));
    for (QCPBars* bars : {f, b, m}) {
        bars->setWidth(0.38);
        bars->setPen(Qt::NoPen);
    }
    m_stagePlot->xAxis->setLabel(tr("Stage"));
    m_stagePlot->yAxis->setLabel(tr("Time"));
    m_stagePlot->yAxis2->setLabel(tr("Fullest tile"));
    m_stagePlot->xAxis->setRange(-0.7, double(stages.size()) - 0.3);
    constexpr double headroom = 1.1; // the legend has its own row above the plot
    m_stagePlot->yAxis->setRange(0, tmax * headroom);
    m_stagePlot->yAxis2->setRange(0, mmax * headroom);
    m_stagePlot->yAxis->setTicker(NiceAxisTicker::make(format::Axis::Seconds, 4));
    m_stagePlot->yAxis2->setTicker(NiceAxisTicker::make(format::Axis::Bytes, 4));
    m_stagePlot->yAxis2->setTickLabels(true);
    applyPlotTheme(m_stagePlot, pal);
    m_stagePlot->replot();
}

} // namespace portolan::views
