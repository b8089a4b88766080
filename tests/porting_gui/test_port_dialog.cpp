// "Generate the port…" (issue 24, item 5), offscreen: the plan model under
// QAbstractItemModelTester, the dialog generating every target on the sample originals into a
// new folder (the original unchanged), the refusal of a non-empty folder, a changed choice that
// plans again, the wizard's action, and the verification's signal flow.
#include "core/analysis/analysis.h"
#include "core/common/number_format.h"
#include "core/dryrun/dry_run.h"
#include "core/port/generate.h"
#include "port_test_support.h"
#include "views/porting/analysis_runner.h"
#include "views/porting/port_dialog.h"
#include "views/porting/port_plan_model.h"
#include "views/porting/port_verify_panel.h"
#include "views/porting/porting_wizard.h"
#include "views/runs/loss_chart.h"
#include "views/runs/run_history.h"
#include "views/runs/run_panel.h"

#include <QAbstractItemModelTester>
#include <QCryptographicHash>
#include <QDirIterator>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStyle>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <algorithm>
#include <functional>

using namespace portolan;
using namespace porttest;
using views::PortDialog;
using views::PortPlanModel;
using views::PortVerifyPanel;
using views::RunHistory;

class TestPortDialog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_config.isValid());
        isolateConfig(m_config.path());
    }

    void planModel_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addRow("mnist-mlp") << "mnist-mlp-original";
        QTest::addRow("small-cnn") << "small-cnn-original";
        QTest::addRow("image-classifier") << "image-classifier-original";
        QTest::addRow("alphabet-transformer") << "alphabet-transformer-original";
    }
    void planModel()
    {
        QFETCH(QString, project);
        auto a = analyse(sample(project));
        QVERIFY(a);
        auto plan = port::planPort(*a);
        QVERIFY2(plan, plan.error.message.c_str());
        PortPlanModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(*plan.value, a.get());
        for (const char* kind : {"entry", "model", "loss", "optimizer", "scheduler", "data", "loop",
                                 "flags", "device-move", "leftover", "manual"})
            QVERIFY2(model.groupIndex(QString::fromLatin1(kind)).isValid(), kind);

        // The model's variable links to its code and is a choice the user can change.
        const QModelIndex modelGroup = model.groupIndex(QStringLiteral("model"));
        QVERIFY(model.rowCount(modelGroup) >= 2);
        const QModelIndex variable = model.index(0, PortPlanModel::ChoiceColumn, modelGroup);
        QCOMPARE(variable.data(PortPlanModel::OptionRole).toInt(),
                 int(PortPlanModel::ModelVariableOption));
        QVERIFY(variable.flags() & Qt::ItemIsEditable);
        QVERIFY(!variable.data(PortPlanModel::FileRole).toString().isEmpty());
        QVERIFY(variable.data(PortPlanModel::LineRole).toInt() > 0);
        const QModelIndex label = model.index(0, PortPlanModel::ItemColumn, modelGroup);
        QVERIFY(!(label.flags() & Qt::ItemIsEditable));

        // An optimizer item points at its construction.
        const QModelIndex opt = model.groupIndex(QStringLiteral("optimizer"));
        QVERIFY(model.rowCount(opt) >= 1);
        QVERIFY(model.index(0, 0, opt).data(PortPlanModel::LineRole).toInt() > 0);

        // Editing the loss expression emits the choice; plain items refuse edits.
        QSignalSpy edited(&model, &PortPlanModel::choiceEdited);
        const QModelIndex lossGroup = model.groupIndex(QStringLiteral("loss"));
        QModelIndex lossExpr;
        for (int r = 0; r < model.rowCount(lossGroup); ++r) {
            const QModelIndex i = model.index(r, PortPlanModel::ChoiceColumn, lossGroup);
            if (i.data(PortPlanModel::OptionRole).toInt() == PortPlanModel::LossOption)
                lossExpr = i;
        }
        QVERIFY(lossExpr.isValid());
        QVERIFY(model.setData(lossExpr, QStringLiteral("criterion(output, target) * 1.0")));
        QCOMPARE(edited.count(), 1);
        QCOMPARE(edited.at(0).at(1).toString(), QStringLiteral("criterion(output, target) * 1.0"));
        QVERIFY(
            !model.setData(model.index(0, PortPlanModel::ChoiceColumn, opt), QStringLiteral("x")));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void generatesEveryTarget_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("target");
        for (const char* p : {"mnist-mlp-original", "small-cnn-original"})
            for (const auto& t : port::portTargets())
                QTest::addRow("%s %s", p, t.c_str())
                    << QString::fromLatin1(p) << QString::fromStdString(t);
    }
    void generatesEveryTarget()
    {
        QFETCH(QString, project);
        QFETCH(QString, target);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        // A copy of the sample, so that the default sibling folder lands in the temporary folder.
        const QString original = tmp.filePath(project);
        QVERIFY(copyTree(sample(project), original));
        const QByteArray before = treeHash(original);

        PortDialog dialog(analyse(original), target);
        dialog.setInteractive(false);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        QVERIFY(dialog.port());
        QVERIFY(!dialog.isGenerating());
        QVERIFY(dialog.errorText().isEmpty());
        QCOMPARE(QFileInfo(dialog.outputFolder()).absolutePath(),
                 QFileInfo(original).absolutePath());
        QVERIFY(QFileInfo(dialog.outputFolder()).fileName().startsWith(project + QLatin1Char('-')));

        // Every file of the port can be previewed, with the text that will be written.
        const QStringList files = dialog.fileNames();
        QVERIFY(!files.isEmpty());
        for (const QString& f : files) {
            QVERIFY(dialog.showFile(f));
            QCOMPARE(dialog.shownFile(), f);
            QVERIFY(!dialog.previewText().isEmpty());
        }
        // A partial port lists what is left, each at its TODO(portolan) in the port.
        QCOMPARE(dialog.manualItems().size(), qsizetype(dialog.port()->manual.size()));
        bool allMarked = true;
        for (const auto& m : dialog.manualItems()) {
            if (!m.portFile.isEmpty())
                QVERIFY(files.contains(m.portFile));
            allMarked = allMarked && !m.portFile.isEmpty();
        }
        // The status says where the items are: at a TODO in the port only when each one is.
        if (!dialog.manualItems().isEmpty())
            QCOMPARE(dialog.statusText().contains(QLatin1String("original only")), !allMarked);

        QSignalSpy written(&dialog, &PortDialog::portWritten);
        QString error;
        QVERIFY2(dialog.writePort(&error), qPrintable(error));
        QCOMPARE(written.count(), 1);
        const QString out = written.at(0).at(0).toString();
        QCOMPARE(out, dialog.writtenFolder());
        for (const QString& f : files)
            QVERIFY2(QFileInfo::exists(out + QLatin1Char('/') + f), qPrintable(f));
        QCOMPARE(treeHash(original), before);
        // Written once: the same dialog does not write again over it.
        QVERIFY(!dialog.writePort());
    }

    void writeRefusesNonEmptyFolder()
    {
        QTemporaryDir tmp;
        const QString original = tmp.filePath(QStringLiteral("mnist"));
        QVERIFY(copyTree(sample(QStringLiteral("mnist-mlp-original")), original));
        const QByteArray before = treeHash(original);
        PortDialog dialog(analyse(original), QStringLiteral("determined-pytorchtrial"));
        dialog.setInteractive(false);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        QCOMPARE(QFileInfo(dialog.outputFolder()).fileName(), QStringLiteral("mnist-determined"));

        const QString busy = tmp.filePath(QStringLiteral("busy"));
        QVERIFY(QDir().mkpath(busy));
        QFile keep(busy + QStringLiteral("/keep.txt"));
        QVERIFY(keep.open(QIODevice::WriteOnly));
        keep.write("mine");
        keep.close();
        QSignalSpy written(&dialog, &PortDialog::portWritten);
        dialog.setOutputFolder(busy);
        QString error;
        QVERIFY(!dialog.writePort(&error));
        QVERIFY2(error.contains(QLatin1String("not empty")), qPrintable(error));
        QCOMPARE(QDir(busy).entryList(QDir::Files), QStringList{QStringLiteral("keep.txt")});

        // Inside the original is refused too: the original is never modified.
        dialog.setOutputFolder(original + QStringLiteral("/port"));
        QVERIFY(!dialog.writePort(&error));
        QVERIFY2(error.contains(QLatin1String("outside the original")), qPrintable(error));
        QCOMPARE(written.count(), 0);
        QCOMPARE(treeHash(original), before);

        // A taken default gets a number.
        QVERIFY(QDir().mkpath(tmp.filePath(QStringLiteral("mnist-determined"))));
        QFile taken(tmp.filePath(QStringLiteral("mnist-determined/x")));
        QVERIFY(taken.open(QIODevice::WriteOnly));
        taken.close();
        QCOMPARE(QFileInfo(PortDialog::defaultOutputFolder(
                               original, QStringLiteral("determined-pytorchtrial")))
                     .fileName(),
                 QStringLiteral("mnist-determined-2"));
    }

    void changedChoicePlansAgain()
    {
        PortDialog dialog(analyse(sample(QStringLiteral("mnist-mlp-original"))),
                          QStringLiteral("graphcore-poptorch"));
        dialog.setInteractive(false);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        PortPlanModel* model = dialog.planModel();
        const QModelIndex lossGroup = model->groupIndex(QStringLiteral("loss"));
        QModelIndex lossExpr;
        for (int r = 0; r < model->rowCount(lossGroup); ++r) {
            const QModelIndex i = model->index(r, PortPlanModel::ChoiceColumn, lossGroup);
            if (i.data(PortPlanModel::OptionRole).toInt() == PortPlanModel::LossOption)
                lossExpr = i;
        }
        QVERIFY(lossExpr.isValid());
        const QString changed = dialog.plan()->lossExpression.text.empty()
                                    ? QStringLiteral("0.0")
                                    : QString::fromStdString(dialog.plan()->lossExpression.text) +
                                          QStringLiteral(" * 1.0");
        QVERIFY(model->setData(lossExpr, changed));
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 2, 30000);
        QCOMPARE(QString::fromStdString(dialog.plan()->lossExpression.text), changed);
        bool inPort = false;
        for (const auto& f : dialog.port()->files)
            inPort = inPort || QString::fromStdString(f.text).contains(changed);
        QVERIFY(inPort);

        // A plan item asks for its code in the original.
        QSignalSpy code(&dialog, &PortDialog::codeRequested);
        const QModelIndex modelGroup = model->groupIndex(QStringLiteral("model"));
        QTreeView* view = nullptr;
        for (auto* v : dialog.findChildren<QTreeView*>())
            if (v->model() == model)
                view = v;
        QVERIFY(view);
        emit view->clicked(model->index(0, 0, modelGroup));
        QCOMPARE(code.count(), 1);
        QCOMPARE(code.at(0).at(0).toString(), QString::fromStdString(dialog.plan()->root.string()));
        QVERIFY(code.at(0).at(2).toInt() > 0);
    }

    void wizardAction_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("guide");
        QTest::addColumn<bool>("available");
        QTest::addRow("original for determined") << "mnist-mlp-original"
                                                 << "determined-pytorchtrial" << true;
        QTest::addRow("original for poptorch") << "small-cnn-original"
                                               << "graphcore-poptorch" << true;
        QTest::addRow("ported project") << "mnist-mlp-cerebras-pytorch"
                                        << "cerebras-pytorch" << false;
    }
    void wizardAction()
    {
        QFETCH(QString, project);
        QFETCH(QString, guide);
        QFETCH(bool, available);
        views::AnalysisRunner runner;
        views::PortingWizard wizard(&runner);
        QSignalSpy done(&runner, &views::AnalysisRunner::finished);
        runner.analyse(sample(project), guide);
        QTRY_VERIFY_WITH_TIMEOUT(done.count() >= 1, 60000);
        QCOMPARE(wizard.canGeneratePort(), available);
        QCOMPARE(wizard.portButton()->isEnabled(), available);
        PortDialog* dialog = wizard.openPortDialog();
        QCOMPARE(dialog != nullptr, available);
        if (!dialog)
            return;
        dialog->setInteractive(false);
        QSignalSpy generated(dialog, &PortDialog::generated);
        QSignalSpy code(&wizard, &views::PortingWizard::codeRequested);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        QCOMPARE(QString::fromStdString(dialog->port()->target), guide);
        emit dialog->codeRequested(QStringLiteral("/x"), QStringLiteral("train.py"), 3, 1);
        QCOMPARE(code.count(), 1);
        dialog->close();
    }

    void verifySignalFlow_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("target");
        // Whether the Runs tab shows the port (the GUI opens it once written) or still the
        // original when the verification runs: the overlay shows either way.
        QTest::addColumn<bool>("portOpen");
        QTest::addRow("mnist determined") << "mnist-mlp-original"
                                          << "determined-pytorchtrial" << true;
        QTest::addRow("transformer determined") << "alphabet-transformer-original"
                                                << "determined-pytorchtrial" << false;
        QTest::addRow("transformer poptorch") << "alphabet-transformer-original"
                                              << "graphcore-poptorch" << true;
    }
    void verifySignalFlow()
    {
        QFETCH(QString, project);
        QFETCH(QString, target);
        QFETCH(bool, portOpen);
        QTemporaryDir tmp;
        const QString original = tmp.filePath(project);
        QVERIFY(copyTree(sample(project), original));
        PortDialog dialog(analyse(original), target);
        dialog.setInteractive(false);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        QVERIFY(!dialog.verify()); // nothing written yet
        QVERIFY(dialog.writePort());
        // The Runs tab, wired as the main window wires it.
        views::RunPanel runs;
        runs.setInteractive(false);
        runs.setProject(portOpen ? dialog.writtenFolder() : original);
        connect(&dialog, &PortDialog::verifyProgress, &runs, &views::RunPanel::showVerification);
        // Steps drawn while the verification still runs: live, not only at the end.
        int liveSteps = 0;
        connect(&dialog, &PortDialog::verifyProgress, this,
                [&](const QString&, qint64 a, qint64 b) {
                    if (!dialog.isVerifying())
                        return;
                    const qint64 ca = portOpen ? a : -a, cb = portOpen ? b : -b;
                    liveSteps = std::max(liveSteps, runs.chart()->pointCount(ca) +
                                                        runs.chart()->pointCount(cb));
                });

        // Untrusted: nothing runs, nobody is asked.
        QSignalSpy started(&dialog, &PortDialog::verifyStarted);
        QSignalSpy finished(&dialog, &PortDialog::verifyFinished);
        QVERIFY(!dialog.verify());
        QCOMPARE(started.count(), 0);

        QVERIFY(!dryrun::TrustStore().setTrusted(original.toStdString(), true));
        const QString python =
            qEnvironmentVariable("PORTOLAN_PYTHON", QStringLiteral("/usr/bin/python3"));
        dialog.setPython(python);
        dialog.setVerifySteps(3);
        QVERIFY(dialog.verify());
        QCOMPARE(started.count(), 1);
        QVERIFY(dialog.isVerifying());
        QVERIFY(!dialog.verify()); // one at a time
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 240000);
        QVERIFY(!dialog.isVerifying());
        const port::VerifyResult* v = dialog.verifyResult();
        QVERIFY(v);
        QCOMPARE(finished.at(0).at(0).toBool(), v->agrees);
        QVERIFY(v->checkErrors >= 0);
        for (const auto& f : v->checkFindings)
            qInfo("check: %s", f.toString().c_str());
        qInfo("dry run: %d step(s) %s; original: %s", v->dryRunSteps, v->dryRunError.c_str(),
              v->originalError.c_str());
        if (!pythonHasTorch(python))
            QSKIP(qPrintable(QStringLiteral("%1 has no torch: the signal flow is verified, the "
                                            "dry runs and the loss agreement are not")
                                 .arg(python)));
        // What the dialog shows follows the result: the agreement, or the step where they part,
        // and each side's losses as a labelled series. (Whether a given sample's port agrees is
        // the engine's business, tested in tests/port; this checks the GUI shows it.)
        qInfo("%s: check errors %d, dry-run steps %d, compared %d, agrees %d, first divergence %d",
              qPrintable(project), v->checkErrors, v->dryRunSteps, v->stepsCompared, v->agrees,
              v->firstDivergence);
        QCOMPARE(dialog.lossChart()->runIds().size(),
                 qsizetype(!v->originalLosses.empty()) + qsizetype(!v->portLosses.empty()));
        if (!v->originalLosses.empty())
            QCOMPARE(dialog.lossChart()->pointCount(1), int(v->originalLosses.size()));
        if (!v->portLosses.empty())
            QCOMPARE(dialog.lossChart()->pointCount(2), int(v->portLosses.size()));
        const QString shown = dialog.verifySummaryText();
        if (v->agrees)
            QVERIFY2(shown.contains(QLatin1String("trains like the original")), qPrintable(shown));
        else if (v->firstDivergence > 0)
            QVERIFY2(shown.contains(QStringLiteral("at step %1").arg(v->firstDivergence)),
                     qPrintable(shown));
        else
            QVERIFY2(shown.contains(QLatin1String("Not shown")), qPrintable(shown));
        QVERIFY(shown.contains(
            QString::fromStdString(portolan::format::counted(v->checkErrors, "check error"))));
        // The two dry runs are two labelled runs of the port's Runs history, with their losses;
        // the original folder gets no history.
        RunHistory history;
        QVERIFY(history.open(dialog.writtenFolder()));
        QVERIFY(dialog.originalRunId() > 0 && dialog.portRunId() > 0);
        QCOMPARE(history.run(dialog.originalRunId()).model, QStringLiteral("original"));
        QCOMPARE(history.run(dialog.portRunId()).model, QStringLiteral("port"));
        QCOMPARE(history.lossCurve(dialog.originalRunId()).size(),
                 qsizetype(v->originalLosses.size()));
        QCOMPARE(history.lossCurve(dialog.portRunId()).size(), qsizetype(v->portLosses.size()));
        QVERIFY(!QFileInfo::exists(original + QStringLiteral("/.portolan/runs.sqlite")));

        // The Runs tab overlays both curves, live, with the dialog's verdict above them.
        const qint64 a = portOpen ? dialog.originalRunId() : -dialog.originalRunId();
        const qint64 b = portOpen ? dialog.portRunId() : -dialog.portRunId();
        QCOMPARE(runs.chart()->pointCount(a), int(v->originalLosses.size()));
        QCOMPARE(runs.chart()->pointCount(b), int(v->portLosses.size()));
        if (!v->originalLosses.empty() || !v->portLosses.empty())
            QVERIFY(liveSteps > 0);
        const QString verdict = runs.verificationText();
        QVERIFY(!verdict.isEmpty());
        QCOMPARE(verdict.contains(QLatin1String("not the open project")), !portOpen);
        if (v->dryRunError.empty() && v->originalError.empty())
            QVERIFY2(verdict.contains(PortVerifyPanel::verdictText(*v).toHtmlEscaped()),
                     qPrintable(verdict));

        // The original's dry run came before generation, as in the CLI's `port --verify`: the
        // epoch it read is in the port as written and as the dialog shows it (neither sample's
        // code names its data set's size, so nothing else can give it).
        if (target == QLatin1String("determined-pytorchtrial") && v->originalError.empty()) {
            QFile written(dialog.writtenFolder() + QStringLiteral("/const.yaml"));
            QVERIFY(written.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(written.readAll());
            QVERIFY2(text.contains(QLatin1String("records_per_epoch:")), qPrintable(text));
            const auto shownFile =
                std::find_if(dialog.port()->files.cbegin(), dialog.port()->files.cend(),
                             [](const port::GeneratedFile& f) { return f.path == "const.yaml"; });
            QVERIFY(shownFile != dialog.port()->files.cend());
            QCOMPARE(QString::fromStdString(shownFile->text), text);
        }
    }

    // The original's arguments on the Verify page: kept per project with the Runs tab's dry
    // run, given to the original's dry run; without them a script with a required flag says
    // so, in GUI words.
    void verifyArguments_data()
    {
        QTest::addColumn<QString>("words");
        QTest::addColumn<bool>("needsArguments");
        QTest::addRow("none given") << "" << true;
        QTest::addRow("given") << "--samples 32" << false;
    }
    void verifyArguments()
    {
        QFETCH(QString, words);
        QFETCH(bool, needsArguments);
        const QString python =
            qEnvironmentVariable("PORTOLAN_PYTHON", QStringLiteral("/usr/bin/python3"));
        if (!pythonHasTorch(python))
            QSKIP("no torch: the original cannot dry-run");
        QTemporaryDir tmp;
        const QString original = tmp.filePath(QStringLiteral("required-flag"));
        QVERIFY(copyTree(
            QStringLiteral(PORTOLAN_SOURCE_DIR "/tests/porting_gui/fixtures/required-flag"),
            original));
        QVERIFY(!dryrun::TrustStore().setTrusted(original.toStdString(), true));
        auto a = analyse(original);
        QVERIFY(a);
        // What the Runs tab saved for this original is on the page when it opens.
        QSettings().setValue(
            QStringLiteral("dryrun/arguments/") + QString::fromStdString(a->root.string()), words);
        PortDialog dialog(a, QStringLiteral("determined-pytorchtrial"));
        dialog.setInteractive(false);
        dialog.setPython(python);
        QCOMPARE(dialog.arguments(), words);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        // The values are the port's defaults.
        bool inPort = false;
        for (const auto& [key, value] : dialog.port()->hyperparameters)
            inPort = inPort || value == "32";
        QCOMPARE(inPort, !needsArguments);
        dialog.setOutputFolder(tmp.filePath(QStringLiteral("port")));
        QVERIFY(dialog.writePort());
        QSignalSpy finished(&dialog, &PortDialog::verifyFinished);
        QVERIFY(dialog.verify());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 240000);
        const port::VerifyResult* v = dialog.verifyResult();
        QVERIFY(v);
        qInfo("original: %s", v->originalError.c_str());
        QCOMPARE(v->originalError.find("[dryrun.required-argument]") != std::string::npos,
                 needsArguments);
        QCOMPARE(dialog.verifySummaryText().contains(QLatin1String("needs arguments")),
                 needsArguments);
        QCOMPARE(v->originalLosses.empty(), needsArguments);
    }

    // Cancel stops a running verification: the button is live only while it runs, the
    // dialog reports the stop, and no result (nor agreement) is claimed.
    void cancelVerify()
    {
        QTemporaryDir tmp;
        const QString original = tmp.filePath(QStringLiteral("mnist-mlp-original"));
        QVERIFY(copyTree(sample(QStringLiteral("mnist-mlp-original")), original));
        PortDialog dialog(analyse(original), QStringLiteral("determined-pytorchtrial"));
        dialog.setInteractive(false);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        QVERIFY(dialog.writePort());
        QVERIFY(!dialog.cancelVerify()); // nothing runs
        QVERIFY(!dryrun::TrustStore().setTrusted(original.toStdString(), true));
        dialog.setPython(
            qEnvironmentVariable("PORTOLAN_PYTHON", QStringLiteral("/usr/bin/python3")));
        auto* panel = dialog.findChild<PortVerifyPanel*>();
        QVERIFY(panel);
        QVERIFY(!panel->cancelButton()->isEnabled());
        QSignalSpy finished(&dialog, &PortDialog::verifyFinished);
        QVERIFY(dialog.verify());
        QVERIFY(panel->cancelButton()->isEnabled());
        QVERIFY(dialog.cancelVerify());
        QVERIFY(!panel->cancelButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QVERIFY(!dialog.isVerifying());
        QVERIFY(!dialog.verifyResult());
        QVERIFY2(dialog.verifySummaryText().contains(QLatin1String("cancelled")),
                 qPrintable(dialog.verifySummaryText()));
        QVERIFY(panel->verifyButton()->isEnabled());
    }

    // Issue 26: "Write the Port" touched the dialog's right edge at 1024 pixels. On every tab,
    // at both sizes, each button keeps the room its text asks for and a margin to the edge.
    void buttonsKeepTheirMargins_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QSize>("size");
        for (const char* target : {"determined-pytorchtrial", "cerebras-pytorch"})
            for (const QSize size : {QSize(1024, 700), QSize(1400, 900)})
                QTest::addRow("%s %dx%d", target, size.width(), size.height())
                    << QString::fromLatin1(target) << size;
    }
    void buttonsKeepTheirMargins()
    {
        QFETCH(QString, target);
        QFETCH(QSize, size);
        PortDialog dialog(analyse(sample(QStringLiteral("mnist-mlp-original"))), target);
        dialog.setInteractive(false);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        dialog.resize(size);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QCOMPARE(dialog.size(), size);
        const int margin = dialog.style()->pixelMetric(QStyle::PM_LayoutRightMargin);
        for (int tab = 0; tab < dialog.tabs()->count(); ++tab) {
            dialog.tabs()->setCurrentIndex(tab);
            QCoreApplication::processEvents();
            for (const QPushButton* b : dialog.findChildren<QPushButton*>()) {
                if (!b->isVisibleTo(&dialog))
                    continue;
                QVERIFY2(b->width() >= b->sizeHint().width(),
                         qPrintable(QStringLiteral("tab %1: %2 is %3 px of the %4 its text needs")
                                        .arg(tab)
                                        .arg(b->text())
                                        .arg(b->width())
                                        .arg(b->sizeHint().width())));
                const int right = b->mapTo(&dialog, QPoint(b->width(), 0)).x();
                QVERIFY2(right <= dialog.width() - std::max(6, margin),
                         qPrintable(QStringLiteral("tab %1: %2 ends at %3 of %4")
                                        .arg(tab)
                                        .arg(b->text())
                                        .arg(right)
                                        .arg(dialog.width())));
            }
        }
    }

    // Renders the dialog at the two sizes the brief asks to look at (PORTOLAN_SHOTS=folder).
    void screenshots()
    {
        const QString folder = qEnvironmentVariable("PORTOLAN_SHOTS");
        if (folder.isEmpty())
            QSKIP("set PORTOLAN_SHOTS to a folder to render the port dialog");
        QTemporaryDir tmp;
        const QString original = tmp.filePath(QStringLiteral("mnist-mlp-original"));
        QVERIFY(copyTree(sample(QStringLiteral("mnist-mlp-original")), original));
        PortDialog dialog(analyse(original), QStringLiteral("graphcore-poptorch"));
        dialog.setInteractive(false);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        // Written and verified, so that every tab shows what a user sees after the last step.
        dialog.setOutputFolder(tmp.filePath(QStringLiteral("mnist-mlp-original-poptorch")));
        QVERIFY(dialog.writePort());
        QVERIFY(!dryrun::TrustStore().setTrusted(original.toStdString(), true));
        QSignalSpy finished(&dialog, &PortDialog::verifyFinished);
        QVERIFY(dialog.verify());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 240000);
        dialog.show();
        for (const QSize size : {QSize(1024, 700), QSize(1400, 900)}) {
            dialog.resize(size);
            for (int tab = 0; tab < dialog.tabs()->count(); ++tab) {
                dialog.tabs()->setCurrentIndex(tab);
                QTest::qWait(100);
                const QString file = QStringLiteral("%1/port-dialog-%2x%3-tab%4.png")
                                         .arg(folder)
                                         .arg(size.width())
                                         .arg(size.height())
                                         .arg(tab);
                QVERIFY(dialog.grab().save(file));
            }
        }
    }

    // The YAML of a Determined port in the preview (its own highlighter).
    void screenshotYaml()
    {
        const QString folder = qEnvironmentVariable("PORTOLAN_SHOTS");
        if (folder.isEmpty())
            QSKIP("set PORTOLAN_SHOTS to a folder to render the port dialog");
        PortDialog dialog(analyse(sample(QStringLiteral("alphabet-transformer-original"))),
                          QStringLiteral("determined-pytorchtrial"));
        dialog.setInteractive(false);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        QString yaml;
        for (const QString& f : dialog.fileNames())
            if (f.endsWith(QLatin1String(".yaml")))
                yaml = f;
        QVERIFY(!yaml.isEmpty());
        dialog.show();
        dialog.resize(1024, 700);
        dialog.tabs()->setCurrentIndex(1);
        QVERIFY(dialog.showFile(yaml));
        QTest::qWait(100);
        QVERIFY(dialog.grab().save(folder + QStringLiteral("/port-dialog-1024x700-yaml.png")));
    }

private:
    QTemporaryDir m_config;
};

QTEST_MAIN(TestPortDialog)
#include "test_port_dialog.moc"
