// Offscreen tests of the profile panel's compile form: the advice and its remedies (applied and
// simulated again), the layers per stage, finding a configuration that fits, the debounced
// settings and the pipeline split edited in the form and by dragging, the memory chart's height.
#include "profile_panel_helpers.h"
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

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>

using namespace portolan;
using namespace portolan::views;
using portolan::test::waitIdle;

class TestProfileSettings : public QObject
{
    Q_OBJECT
private slots:
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

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestProfileSettings)
#include "test_profile_settings.moc"
