#include "views/profile/summary_page.h"

#include "core/sim/summary.h"
#include "views/common/action_texts.h"
#include "views/common/nice_axis_ticker.h"
#include "views/common/people_text.h"
#include "views/common/wrap_anywhere_label.h"
#include "views/profile/chart_export.h"
#include "views/profile/pipeline_page.h"
#include "views/profile/tile_stats.h"

#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <numeric>
#include <qcustomplot.h>

namespace portolan::views {

namespace {

QTableWidgetItem* item(const QString& text, bool number = false)
{
    auto* i = new QTableWidgetItem(text);
    i->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    if (number)
        i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return i;
}

QTableWidget* table(const QStringList& headers, QWidget* parent)
{
    auto* t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

} // namespace

SummaryPage::SummaryPage(QWidget* parent) : QWidget(parent)
{
    auto* grid = new QGridLayout(this);
    m_headline = new QLabel(tr("No report yet: compile a project or open a report."), this);
    m_headline->setObjectName(QStringLiteral("headline"));
    m_headline->setWordWrap(true);
    QFont big = m_headline->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    m_headline->setFont(big);
    // The figures name the params file, which can have no break point: they wrap anywhere.
    m_figures = new WrapAnywhereLabel(QString(), this);
    m_figures->setObjectName(QStringLiteral("figures"));
    // The tile views (fullest tiles and their histogram) exist only for IPU reports: a wafer has
    // no tiles in this sense, so for a CS report they are hidden rather than left empty.
    m_tilePane = new QWidget(this);
    m_tilePane->setObjectName(QStringLiteral("tilePane"));
    // Four short figures in two fifths of a narrow pane: the header "Of capacity" was wider than
    // its figure and pushed it behind a scroll bar ("Of capac…"). "Full" says it in the figure's
    // width; the header's tooltip says of what.
    m_topTiles = table({tr("Tile"), tr("IPU"), tr("Memory"), tr("Full")}, m_tilePane);
    m_topTiles->setObjectName(QStringLiteral("topTiles"));
    m_topTiles->horizontalHeaderItem(3)->setToolTip(tr("Share of the tile's memory capacity"));
    // Sized to their figures, none stretched: a stretched last column kept 100 pixels however
    // narrow the pane, and went behind the scroll bar.
    m_topTiles->horizontalHeader()->setStretchLastSection(false);
    m_advice =
        table({tr("Remedy"), tr("Saves"), tr("Peak after"), tr("Fits"), tr("Samples/s")}, this);
    m_advice->setObjectName(QStringLiteral("advice"));
    m_advice->setToolTip(tr("Double-click a remedy to apply it to the settings and re-simulate"));
    // A remedy reads as a sentence: its column takes the room left by the figures and wraps,
    // rather than running off to the right behind a scroll bar.
    m_advice->setWordWrap(true);
    m_advice->horizontalHeader()->setStretchLastSection(false);
    m_advice->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_histogram = new QCustomPlot(m_tilePane);
    m_histogram->setObjectName(QStringLiteral("tileHistogram"));
    m_histogram->setMinimumHeight(180);
    m_histogram->xAxis->setLabel(tr("Tile memory"));
    m_histogram->yAxis->setLabel(tr("Tiles"));

    m_dryRun = new QPushButton(dryRunActionText(), this);
    m_dryRun->setObjectName(QStringLiteral("summaryDryRun"));
    m_dryRun->setToolTip(dryRunActionToolTip());
    m_dryRun->hide();
    connect(m_dryRun, &QPushButton::clicked, this, &SummaryPage::dryRunRequested);
    auto* figures = new QVBoxLayout;
    figures->addWidget(m_figures);
    figures->addWidget(m_dryRun, 0, Qt::AlignLeft);
    grid->addWidget(m_headline, 0, 0, 1, 2);
    grid->addLayout(figures, 1, 0, 1, 2);
    // The advice is sentences beside four figures: it gets the whole width, so that a remedy
    // reads on one or two lines. The fullest tiles (four short figures) sit beside the histogram
    // of the same memory.
    m_adviceTitle = new QLabel(tr("Advice (double-click to apply)"), this);
    grid->addWidget(m_adviceTitle, 2, 0, 1, 2);
    grid->addWidget(m_advice, 3, 0, 1, 2);
    // An empty advice table said nothing: in its place, why there is no remedy.
    m_adviceEmpty = new QLabel(this);
    m_adviceEmpty->setObjectName(QStringLiteral("adviceEmpty"));
    m_adviceEmpty->setWordWrap(true);
    m_adviceEmpty->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_adviceEmpty->hide();
    // The way out of "no remedy" is the search, offered where the remedies would be.
    connect(m_adviceEmpty, &QLabel::linkActivated, this, &SummaryPage::findConfigurationRequested);
    grid->addWidget(m_adviceEmpty, 3, 0, 1, 2);
    auto* tiles = new QGridLayout(m_tilePane);
    tiles->setContentsMargins(0, 0, 0, 0);
    auto* histHeader = new QHBoxLayout;
    histHeader->addWidget(new QLabel(tr("Histogram of tile memory"), m_tilePane));
    histHeader->addStretch();
    histHeader->addWidget(makeExportButton(m_histogram, m_tilePane));
    tiles->addWidget(new QLabel(tr("Fullest tiles"), m_tilePane), 0, 0);
    tiles->addLayout(histHeader, 0, 1);
    tiles->addWidget(m_topTiles, 1, 0);
    tiles->addWidget(m_histogram, 1, 1);
    tiles->setRowStretch(1, 1);
    tiles->setColumnStretch(0, 2);
    tiles->setColumnStretch(1, 3);
    grid->addWidget(m_tilePane, 4, 0, 1, 2);
    grid->setRowStretch(3, 1);
    grid->setRowStretch(4, 2);
    // Wrapped remedies need their row heights again whenever the column width changes.
    connect(m_advice->horizontalHeader(), &QHeaderView::sectionResized, m_advice,
            [this] { m_advice->resizeRowsToContents(); });

    connect(m_advice, &QTableWidget::cellActivated, this, [this](int row, int) {
        if (auto* i = m_advice->item(row, 0))
            emit remedyActivated(i->data(Qt::UserRole).toString());
    });
    connect(m_topTiles, &QTableWidget::cellActivated, this, [this](int row, int) {
        if (auto* i = m_topTiles->item(row, 0))
            emit tileActivated(i->data(Qt::UserRole).toInt());
    });
    applyPlotTheme(m_histogram, palette());
}

QString SummaryPage::headline() const
{
    return m_headline->text();
}

QString SummaryPage::figures() const
{
    return m_figures->text();
}

void SummaryPage::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPlotTheme(m_histogram, palette());
        fillHistogram();
    }
}

void SummaryPage::setResult(ResultPtr result)
{
    m_result = std::move(result);
    m_topTiles->setRowCount(0);
    m_advice->setRowCount(0);
    m_advice->show();
    m_adviceEmpty->hide();
    m_dryRun->hide();
    if (!m_result) {
        // Empty tables and a blank histogram under "No report yet" said nothing more.
        m_headline->setText(tr("No report yet: compile a project or open a report."));
        m_figures->clear();
        showReportParts(false);
        fillHistogram();
        return;
    }
    const auto& r = *m_result;
    showReportParts(true);
    showTilePane(bool(r.ipu));
    // The same summary the CLI prints (core/sim/summary.h), in the page's words for the headline.
    const sim::CompileSummary summary = sim::summarize(r);
    const double used = double(r.peakBytes), cap = double(r.capacityBytes);
    const QString where = r.ipu ? tr("fullest tile") : tr("wafer");
    const QString mode = r.cs ? tr(" (%1)").arg(QString::fromStdString(r.cs->mode)) : QString();
    m_headline->setText(r.fits ? tr("Fits on %1%6: %2 of %3 used on the %4 (%5% margin)")
                                     .arg(QString::fromStdString(r.targetName), bytesText(used),
                                          bytesText(cap), where)
                                     .arg(100 * summary.margin, 0, 'f', 1)
                                     .arg(mode)
                               : tr("Does not fit on %1%5: %2 needed on the %3, %4 available")
                                     .arg(QString::fromStdString(r.targetName), bytesText(used),
                                          where, bytesText(cap), mode));
    QPalette p = m_headline->palette();
    p.setColor(QPalette::WindowText,
               r.fits ? palette().color(QPalette::WindowText) : alertColor(palette()));
    m_headline->setPalette(p);

    QStringList lines;
    for (const auto& line : summary.lines)
        lines << QString::fromStdString(line).trimmed();
    if (r.ipu) {
        const auto& ipu = *r.ipu;
        const TileStats stats = TileStats::from(ipu);
        std::vector<int> order(stats.total.size());
        std::iota(order.begin(), order.end(), 0);
        const std::size_t top = std::min<std::size_t>(20, order.size());
        std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(top), order.end(),
                          [&](int a, int b) {
                              return stats.total[std::size_t(a)] > stats.total[std::size_t(b)];
                          });
        m_topTiles->setRowCount(int(top));
        for (std::size_t k = 0; k < top; ++k) {
            const int t = order[k];
            const double bytes = double(stats.total[std::size_t(t)]);
            auto* first = item(QString::number(t), true);
            first->setData(Qt::UserRole, t);
            m_topTiles->setItem(int(k), 0, first);
            m_topTiles->setItem(int(k), 1, item(QString::number(t / stats.tilesPerIpu), true));
            m_topTiles->setItem(int(k), 2, item(bytesText(bytes), true));
            auto* pct =
                item(percentText(stats.capacity ? bytes / double(stats.capacity) : 0), true);
            if (stats.capacity && bytes > double(stats.capacity))
                pct->setForeground(alertColor(palette()));
            m_topTiles->setItem(int(k), 3, pct);
        }
        // The four figures show whole: the table claims their width (the histogram beside it
        // gives way), rather than scrolling its last figure out of sight ("74…").
        const QHeaderView* header = m_topTiles->horizontalHeader();
        int width =
            2 * m_topTiles->frameWidth() + m_topTiles->verticalScrollBar()->sizeHint().width();
        for (int c = 0; c < m_topTiles->columnCount(); ++c)
            width +=
                std::max(static_cast<const QAbstractItemView*>(m_topTiles)->sizeHintForColumn(c),
                         header->sectionSizeHint(c));
        m_topTiles->setMinimumWidth(width);
    }
    for (const auto& d : r.diagnostics)
        lines << QString::fromStdString(d.message);
    m_figures->setText(lines.join(QLatin1Char('\n')));

    m_advice->setRowCount(int(r.advice.size()));
    for (std::size_t k = 0; k < r.advice.size(); ++k) {
        const auto& a = r.advice[k];
        auto* first = item(QString::fromStdString(a.description));
        first->setData(Qt::UserRole, QString::fromStdString(a.id));
        first->setToolTip(
            tr("%1\nDouble-click to apply (%2).")
                .arg(QString::fromStdString(a.description), QString::fromStdString(a.id)));
        m_advice->setItem(int(k), 0, first);
        m_advice->setItem(int(k), 1, item(bytesText(double(a.bytesSaved)), true));
        m_advice->setItem(int(k), 2, item(bytesText(double(a.peakBytesAfter)), true));
        m_advice->setItem(int(k), 3, item(a.fitsAfter ? tr("yes") : tr("no")));
        m_advice->setItem(int(k), 4, item(countText(a.samplesPerSecondAfter), true));
    }
    m_advice->resizeRowsToContents();
    m_advice->setVisible(!r.advice.empty());
    m_adviceEmpty->setVisible(r.advice.empty());
    m_adviceEmpty->setText(
        r.fits ? tr("Nothing to fix: the model fits as it is. A remedy is listed here when a "
                    "change of settings would make it fit or run faster.")
               : tr("No remedy found among the settings Portolan tries. <a href=\"find\">Find a "
                    "configuration that fits</a> searches more IPUs, splits and batch sizes; "
                    "another target may have the memory."));
    fillHistogram();
}

// The advice takes the tile pane's room when the pane is hidden (a grid row keeps its stretch).
void SummaryPage::showNoModel(const QString& why, bool offerDryRun)
{
    if (m_result)
        return; // a report is shown: it says more
    m_headline->setText(offerDryRun
                            ? tr("No report yet: this project's model is known after a dry run")
                            : tr("No report: the project's model could not be built"));
    // The message is a diagnostic ("PROJECT: error: ... [compile.no-model]"), the CLI's form:
    // under a headline that already says what went wrong, the sentence alone reads better.
    const QString sentence = peopleText(why).sentence;
    m_figures->setText(sentence);
    m_dryRun->setVisible(offerDryRun);
}

void SummaryPage::showReportParts(bool shown)
{
    m_adviceTitle->setVisible(shown);
    m_advice->setVisible(shown);
    showTilePane(shown);
}

void SummaryPage::showTilePane(bool shown)
{
    m_tilePane->setVisible(shown);
    static_cast<QGridLayout*>(layout())->setRowStretch(4, shown ? 2 : 0);
}

void SummaryPage::fillHistogram()
{
    m_histogram->clearPlottables();
    m_histogram->clearItems();
    if (!m_result || !m_result->ipu) {
        m_histogram->replot();
        return;
    }
    const TileStats stats = TileStats::from(*m_result->ipu);
    const double top = double(std::max<std::int64_t>(
        stats.capacity,
        stats.total.empty() ? 1 : *std::max_element(stats.total.begin(), stats.total.end())));
    const int bins = 64;
    const double width = top / bins;
    QVector<double> keys(bins), counts(bins, 0);
    for (int b = 0; b < bins; ++b)
        keys[b] = (b + 0.5) * width;
    for (std::int64_t v : stats.total)
        counts[std::min(bins - 1, int(double(v) / width))] += 1;
    auto* bars = new QCPBars(m_histogram->xAxis, m_histogram->yAxis);
    bars->setData(keys, counts, true);
    bars->setWidth(width);
    const QColor c = memoryCategoryColor(0, palette());
    bars->setPen(QPen(c.darker(120)));
    bars->setBrush(c);
    if (stats.capacity > 0) {
        auto* line = new QCPItemStraightLine(m_histogram);
        line->point1->setCoords(double(stats.capacity), 0);
        line->point2->setCoords(double(stats.capacity), 1);
        line->setPen(QPen(capacityColor(palette(), !stats.oomTiles.empty()), 2, Qt::DashLine));
    }
    m_histogram->xAxis->setRange(0, top * 1.05);
    m_histogram->yAxis->setRange(
        0, std::max(1.0, *std::max_element(counts.begin(), counts.end()) * 1.1));
    // About three labelled ticks: byte labels are wide, and five of them ran into each other at
    // the histogram's usual width beside the fullest tiles.
    m_histogram->xAxis->setTicker(NiceAxisTicker::make(format::Axis::Bytes, 3));
    m_histogram->replot();
}

} // namespace portolan::views
