// Offscreen tests of the profile panel: load a report made by the compiler, click a tile on the
// memory chart and the tile map and check the details, apply a remedy, edit the split, broken
// reports, export, palette changes. With PORTOLAN_PROFILE_SHOTS=DIR it saves a grab of every page.
#include "core/report/report.h"
#include "profile_fixture.h"
#include "views/profile/chart_export.h"
#include "views/profile/compare_page.h"
#include "views/profile/comparison_model.h"
#include "views/profile/compile_settings.h"
#include "views/profile/cs_kernel_model.h"
#include "views/profile/cs_page.h"
#include "views/profile/gantt_chart.h"
#include "views/profile/liveness_page.h"
#include "views/profile/memory_chart.h"
#include "views/profile/memory_page.h"
#include "views/profile/pipeline_page.h"
#include "views/profile/plot_theme.h"
#include "views/profile/profile_panel.h"
#include "views/profile/split_bar.h"
#include "views/profile/summary_page.h"
#include "views/profile/tile_details.h"
#include "views/profile/tile_map.h"
#include "views/profile/tile_map_page.h"
#include "views/profile/variable_table_model.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace portolan;
using namespace portolan::views;

namespace {

bool waitIdle(ProfilePanel& panel, int ms = 60000)
{
    return QTest::qWaitFor([&] { return !panel.isBusy(); }, ms);
}

} // namespace

class TestProfilePanel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        auto ipu = test::compileSmall("ipu-mk2", 2);
        QVERIFY(ipu && ipu->ipu);
        m_ipuReport = m_dir.filePath(QStringLiteral("ipu.json"));
        QVERIFY(!report::saveReport(m_ipuReport.toStdString(), *ipu));
        auto cs = test::compileSmall("cs-2", 1);
        QVERIFY(cs && cs->cs);
        m_csReport = m_dir.filePath(QStringLiteral("cs.json"));
        QVERIFY(!report::saveReport(m_csReport.toStdString(), *cs));
    }

    void pages()
    {
        ProfilePanel panel;
        QCOMPARE(panel.pageIds(), (QStringList{"summary", "memory", "tilemap", "liveness",
                                               "pipeline", "cs", "graph", "compare"}));
        for (const QString& id : panel.pageIds()) {
            QVERIFY(panel.showPage(id));
            QCOMPARE(panel.currentPage(), id);
        }
        QVERIFY(!panel.showPage(QStringLiteral("nonsense")));
        QVERIFY(!panel.isBusy());
    }

    void openAndClickTile()
    {
        ProfilePanel panel;
        panel.resize(1400, 900);
        QString error;
        QVERIFY2(panel.openReport(m_ipuReport, &error), qPrintable(error));
        QVERIFY(panel.result() && panel.result()->ipu);
        QVERIFY(panel.summaryPage()->headline().contains(QStringLiteral("IPU")));
        panel.show();
        QVERIFY(panel.showPage(QStringLiteral("memory")));
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        MemoryChart* chart = panel.memoryPage()->chart();
        const auto& ipu = *panel.result()->ipu;
        QCOMPARE(chart->stats().tileCount, int(ipu.tileBytes[0].size()));
        QVERIFY2(!chart->isStacked(), "all tiles show as an envelope");

        // Zoom in to 40 tiles: stacked bars; click the middle of tile 10's bar.
        chart->showTiles(-0.5, 39.5);
        QVERIFY(chart->isStacked());
        const int x = int(chart->xAxis->coordToPixel(10));
        const int y = int(chart->yAxis->coordToPixel(1));
        QTest::mouseClick(chart, Qt::LeftButton, {}, QPoint(x, y));
        TileDetails* details = panel.memoryPage()->details();
        QCOMPARE(details->tile(), 10);
        QVERIFY2(details->summary().startsWith(QStringLiteral("Tile 10 (IPU 0")),
                 qPrintable(details->summary()));
        const std::vector<int> expected = sim::variablesOnTile(ipu, 10);
        QCOMPARE(details->model()->rowCount(), int(expected.size()));
        QVERIFY(details->model()->rowCount() > 0);
        QVERIFY(details->model()->bytesHere() >= ipu.tileBytes[0][10]);
        const QString name = details->model()->index(0, VariableTableModel::Name).data().toString();
        QVERIFY(!name.isEmpty());

        // The IPU filter limits the chart to IPU 1's tiles.
        panel.memoryPage()->ipuFilter()->setCurrentIndex(2);
        QVERIFY(chart->xAxis->range().lower >= ipu.tilesPerIpu - 1);
        QCOMPARE(panel.memoryPage()->stageFilter()->currentData().toInt(), 1);

        // The tile map: click where tile 1472 + 3 is drawn.
        QVERIFY(panel.showPage(QStringLiteral("tilemap")));
        TileMap* map = panel.tileMapPage()->map();
        QTest::qWait(10);
        const int target = ipu.tilesPerIpu + 3;
        QPoint hit(-1, -1);
        for (int py = 0; py < map->height() && hit.x() < 0; ++py)
            for (int px = 0; px < map->width(); ++px)
                if (map->tileAt(QPoint(px, py)) == target) {
                    hit = QPoint(px, py);
                    break;
                }
        QVERIFY2(hit.x() >= 0, "tile is on the map");
        QTest::mouseClick(map, Qt::LeftButton, {}, hit);
        QCOMPARE(panel.tileMapPage()->details()->tile(), target);
        QVERIFY(panel.tileMapPage()->details()->summary().contains(QStringLiteral("IPU 1")));
        panel.tileMapPage()->scaleSlider()->setValue(50);
        QCOMPARE(map->scale(), 0.5);

        // Liveness: a step lists what is live.
        QVERIFY(panel.showPage(QStringLiteral("liveness")));
        panel.livenessPage()->showStep(0);
        QVERIFY(panel.livenessPage()->model()->rowCount() > 0);
        QVERIFY2(panel.livenessPage()->stepSummary().contains(QStringLiteral("tep 0 ")),
                 qPrintable(panel.livenessPage()->stepSummary()));
        shoot(panel);
    }

    void brokenReports_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        const QString f = QStringLiteral(PROFILE_FIXTURES "/");
        QTest::addRow("truncated") << f + "truncated.json"
                                   << "truncated.json:1:";
        QTest::addRow("garbage") << f + "garbage.json"
                                 << "garbage.json:1:";
        QTest::addRow("empty") << f + "empty.json"
                               << "empty.json";
        QTest::addRow("future version") << f + "future_version.json"
                                        << "future_version.json";
        QTest::addRow("array") << f + "array.json"
                               << "array.json";
        QTest::addRow("missing") << f + "no_such_report.json"
                                 << "no such file";
        QTest::addRow("folder") << f << "not a readable file";
        // nlohmann refuses a number beyond a double's range with out_of_range, not parse_error:
        // it ended the program (fuzz_report). The message points at the number.
        QTest::addRow("number overflow") << f + "number_overflow.json"
                                         << "number_overflow.json:3:10: error: the report is not "
                                            "valid JSON: number overflow parsing '1e400'";
        QTest::addRow("truncated real report") << QStringLiteral("@half") << "half.json:";
    }
    void brokenReports()
    {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        if (file == QLatin1String("@half")) {
            QFile in(m_ipuReport);
            QVERIFY(in.open(QIODevice::ReadOnly));
            const QByteArray all = in.readAll();
            file = m_dir.filePath(QStringLiteral("half.json"));
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(all.left(all.size() / 2));
        }
        ProfilePanel panel;
        QSignalSpy failed(&panel, &ProfilePanel::reportFailed);
        QString error;
        QVERIFY(!panel.openReport(file, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
        QCOMPARE(failed.count(), 1);
        QVERIFY(!panel.result());
        QCOMPARE(panel.statusText(), error);
    }

    // No remedy: the table gives way to a sentence saying why (fits, or nothing tried helps),
    // and a result with remedies shows the table again.
    void adviceEmptyExplained()
    {
        ProfilePanel panel;
        panel.resize(1000, 700);
        panel.show();
        auto fits = test::compileSmall("cs-2", 1);
        QVERIFY(fits);
        auto noAdvice = std::make_shared<sim::CompileResult>(*fits);
        noAdvice->advice.clear();
        panel.setResult(noAdvice);
        const auto* empty = panel.summaryPage()->findChild<QLabel*>(QStringLiteral("adviceEmpty"));
        QVERIFY(empty);
        QVERIFY(empty->isVisible());
        QVERIFY(!panel.summaryPage()->adviceTable()->isVisible());
        QVERIFY2(empty->text().contains(noAdvice->fits ? QStringLiteral("Nothing to fix")
                                                       : QStringLiteral("No remedy")),
                 qPrintable(empty->text()));
        if (!noAdvice->fits) {
            // The way out is offered in place: the link starts the search.
            QSignalSpy find(panel.summaryPage(), &SummaryPage::findConfigurationRequested);
            emit const_cast<QLabel*>(empty)->linkActivated(QStringLiteral("find"));
            QCOMPARE(find.count(), 1);
        }
        auto big = test::compileSmall("ipu-mk1", 1, 512, 1);
        QVERIFY(big);
        auto bigNoAdvice = std::make_shared<sim::CompileResult>(*big);
        bigNoAdvice->advice.clear();
        panel.setResult(bigNoAdvice);
        if (!bigNoAdvice->fits) {
            QVERIFY2(empty->text().contains(QStringLiteral("No remedy")),
                     qPrintable(empty->text()));
            QSignalSpy find(panel.summaryPage(), &SummaryPage::findConfigurationRequested);
            emit const_cast<QLabel*>(empty)->linkActivated(QStringLiteral("find"));
            QCOMPARE(find.count(), 1);
            QVERIFY(waitIdle(panel)); // the search ran and settled
        }
        panel.setResult(big);
        QCOMPARE(empty->isVisible(), big->advice.empty());
        QCOMPARE(panel.summaryPage()->adviceTable()->isVisible(), !big->advice.empty());
    }

    void remedyAppliesAndResimulates()
    {
        ProfilePanel panel;
        // Compile the small graph with a large micro-batch on a Mk1 so that it does not fit.
        auto big = test::compileSmall("ipu-mk1", 1, 512, 1);
        QVERIFY(big);
        panel.setResult(big);
        QTableWidget* advice = panel.summaryPage()->adviceTable();
        if (big->fits || advice->rowCount() == 0)
            QSKIP("the configuration fits; no advice to apply");
        int row = -1;
        for (int r = 0; r < advice->rowCount(); ++r)
            if (advice->item(r, 0)->data(Qt::UserRole).toString() == QLatin1String("fp16"))
                row = r;
        QVERIFY(row >= 0);
        QSignalSpy changed(&panel, &ProfilePanel::resultChanged);
        emit advice->cellActivated(row, 0);
        QVERIFY(panel.isBusy()); // debounced, then compiling
        QVERIFY(waitIdle(panel));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(panel.result()->options.training.precision, sim::Precision::Fp16);
    }

    void layersPerStageFromOpSplit()
    {
        // Stages touching layers [0,3), [2,5), [4,8): shared layers go to the later stage.
        std::vector<sim::StageProfile> stages(3);
        stages[0].firstLayer = 0, stages[0].endLayer = 3;
        stages[1].firstLayer = 2, stages[1].endLayer = 5;
        stages[2].firstLayer = 4, stages[2].endLayer = 8;
        QCOMPARE(sim::LayerSplit::fromStages(stages, 8).perStage(), (std::vector<int>{2, 2, 4}));
        // Every stage inside one layer still gets a layer of its own.
        for (auto& s : stages)
            s.firstLayer = 1, s.endLayer = 2;
        QCOMPARE(sim::LayerSplit::fromStages(stages, 4).perStage(), (std::vector<int>{1, 1, 2}));
    }

    void findConfigurationAndRemedies()
    {
        ProfilePanel panel;
        panel.setResult(test::compileSmall("ipu-mk2", 2));
        auto* ipus = panel.settings()->findChild<QSpinBox*>(QStringLiteral("ipus"));
        ipus->setValue(4); // more IPUs than the small model needs
        QVERIFY(waitIdle(panel));
        QCOMPARE(panel.result()->options.ipus, 4);
        // A result compiled in the GUI names its system, as the CLI's reports do.
        QCOMPARE(panel.result()->ipu->systemName.rfind("IPU-M2000", 0), std::size_t(0));
        auto* find = panel.settings()->findChild<QPushButton*>(QStringLiteral("findConfiguration"));
        QVERIFY(find);
        find->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy() && panel.result()->options.ipus == 1, 60000);
        QVERIFY(panel.result()->fits);
        QCOMPARE(ipus->value(), 1);
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("profileStatus")));
        // Remedies come from core: recompute turns the box on and re-simulates.
        auto* recompute = panel.settings()->findChild<QCheckBox*>(QStringLiteral("recompute"));
        const bool was = recompute->isChecked();
        if (!was) {
            QVERIFY(panel.settings()->applyRemedy("recompute"));
            QVERIFY(recompute->isChecked());
            QVERIFY(waitIdle(panel));
            QVERIFY(panel.result()->options.training.recompute);
        }
        QVERIFY(!panel.settings()->applyRemedy("no-such-remedy"));
    }

    void settingsDebounceAndSplit()
    {
        ProfilePanel panel;
        panel.setResult(test::compileSmall("ipu-mk2", 2));
        QSignalSpy changed(&panel, &ProfilePanel::resultChanged);
        // Three quick edits make one re-simulation.
        auto* ipus = panel.settings()->findChild<QSpinBox*>(QStringLiteral("ipus"));
        QVERIFY(ipus);
        ipus->setValue(3);
        ipus->setValue(4);
        ipus->setValue(3);
        QVERIFY(waitIdle(panel));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(int(panel.result()->ipu->stages.size()), 3);
        // Editing the split on the pipeline page re-simulates with a user split.
        std::vector<int> split = panel.pipelinePage()->split();
        QCOMPARE(int(split.size()), 3);
        const int layers0 = split[0];
        const bool grow = split[1] > 1;
        QVERIFY(panel.pipelinePage()->editStage(0, grow ? layers0 + 1 : layers0 - 1));
        QVERIFY(waitIdle(panel));
        QCOMPARE(panel.result()->ipu->splitSource, std::string("user"));
        QVERIFY(panel.pipelinePage()->balanceText().contains(QStringLiteral("balance")));
        // A 0 is accepted (an IPU with the embeddings only, in Graphcore's block counts).
        auto* splitEdit = panel.settings()->findChild<QLineEdit*>(QStringLiteral("split"));
        splitEdit->setText(QStringLiteral("0,2,2"));
        QString splitError;
        panel.settings()->options(&splitError);
        QVERIFY2(!splitError.contains(QStringLiteral("not a number")), qPrintable(splitError));
        QVERIFY(waitIdle(panel));
        // A malformed split is shown and not compiled.
        splitEdit->setText(QStringLiteral("2,x"));
        QVERIFY(!panel.isBusy());
    }

    void memoryHeight_data()
    {
        QTest::addColumn<int>("microBatch");
        QTest::addColumn<bool>("autoShowsCapacity");
        QTest::addRow("small model: auto fits the data") << 1 << false;
        QTest::addRow("out of memory: auto shows the capacity") << 512 << true;
    }
    void memoryHeight()
    {
        QFETCH(int, microBatch);
        QFETCH(bool, autoShowsCapacity);
        MemoryPage page;
        page.setResult(test::compileSmall("ipu-mk1", 1, microBatch, 1));
        MemoryChart* chart = page.chart();
        const double capacity = double(chart->stats().capacity);
        const double top =
            double(*std::max_element(chart->stats().total.begin(), chart->stats().total.end()));
        QVERIFY(capacity > 0);
        QCOMPARE(top < 0.25 * capacity, !autoShowsCapacity); // the fixture is what the row says
        auto* height = page.findChild<QComboBox*>(QStringLiteral("heightMode"));
        auto* hint = page.findChild<QLabel*>(QStringLiteral("memoryHint"));
        QVERIFY(height && hint);
        QCOMPARE(chart->heightMode(), MemoryChart::Height::Auto);
        QCOMPARE(chart->capacityInView(), autoShowsCapacity);
        QCOMPARE(hint->text().contains(QStringLiteral("Dashed line")), autoShowsCapacity);
        height->setCurrentIndex(1); // capacity
        QVERIFY(chart->capacityInView());
        QVERIFY(hint->text().contains(QStringLiteral("Dashed line")));
        height->setCurrentIndex(2); // fullest tile
        QCOMPARE(chart->heightMode(), MemoryChart::Height::Data);
        QVERIFY(chart->yAxis->range().upper >= top);
        QVERIFY(chart->yAxis->range().upper < top * 1.1 + 2);
    }

    void dragSplitBoundary_data()
    {
        QTest::addColumn<int>("layers"); // how far to drag, in layers (sign: direction)
        QTest::addColumn<bool>("escape");
        QTest::addRow("one layer") << 1 << false;
        QTest::addRow("far past the neighbour: clamped") << 100 << false;
        QTest::addRow("escape puts it back") << 1 << true;
    }
    void dragSplitBoundary()
    {
        QFETCH(int, layers);
        QFETCH(bool, escape);
        ProfilePanel panel;
        panel.resize(1000, 800);
        panel.setResult(test::compileSmall("ipu-mk2", 2));
        panel.show();
        panel.showPage(QStringLiteral("pipeline"));
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        SplitBar* bar = panel.pipelinePage()->splitBar();
        const std::vector<int> before = panel.pipelinePage()->split();
        QCOMPARE(bar->split(), before);
        QCOMPARE(int(before.size()), 2);
        const int total = before[0] + before[1];
        QVERIFY2(total >= 3, "the small graph needs layers to move");
        // Drag toward the larger stage, so at least one layer can move.
        const int direction = before[1] > 1 ? 1 : -1;
        const double layerWidth = double(bar->width() - 8) / total;
        const int y = bar->height() / 2;
        const int x0 = bar->boundaryX(0);
        const int x1 = x0 + int(direction * layers * layerWidth);
        QSignalSpy edited(panel.pipelinePage(), &PipelinePage::splitEdited);
        QSignalSpy changed(&panel, &ProfilePanel::resultChanged);
        QTest::mousePress(bar, Qt::LeftButton, {}, QPoint(x0, y));
        QVERIFY(bar->dragging());
        QTest::mouseMove(bar, QPoint((x0 + x1) / 2, y));
        QTest::mouseMove(bar, QPoint(x1, y));
        QCOMPARE(edited.count(), 0); // nothing is compiled while the boundary moves
        if (escape)
            QTest::keyClick(bar, Qt::Key_Escape);
        QTest::mouseRelease(bar, Qt::LeftButton, {}, QPoint(x1, y));
        QVERIFY(!bar->dragging());
        if (escape) {
            QCOMPARE(bar->split(), before);
            QCOMPARE(edited.count(), 0);
            return;
        }
        const int moved = std::min(layers, direction > 0 ? before[1] - 1 : before[0] - 1);
        const std::vector<int> expected{before[0] + direction * moved,
                                        before[1] - direction * moved};
        QCOMPARE(edited.count(), 1);
        QCOMPARE(edited.at(0).at(0).value<std::vector<int>>(), expected);
        QCOMPARE(panel.pipelinePage()->split(), expected);
        // The spin boxes follow the drag, and the compiler gets the split.
        auto* spin0 = panel.pipelinePage()->findChild<QSpinBox*>(QStringLiteral("stage0"));
        QVERIFY(spin0);
        QCOMPARE(spin0->value(), expected[0]);
        QVERIFY(waitIdle(panel));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(panel.result()->ipu->splitSource, std::string("user"));
        QCOMPARE(panel.pipelinePage()->split(), expected);
        QCOMPARE(bar->split(), expected);
    }

    void csReport()
    {
        ProfilePanel panel;
        panel.resize(1200, 800);
        QString error;
        QVERIFY2(panel.openReport(m_csReport, &error), qPrintable(error));
        QVERIFY(panel.result()->cs);
        QCOMPARE(panel.csPage()->model()->rowCount(), int(panel.result()->cs->kernels.size()));
        QVERIFY(!panel.memoryPage()->isEnabled());
        panel.show();
        panel.showPage(QStringLiteral("cs"));
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        shoot(panel, QStringLiteral("cs-"));
        // A wafer has no tiles: the summary hides the fullest tiles and their histogram (which
        // stayed empty, or kept the axes of the previous IPU report), and shows them again for
        // the next IPU report.
        auto* tilePane = panel.summaryPage()->findChild<QWidget*>(QStringLiteral("tilePane"));
        QVERIFY(tilePane);
        QVERIFY(tilePane->isHidden());
        QVERIFY(panel.summaryPage()->figures().contains(QStringLiteral("Model footprint")));
        QVERIFY2(panel.openReport(m_ipuReport, &error), qPrintable(error));
        QVERIFY(!tilePane->isHidden());
    }

    void compareTwoReports()
    {
        ComparePage page;
        QAbstractItemModelTester tester(page.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&page, &ComparePage::loaded);
        page.openReport(0, m_ipuReport);
        QVERIFY(loaded.wait(20000));
        page.openReport(1, m_csReport);
        QVERIFY(loaded.wait(20000));
        QVERIFY(page.model()->rowCount() > 0);
        page.openReport(1, QStringLiteral(PROFILE_FIXTURES "/garbage.json"));
        QVERIFY(loaded.wait(20000));
        QVERIFY(page.error().contains(QStringLiteral("garbage.json")));
    }

    void exportCharts_data()
    {
        QTest::addColumn<QString>("suffix");
        QTest::addRow("png") << "png";
        QTest::addRow("svg") << "svg";
        QTest::addRow("pdf") << "pdf";
    }
    void exportCharts()
    {
        QFETCH(QString, suffix);
        ProfilePanel panel;
        panel.resize(1200, 800);
        QString error;
        QVERIFY(panel.openReport(m_ipuReport, &error));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QList<QWidget*> charts = {static_cast<QWidget*>(panel.memoryPage()->chart()),
                                        static_cast<QWidget*>(panel.tileMapPage()->map()),
                                        static_cast<QWidget*>(panel.summaryPage()->histogram()),
                                        static_cast<QWidget*>(panel.pipelinePage()->gantt())};
        for (QWidget* chart : charts) {
            const QString file = m_dir.filePath(chart->objectName() + QLatin1Char('.') + suffix);
            QVERIFY2(exportChart(chart, file, &error), qPrintable(error));
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray head = f.read(8);
            if (suffix == QLatin1String("png"))
                QVERIFY(head.startsWith("\x89PNG"));
            else if (suffix == QLatin1String("pdf"))
                QVERIFY(head.startsWith("%PDF"));
            else
                QVERIFY(f.readAll().contains("<svg"));
        }
        QVERIFY(!exportChart(charts[0], m_dir.filePath(QStringLiteral("chart.bmpx")), &error));
        QVERIFY(error.contains(QStringLiteral(".png")));
    }

    void darkPalette()
    {
        ProfilePanel panel;
        panel.resize(1000, 700);
        QString error;
        QVERIFY(panel.openReport(m_ipuReport, &error));
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(30, 30, 30));
        dark.setColor(QPalette::Base, QColor(20, 20, 20));
        dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        panel.setPalette(dark);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        MemoryChart* chart = panel.memoryPage()->chart();
        QCOMPARE(chart->xAxis->tickLabelColor(), QColor(230, 230, 230));
        shoot(panel, QStringLiteral("dark-"));
    }

    // One colour language: red means over capacity or an error, so no stage colour is red in
    // either palette; forward and backward are one hue apart from the stages; the pipeline's
    // and the liveness chart's legends sit in a row of their own, not over the data.
    void colourLanguage_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::addRow("light") << false;
        QTest::addRow("dark") << true;
    }
    void colourLanguage()
    {
        QFETCH(bool, dark);
        QPalette pal;
        if (dark) {
            pal.setColor(QPalette::Window, QColor(30, 30, 30));
            pal.setColor(QPalette::WindowText, QColor(230, 230, 230));
        } else {
            pal.setColor(QPalette::Window, QColor(240, 240, 240));
            pal.setColor(QPalette::WindowText, QColor(10, 10, 10));
        }
        for (int i = 0; i < 64; ++i) {
            const int hue = seriesColor(i, 64, pal).hslHue();
            QVERIFY2(hue >= 30 && hue <= 330, qPrintable(QString::number(hue)));
        }
        QCOMPARE(forwardColor(pal).hslHue(), backwardColor(pal).hslHue());
        QVERIFY(forwardColor(pal) != backwardColor(pal));
        QVERIFY(forwardColor(pal).hslHue() != alertColor(pal).hslHue());

        ProfilePanel panel;
        panel.resize(1000, 700);
        QString error;
        QVERIFY(panel.openReport(m_ipuReport, &error));
        for (QCustomPlot* plot : {panel.findChild<QCustomPlot*>(QStringLiteral("stageChart")),
                                  panel.findChild<QCustomPlot*>(QStringLiteral("livenessChart"))}) {
            QVERIFY(plot);
            QCOMPARE(plot->legend->layout(), static_cast<QCPLayout*>(plot->plotLayout()));
        }
    }

    // A project's model is recorded by the Torch child (portolan-torch), off the GUI thread:
    // the runtime's model of a sample, a dry run's capture (here one without model.pt, whose
    // graph comes from the module tree, and with a BeginBlock split), or a message saying what
    // to do when nothing knows the model.
    void projectRecordedInTheChild_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("origin"); // empty: the recording fails
        QTest::addColumn<QString>("message");
        QTest::addRow("runtime model")
            << QStringLiteral(PORTOLAN_SAMPLES "/small-cnn-poptorch") << "libtorch: "
            << "";
        QTest::addRow("model family")
            << m_dir.filePath(QStringLiteral("modelzoo-bert")) << "params: "
            << "";
        QTest::addRow("capture") << m_dir.filePath(QStringLiteral("captured"))
                                 << "capture: train.py, dry-run batch 2"
                                 << "";
        // The GUI's wording of compile.no-model: the reason, and the button below it in place
        // of the portolan-cli command the CLI prints (workflow::guiWording).
        QTest::addRow("no model") << m_dir.filePath(QStringLiteral("unknown")) << ""
                                  << "no capture of a dry run yet. A dry run of the project's "
                                     "own code captures its model";
    }
    void projectRecordedInTheChild()
    {
        QFETCH(QString, project);
        QFETCH(QString, origin);
        QFETCH(QString, message);
        writeProjects();
        ProfilePanel panel;
        QSignalSpy failed(&panel, &ProfilePanel::compileFailed);
        panel.setProject(project);
        QVERIFY(panel.isBusy());
        QVERIFY(waitIdle(panel, 120000));
        if (origin.isEmpty()) {
            QCOMPARE(failed.count(), 1);
            const QString text = failed.at(0).at(0).toString();
            QVERIFY2(text.contains(message), qPrintable(text));
            QVERIFY2(panel.statusText().contains(message), qPrintable(panel.statusText()));
            QVERIFY2(!text.contains(QLatin1String("portolan-cli")), qPrintable(text));
            QVERIFY(!panel.result());
            // The GUI's way out beside the CLI's wording: a button that asks for the dry run.
            auto* dry = panel.findChild<QPushButton*>(QStringLiteral("dryRunForModel"));
            QVERIFY(dry && !dry->isHidden());
            QSignalSpy asked(&panel, &ProfilePanel::dryRunRequested);
            dry->click();
            QCOMPARE(asked.count(), 1);
            return;
        }
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        QVERIFY(panel.findChild<QPushButton*>(QStringLiteral("dryRunForModel"))->isHidden());
        QVERIFY(panel.result());
        const auto kept = panel.result(); // r stays valid when a re-simulation replaces it
        const auto& r = *kept;
        QVERIFY2(QString::fromStdString(r.graph.origin).startsWith(origin), r.graph.origin.c_str());
        QVERIFY(r.graph.totalParams() > 0);
        if (origin.startsWith(QStringLiteral("capture"))) {
            // The capture's batch and optimizer, and the project's split beside the automatic.
            QCOMPARE(r.options.training.microBatch, 32);
            QCOMPARE(r.options.training.optimizer, sim::Optimizer::AdamW);
            QVERIFY(r.projectSplit);
            QCOMPARE(r.projectSplit->ipus, (std::vector<int>{0, 1}));
            // The project's IPUs, by the rule portolan-cli compile uses
            // (sim::applyProjectSettings).
            QCOMPARE(r.options.ipus, 2);
            QCOMPARE(r.projectSplit->ipuCount, 2);
            QVERIFY2(panel.pipelinePage()->projectSplitText().startsWith(
                         QStringLiteral("The project's split (poptorch.BeginBlock)")),
                     qPrintable(panel.pipelinePage()->projectSplitText()));
            QVERIFY2(panel.summaryPage()->figures().contains(
                         QStringLiteral("The project's split (poptorch.BeginBlock)")),
                     qPrintable(panel.summaryPage()->figures()));
            QVERIFY(panel.summaryPage()->figures().contains(QStringLiteral("(capture: train.py")));
        } else {
            if (origin.startsWith(QStringLiteral("params"))) {
                // A Cerebras config opens on a CS system with the reason shown (issue 26), by
                // the rule portolan-cli compile uses without --target (sim::defaultTarget): the
                // params batch whole.
                QCOMPARE(r.options.target, std::string("cs-2"));
                QVERIFY2(panel.defaultTargetReason().contains(QStringLiteral("Cerebras")),
                         qPrintable(panel.defaultTargetReason()));
                QCOMPARE(r.options.training.microBatch, 32);
                QCOMPARE(r.options.training.gradAccum, 1);
            } else {
                // The params batch (train_input.batch_size 32) on the default IPU target:
                // micro-batch 1 accumulated to the batch, as the CLI's compile does
                // (sim::applyProjectTraining).
                QCOMPARE(r.options.target, std::string("ipu-mk2"));
                QVERIFY(panel.defaultTargetReason().isEmpty());
                QCOMPARE(r.options.training.microBatch, 1);
                QCOMPARE(r.options.training.gradAccum, 32);
            }
            if (origin.startsWith(QStringLiteral("params"))) {
                QCOMPARE(r.options.training.optimizer, sim::Optimizer::Lamb);
                // The report saved from the Profile tab names the Model Zoo family, as
                // portolan-cli compile's does (sim::modelFamilyNotes for both), and keeps it
                // through a re-simulation with other settings.
                QVERIFY(r.modelFamily);
                QCOMPARE(r.modelFamily->family, std::string("bert"));
                QVERIFY2(QString::fromStdString(r.modelFamily->params).endsWith("params.yaml"),
                         r.modelFamily->params.c_str());
                sim::CompileOptions o = r.options;
                o.training.microBatch = 2;
                panel.settings()->setOptions(o);
                panel.recompile();
                QVERIFY(waitIdle(panel, 120000));
                QCOMPARE(panel.result()->options.training.microBatch, 2);
                const std::string file = m_dir.filePath(QStringLiteral("saved.json")).toStdString();
                QVERIFY(!report::saveReport(file, *panel.result()));
                auto back = report::loadReport(file);
                QVERIFY2(back, back.error.toString().c_str());
                QVERIFY(back.value->modelFamily);
                QCOMPARE(back.value->modelFamily->family, std::string("bert"));
                QCOMPARE(back.value->modelFamily->architecture, r.modelFamily->architecture);
            } else {
                QVERIFY(!r.modelFamily); // a recorded model has none
            }
            QVERIFY(!r.projectSplit);
            QVERIFY(panel.pipelinePage()->projectSplitText().isEmpty());
        }
    }

    // The project's guide suggests the target (a Cerebras port: a CS-2). The params batch is
    // mapped onto it again (a CS system runs the whole batch), whether the suggestion comes
    // before the model is built or after; a target the user picked stays.
    void suggestedTarget_data()
    {
        QTest::addColumn<bool>("beforeBuilt");
        QTest::addColumn<QString>("userPick"); // empty: the user picks nothing
        QTest::addColumn<QString>("expected");
        QTest::addColumn<bool>("whileCompiling");
        // A project opens while its model compiles, and the analysis (which names the guide's
        // target) may finish while that first compile runs: its stale result once reset the
        // form to the IPU, so a Cerebras GPT-2 opened on an IPU Mk2.
        QTest::addRow("while the first compile runs") << false << QString() << "cs-2" << true;
        QTest::addRow("before the model is built") << true << QString() << "cs-2" << false;
        QTest::addRow("after the first compile") << false << QString() << "cs-2" << false;
        QTest::addRow("the user picked a target") << false << "ipu-bow"
                                                  << "ipu-bow" << false;
    }
    void suggestedTarget()
    {
        QFETCH(bool, beforeBuilt);
        QFETCH(QString, userPick);
        QFETCH(QString, expected);
        QFETCH(bool, whileCompiling);
        writeProjects();
        // Declared before the panel: the slot below reads it on every later compileStarted, so
        // it must live as long as the panel (ASan: stack-use-after-scope when it was local to
        // the if block).
        bool suggested = false;
        ProfilePanel panel;
        QSignalSpy results(&panel, &ProfilePanel::resultChanged);
        panel.setProject(m_dir.filePath(QStringLiteral("modelzoo-bert")));
        if (beforeBuilt)
            panel.suggestTarget(QStringLiteral("cs-2"));
        if (whileCompiling) {
            // The guide's target comes while the first compile runs (the slot runs before that
            // compile's result can come back); a long settle delay makes the result arrive
            // while the re-simulation still waits.
            panel.setSettleDelay(3000);
            connect(&panel, &ProfilePanel::compileStarted, &panel, [&] {
                if (suggested)
                    return;
                suggested = true;
                QVERIFY(panel.result() == nullptr);
                panel.suggestTarget(QStringLiteral("cs-2"));
            });
            QVERIFY(QTest::qWaitFor([&] { return suggested; }, 120000));
        }
        QVERIFY(waitIdle(panel, 120000));
        QVERIFY(QTest::qWaitFor([&] { return panel.result() != nullptr; }, 60000));
        if (!userPick.isEmpty()) {
            auto* target = panel.settings()->findChild<QComboBox*>(QStringLiteral("target"));
            QVERIFY(target);
            const int index = target->findData(userPick);
            QVERIFY(index >= 0);
            target->setCurrentIndex(index);
            emit target->activated(index); // what a click on the item sends
            QVERIFY(QTest::qWaitFor(
                [&] { return panel.result()->options.target == userPick.toStdString(); }, 60000));
        }
        if (!beforeBuilt && !whileCompiling) {
            results.clear();
            panel.suggestTarget(QStringLiteral("cs-2"));
            panel.suggestTarget(QStringLiteral("no-such-target")); // ignored
            // A Model Zoo config already opens on its vendor's CS-2 (sim::defaultTarget), so the
            // guide's suggestion changes nothing then; a user's pick is never overridden.
            if (userPick.isEmpty() && panel.defaultTargetReason().isEmpty())
                QVERIFY(results.wait(60000));
            else
                QVERIFY(!results.wait(1500));
        }
        QVERIFY(waitIdle(panel, 60000));
        const auto& r = *panel.result();
        QCOMPARE(QString::fromStdString(r.options.target), expected);
        if (expected == QLatin1String("cs-2")) {
            QCOMPARE(r.options.training.microBatch, 32); // the params batch, whole
            QCOMPARE(r.options.training.gradAccum, 1);
        } else {
            // The user's pick keeps the samples per weight update of the form it was made in.
            QCOMPARE(r.options.training.microBatch * r.options.training.gradAccum, 32);
        }
    }

    void cancelRecording()
    {
        ProfilePanel panel;
        QSignalSpy failed(&panel, &ProfilePanel::compileFailed);
        panel.setProject(QStringLiteral(PORTOLAN_SAMPLES "/small-cnn-poptorch"));
        QVERIFY(panel.isRecording());
        // Once the child runs (or before: the choice of source is dropped too).
        QTest::qWait(50);
        panel.cancelRecording();
        QVERIFY(!panel.isRecording());
        QVERIFY(!panel.isBusy());
        QCOMPARE(panel.statusText(), QStringLiteral("Recording cancelled."));
        QTest::qWait(1500); // nothing late arrives from the cancelled recording
        QVERIFY(!panel.result());
        QVERIFY(failed.isEmpty());
        QCOMPARE(panel.statusText(), QStringLiteral("Recording cancelled."));
    }

    // Closing the window while the Torch child records: the child is ended with the panel and
    // reports nothing to it (its finished() used to reach the half-destroyed panel; the asan
    // preset's UBSan caught it in test_main_window).
    void destroyedWhileRecording()
    {
        auto* panel = new ProfilePanel;
        panel->setProject(QStringLiteral(PORTOLAN_SAMPLES "/small-cnn-poptorch"));
        QProcess* child = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT(
            (child = panel->findChild<QProcess*>()) && child->state() == QProcess::Running, 60000);
        const qint64 pid = child->processId();
        QVERIFY(pid > 0);
        delete panel;
        QVERIFY(!QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid)));
    }

private:
    // The projects of projectRecordedInTheChild: one with a capture of a two-layer MLP (module
    // tree only: its model.pt is absent, as when tracing fails), and one Portolan knows nothing
    // about.
    void writeProjects()
    {
        QDir(m_dir.path()).mkpath(QStringLiteral("captured/.portolan/capture"));
        QDir(m_dir.path()).mkpath(QStringLiteral("unknown"));
        // A Model Zoo project: Graphcore's BERT-Base pretraining params (batch 32, LAMB).
        QDir(m_dir.path()).mkpath(QStringLiteral("modelzoo-bert/configs"));
        const QString bert = m_dir.filePath(QStringLiteral("modelzoo-bert/configs/params.yaml"));
        QFile::remove(bert);
        QVERIFY(
            QFile::copy(QStringLiteral(PORTOLAN_SOURCE_DIR
                                       "/tests/sim/fixtures/fidelity/bert_base_pretraining.yaml"),
                        bert));
        QFile script(m_dir.filePath(QStringLiteral("unknown/train.py")));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import torch\n");
        QFile f(m_dir.filePath(QStringLiteral("captured/.portolan/capture/capture.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "portolan-capture", "version": 1, "entry": "train.py",
 "flavour": "graphcore-poptorch", "torch_version": "1.13.1",
 "model": {"class": "model.Net", "trace": null, "trace_error": "tracing failed", "training": true},
 "inputs": [{"name": "x", "shape": [2, 784], "dtype": "float32"}],
 "batch": {"dry_run": 2, "full": 32, "source": "train_input.batch_size"},
 "modules": [
  {"path": "", "type": "model.Net", "leaf": false, "params": 0, "param_bytes": 0, "ipu": null,
   "calls": 1, "inputs": [{"shape": [2, 784], "dtype": "float32"}],
   "outputs": [{"shape": [2, 10], "dtype": "float32"}]},
  {"path": "fc1", "type": "torch.nn.modules.linear.Linear", "leaf": true, "params": 100480,
   "param_bytes": 401920, "ipu": null, "calls": 1,
   "inputs": [{"shape": [2, 784], "dtype": "float32"}],
   "outputs": [{"shape": [2, 128], "dtype": "float32"}]},
  {"path": "relu", "type": "torch.nn.modules.activation.ReLU", "leaf": true, "params": 0,
   "param_bytes": 0, "ipu": null, "calls": 1,
   "inputs": [{"shape": [2, 128], "dtype": "float32"}],
   "outputs": [{"shape": [2, 128], "dtype": "float32"}]},
  {"path": "fc2", "type": "torch.nn.modules.linear.Linear", "leaf": true, "params": 1290,
   "param_bytes": 5160, "ipu": 1, "calls": 1,
   "inputs": [{"shape": [2, 128], "dtype": "float32"}],
   "outputs": [{"shape": [2, 10], "dtype": "float32"}]}],
 "pipeline": {"source": "poptorch.BeginBlock",
              "stages": [{"ipu": 0, "modules": ["fc1", "relu"]}, {"ipu": 1, "modules": ["fc2"]}]},
 "options": {"poptorch": {"device_iterations": 1}, "runconfig": {}},
 "optimizer": {"class": "torch.optim.AdamW", "param_groups": [{"lr": 0.001, "params": 101770}]},
 "steps": 3})");
    }

    // Saves a grab of every page when PORTOLAN_PROFILE_SHOTS names a folder.
    void shoot(ProfilePanel& panel, const QString& prefix = {})
    {
        const QString dir = qEnvironmentVariable("PORTOLAN_PROFILE_SHOTS");
        if (dir.isEmpty())
            return;
        for (const QString& id : panel.pageIds()) {
            panel.showPage(id);
            QVERIFY(waitIdle(panel));
            QTest::qWait(50);
            QVERIFY(
                panel.grab().save(dir + QLatin1Char('/') + prefix + id + QStringLiteral(".png")));
        }
    }

    QTemporaryDir m_dir;
    QString m_ipuReport, m_csReport;
};

QTEST_MAIN(TestProfilePanel)
#include "test_profile_panel.moc"
