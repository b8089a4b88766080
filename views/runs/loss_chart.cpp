#include "views/runs/loss_chart.h"

#include "views/common/nice_axis_ticker.h"
#include "views/profile/plot_theme.h"

#include <QCheckBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMap>
#include <QMessageBox>
#include <QSaveFile>
#include <QSlider>
#include <QTextStream>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
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
    exportButton->setText(tr("Export…"));
    exportButton->setToolTip(tr("Save the chart as PNG or PDF, or its values as CSV"));
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
    // Steps are whole: never a tick at 1.5 or 2.5 on a short run.
    m_plot->xAxis->setTicker(NiceAxisTicker::make(format::Axis::Integer, 6));
    m_plot->yAxis->setLabel(tr("loss"));
    m_plot->legend->setVisible(true);
    // The legend sits under the plot, in rows of two, never over the curves (inside the axis
    // rect it covered the end of a rising loss, where the eye looks first).
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(2);
    m_plot->legend->setMargins(QMargins(4, 2, 4, 2));
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setMinimumSize(200, 150);
    // Shown while there is nothing to draw, so an empty chart says what fills it.
    m_placeholder = new QCPItemText(m_plot);
    m_placeholder->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_placeholder->position->setCoords(0.5, 0.5);
    // Lines short enough for the chart at 1,024 pixels (one line ran past both axes).
    m_emptyText = tr("No run shown:\npress Start, or select runs\nin the history");
    m_placeholder->setText(m_emptyText);
    applyPlotTheme(m_plot, palette());
    recolour();

    connect(m_logBox, &QCheckBox::toggled, this, &LossChart::setLogScale);
    connect(m_smoothSlider, &QSlider::valueChanged, this,
            [this](int v) { setSmoothing(double(v) / 100.0); });
    connect(fit, &QToolButton::clicked, this, &LossChart::rescale);
    fit->setToolTip(tr("Fit every curve, and follow a live run again"));
    // Zooming or panning by hand stops the axes following a live run until Fit.
    connect(m_plot, &QCustomPlot::mousePress, this, [this] { m_following = false; });
    connect(m_plot, &QCustomPlot::mouseWheel, this, [this] { m_following = false; });
    connect(exportButton, &QToolButton::clicked, this, &LossChart::exportMenu);
}

LossChart::~LossChart()
{
    // A legend out of the layout (it had no entries) is owned by nobody: back in, the plot's
    // layout deletes it with the rest.
    if (m_plot->legend->layout() != m_plot->plotLayout())
        m_plot->plotLayout()->addElement(m_plot->plotLayout()->rowCount(), 0, m_plot->legend);
}

void LossChart::exportMenu()
{
    const QString file = QFileDialog::getSaveFileName(this, tr("Export loss chart"), QString(),
                                                      tr("PNG (*.png);;PDF (*.pdf);;CSV (*.csv)"));
    QString error;
    if (!file.isEmpty() && !exportTo(file, &error))
        QMessageBox::warning(this, tr("Export loss chart"), error);
}

void LossChart::setRun(qint64 id, const QString& label, const QVector<QPointF>& loss,
                       const QVector<QPointF>& eval)
{
    removeRun(id);
    if (loss.isEmpty() && eval.isEmpty()) {
        m_liveBounds = Bounds{}; // a live run starts: the axes follow it
        m_following = true;
    }
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

void LossChart::setSide(qint64 id, Side side)
{
    if (!m_series.contains(id))
        return;
    m_series[id].side = side;
    recolour();
    m_plot->replot();
}

QColor LossChart::colourOf(qint64 id) const
{
    return m_series.contains(id) ? m_series[id].graph->pen().color() : QColor();
}

void LossChart::markSynthetic(qint64 id, const QString& badge)
{
    if (!m_series.contains(id) || badge.isEmpty())
        return;
    Series& s = m_series[id];
    s.synthetic = badge;
    s.graph->setName(tr("%1 (%2)").arg(s.label, badge));
    updateTitle();
    m_plot->replot();
}

QString LossChart::title() const
{
    return m_title ? m_title->text() : QString();
}

// A title row over the plot, only while a shown run used made-up inputs: a dry run's loss on
// synthetic data looks like real training, and a legend entry alone is easy to miss.
void LossChart::updateTitle()
{
    // One line per kind of made-up input, its runs together ("run 1, run 2 on synthetic
    // data"): on one line, two runs made a title wider than the chart at 1024 pixels, cut at
    // both ends.
    // The runs in the order they were started, as the legend and the history list them (a
    // hash's order read "run 2, run 1").
    QStringList kinds;
    QMap<QString, QStringList> byKind;
    for (const qint64 id : runIds()) {
        const Series& s = m_series[id];
        if (s.synthetic.isEmpty())
            continue;
        if (!byKind.contains(s.synthetic))
            kinds << s.synthetic;
        byKind[s.synthetic] << s.label;
    }
    QStringList runs;
    for (const QString& kind : kinds)
        runs << tr("%1 on %2").arg(byKind[kind].join(QStringLiteral(", ")), kind);
    QCPLayoutGrid* layout = m_plot->plotLayout();
    if (runs.isEmpty()) {
        if (m_title) {
            layout->take(m_title);
            layout->simplify();
            delete m_title;
            m_title = nullptr;
        }
        return;
    }
    if (!m_title) {
        layout->insertRow(0);
        m_title = new QCPTextElement(m_plot);
        layout->addElement(0, 0, m_title);
    }
    m_title->setText(tr("⚠ Not real training:\n%1").arg(runs.join(QLatin1Char('\n'))));
    m_title->setTextColor(m_plot->xAxis->labelColor());
}

void LossChart::markFailed(qint64 id, const QString& reason)
{
    if (!m_series.contains(id))
        return;
    Series& s = m_series[id];
    s.failed = true;
    s.graph->setName(tr("%1 (failed)").arg(s.label));
    // Nothing was drawn: no legend entries for empty curves.
    if (s.evalSteps.isEmpty())
        s.evalGraph->removeFromLegend();
    if (s.steps.isEmpty()) {
        s.graph->removeFromLegend();
        // The reason in lines of a few words: one line of a dry run's diagnostic ran past both
        // axes of a chart 320 pixels wide.
        QStringList lines{QString()};
        for (const QString& word : reason.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            if (!lines.last().isEmpty() && lines.last().size() + word.size() > 40)
                lines << QString();
            lines.last() += (lines.last().isEmpty() ? QString() : QStringLiteral(" ")) + word;
        }
        m_placeholder->setText(reason.isEmpty() ? tr("%1 failed before its first step").arg(s.label)
                                                : tr("%1 failed before its first step:\n%2")
                                                      .arg(s.label, lines.join(QLatin1Char('\n'))));
    }
    recolour();
    m_plot->replot();
}

void LossChart::setEmptyText(const QString& text)
{
    m_emptyText = text;
    if (m_series.isEmpty()) {
        m_placeholder->setText(text);
        m_plot->replot();
    }
}

QString LossChart::placeholderText() const
{
    return m_placeholder->visible() ? m_placeholder->text() : QString();
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
    if (s.raw.size() == 1 || s.raw.size() == kMarkedPoints + 1)
        recolour(); // its first point, or too many points to mark each
    follow(step, s.smoothed);
}

void LossChart::appendEval(qint64 id, double step, double loss)
{
    if (!m_series.contains(id))
        setRun(id, tr("run %1").arg(id), {}, {});
    Series& s = m_series[id];
    s.evalSteps << step;
    s.evalLoss << loss;
    s.evalGraph->addData(step, loss);
    if (s.evalSteps.size() == 1)
        recolour(); // its legend entry, now that there is a point to name
    follow(step, loss);
}

void LossChart::removeRun(qint64 id)
{
    if (!m_series.contains(id))
        return;
    const Series s = m_series.take(id);
    m_plot->removeGraph(s.graph);
    m_plot->removeGraph(s.evalGraph);
    updateTitle();
    recolour();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LossChart::clearRuns()
{
    m_liveBounds = Bounds{};
    // removeRun() takes the series out of the hash, so no iteration over it.
    while (!m_series.isEmpty())
        removeRun(m_series.cbegin().key());
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
        m_plot->yAxis->setTicker(NiceAxisTicker::make(format::Axis::Number, 5));
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

void LossChart::follow(double step, double loss)
{
    // While the user has not zoomed or panned, the axes grow with a live run. The bounds are
    // kept as points arrive, so a long run costs O(1) per step rather than a rescan.
    if (!std::isfinite(loss) || (m_log && loss <= 0)) {
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    Bounds& b = m_liveBounds;
    if (!b.valid)
        b = Bounds{step, step, loss, loss, true};
    b.x0 = std::min(b.x0, step);
    b.x1 = std::max(b.x1, step);
    b.y0 = std::min(b.y0, loss);
    b.y1 = std::max(b.y1, loss);
    if (m_following) {
        m_plot->xAxis->setRange(b.x0, b.x0 + std::max(1.0, b.x1 - b.x0));
        const double lo = b.y0, hi = b.y1;
        if (m_log)
            m_plot->yAxis->setRange(lo / 1.2, hi * 1.2);
        else {
            const double pad = std::max(1e-9, (hi - lo) * 0.05);
            const auto [shownLo, shownHi] = format::readableRange(lo - pad, hi + pad);
            m_plot->yAxis->setRange(shownLo, shownHi);
        }
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LossChart::rescale()
{
    m_following = true;
    m_plot->rescaleAxes();
    // A margin, so the first and last points (and eval markers) are not on the frame.
    m_plot->xAxis->scaleRange(1.04);
    if (!m_log) {
        m_plot->yAxis->scaleRange(1.08);
        // A flat curve (a dry run's loss on made-up data) gets round ticks, not 0.69125.
        const auto [lo, hi] =
            format::readableRange(m_plot->yAxis->range().lower, m_plot->yAxis->range().upper);
        m_plot->yAxis->setRange(lo, hi);
    }
    if (m_log && m_plot->yAxis->range().lower <= 0)
        m_plot->yAxis->setRangeLower(1e-6);
    m_plot->replot();
}

QList<qint64> LossChart::runIds() const
{
    QList<qint64> ids = m_series.keys();
    std::sort(ids.begin(), ids.end(), [](qint64 a, qint64 b) { return std::abs(a) < std::abs(b); });
    return ids;
}

void LossChart::recolour()
{
    const QList<qint64> ids = runIds();
    int others = 0;
    for (const Series& s : std::as_const(m_series))
        others += s.side == Side::None ? 1 : 0;
    int i = 0;
    for (qint64 id : ids) {
        Series& s = m_series[id];
        // A verification's sides first: their pair is fixed; other runs share the rest.
        const QColor c = s.side == Side::Original ? comparisonColor(0, palette())
                         : s.side == Side::Port   ? comparisonColor(1, palette())
                                                  : seriesColor(i, others, palette());
        const int mark = s.side == Side::Original ? 0 : s.side == Side::Port ? 1 : 2 + i;
        if (s.side == Side::None)
            ++i;
        s.graph->setPen(QPen(c, 1.5));
        s.evalGraph->setPen(QPen(c.darker(130), 1.5));
        // A short curve (a dry run, a verification) marks each step, each run with its own
        // shape: two curves that agree are drawn one over the other, and only the marks show
        // that both are there.
        static const QCPScatterStyle::ScatterShape shapes[] = {
            QCPScatterStyle::ssCircle, QCPScatterStyle::ssCross,    QCPScatterStyle::ssSquare,
            QCPScatterStyle::ssPlus,   QCPScatterStyle::ssTriangle, QCPScatterStyle::ssDiamond};
        const auto shape = shapes[mark % int(std::size(shapes))];
        s.graph->setScatterStyle(s.steps.size() <= kMarkedPoints
                                     ? QCPScatterStyle(shape, c, 8)
                                     : QCPScatterStyle(QCPScatterStyle::ssNone));
        // The legend lists the runs in the order they were started, whichever was drawn first
        // (the live run stays while the selection's runs are drawn again); no entry for a curve
        // with nothing drawn (a run without evaluation).
        s.graph->removeFromLegend();
        s.evalGraph->removeFromLegend();
        if (!s.failed || !s.steps.isEmpty()) // a run failed before its first step: see markFailed
            s.graph->addToLegend();
        if (!s.evalSteps.isEmpty())
            s.evalGraph->addToLegend();
    }
    // A failed run without points shows its reason where its curve would be; a failed curve
    // is drawn dashed.
    bool anyPoints = false, failedEmpty = false;
    for (const Series& s : std::as_const(m_series)) {
        anyPoints = anyPoints || !s.steps.isEmpty() || !s.evalSteps.isEmpty();
        failedEmpty = failedEmpty || (s.failed && s.steps.isEmpty());
        if (s.failed) {
            QPen pen = s.graph->pen();
            pen.setStyle(Qt::DashLine);
            s.graph->setPen(pen);
        }
    }
    if (m_series.isEmpty())
        m_placeholder->setText(m_emptyText);
    m_placeholder->setVisible(m_series.isEmpty() || (failedEmpty && !anyPoints));
    m_placeholder->setColor(palette().color(QPalette::PlaceholderText));
    placeLegend();
}

// The legend is in the layout under the plot only while it has entries: an empty legend's
// maximum width (its margins) capped the whole column, and the axes shrank to a strip.
void LossChart::placeLegend()
{
    int entries = 0;
    for (int i = 0; i < m_plot->legend->itemCount(); ++i)
        entries += m_plot->legend->item(i) != nullptr;
    QCPLayoutGrid* layout = m_plot->plotLayout();
    const bool placed = m_plot->legend->layout() == layout;
    if (entries == 0 && placed) {
        layout->take(m_plot->legend);
        layout->simplify();
    } else if (entries > 0 && !placed) {
        layout->addElement(layout->rowCount(), 0, m_plot->legend);
        layout->setRowStretchFactor(layout->rowCount() - 1, 0.001);
    }
    m_plot->legend->setVisible(entries > 0);
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
        QSaveFile f(file); // written to a temporary file, renamed over the target on commit
        if (f.open(QIODevice::WriteOnly | QIODevice::Text)) {
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
            out.flush();
            ok = out.status() == QTextStream::Ok && f.commit();
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
