// The Profile's charts as a user reads them (issue 26): the liveness chart keeps its height on a
// model of hundreds of program steps, charts without a report say why instead of showing a
// legend over blank axes, the wafer map's legend says what is drawn, and the tile map's IPU
// blocks carry their tile ranges. Reports come from the real compiler (profile_fixture.h).
#include "profile_fixture.h"
#include "views/common/placeholder_table_view.h"
#include "views/common/reading_columns.h"
#include "views/profile/cs_kernel_model.h"
#include "views/profile/cs_page.h"
#include "views/profile/dry_run_notice.h"
#include "views/profile/gantt_chart.h"
#include "views/profile/liveness_page.h"
#include "views/profile/memory_chart.h"
#include "views/profile/memory_page.h"
#include "views/profile/pipeline_page.h"
#include "views/profile/split_bar.h"
#include "views/profile/summary_page.h"
#include "views/profile/tile_details.h"
#include "views/profile/tile_map.h"
#include "views/profile/tile_map_page.h"
#include "views/profile/tile_stats.h"
#include "views/profile/variable_table_model.h"
#include "views/profile/wafer_map.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>
#include <qcustomplot.h>

using namespace portolan;
using namespace portolan::views;

namespace {

// The text items a chart shows (its empty-state message).
QStringList shownTexts(QCustomPlot* plot)
{
    QStringList texts;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->visible())
            texts << t->text();
    return texts;
}

} // namespace

class TestProfileCharts : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        m_ipu = test::compileSmall("ipu-mk2", 2);
        QVERIFY(m_ipu && m_ipu->ipu);
        m_cs = test::compileSmall("cs-2", 1);
        QVERIFY(m_cs && m_cs->cs);
    }

    // Hundreds of steps with long op names: the step axis carries numbers, so the bars keep
    // most of the chart's height (rotated names took about three quarters of it).
    void livenessKeepsItsHeight_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addRow("700x420") << QSize(700, 420);
        QTest::addRow("500x320") << QSize(500, 320);
    }
    void livenessKeepsItsHeight()
    {
        QFETCH(QSize, size);
        QVERIFY(m_ipu->ipu->steps.size() > 24);
        LivenessPage page;
        page.setResult(m_ipu);
        page.resize(size.width(), size.height() * 2);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QCustomPlot* plot = page.chart();
        plot->replot();
        QCOMPARE(plot->xAxis->tickLabelRotation(), 0.0);
        QVERIFY2(plot->axisRect()->height() >= plot->height() / 2,
                 qPrintable(QStringLiteral("bars %1 px of %2")
                                .arg(plot->axisRect()->height())
                                .arg(plot->height())));
        for (const QString& label : plot->xAxis->tickVectorLabels()) {
            bool number = false;
            label.toInt(&number);
            QVERIFY2(number, qPrintable(label));
        }
        // The names are a hover and a click away; the peak is named up front.
        QVERIFY2(page.stepSummary().startsWith(QStringLiteral("Peak: step ")),
                 qPrintable(page.stepSummary()));
        // ...and its variables are listed from the start, not after a click.
        QVERIFY(page.step() >= 0);
        QVERIFY(page.model()->rowCount() > 0);
        // The table's important columns (the name, the bytes) come first and show whole in
        // the pane, without scrolling sideways.
        auto* table = page.findChild<QTableView*>(QStringLiteral("liveVariables"));
        QVERIFY(table);
        const QHeaderView* header = table->horizontalHeader();
        for (int c : {int(VariableTableModel::Name), int(VariableTableModel::BytesHere),
                      int(VariableTableModel::TotalBytes)}) {
            QVERIFY2(header->visualIndex(c) < 3, qPrintable(QString::number(c)));
            QVERIFY2(
                header->sectionViewportPosition(c) + header->sectionSize(c) <=
                    table->viewport()->width(),
                qPrintable(QStringLiteral("column %1 ends at %2 of %3")
                               .arg(c)
                               .arg(header->sectionViewportPosition(c) + header->sectionSize(c))
                               .arg(table->viewport()->width())));
        }
        // No sideways scroll (issue 26: it scrolled at 1024 pixels): the less important
        // columns are hidden or elided, the header's menu shows them again.
        QTRY_VERIFY2(header->length() <= table->viewport()->width(),
                     qPrintable(QStringLiteral("%1 px in %2")
                                    .arg(header->length())
                                    .arg(table->viewport()->width())));
        QVERIFY(table->findChild<ReadingColumns*>());
        QVERIFY(shownTexts(plot).isEmpty());
        QVERIFY(plot->legend->visible());
    }

    // "No model" reads as a sentence under its headline, not as the CLI's diagnostic with a
    // path prefix and a bracketed code.
    void noModelReadsAsASentence()
    {
        SummaryPage page;
        page.showNoModel(QStringLiteral("/tmp/p: error: Portolan's runtime does not rebuild the "
                                        "model of const.yaml [compile.no-model]"),
                         true);
        auto* figures = page.findChild<QLabel*>(QStringLiteral("figures"));
        QVERIFY(figures);
        QCOMPARE(figures->text(),
                 QStringLiteral("Portolan's runtime does not rebuild the model of const.yaml."));
        page.showNoModel(QStringLiteral("/tmp/p: error: the project has no params file "
                                        "[compile.no-model]"),
                         true);
        QCOMPARE(figures->text(), QStringLiteral("The project has no params file."));
    }

    // The fullest tiles are four short figures beside the histogram: each shows whole, with no
    // sideways scrolling, at the Profile's narrowest (1024x700 leaves about 500 pixels).
    void fullestTilesShowWhole_data()
    {
        QTest::addColumn<int>("width");
        QTest::addRow("500") << 500;
        QTest::addRow("800") << 800;
    }
    void fullestTilesShowWhole()
    {
        QFETCH(int, width);
        SummaryPage page;
        page.setResult(m_ipu);
        page.resize(width, 640);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        auto* table = page.findChild<QTableWidget*>(QStringLiteral("topTiles"));
        QVERIFY(table && table->isVisible() && table->rowCount() > 0);
        const QHeaderView* header = table->horizontalHeader();
        const auto* view = static_cast<const QAbstractItemView*>(table); // the public hint
        for (int c = 0; c < table->columnCount(); ++c) {
            QVERIFY2(header->sectionViewportPosition(c) >= 0 &&
                         header->sectionViewportPosition(c) + header->sectionSize(c) <=
                             table->viewport()->width(),
                     qPrintable(QStringLiteral("column %1 at %2 + %3 in %4 (table %5, min %6)")
                                    .arg(c)
                                    .arg(header->sectionViewportPosition(c))
                                    .arg(header->sectionSize(c))
                                    .arg(table->viewport()->width())
                                    .arg(table->width())
                                    .arg(table->minimumWidth())));
            QVERIFY2(header->sectionSize(c) >= view->sizeHintForColumn(c),
                     qPrintable(QStringLiteral("column %1: %2 px for %3")
                                    .arg(c)
                                    .arg(header->sectionSize(c))
                                    .arg(view->sizeHintForColumn(c))));
        }
    }

    // Without a report, or with a CS report, the liveness and memory charts say why they are
    // empty; neither lists series (nor out-of-memory markers) that are not drawn.
    void emptyChartsSayWhy_data()
    {
        QTest::addColumn<QString>("report"); // none, cs
        QTest::addColumn<QString>("says");
        QTest::addRow("no report") << "none"
                                   << "No report yet";
        QTest::addRow("CS report") << "cs"
                                   << "CS placement";
    }
    void emptyChartsSayWhy()
    {
        QFETCH(QString, report);
        QFETCH(QString, says);
        const ResultPtr r = report == QLatin1String("cs") ? ResultPtr(m_cs) : nullptr;
        LivenessPage liveness;
        liveness.setResult(m_ipu); // a report first: the empty state must replace it
        const auto* live = liveness.findChild<QTableView*>(QStringLiteral("liveVariables"));
        QVERIFY(live && live->isVisibleTo(&liveness));
        liveness.setResult(r);
        // The chart says why; no empty table under it.
        QVERIFY(!live->isVisibleTo(&liveness));
        QVERIFY(!liveness.chart()->legend->visible());
        QCOMPARE(liveness.chart()->plottableCount(), 0);
        QVERIFY2(shownTexts(liveness.chart()).join(' ').contains(says),
                 qPrintable(shownTexts(liveness.chart()).join(' ')));

        MemoryChart fresh; // before any report
        QCOMPARE(fresh.legend->itemCount(), 0);
        QVERIFY(!fresh.legend->visible());
        MemoryChart memory;
        memory.resize(600, 300);
        memory.setResult(m_ipu);
        QVERIFY(memory.legend->itemCount() > 0);
        QVERIFY(!memory.legend->hasItemWithPlottable(memory.graph(3))); // out of memory: none
        memory.setResult(r);
        QCOMPARE(memory.legend->itemCount(), 0);
        QVERIFY(!memory.legend->visible());
        QVERIFY2(shownTexts(&memory).join(' ').contains(says),
                 qPrintable(shownTexts(&memory).join(' ')));
    }

    // The Pipeline page's split editor and stage chart are there only with IPU stages: without
    // them it showed an empty split bar and a 0..5 chart in a corner (issue 26, empty states).
    void pipelineStagePartsOnlyWithStages_data()
    {
        QTest::addColumn<QString>("report");
        QTest::addRow("none") << "none";
        QTest::addRow("cs") << "cs";
        QTest::addRow("ipu") << "ipu";
    }
    void pipelineStagePartsOnlyWithStages()
    {
        QFETCH(QString, report);
        PipelinePage page;
        page.resize(600, 500);
        page.setResult(report == QLatin1String("ipu")  ? m_ipu
                       : report == QLatin1String("cs") ? m_cs
                                                       : nullptr);
        const bool stages = report == QLatin1String("ipu");
        QCOMPARE(page.stageChart()->isVisibleTo(&page), stages);
        QCOMPARE(page.splitBar()->isVisibleTo(&page), stages);
        QVERIFY(page.gantt()->isVisibleTo(&page)); // it says why it is empty
        QVERIFY(!page.balanceText().isEmpty());
        page.setResult(m_ipu); // a report with stages after one without
        QVERIFY(page.stageChart()->isVisibleTo(&page));
    }

    // One colour language on the pipeline chart: forward and backward their own pair (the
    // stage chart's), whatever the micro-batch, never red; the key in a row of its own under
    // the boxes, never over them (issue 26).
    void pipelineColours_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addRow("narrow") << QSize(420, 200);
        QTest::addRow("1024 window") << QSize(500, 300);
        QTest::addRow("1400 window") << QSize(740, 380);
    }
    void pipelineColours()
    {
        QFETCH(QSize, size);
        GanttChart chart;
        chart.resize(size);
        chart.setResult(m_ipu);
        const QPalette p = chart.palette();
        QCOMPARE(GanttChart::passColor(false, p), forwardColor(p));
        QCOMPARE(GanttChart::passColor(true, p), backwardColor(p));
        QVERIFY(forwardColor(p) != backwardColor(p));
        for (const bool backward : {false, true})
            QVERIFY(GanttChart::passColor(backward, p) != alertColor(p));
        const QRect plot = chart.plotArea(), key = chart.keyArea();
        QVERIFY(!key.intersects(plot));
        QVERIFY(key.top() > plot.bottom());
        QVERIFY(chart.rect().contains(key));
        QVERIFY(chart.rect().contains(plot));
        QVERIFY(!chart.grab().isNull()); // paints without a fault at this size
    }

    // The key's idle swatch reads as hatched on light and dark palettes: its lines stand out
    // from the background by a good part of the text's own contrast (at an alpha of 28 they
    // were a tenth of it, and the swatch looked empty).
    void idleSwatchReadable_data()
    {
        QTest::addColumn<QColor>("text");
        QTest::addColumn<QColor>("base");
        QTest::addRow("light") << QColor(Qt::black) << QColor(Qt::white);
        QTest::addRow("dark") << QColor(230, 230, 230) << QColor(35, 35, 38);
    }
    void idleSwatchReadable()
    {
        QFETCH(QColor, text);
        QFETCH(QColor, base);
        QPalette p;
        p.setColor(QPalette::WindowText, text);
        p.setColor(QPalette::Base, base);
        const int side = 11; // the key's swatch at a 15-pixel font
        QImage swatch(side, side, QImage::Format_RGB32);
        swatch.fill(base);
        {
            QPainter painter(&swatch);
            painter.fillRect(swatch.rect(), GanttChart::idleBrush(p));
        }
        const auto lightness = [](QColor c) {
            return c.lightnessF();
        };
        const double full = std::abs(lightness(text) - lightness(base));
        int hatched = 0;
        double strongest = 0;
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) {
                const double d = std::abs(lightness(swatch.pixelColor(x, y)) - lightness(base));
                strongest = std::max(strongest, d);
                hatched += d > 0.05 ? 1 : 0;
            }
        QVERIFY2(strongest >= 0.4 * full, qPrintable(QString::number(strongest / full)));
        QVERIFY2(hatched >= side, qPrintable(QString::number(hatched)));
    }

    // Issue 26: the CS kernel table scrolled sideways at 1024 pixels ("Co…"). It fits its
    // width, the kernel's name whole, the least important columns giving way.
    void csTableFits_data()
    {
        QTest::addColumn<int>("width");   // of the CS page
        QTest::addColumn<bool>("narrow"); // some columns cannot be whole
        QTest::addRow("1024 window") << 520 << true;
        QTest::addRow("1400 window") << 760 << true;
        QTest::addRow("wide") << 1800 << false;
    }
    void csTableFits()
    {
        QFETCH(int, width);
        QFETCH(bool, narrow);
        CsPage page;
        page.resize(width, 600);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        // No CS report: the wafer says why, and no empty table sits under it.
        for (const ResultPtr& none : {ResultPtr(), ResultPtr(m_ipu)}) {
            page.setResult(none);
            QVERIFY(!page.findChild<QTableView*>(QStringLiteral("csKernels"))->isVisible());
        }
        page.setResult(m_cs);
        QTest::qWait(100); // the columns are shared out after the view has seen the rows
        auto* table = page.findChild<QTableView*>(QStringLiteral("csKernels"));
        QVERIFY(table && table->model()->rowCount() > 0);
        QAbstractItemModelTester tester(table->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QHeaderView* header = table->horizontalHeader();
        const auto widths = [&] {
            QStringList out;
            for (int c = 0; c < header->count(); ++c)
                out << QStringLiteral("%1 %2/%3")
                           .arg(table->model()->headerData(c, Qt::Horizontal).toString())
                           .arg(header->sectionSize(c))
                           .arg(static_cast<const QAbstractItemView*>(table)->sizeHintForColumn(c));
            return QStringLiteral("viewport %1: ").arg(table->viewport()->width()) +
                   out.join(QStringLiteral(", "));
        };
        QTRY_VERIFY2(header->length() <= table->viewport()->width(), qPrintable(widths()));
        QVERIFY(!table->horizontalScrollBar()->isVisible());
        const QAbstractItemView* view = table;
        QVERIFY2(header->sectionSize(CsKernelModel::Name) >=
                     view->sizeHintForColumn(CsKernelModel::Name),
                 qPrintable(widths()));
        for (const int c :
             {CsKernelModel::Memory, CsKernelModel::SamplesPerSecond, CsKernelModel::Fits})
            QVERIFY(header->sectionSize(c) >= view->sizeHintForColumn(c));
        // Every column shown is whole: the least important are hidden rather than cut ("25…"),
        // and only as many as the width needs.
        auto* columns = table->findChild<ReadingColumns*>();
        QVERIFY(columns);
        for (int c = 0; c < header->count(); ++c)
            if (!header->isSectionHidden(c))
                QVERIFY2(header->sectionSize(c) >= view->sizeHintForColumn(c),
                         qPrintable(widths()));
        const std::vector<int> hidden = columns->hiddenForRoom();
        QCOMPARE(hidden.empty(), !narrow);
        if (!hidden.empty()) {
            // In order of importance, and no more than needed: the last one hidden would not
            // have fitted whole.
            const std::vector<int> order = {
                CsKernelModel::Region,         CsKernelModel::TransmissionSamples,
                CsKernelModel::ComputeSamples, CsKernelModel::Capacity,
                CsKernelModel::ActivePes,      CsKernelModel::Utilisation};
            QVERIFY(std::equal(hidden.begin(), hidden.end(), order.begin()));
            const auto whole = [&](int c) {
                return std::max(view->sizeHintForColumn(c), header->sectionSizeHint(c));
            };
            int needed = whole(hidden.back());
            for (int c = 0; c < header->count(); ++c)
                needed += header->isSectionHidden(c) ? 0 : whole(c);
            QVERIFY2(needed > table->viewport()->width(), qPrintable(widths()));
            // Shown from the header's menu, a column stays, elided if it must.
            columns->setColumnShown(CsKernelModel::Region, true);
            QVERIFY(!header->isSectionHidden(CsKernelModel::Region));
            QVERIFY(header->length() <= table->viewport()->width());
        }
        // What gives way says itself whole on hover.
        QVERIFY(table->model()
                    ->index(0, CsKernelModel::Region)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(table->model()->index(0, CsKernelModel::Region).data().toString()));
    }

    // Issue 26: without a model (only a dry run can tell it) Memory and Tile map said "compile
    // a project", which nothing could. They say what fills them and offer the dry run.
    void tilePagesOfferTheDryRun_data()
    {
        QTest::addColumn<QString>("page");
        QTest::addRow("memory") << "memory";
        QTest::addRow("tile map") << "tilemap";
    }
    void tilePagesOfferTheDryRun()
    {
        QFETCH(QString, page);
        MemoryPage memory;
        TileMapPage tiles;
        QWidget* w = page == QLatin1String("memory") ? static_cast<QWidget*>(&memory) : &tiles;
        const auto needsDryRun = [&] {
            if (w == &memory)
                memory.showNeedsDryRun();
            else
                tiles.showNeedsDryRun();
        };
        DryRunNotice* notice = w == &memory ? memory.dryRunNotice() : tiles.dryRunNotice();
        QSignalSpy asked(w, SIGNAL(dryRunRequested()));
        QVERIFY(!notice->isVisibleTo(w)); // nothing known yet: no claim about a dry run
        needsDryRun();
        QVERIFY(notice->isVisibleTo(w));
        QVERIFY(notice->text().contains(QLatin1String("dry run")));
        QVERIFY(!notice->text().contains(QLatin1String("compile a project")));
        QVERIFY(notice->button()->isEnabled() && notice->button()->isVisibleTo(w));
        notice->button()->click();
        QCOMPARE(asked.count(), 1);
        // A report replaces it, and a late "no model" does not cover a report.
        if (w == &memory)
            memory.setResult(m_ipu);
        else
            tiles.setResult(m_ipu);
        QVERIFY(!notice->isVisibleTo(w));
        needsDryRun();
        QVERIFY(!notice->isVisibleTo(w));
        if (w == &memory) {
            // The chart, disabled while it had no tiles, is drawn in the enabled colours once
            // it has them (it styled itself from the disabled palette: a grey chart).
            QVERIFY(memory.chart()->isEnabled());
            const QColor wanted = capacityColor(memory.chart()->palette(), false);
            bool found = false;
            for (int i = 0; i < memory.chart()->itemCount(); ++i)
                if (auto* l = qobject_cast<QCPItemStraightLine*>(memory.chart()->item(i))) {
                    found = true;
                    QCOMPARE(l->pen().color(), wanted);
                }
            QVERIFY(found);
        }
    }

    // Red means over capacity: the capacity line of the Memory chart and of the Summary's
    // histogram is red only when a tile is over it (issue 26: red on a model with room to spare).
    void capacityRedOnlyWhenOver_data()
    {
        QTest::addColumn<double>("capacityOfFullest"); // the capacity, as a share of the fullest
        QTest::addColumn<bool>("red");
        QTest::addRow("room to spare") << 2.0 << false;
        QTest::addRow("just fits") << 1.0 << false;
        QTest::addRow("one tile over") << 0.999 << true;
        QTest::addRow("most over") << 0.25 << true;
    }
    void capacityRedOnlyWhenOver()
    {
        QFETCH(double, capacityOfFullest);
        QFETCH(bool, red);
        auto r = std::make_shared<sim::CompileResult>(*m_ipu);
        const TileStats before = TileStats::from(*r->ipu);
        const auto fullest = *std::max_element(before.total.begin(), before.total.end());
        r->ipu->tileCapacity = std::int64_t(double(fullest) * capacityOfFullest);
        QCOMPARE(TileStats::from(*r->ipu).oomTiles.empty(), !red);
        MemoryChart chart;
        chart.resize(600, 300);
        chart.setResult(r);
        QCPItemStraightLine* line = nullptr;
        for (int i = 0; i < chart.itemCount(); ++i)
            if (auto* l = qobject_cast<QCPItemStraightLine*>(chart.item(i)); l && l->visible())
                line = l;
        QVERIFY(line);
        const QColor alert = alertColor(chart.palette());
        QCOMPARE(line->pen().color() == alert, red);
        QCOMPARE(capacityColor(chart.palette(), red) == alert, red);
        SummaryPage summary;
        summary.setResult(r);
        int capacityLines = 0;
        for (auto* plot : summary.findChildren<QCustomPlot*>())
            for (int i = 0; i < plot->itemCount(); ++i)
                if (auto* l = qobject_cast<QCPItemStraightLine*>(plot->item(i))) {
                    ++capacityLines;
                    QCOMPARE(l->pen().color() == alert, red);
                }
        QCOMPARE(capacityLines, 1);
    }

    // The tables of the Memory and Tile-map pages, and the map, say what would fill them:
    // a report (none yet), tiles (a CS report has none: CS placement), a click on a tile, or
    // nothing at all (a tile that holds no variable).
    void tileTablesSayWhatFillsThem_data()
    {
        QTest::addColumn<QString>("report"); // none, cs, ipu
        QTest::addColumn<int>("tile");       // clicked, or -1
        QTest::addColumn<QString>("says");   // in the table's viewport; empty: rows shown
        QTest::addRow("no report") << "none" << -1 << "No report yet";
        QTest::addRow("CS report") << "cs" << -1 << "CS placement";
        QTest::addRow("IPU report, no tile yet") << "ipu" << -1 << "Click a tile";
        QTest::addRow("a tile clicked") << "ipu" << 0 << "";
    }
    void tileTablesSayWhatFillsThem()
    {
        QFETCH(QString, report);
        QFETCH(int, tile);
        QFETCH(QString, says);
        const ResultPtr r = report == QLatin1String("cs")    ? ResultPtr(m_cs)
                            : report == QLatin1String("ipu") ? ResultPtr(m_ipu)
                                                             : nullptr;
        MemoryPage memory;
        TileMapPage tiles;
        memory.setResult(m_ipu); // a report first: the empty state must replace it
        tiles.setResult(m_ipu);
        tiles.details()->showTile(3);
        memory.setResult(r);
        tiles.setResult(r);
        for (TileDetails* details : {memory.findChild<TileDetails*>(), tiles.details()}) {
            QVERIFY(details);
            // Without tiles, the chart or map above says why, once: the table is not shown.
            QCOMPARE(details->isVisibleTo(details->parentWidget()), report == QLatin1String("ipu"));
            QAbstractItemModelTester tester(details->model());
            if (tile >= 0)
                details->showTile(tile);
            QCOMPARE(details->model()->rowCount() == 0, !says.isEmpty());
            QVERIFY2(details->view()->shownPlaceholder().contains(says),
                     qPrintable(details->view()->shownPlaceholder()));
        }
        // The map itself: no tiles says why; with tiles, nothing to explain.
        QCOMPARE(tiles.map()->hasTiles(), report == QLatin1String("ipu"));
        if (!tiles.map()->hasTiles())
            QVERIFY2(tiles.map()->emptyText().contains(says), qPrintable(tiles.map()->emptyText()));
        QCOMPARE(tiles.scaleSlider()->isEnabled(), report == QLatin1String("ipu"));
    }

    // The Memory page's tile table, hidden until a report with tiles, fits its pane when it is
    // shown, before any click (it kept every column and scrolled sideways at 1024 pixels).
    void tileDetailsFitWhenShown()
    {
        QTabWidget tabs; // the page is not the one shown when its report comes
        auto* memory = new MemoryPage;
        tabs.addTab(new QWidget, QStringLiteral("other"));
        tabs.addTab(memory, QStringLiteral("memory"));
        tabs.resize(520, 640);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        memory->setResult(nullptr);
        QCoreApplication::processEvents();
        memory->setResult(m_ipu);
        QCoreApplication::processEvents();
        tabs.setCurrentIndex(1);
        auto* details = memory->findChild<TileDetails*>();
        QVERIFY(details && details->isVisible());
        QTableView* table = details->view();
        QTRY_VERIFY2(table->horizontalHeader()->length() <= table->viewport()->width(),
                     qPrintable(QStringLiteral("%1 px in %2")
                                    .arg(table->horizontalHeader()->length())
                                    .arg(table->viewport()->width())));
        details->showTile(3); // and with rows
        QTRY_VERIFY(table->horizontalHeader()->length() <= table->viewport()->width());
    }

    // The wafer's legend names what is drawn: kernels, the frame of a kernel over its memory
    // when one is, and the bottleneck by name.
    void waferLegend_data()
    {
        QTest::addColumn<bool>("overMemory");
        QTest::addColumn<bool>("bottleneck");
        QTest::addColumn<bool>("streaming"); // weight streaming: every layer on the whole wafer
        QTest::addRow("as compiled") << false << true << false;
        QTest::addRow("a kernel over its memory") << true << true << false;
        QTest::addRow("no kernel named the bottleneck") << false << false << false;
        QTest::addRow("weight streaming") << false << false << true;
    }
    void waferLegend()
    {
        QFETCH(bool, overMemory);
        QFETCH(bool, bottleneck);
        QFETCH(bool, streaming);
        auto r = std::make_shared<sim::CompileResult>(*m_cs);
        auto& cs = *r->cs;
        QVERIFY(!cs.kernels.empty());
        for (auto& k : cs.kernels)
            k.fits = true;
        if (overMemory)
            cs.kernels.back().fits = false;
        cs.bottleneck = bottleneck ? cs.kernels.front().name : "weight streaming bandwidth";
        if (streaming)
            cs.mode = "weight-streaming";
        WaferMap map;
        QVERIFY(map.legendTexts().isEmpty()); // no report, no legend
        map.setResult(r);
        QStringList expected{streaming ? QStringLiteral("the layer on the wafer (one at a time)")
                                       : QStringLiteral("a kernel (one colour each)")};
        if (overMemory)
            expected << QStringLiteral("over its memory");
        if (bottleneck)
            expected << QStringLiteral("bottleneck: %1").arg(QString::fromStdString(cs.bottleneck));
        QCOMPARE(map.legendTexts(), expected);
        map.resize(500, 400);
        const QImage shot = map.grab().toImage();
        QVERIFY(!shot.isNull()); // paints the legend without a crash
        if (streaming) {
            // One fill for the wafer, in the legend swatch's colour (the layers, drawn one over
            // the other, showed only the last, in a colour the legend did not have).
            const QRgb fill = seriesColor(0, 1, map.palette()).rgb();
            int same = 0;
            for (int y = 0; y < shot.height(); ++y)
                for (int x = 0; x < shot.width(); ++x)
                    same += shot.pixel(x, y) == fill;
            QVERIFY2(same > shot.width() * shot.height() / 3, qPrintable(QString::number(same)));
        }
    }

    // Each IPU block of the tile map is labelled with its tile range, shortened to "IPU n" when
    // the block is narrow (at the map's smallest, 200 pixels).
    void tileMapLabels_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("form"); // full, short
        QTest::addRow("wide") << QSize(900, 500) << "full";
        QTest::addRow("narrow") << QSize(200, 160) << "short";
    }
    void tileMapLabels()
    {
        QFETCH(QSize, size);
        QFETCH(QString, form);
        const TileStats stats = TileStats::from(*m_ipu->ipu);
        QCOMPARE(m_ipu->ipu->ipusPerReplica, 2);
        TileMap map;
        map.setStats(stats);
        map.resize(size);
        const QStringList labels = map.blockLabels();
        QCOMPARE(labels.size(), 2);
        const int per = stats.tilesPerIpu;
        if (form == QLatin1String("full"))
            QCOMPARE(labels, (QStringList{
                                 QStringLiteral("IPU 0 · tiles 0–%1").arg(per - 1),
                                 QStringLiteral("IPU 1 · tiles %1–%2").arg(per).arg(2 * per - 1)}));
        else
            QCOMPARE(labels, (QStringList{QStringLiteral("IPU 0"), QStringLiteral("IPU 1")}));
    }

private:
    std::shared_ptr<sim::CompileResult> m_ipu, m_cs;
};

QTEST_MAIN(TestProfileCharts)
#include "test_profile_charts.moc"
