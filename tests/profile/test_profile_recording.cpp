// Offscreen tests of the profile panel on projects: the model recorded in the Torch child, built
// from a Model Zoo family or read from a dry run's capture, or unknown (with the dry-run button);
// the target the project suggests; cancelling a recording and closing the panel during one.
#include "profile_panel_helpers.h"
#include "views/profile/chart_export.h"
#include "views/profile/compare_page.h"
#include "views/profile/comparison_model.h"
#include "views/profile/compile_settings.h"
#include "views/profile/cs_kernel_model.h"
#include "views/profile/cs_page.h"
#include "views/profile/dry_run_notice.h"
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

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>

using namespace portolan;
using namespace portolan::views;
using portolan::test::waitIdle;

class TestProfileRecording : public QObject
{
    Q_OBJECT
private slots:
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
            // The pages a report fills and that have no notice of their own say it too, with
            // the same button (the Op graph was blank, Liveness said "compile a project").
            auto* notice = panel.findChild<DryRunNotice*>(QStringLiteral("pagesDryRunNotice"));
            QVERIFY(notice);
            for (const char* page : {"liveness", "pipeline", "cs", "graph", "summary", "compare"}) {
                QVERIFY(panel.showPage(QString::fromLatin1(page)));
                const bool shared = qstrcmp(page, "summary") != 0 && qstrcmp(page, "compare") != 0;
                QVERIFY2(notice->isVisibleTo(&panel) == shared, page);
            }
            QVERIFY(panel.showPage(QStringLiteral("graph")));
            notice->button()->click();
            QCOMPARE(asked.count(), 2);
            return;
        }
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        QVERIFY(panel.findChild<QPushButton*>(QStringLiteral("dryRunForModel"))->isHidden());
        QVERIFY(panel.result());
        const auto kept = panel.result(); // r stays valid when a re-simulation replaces it
        const auto& r = *kept;
        QVERIFY2(QString::fromStdString(r.graph.origin).startsWith(origin), r.graph.origin.c_str());
        // The source line names the project and the model's origin relative to it; the paths
        // are on hover.
        const auto* source = panel.findChild<QLabel*>(QStringLiteral("profileSource"));
        QVERIFY(source);
        QVERIFY2(!source->text().contains(project), qPrintable(source->text()));
        QVERIFY2(source->text().contains(QFileInfo(project).fileName()),
                 qPrintable(source->text()));
        QVERIFY2(source->toolTip().contains(project), qPrintable(source->toolTip()));
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

    QTemporaryDir m_dir;
};

QTEST_MAIN(TestProfileRecording)
#include "test_profile_recording.moc"
