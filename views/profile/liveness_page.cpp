#include "views/profile/liveness_page.h"

#include "views/common/nice_axis_ticker.h"
#include "views/profile/chart_export.h"
#include "views/profile/tile_stats.h"
#include "views/profile/variable_table_model.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

namespace portolan::views {

LivenessPage::LivenessPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("livenessChart"));
    m_plot->setMinimumHeight(240);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->xAxis->setLabel(tr("Program step (hover or click a bar for its name)"));
    m_plot->yAxis->setLabel(tr("Live memory (one replica)"));
    legendAbovePlot(m_plot); // inside the plot it covered the peak's bars
    // Without a report the chart says why it is empty, not a legend over blank axes.
    m_empty = new QCPItemText(m_plot);
    m_empty->setClipToAxisRect(false);
    m_empty->position->setType(QCPItemPosition::ptViewportRatio);
    m_empty->position->setCoords(0.5, 0.5);
    m_empty->setPositionAlignment(Qt::AlignCenter);
    m_summary = new QLabel(tr("Click a step to list what is live."), this);
    m_summary->setObjectName(QStringLiteral("stepSummary"));
    m_summary->setWordWrap(true);
    m_model = new VariableTableModel(this);
    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("liveVariables"));
    m_view->setModel(m_model);
    m_view->setSortingEnabled(true);
    setUpVariableTable(m_view);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_summary, 1);
    bar->addWidget(makeExportButton(m_plot, this));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_plot);
    auto* lower = new QWidget(this);
    m_lower = lower;
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addLayout(bar);
    lowerLayout->addWidget(m_view, 1);
    split->addWidget(lower);
    // The chart is what the page is for: it takes most of the height (it was about 150 pixels
    // above a mostly empty table).
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split);

    // A step's name on hover: the axis carries numbers only (hundreds of rotated op names
    // took most of the chart's height).
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const int step = stepAt(e->pos());
        m_plot->setToolTip(step < 0 ? QString() : stepText(step));
    });
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (const int step = stepAt(e->pos()); step >= 0)
            showStep(step);
    });
    applyPlotTheme(m_plot, palette());
    m_lower->hide(); // until a report with steps
}

void LivenessPage::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPlotTheme(m_plot, palette());
        fill();
    }
}

int LivenessPage::stepAt(const QPoint& pos) const
{
    if (!m_result || !m_result->ipu || !m_plot->axisRect()->rect().contains(pos))
        return -1;
    const int step = int(std::lround(m_plot->xAxis->pixelToCoord(pos.x())));
    return step >= 0 && step < int(m_result->ipu->steps.size()) ? step : -1;
}

QString LivenessPage::stepText(int step) const
{
    const auto& s = m_result->ipu->steps[std::size_t(step)];
    return tr("Step %1 \"%2\" (%3, stage %4): %5 live")
        .arg(step)
        .arg(QString::fromStdString(s.name), QString::fromStdString(s.phase))
        .arg(s.stage)
        .arg(bytesText(double(s.alwaysLiveBytes + s.notAlwaysLiveBytes)));
}

void LivenessPage::setResult(ResultPtr result)
{
    m_result = std::move(result);
    m_step = -1;
    m_model->clear();
    fill();
    // Without steps the chart says why; an empty table and its "click a step" under it said
    // nothing more (issue 26, empty states).
    m_lower->setVisible(m_result && m_result->ipu && !m_result->ipu->steps.empty());
    // The table lists what is live at the peak from the start, rather than staying empty until
    // a step is clicked. Bounded on the GUI thread: one pass over the variables and a sort of
    // those live (37,000 at 70 B parameters: milliseconds), as a click costs.
    if (m_peak >= 0)
        showStep(m_peak);
}

void LivenessPage::fill()
{
    m_plot->clearPlottables();
    const bool steps = m_result && m_result->ipu && !m_result->ipu->steps.empty();
    m_plot->legend->setVisible(steps);
    m_empty->setVisible(!steps);
    m_plot->xAxis->setVisible(steps);
    m_plot->yAxis->setVisible(steps);
    m_empty->setColor(palette().color(QPalette::WindowText));
    m_empty->setText(!m_result      ? tr("No report yet.")
                     : m_result->cs ? tr("A CS system runs no program steps of its own: see CS "
                                         "placement for the wafer.")
                                    : tr("This report has no program steps."));
    if (!steps) {
        m_peak = -1;
        m_summary->setText(QString());
        m_plot->replot();
        return;
    }
    const auto& all = m_result->ipu->steps;
    QVector<double> keys, always, notAlways;
    double top = 1;
    int peak = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
        keys.push_back(double(i));
        always.push_back(double(all[i].alwaysLiveBytes));
        notAlways.push_back(double(all[i].notAlwaysLiveBytes));
        if (always.back() + notAlways.back() > top) {
            top = always.back() + notAlways.back();
            peak = int(i);
        }
    }
    m_peak = peak;
    auto* a = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    auto* n = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    a->setName(memoryCategoryLabel(0));
    n->setName(memoryCategoryLabel(1));
    a->setData(keys, always, true);
    n->setData(keys, notAlways, true);
    n->moveAbove(a);
    for (auto [bars, c] : {std::pair{a, 0}, std::pair{n, 1}}) {
        bars->setWidth(0.8);
        bars->setPen(Qt::NoPen);
        bars->setBrush(memoryCategoryColor(c, palette()));
    }
    m_plot->xAxis->setTicker(NiceAxisTicker::make(format::Axis::Integer, 8));
    m_plot->xAxis->setRange(-0.5, double(all.size()) - 0.5);
    m_plot->yAxis->setRange(0, top * 1.1);
    m_plot->yAxis->setTicker(NiceAxisTicker::make(format::Axis::Bytes, 4));
    m_plot->replot();
}

QString LivenessPage::stepSummary() const
{
    return m_summary->text();
}

void LivenessPage::showStep(int step)
{
    if (!m_result || !m_result->ipu || step < 0 || step >= int(m_result->ipu->steps.size()))
        return;
    m_step = step;
    const auto& s = m_result->ipu->steps[std::size_t(step)];
    std::vector<int> live = sim::variablesLiveAt(*m_result->ipu, step);
    m_summary->setText(
        tr("%1 %2 \"%3\" (%4, stage %5): always live %6, not always live %7; %8 variables live. "
           "Click a step to list what is live there.")
            .arg(step == m_peak ? tr("Peak: step") : tr("Step"))
            .arg(step)
            .arg(QString::fromStdString(s.name), QString::fromStdString(s.phase))
            .arg(s.stage)
            .arg(bytesText(double(s.alwaysLiveBytes)), bytesText(double(s.notAlwaysLiveBytes)))
            .arg(live.size()));
    m_model->setVariables(m_result, std::move(live));
    m_model->sort(VariableTableModel::TotalBytes, Qt::DescendingOrder);
}

} // namespace portolan::views
