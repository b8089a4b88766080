// The porting wizard, flow panel and code view wired in the main window, offscreen, on the
// sample projects: steps and findings appear, a finding opens its code, a fix applies and undoes,
// and an edit on disk re-runs the checks.
#include "app/gui/main_window.h"
#include "core/analysis/analysis.h"
#include "core/guides/guide.h"
#include "port_test_support.h"
#include "views/code/code_view.h"
#include "views/common/placeholder_table_view.h"
#include "views/graph/graph_view.h"
#include "views/porting/analysis_runner.h"
#include "views/porting/findings_model.h"
#include "views/porting/flow_panel.h"
#include "views/porting/guide_steps_model.h"
#include "views/porting/params_fix_dialog.h"
#include "views/porting/port_dialog.h"
#include "views/porting/port_plan_model.h"
#include "views/porting/porting_wizard.h"
#include "views/profile/profile_panel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDirIterator>
#include <QIcon>
#include <QLabel>
#include <QListView>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>

using namespace portolan;
using portolan::app::MainWindow;
using porttest::copyTree;

namespace {

int firstRowWithFix(views::FindingsModel* m)
{
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, 0).data(views::FindingsModel::HasFixRole).toBool())
            return r;
    return -1;
}

} // namespace

class TestPortingGui : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PortolanTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_porting_gui"));
        QSettings().clear();
    }

    void wizardOnSamples_data()
    {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<bool>("expectErrors");
        QTest::addRow("mnist original") << "mnist-mlp-original" << true;
        QTest::addRow("mnist ported") << "mnist-mlp-cerebras-pytorch" << false;
        QTest::addRow("transformer original") << "alphabet-transformer-original" << true;
        QTest::addRow("determined ported") << "image-classifier-determined" << false;
        QTest::addRow("poptorch ported") << "small-cnn-poptorch" << false;
    }
    void wizardOnSamples()
    {
        QFETCH(QString, sample);
        QFETCH(bool, expectErrors);
        MainWindow w;
        w.setInteractive(false);
        w.resize(1200, 800);
        w.show();
        QAbstractItemModelTester stepsTester(
            w.wizard()->stepsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester findingsTester(
            w.wizard()->findingsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(QStringLiteral(PORTOLAN_SAMPLES "/") + sample);
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 20000);
        const auto snap = w.analysisRunner()->snapshot();
        QVERIFY(snap);
        QVERIFY(w.wizard()->stepsModel()->rowCount() >= 4);
        QCOMPARE(snap->result.errors > 0, expectErrors);
        if (!expectErrors) {
            // Every step is done except those only a compile or a run can verify.
            int notVerified = 0;
            for (int s = 0; s < w.wizard()->stepsModel()->rowCount(); ++s)
                notVerified +=
                    w.wizard()->stepsModel()->index(s).data(views::GuideStepsModel::StatusRole) ==
                    int(guides::StepStatus::NotVerified);
            QCOMPARE(w.wizard()->stepsModel()->stepsDone(),
                     w.wizard()->stepsModel()->stepCount() - notVerified);
        }
        // It opens on the first step with errors or warnings (else with notes), not on a step 1
        // with nothing to show.
        int expected = -1;
        for (const bool notesToo : {false, true})
            for (int s = 0; s < w.wizard()->stepsModel()->rowCount() && expected < 0; ++s) {
                const QModelIndex i = w.wizard()->stepsModel()->index(s);
                if (i.data(views::GuideStepsModel::ErrorsRole).toInt() +
                            i.data(views::GuideStepsModel::WarningsRole).toInt() >
                        0 ||
                    (notesToo && i.data(views::GuideStepsModel::FindingCountRole).toInt() > 0))
                    expected = s;
            }
        QCOMPARE(w.wizard()->currentStep(), std::max(expected, 0));
        // Walk every step; each one lists its own findings.
        for (int s = 0; s < w.wizard()->stepsModel()->rowCount(); ++s) {
            w.wizard()->selectStep(s);
            QCOMPARE(w.wizard()->findingsModel()->rowCount(),
                     w.wizard()
                         ->stepsModel()
                         ->index(s)
                         .data(views::GuideStepsModel::FindingCountRole)
                         .toInt());
        }
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 20000);
    }

    // A folder with no workflow Portolan knows (a params file on its own, or code of no known
    // kind) says so and what would fill the checklist, instead of a blank list and page.
    void noWorkflowExplained_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("says");
        QTest::addRow("a params file on its own")
            << "params.yaml" << QByteArray("model:\n  hidden_size: 8\n") << "no Python code";
        QTest::addRow("code of no known kind")
            << "tool.py" << QByteArray("print('no training here')\n") << "did not recognise";
    }
    void noWorkflowExplained()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, content);
        QFETCH(QString, says);
        QTemporaryDir dir;
        QFile f(dir.filePath(file));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        MainWindow w;
        w.setInteractive(false);
        w.resize(1024, 700);
        w.show();
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(dir.path());
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 20000);
        QVERIFY(w.analysisRunner()->snapshot());
        QVERIFY2(!w.analysisRunner()->snapshot()->guide(),
                 "the fixture must be a folder with no workflow recognised");
        const auto* title = w.wizard()->findChild<QLabel*>(QStringLiteral("stepTitle"));
        const auto* text = w.wizard()->findChild<QTextBrowser*>(QStringLiteral("stepExplanation"));
        QVERIFY(title && text);
        QCOMPARE(title->text(), QStringLiteral("No workflow to check against"));
        QVERIFY2(text->toPlainText().contains(says), qPrintable(text->toPlainText()));
        const auto* progress = w.wizard()->findChild<QProgressBar*>();
        QVERIFY(progress);
        QCOMPARE(progress->text(), QStringLiteral("no checklist"));
        // No empty step list, no findings table saying "its status is in the list of steps".
        QVERIFY(w.wizard()->findChild<QListView*>(QStringLiteral("stepList"))->isHidden());
        QVERIFY(w.wizard()->findChild<QTableView*>(QStringLiteral("findingTable"))->isHidden());
    }

    // "Generate the port…" wired in the main window: a plan item opens its code in the Code tab,
    // and the written port becomes the open project.
    void portDialogOpensCodeAndPort()
    {
        QTemporaryDir tmp;
        const QString original = tmp.filePath(QStringLiteral("mnist"));
        QVERIFY(copyTree(QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-original"), original));
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(original);
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 20000);
        w.analysisRunner()->setGuide(QStringLiteral("graphcore-poptorch"));
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 2 && !w.analysisRunner()->isRunning(), 20000);
        QVERIFY(w.wizard()->canGeneratePort());
        views::PortDialog* dialog = w.wizard()->openPortDialog();
        QVERIFY(dialog);
        dialog->setInteractive(false);
        QSignalSpy generated(dialog, &views::PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);

        views::PortPlanModel* model = dialog->planModel();
        const QModelIndex loss = model->groupIndex(QStringLiteral("loss"));
        const QModelIndex item = model->index(0, 0, loss);
        QTreeView* view = nullptr;
        for (auto* v : dialog->findChildren<QTreeView*>())
            if (v->model() == model)
                view = v;
        QVERIFY(view);
        emit view->clicked(item);
        QCOMPARE(w.codeView()->fileName(), item.data(views::PortPlanModel::FileRole).toString());
        QCOMPARE(w.codeView()->textCursor().blockNumber() + 1,
                 item.data(views::PortPlanModel::LineRole).toInt());

        QSignalSpy opened(&w, &MainWindow::projectOpened);
        dialog->setOutputFolder(tmp.filePath(QStringLiteral("mnist-poptorch")));
        QVERIFY(dialog->writePort());
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() >= 1, 20000);
        QCOMPARE(QFileInfo(opened.last().at(0).toString()).canonicalFilePath(),
                 QFileInfo(tmp.filePath(QStringLiteral("mnist-poptorch"))).canonicalFilePath());
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 20000);
        dialog->close();
    }

    // Issue 26: "Fits in memory" read "passed" with nothing behind it. It now says "not
    // verified", why, and offers the compile that verifies it; the button leads to the Profile.
    void notVerifiedStepOffersItsAction()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1200, 800);
        w.show();
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(QStringLiteral(PORTOLAN_SAMPLES "/small-cnn-poptorch"));
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 20000);
        views::PortingWizard* wiz = w.wizard();
        views::GuideStepsModel* steps = wiz->stepsModel();
        int memory = -1;
        for (int s = 0; s < steps->rowCount(); ++s)
            if (steps->index(s).data(views::GuideStepsModel::StepIdRole).toString() ==
                QLatin1String("memory"))
                memory = s;
        QVERIFY(memory >= 0);
        const QModelIndex m = steps->index(memory);
        QCOMPARE(m.data(views::GuideStepsModel::StatusRole).toInt(),
                 int(guides::StepStatus::NotVerified));
        QVERIFY(m.data(Qt::DisplayRole).toString().endsWith(QStringLiteral("not verified")));
        QVERIFY(!m.data(Qt::DisplayRole).toString().contains(QStringLiteral("passed")));
        QVERIFY(m.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Compile the model")));
        QVERIFY(!m.data(Qt::DecorationRole).value<QIcon>().isNull());
        QVERIFY(w.selectView(QStringLiteral("wizard")));
        wiz->selectStep(memory);
        QVERIFY(wiz->verifyButton()->isVisible());
        QCOMPARE(wiz->verifyButton()->text(), QStringLiteral("Compile the model"));
        QVERIFY(wiz->notVerifiedText().contains(QStringLiteral("compil")));
        QSignalSpy compile(wiz, &views::PortingWizard::compileRequested);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 20000);
        wiz->verifyButton()->click();
        QCOMPARE(compile.count(), 1);
        QVERIFY(w.profilePanel()->isVisible());
        // One action, one name: the step's button and the Profile's "no model" buttons lead to
        // the same dry run and read the same.
        const QString dryRun =
            views::GuideStepsModel::verifyActionText(int(guides::VerifyAction::Run));
        QCOMPARE(dryRun, QStringLiteral("Dry-Run the Project in the Runs Tab"));
        for (const char* name : {"dryRunForModel", "summaryDryRun"}) {
            auto* button = w.profilePanel()->findChild<QPushButton*>(QLatin1String(name));
            QVERIFY2(button, name);
            QCOMPARE(button->text(), dryRun);
        }
        // A step that passed shows no action.
        wiz->selectStep(0);
        QVERIFY(!wiz->verifyButton()->isVisibleTo(wiz));
        // Its findings table, when empty, says so rather than showing a blank grid.
        auto* findings =
            wiz->findChild<views::PlaceholderTableView*>(QStringLiteral("findingTable"));
        QVERIFY(findings);
        QCOMPARE(findings->shownPlaceholder().isEmpty(), findings->model()->rowCount() > 0);
        QVERIFY(!findings->placeholderText().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 20000);
    }

    void findingOpensCode()
    {
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(QStringLiteral(PORTOLAN_SAMPLES "/alphabet-transformer-original"));
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 20000);
        views::PortingWizard* wiz = w.wizard();
        int step = -1;
        for (int s = 0; s < wiz->stepsModel()->rowCount() && step < 0; ++s)
            if (wiz->stepsModel()->index(s).data(views::GuideStepsModel::FindingCountRole).toInt() >
                0)
                step = s;
        QVERIFY(step >= 0);
        wiz->selectStep(step);
        wiz->selectFinding(0);
        const QModelIndex f = wiz->findingsModel()->index(0, 0);
        const QString file = f.data(views::FindingsModel::FileRole).toString();
        const int line = f.data(views::FindingsModel::LineRole).toInt();
        QCOMPARE(w.codeView()->fileName(), file);
        QCOMPARE(w.codeView()->textCursor().blockNumber() + 1, line);
        bool marked = false;
        for (const auto& m : w.codeView()->markers())
            marked = marked || m.line == line;
        QVERIFY(marked);
    }

    void applyAndUndoFix()
    {
        QTemporaryDir tmp;
        QVERIFY(copyTree(QStringLiteral(PORTOLAN_SAMPLES "/alphabet-transformer-original"),
                         tmp.path()));
        MainWindow w;
        w.setInteractive(false);
        w.analysisRunner()->setSettleDelay(50);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(tmp.path());
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 20000);
        views::PortingWizard* wiz = w.wizard();
        int step = -1, row = -1;
        for (int s = 0; s < wiz->stepsModel()->rowCount() && row < 0; ++s) {
            wiz->selectStep(s);
            row = firstRowWithFix(wiz->findingsModel());
            step = s;
        }
        QVERIFY2(row >= 0, "no finding with a fix in the transformer original");
        const QString file = tmp.filePath(
            wiz->findingsModel()->index(row, 0).data(views::FindingsModel::FileRole).toString());
        QFile in(file);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray before = in.readAll();
        in.close();
        const int errorsBefore = w.analysisRunner()->snapshot()->result.errors +
                                 w.analysisRunner()->snapshot()->result.warnings;

        const int runs = analysed.count();
        QVERIFY(wiz->applyFixOfFinding(row, false));
        QFile after(file);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QVERIFY(after.readAll() != before);
        after.close();
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() > runs && !w.analysisRunner()->isRunning(),
                                 20000);
        QTRY_VERIFY_WITH_TIMEOUT(w.analysisRunner()->snapshot()->result.errors +
                                         w.analysisRunner()->snapshot()->result.warnings <
                                     errorsBefore,
                                 20000);
        QCOMPARE(wiz->undoDepth(), 1);
        QVERIFY(wiz->undoLastFix());
        QFile undone(file);
        QVERIFY(undone.open(QIODevice::ReadOnly));
        QCOMPARE(undone.readAll(), before);
        Q_UNUSED(step);
    }

    // The params file from argparse: the dialog shows where each flag goes, a moved or renamed
    // key changes the diff, a clash is refused; applied through the wizard it writes the file,
    // and undo removes it again.
    void paramsFixDialog()
    {
        auto a = analysis::analyzeProject(PORTOLAN_SAMPLES "/mnist-mlp-original");
        QVERIFY(a);
        auto analysis = std::make_shared<const analysis::ProjectAnalysis>(std::move(*a.value));
        auto plan = guides::planParamsFromArgparse(*analysis, guides::ParamsTarget::Cerebras);
        QVERIFY(plan);
        views::ParamsFixDialog dialog(analysis, *plan);
        QVERIFY(dialog.fix());
        QVERIFY(dialog.diffText().contains(QStringLiteral("+++ b/configs/params.yaml")));
        QVERIFY(dialog.diffText().contains(QStringLiteral("params[\"model\"][\"hidden_size\"]")));
        const int row = dialog.rowOf(QStringLiteral("hidden_size"));
        QVERIFY(row >= 0);
        dialog.setSection(row, QStringLiteral("train_input"));
        dialog.setKey(row, QStringLiteral("width"));
        QVERIFY(dialog.fix());
        QVERIFY(dialog.diffText().contains(QStringLiteral("params[\"train_input\"][\"width\"]")));
        QVERIFY(!dialog.diffText().contains(QStringLiteral("params[\"model\"][\"hidden_size\"]")));
        const int depth = dialog.rowOf(QStringLiteral("depth"));
        dialog.setSection(depth, QStringLiteral("train_input"));
        dialog.setKey(depth, QStringLiteral("width"));
        QVERIFY(!dialog.fix());
        QVERIFY(dialog.problem().contains(QStringLiteral("train_input.width")));
        dialog.setKey(depth, QStringLiteral("depth"));
        QVERIFY(dialog.fix());
        QVERIFY(dialog.problem().isEmpty());
    }

    void applyParamsFix()
    {
        QTemporaryDir tmp;
        QVERIFY(copyTree(QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-original"), tmp.path()));
        MainWindow w;
        w.setInteractive(false);
        w.analysisRunner()->setSettleDelay(50);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(tmp.path());
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 20000);
        w.analysisRunner()->setGuide(QStringLiteral("cerebras-pytorch"));
        QTRY_VERIFY_WITH_TIMEOUT(!w.analysisRunner()->isRunning() &&
                                     w.analysisRunner()->snapshot()->guideId == "cerebras-pytorch",
                                 20000);
        views::PortingWizard* wiz = w.wizard();
        auto findParamsFile = [&]() -> int {
            for (int s = 0; s < wiz->stepsModel()->rowCount(); ++s) {
                wiz->selectStep(s);
                for (int r = 0; r < wiz->findingsModel()->rowCount(); ++r)
                    if (wiz->findingsModel()->findingAt(r)->checkId ==
                        "cerebras-pytorch.params-file")
                        return r;
            }
            return -1;
        };
        const int row = findParamsFile();
        QVERIFY(row >= 0);
        QFile script(tmp.filePath(QStringLiteral("train.py")));
        QVERIFY(script.open(QIODevice::ReadOnly));
        const QByteArray before = script.readAll();
        script.close();
        const int runs = analysed.count();
        QVERIFY(wiz->applyFixOfFinding(row, false));
        QVERIFY(QFile::exists(tmp.filePath(QStringLiteral("configs/params.yaml"))));
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() > runs && !w.analysisRunner()->isRunning(),
                                 20000);
        QTRY_COMPARE_WITH_TIMEOUT(findParamsFile(), -1, 20000);
        QVERIFY(wiz->undoLastFix());
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("configs/params.yaml"))));
        QVERIFY(script.open(QIODevice::ReadOnly));
        QCOMPARE(script.readAll(), before);
    }

    // The params file picker: another of the project's YAML files, saved with the project,
    // used by the next analysis; the default rule again when the choice is forgotten.
    void chooseParamsFile()
    {
        QTemporaryDir tmp;
        QVERIFY(
            copyTree(QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-cerebras-pytorch"), tmp.path()));
        QVERIFY(QFile::copy(tmp.filePath(QStringLiteral("configs/params.yaml")),
                            tmp.filePath(QStringLiteral("configs/params_small.yaml"))));
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(tmp.path());
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1 && !w.analysisRunner()->isRunning(), 20000);
        views::PortingWizard* wiz = w.wizard();
        QCOMPARE(w.analysisRunner()->snapshot()->analysis->paramsFile.path,
                 std::string("configs/params.yaml"));
        QVERIFY(wiz->paramsCombo()->isEnabled());
        QVERIFY(wiz->paramsCombo()->findData(QStringLiteral("configs/params_small.yaml")) >= 0);
        QSignalSpy chosen(wiz, &views::PortingWizard::paramsFileChosen);
        QVERIFY(wiz->chooseParamsFile(QStringLiteral("configs/params_small.yaml")));
        QCOMPARE(chosen.count(), 1);
        QVERIFY(chosen.front().front().toString().endsWith(
            QStringLiteral("configs/params_small.yaml")));
        QTRY_VERIFY_WITH_TIMEOUT(w.analysisRunner()->snapshot()->analysis->paramsFile.path ==
                                     "configs/params_small.yaml",
                                 20000);
        QCOMPARE(w.analysisRunner()->snapshot()->analysis->paramsFile.source, ParamsSource::Saved);
        QTRY_COMPARE_WITH_TIMEOUT(wiz->paramsCombo()->currentData().toString(),
                                  QStringLiteral("configs/params_small.yaml"), 20000);
        QVERIFY(QFile::exists(tmp.filePath(QStringLiteral(".portolan/params-file"))));
        QVERIFY(wiz->chooseParamsFile(QString()));
        QTRY_VERIFY_WITH_TIMEOUT(w.analysisRunner()->snapshot()->analysis->paramsFile.source ==
                                     ParamsSource::Default,
                                 20000);
    }

    void editOnDiskRerunsChecks()
    {
        QTemporaryDir tmp;
        QVERIFY(
            copyTree(QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-cerebras-pytorch"), tmp.path()));
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(tmp.path());
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 20000);
        const int findingsBefore = int(w.analysisRunner()->snapshot()->result.allFindings().size());
        // An edit made in another editor: a function left over from the old script, using an
        // `args` that no longer exists (code the runner never calls is otherwise not checked).
        QFile data(tmp.filePath(QStringLiteral("run.py")));
        QVERIFY(data.open(QIODevice::Append));
        data.write("\n\ndef leftover(loss):\n    loss.backward()\n    return args.lr\n");
        data.close();
        QElapsedTimer clock;
        clock.start();
        QTRY_VERIFY_WITH_TIMEOUT(int(w.analysisRunner()->snapshot()->result.allFindings().size()) >
                                     findingsBefore,
                                 5000);
        qInfo("re-analysis visible %lld ms after the edit", clock.elapsed());
    }

    void flowPanelRendersAndLinks()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1200, 800);
        w.show();
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-cerebras-pytorch"));
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(w.flowPanel()->graphView()->isLaidOut(), 20000);
        QVERIFY(w.flowPanel()->graphView()->svg().contains("params.yaml"));
        w.flowPanel()->showDiagram(1);
        QTRY_VERIFY_WITH_TIMEOUT(!w.flowPanel()->graphView()->isRendering(), 20000);
        QVERIFY(w.flowPanel()->graphView()->svg().contains("model.py"));
    }
};

QTEST_MAIN(TestPortingGui)
#include "test_porting_gui.moc"
