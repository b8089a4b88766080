// Offscreen tests of the profile panel with reports made by the compiler: its pages, a tile clicked
// on the memory chart and the tile map, broken reports, a CS report, two reports compared, export,
// palette changes and the colour language. With PORTOLAN_PROFILE_SHOTS=DIR it saves a grab of
// every page. The compile form is in test_profile_settings, recording in test_profile_recording.
#include "profile_panel_helpers.h"
#include "views/common/placeholder_table_view.h"
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
#include "views/profile/split_bar.h"
#include "views/profile/summary_page.h"
#include "views/profile/tile_details.h"
#include "views/profile/tile_map.h"
#include "views/profile/tile_map_page.h"
#include "views/profile/variable_table_model.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QListWidget>
#include <QSignalSpy>

using namespace portolan;
using namespace portolan::views;
using portolan::test::waitIdle;

class TestProfilePanel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::writeReports(m_dir, m_ipuReport, m_csReport); }

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
        test::shootPages(panel);
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
        // The status line reads as a sentence; the diagnostic is whole behind it.
        QCOMPARE(panel.statusMessage(), error);
        QVERIFY2(!panel.statusText().contains(QLatin1String(": error: ")) &&
                     !panel.statusText().endsWith(QLatin1String("]")),
                 qPrintable(panel.statusText()));
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
        test::shootPages(panel, QStringLiteral("cs-"));
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
        // Before two reports, the table says how to choose them; no empty notes list below it.
        const auto* table = page.findChild<PlaceholderTableView*>(QStringLiteral("comparison"));
        QVERIFY(table);
        QVERIFY2(table->shownPlaceholder().startsWith(QStringLiteral("Choose two reports")),
                 qPrintable(table->shownPlaceholder()));
        QVERIFY(page.findChild<QListWidget*>()->isHidden());
        page.openReport(0, m_ipuReport);
        QVERIFY(loaded.wait(20000));
        page.openReport(1, m_csReport);
        QVERIFY(loaded.wait(20000));
        QVERIFY(page.model()->rowCount() > 0);
        QVERIFY(table->shownPlaceholder().isEmpty());
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
        test::shootPages(panel, QStringLiteral("dark-"));
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

private:
    QTemporaryDir m_dir;
    QString m_ipuReport, m_csReport;
};

QTEST_MAIN(TestProfilePanel)
#include "test_profile_panel.moc"
