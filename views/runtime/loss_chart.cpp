#include "views/runtime/loss_chart.h"

#include "views/profile/plot_theme.h"

#include <QCheckBox>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QTextStream>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

namespace portolan::views {

LossChart::LossChart(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    m_logBox = new QCheckBox(tr("Log scale"), this);
    m_smoothSlider = new QSlider(Qt::Horizontal, this);
    m_smoothSlider->setRange(0, 99);
    m_smoothSlider->setToolTip(tr("Exponential smoothing of the training loss"));
    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export..."));
    auto* fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_logBox);
    bar->addWidget(new QLabel(tr("Smoothing"), this));
    bar->addWidget(m_smoothSlider, 1);
    bar->addWidget(fit);
    bar->addWidget(exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_plot, 1);

    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->xAxis->setLabel(tr("step"));
    m_plot->yAxis->setLabel(tr("loss"));
    m_plot->legend->setVisible(true);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setMinimumSize(200, 150);
    applyPlotTheme(m_plot, palette());

    connect(m_logBox, &QCheckBox::toggled, this, &LossChart::setLogScale);
    connect(m_smoothSlider, &QSlider::valueChanged, this,
            [this](int v) { setSmoothing(double(v) / 100.0); });
    connect(fit, &QToolButton::clicked, this, &LossChart::rescale);
    connect(exportButton, &QToolButton::clicked, this, &LossChart::exportMenu);
}

void LossChart::exportMenu()
{
    const QString file = QFileDialog::getSaveFileName(this, tr("Export loss chart"), QString(),
                                                      tr("PNG (*.png);;PDF (*.pdf);;CSV (*.csv)"));
    if (!file.isEmpty())
        exportTo(file);
}

void LossChart::setRun(qint64 id, const QString& label, const QVector<QPointF>& loss,
                       const QVector<QPointF>& eval)
{
    removeRun(id);
    Series s;
    s.label = label;
    for (const QPointF& p : loss) {
        s.steps << p.x();
        s.raw << p.y();
    }
    for (const QPointF& p : eval) {
        s.evalSteps << p.x();
        s.evalLoss << p.y();
    }
    s.graph = m_plot->addGraph();
    s.graph->setName(label);
    s.graph->setAdaptiveSampling(true); // keeps a 1 M-point curve interactive
    s.evalGraph = m_plot->addGraph();
    s.evalGraph->setName(label + tr(" (eval)"));
    s.evalGraph->setLineStyle(QCPGraph::lsNone);
    s.evalGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
    m_series.insert(id, s);
    refreshSeries(m_series[id]);
    recolour();
    rescale();
}

int LossChart::pointCount(qint64 id) const
{
    return m_series.contains(id) ? int(m_series[id].steps.size()) : 0;
}

void LossChart::appendLoss(qint64 id, double step, double loss)
{
    if (!m_series.contains(id))
        setRun(id, tr("run %1").arg(id), {}, {});
    Series& s = m_series[id];
    s.steps << step;
    s.raw << loss;
    s.smoothed = s.raw.size() == 1 ? loss : m_smoothing * s.smoothed + (1 - m_smoothing) * loss;
    s.graph->addData(step, s.smoothed);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LossChart::appendEval(qint64 id, double step, double loss)
{
    if (!m_series.contains(id))
        setRun(id, tr("run %1").arg(id), {}, {});
    Series& s = m_series[id];
    s.evalSteps << step;
    s.evalLoss << loss;
    s.evalGraph->addData(step, loss);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LossChart::removeRun(qint64 id)
{
    if (!m_series.contains(id))
        return;
    const Series s = m_series.take(id);
    m_plot->removeGraph(s.graph);
    m_plot->removeGraph(s.evalGraph);
    recolour();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LossChart::clearRuns()
{
    for (qint64 id : m_series.keys())
        removeRun(id);
}

void LossChart::refreshSeries(Series& s)
{
    // Smoothing is applied for display only; the raw values stay for export.
    QVector<double> shown(s.raw.size());
    double ema = s.raw.isEmpty() ? 0 : s.raw.front();
    for (qsizetype i = 0; i < s.raw.size(); ++i) {
        ema = i == 0 ? s.raw[i] : m_smoothing * ema + (1 - m_smoothing) * s.raw[i];
        shown[i] = ema;
    }
    s.smoothed = ema;
    s.graph->setData(s.steps, shown, true);
    s.evalGraph->setData(s.evalSteps, s.evalLoss, true);
}

void LossChart::setLogScale(bool on)
{
    m_log = on;
    if (m_logBox->isChecked() != on)
        m_logBox->setChecked(on);
    m_plot->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (on)
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    else
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    rescale();
}

void LossChart::setSmoothing(double weight)
{
    m_smoothing = std::clamp(weight, 0.0, 0.99);
    const int slider = int(std::lround(m_smoothing * 100));
    if (m_smoothSlider->value() != slider)
        m_smoothSlider->setValue(slider);
    for (auto& s : m_series)
        refreshSeries(s);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LossChart::rescale()
{
    m_plot->rescaleAxes();
    m_plot->replot();
}

void LossChart::recolour()
{
    const QList<qint64> ids = m_series.keys();
    int i = 0;
    for (qint64 id : ids) {
        Series& s = m_series[id];
        const QColor c = seriesColor(i++, int(ids.size()), palette());
        s.graph->setPen(QPen(c, 1.5));
        s.evalGraph->setPen(QPen(c.darker(130), 1.5));
    }
}

void LossChart::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        applyPlotTheme(m_plot, palette());
        recolour();
        m_plot->replot();
    }
    QWidget::changeEvent(event);
}

bool LossChart::exportTo(const QString& file, QString* error) const
{
    const QString suffix = QFileInfo(file).suffix().toLower();
    bool ok = false;
    if (suffix == "png") {
        ok = m_plot->savePng(file, 0, 0, 2.0);
    } else if (suffix == "pdf") {
        ok = m_plot->savePdf(file);
    } else if (suffix == "csv") {
        QFile f(file);
        if (f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
            QTextStream out(&f);
            out << "run,kind,step,loss\n";
            for (auto it = m_series.cbegin(); it != m_series.cend(); ++it) {
                QString label = it->label;
                label.replace('"', "\"\"");
                for (qsizetype i = 0; i < it->steps.size(); ++i)
                    out << '"' << label << "\",train," << it->steps[i] << ','
                        << QString::number(it->raw[i], 'g', 10) << '\n';
                for (qsizetype i = 0; i < it->evalSteps.size(); ++i)
                    out << '"' << label << "\",eval," << it->evalSteps[i] << ','
                        << QString::number(it->evalLoss[i], 'g', 10) << '\n';
            }
            ok = out.status() == QTextStream::Ok;
        }
    } else if (error) {
        *error = tr("unknown export format '%1' (png, pdf or csv)").arg(suffix);
        return false;
    }
    if (!ok && error)
        *error = tr("cannot write %1").arg(file);
    return ok;
}

} // namespace portolan::views
