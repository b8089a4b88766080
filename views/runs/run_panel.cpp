#include "views/runs/run_panel.h"

#include "core/cluster/cluster.h"
#include "core/common/number_format.h"
#include "core/dryrun/dry_run.h"
#include "core/graph/torch_child.h"
#include "core/project/params_file.h"
#include "core/runtime/run_config.h"
#include "views/common/trust_prompt.h"
#include "views/profile/plot_theme.h"
#include "views/runs/argument_dialog.h"
#include "views/runs/loss_chart.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace portolan::views {

// The project's own entry point with the params file every tab uses (core/project's rule).
QString RunPanel::scriptCommand(const QString& folder)
{
    QString params = QStringLiteral("configs/params.yaml");
    if (!folder.isEmpty()) {
        const ParamsFileChoice choice = paramsFileFor(folder.toStdString());
        if (!choice.empty())
            params = QString::fromStdString(choice.path);
    }
    return QStringLiteral("/usr/bin/python3 run.py CPU --mode train --params ") +
           (params.contains(QLatin1Char(' ')) ? QLatin1Char('"') + params + QLatin1Char('"')
                                              : params);
}

RunPanel::RunPanel(QWidget* parent)
    : QWidget(parent), m_controller(new RunController(this)),
      m_history(std::make_unique<RunHistory>()), m_historyModel(new RunHistoryModel(this)),
      m_chart(new LossChart(this))
{
    // Built in named parts (a constructor of 175 lines was hard to change): the controls of
    // each kind of run, then the layout, then the wiring.
    createRunChoices();
    createSlurmControls();
    createDryRunControls();
    createProgressAndHistory();
    layOut();
    connectControls();
    updateButtons();
}

RunPanel::~RunPanel()
{
    // A sinfo still running must not report to a panel that is going away.
    if (m_sinfo)
        m_sinfo->disconnect(this);
}

void RunPanel::setCliPath(const QString& path)
{
    m_cli = path;
    updateButtons();
}

void RunPanel::setSteps(int steps)
{
    m_steps->setValue(steps);
}

void RunPanel::setMode(const QString& mode)
{
    m_mode->setCurrentText(mode);
}

void RunPanel::setBatch(int batch)
{
    m_batch->setValue(batch);
}

void RunPanel::setRunKind(RunKind kind)
{
    m_runtime->setCurrentIndex(int(kind));
}

void RunPanel::setRunOn(RunOn where)
{
    m_runOn->setCurrentIndex(int(where));
}

RunPanel::RunOn RunPanel::runOn() const
{
    return RunOn(m_runOn->currentIndex());
}

void RunPanel::setRanks(int ranks)
{
    m_ranks->setValue(ranks);
}

QString RunPanel::jobScriptPreview() const
{
    return m_jobScript->toPlainText();
}

// sinfo in a child process: the panel never waits for the cluster.
void RunPanel::readPartitions()
{
    m_partitionsRead = true;
    const std::string problem = cluster::slurmClientProblem();
    if (!problem.empty()) {
        m_slurmNote->setText(QString::fromStdString(problem));
        updateButtons();
        return;
    }
    m_slurmNote->setText(tr("asking sinfo for the partitions…"));
    auto* sinfo = new QProcess(this);
    m_sinfo = sinfo;
    connect(sinfo, &QProcess::finished, this, [this, sinfo](int code, QProcess::ExitStatus) {
        sinfo->deleteLater();
        const QString err = QString::fromLocal8Bit(sinfo->readAllStandardError()).trimmed();
        if (code != 0) {
            // sinfo's last line says why (its first ones are the steps it tried).
            m_slurmNote->setText(
                tr("sinfo could not reach a Slurm cluster (is this the login node, or is "
                   "SLURM_CONF set?): %1")
                    .arg(err.section(QLatin1Char('\n'), -1)));
            return;
        }
        const auto partitions =
            cluster::parsePartitions(sinfo->readAllStandardOutput().toStdString());
        const QString typed = m_partition->currentText();
        m_partition->clear();
        m_partition->addItem(QString());
        QStringList described;
        for (const auto& p : partitions) {
            const QString name = QString::fromStdString(p.name);
            m_partition->addItem(name);
            described << tr("%1%2 (%3, %4 of %5 nodes idle, %6 CPUs, limit %7)")
                             .arg(name, p.isDefault ? tr(" [default]") : QString(),
                                  p.up ? tr("up") : tr("DOWN"))
                             .arg(p.idleNodes)
                             .arg(p.nodes)
                             .arg(QString::fromStdString(p.cpusPerNode),
                                  QString::fromStdString(p.timeLimit));
        }
        m_partition->setCurrentText(typed);
        m_slurmNote->setText(described.isEmpty()
                                 ? tr("sinfo lists no partition")
                                 : tr("Partitions: %1").arg(described.join(QStringLiteral("; "))));
    });
    connect(sinfo, &QProcess::errorOccurred, this, [this, sinfo](QProcess::ProcessError) {
        m_slurmNote->setText(tr("cannot run sinfo: %1").arg(sinfo->errorString()));
    });
    // Already Qt 6's start(program, arguments): clazy 1.11's porting check names every
    // QProcess::start through a local (it does not look at the arguments).
    sinfo->start(QStringLiteral("sinfo"), // clazy:exclude=qt6-deprecated-api-fixes
                 {QStringLiteral("-h"), QStringLiteral("-o"), QString(cluster::kSinfoFormat)});
}

QStringList RunPanel::submitArguments() const
{
    QStringList args{"submit", m_project, "--slurm", "--events", "jsonl"};
    if (runKind() == RunKind::DryRun)
        args << "--dry-run";
    else
        args << "--ntasks-per-node" << QString::number(m_ranks->value());
    if (!m_partition->currentText().trimmed().isEmpty())
        args << "--partition" << m_partition->currentText().trimmed();
    if (!m_timeLimit->text().trimmed().isEmpty())
        args << "--time" << m_timeLimit->text().trimmed();
    if (m_steps->value() > 0)
        args << "--steps" << QString::number(m_steps->value());
    return args;
}

// The same description of the job as portolan-cli submit's (core/cluster), so that the preview
// is the script that will be submitted (its file name's time stamp aside).
void RunPanel::updateJobScript()
{
    if (runOn() != RunOn::Slurm || m_project.isEmpty()) {
        m_jobScript->clear();
        return;
    }
    cluster::PortolanJob job;
    job.project = m_project.toStdString();
    job.dryRun = runKind() == RunKind::DryRun;
    const QString torch = QFileInfo(m_cli).absoluteDir().filePath(QString(graph::kTorchChildName));
    job.program = job.dryRun || m_cli.isEmpty() ? m_cli.toStdString()
                  : QFileInfo::exists(torch)    ? torch.toStdString()
                                                : graph::torchChildPath().string();
    job.tasksPerNode = m_ranks->value();
    job.partition = m_partition->currentText().trimmed().toStdString();
    job.timeLimit = m_timeLimit->text().trimmed().toStdString();
    job.steps = m_steps->value();
    job.stem = job.dryRun ? "dryrun-TIME" : "train-TIME";
    const std::string limitError =
        job.timeLimit.empty() ? std::string() : cluster::timeLimitError(job.timeLimit);
    QString text = QString::fromStdString(cluster::jobScript(cluster::portolanJobRequest(job)));
    if (!limitError.empty())
        text.prepend(tr("# Time limit: %1\n").arg(QString::fromStdString(limitError)));
    m_jobScript->setPlainText(text);
}

RunPanel::RunKind RunPanel::runKind() const
{
    return RunKind(m_runtime->currentIndex());
}

void RunPanel::setSdkPath(const QString& path)
{
    m_sdkPath->setText(path);
    QSettings().setValue(QStringLiteral("dryrun/sdkPath"), path);
}

QString RunPanel::sdkPath() const
{
    return m_sdkPath->text().trimmed();
}

void RunPanel::setDryRunArguments(const QString& words)
{
    m_dryArgs->setText(words);
    if (!m_project.isEmpty())
        QSettings().setValue(QStringLiteral("dryrun/arguments/") + m_project, words);
}

QString RunPanel::dryRunArguments() const
{
    return m_dryArgs->text();
}

bool RunPanel::isTrusted() const
{
    return !m_project.isEmpty() && dryrun::TrustStore().isTrusted(m_project.toStdString());
}

void RunPanel::browseSdkPath()
{
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Cerebras Model Zoo checkout (the folder that holds modelzoo/)"),
        m_sdkPath->text());
    if (!dir.isEmpty())
        setSdkPath(dir);
}

void RunPanel::setProject(const QString& folder)
{
    if (m_controller->isRunning())
        m_controller->stop();
    m_project = folder;
    m_paramsFile.clear();
    m_trusted->setChecked(isTrusted());
    m_dryArgs->setText(QSettings().value(QStringLiteral("dryrun/arguments/") + folder).toString());
    m_chart->clearRuns();
    m_log->clear();
    m_currentRun = 0;
    m_progress->hide();
    m_remaining->clear();
    m_verdict->hide();
    m_command->setText(scriptCommand(folder));
    m_history = std::make_unique<RunHistory>();
    // The database is created on the first run only (nothing is written to a project that
    // was just opened); an existing history is shown at once.
    if (QFileInfo::exists(QDir(folder).filePath(".portolan/runs.sqlite")))
        m_history->open(folder);
    refreshHistory();
    // Show the newest run's curve (the last row: runs are listed as they were started), so an
    // opened project shows where its training stood; a port's verification shows both runs.
    const int newest = m_historyModel->rowCount() - 1;
    if (newest >= 0) {
        m_historyView->selectRow(newest);
        m_historyView->scrollToBottom();
    }
    auto verification = [&](int row) {
        return row >= 0 && row < m_historyModel->rowCount() &&
               m_historyModel->runAt(row).config.value(QStringLiteral("verification")).toBool();
    };
    if (verification(newest) && verification(newest - 1))
        m_historyView->selectionModel()->select(m_historyModel->index(newest - 1, 0),
                                                QItemSelectionModel::Select |
                                                    QItemSelectionModel::Rows);
    // A verification that began before this project (the port) was opened: its runs again.
    if (followsVerificationOf(folder))
        showVerification(m_followed.folder, m_followed.original, m_followed.port);
    updateButtons();
}

void RunPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    updateButtons();
}

bool RunPanel::isRunning() const
{
    return m_controller->isRunning();
}

void RunPanel::updateButtons()
{
    const bool running = m_controller->isRunning();
    const RunKind kind = runKind();
    const bool script = kind == RunKind::Script;
    const bool dry = kind == RunKind::DryRun;
    // Each kind shows its own rows (with their labels) only.
    const bool slurm = !script && runOn() == RunOn::Slurm;
    const bool ranks = !script && !dry && runOn() != RunOn::ThisMachine;
    m_form->setRowVisible(m_runOn, !script);
    m_form->setRowVisible(m_ranks, ranks);
    m_form->setRowVisible(m_partition, slurm);
    m_form->setRowVisible(m_timeLimit, slurm);
    m_form->setRowVisible(m_slurmNote, slurm);
    m_sideTabs->setTabVisible(m_sideTabs->indexOf(m_jobScript), slurm);
    if (slurm && !running && m_currentRun == 0) {
        m_sideTabs->setCurrentWidget(m_jobScript);
        // The script is read before it is submitted: give it half the width, not the log's
        // narrow column (its srun line and paths are long). Proportions, so it holds before
        // the panel is first shown.
        m_chartSplit->setSizes({1000, 1000});
    } else if (!slurm || running)
        m_sideTabs->setCurrentWidget(m_log);
    // A local dry run has one process; on Slurm it is one task.
    if (dry && runOn() == RunOn::LocalProcesses)
        m_runOn->setCurrentIndex(int(RunOn::ThisMachine));
    qobject_cast<QStandardItemModel*>(m_runOn->model())
        ->item(int(RunOn::LocalProcesses))
        ->setEnabled(!dry);
    const bool slurmReady = !slurm || cluster::slurmClientProblem().empty();
    m_form->setRowVisible(m_mode, !dry && !slurm);
    m_form->setRowVisible(m_batch, dry);
    m_form->setRowVisible(m_sdkRow, dry);
    m_form->setRowVisible(m_dryArgs, dry);
    m_form->setRowVisible(m_trusted, script);
    m_form->setRowVisible(m_command, script);
    m_form->setRowVisible(m_lossPattern, script);
    m_steps->setSpecialValueText(dry ? QString() : tr("from params"));
    m_steps->setMinimum(dry ? 1 : 0);
    const QString blocked = running ? QString() : startBlockedReason();
    m_startReason->setText(blocked);
    m_startReason->setVisible(!blocked.isEmpty());
    m_start->setToolTip(blocked);
    m_start->setEnabled(!running && !m_project.isEmpty() && slurmReady && blocked.isEmpty() &&
                        (script ? m_trusted->isChecked() : !m_cli.isEmpty()));
    m_runOn->setEnabled(!running);
    m_ranks->setEnabled(!running);
    updateJobScript();
    m_stop->setEnabled(running);
    m_kill->setEnabled(running);
    m_mode->setEnabled(!running);
    m_steps->setEnabled(!running);
    m_batch->setEnabled(!running);
    m_runtime->setEnabled(!running);
}

void RunPanel::start()
{
    if (m_controller->isRunning() || m_project.isEmpty())
        return;
    // A run that cannot start is not started (its reason is shown next to Start).
    if (const QString why = startBlockedReason(); !why.isEmpty()) {
        updateButtons();
        return;
    }
    if (!m_history->isOpen()) {
        // First run: .portolan/ is created now. In a git checkout, offer (never force) to keep
        // it out of version control.
        if (m_interactive && QFileInfo::exists(QDir(m_project).filePath(".git")) &&
            !RunHistory::gitignoreCoversPortolan(m_project) &&
            QMessageBox::question(this, tr("Run history"),
                                  tr("Portolan keeps run history and checkpoints in %1. Add "
                                     ".portolan/ to the project's .gitignore?")
                                      .arg(QDir(m_project).filePath(".portolan"))) ==
                QMessageBox::Yes)
            RunHistory::addPortolanToGitignore(m_project);
        QString error;
        if (!m_history->open(m_project, &error)) {
            appendLog(tr("cannot open the run history: %1").arg(error), true);
            return;
        }
    }
    const RunKind kind = runKind();
    if (kind == RunKind::DryRun && !ensureTrusted())
        return;
    QStringList args;
    QString mode = m_mode->currentText();
    QString runtime = QStringLiteral("builtin");
    if (kind == RunKind::DryRun) {
        mode = QStringLiteral("dry_run");
        runtime = QStringLiteral("dry_run");
        args << "--steps" << QString::number(std::max(1, m_steps->value())) << "--batch"
             << QString::number(m_batch->value()) << paramsArguments();
        if (!sdkPath().isEmpty())
            args << "--sdk-path" << sdkPath();
        const QStringList words = QProcess::splitCommand(m_dryArgs->text());
        if (!words.isEmpty())
            args << "--" << words;
    } else if (kind == RunKind::Script) {
        runtime = QStringLiteral("script");
        args = QProcess::splitCommand(m_command->text());
    } else {
        args << "--mode" << m_mode->currentText() << "--log-steps"
             << "1" << paramsArguments();
        if (runOn() == RunOn::LocalProcesses && m_ranks->value() > 1)
            args << "--ranks" << QString::number(m_ranks->value());
        if (m_steps->value() > 0)
            args << "--steps" << QString::number(m_steps->value());
    }
    if (runOn() == RunOn::Slurm) {
        mode = kind == RunKind::DryRun ? mode : QStringLiteral("train");
        args = submitArguments();
    }
    QJsonObject config{{"runtime", runtime}, {"project", m_project}};
    config.insert("run_on", m_runOn->currentIndex() == 0   ? QStringLiteral("this machine")
                            : m_runOn->currentIndex() == 1 ? QStringLiteral("local processes")
                                                           : QStringLiteral("slurm"));
    config.insert("arguments", QJsonArray::fromStringList(args));
    m_currentRun = m_history->beginRun(mode, config);
    m_maxSteps = m_steps->value();
    m_firstStep = -1;
    m_lastFailure = {};
    m_log->clear();
    m_progress->setValue(0);
    m_progress->show();
    m_remaining->clear();
    m_verdict->hide();
    m_chart->setRun(m_currentRun, tr("run %1").arg(m_currentRun), {}, {});
    m_synthetic.clear();
    showSyntheticBadge();
    bool ok = false;
    if (kind == RunKind::Script) {
        QStringList parts = args;
        const QString program = parts.isEmpty() ? QString() : parts.takeFirst();
        ok = m_controller->startScript(m_project, program, parts, m_lossPattern->text());
    } else if (runOn() == RunOn::Slurm) {
        ok = m_controller->startCli(m_cli, m_project, submitArguments());
    } else if (kind == RunKind::DryRun) {
        ok = m_controller->startDryRun(m_cli, m_project, args);
    } else {
        ok = m_controller->startBuiltin(m_cli, m_project, args);
    }
    if (!ok)
        onFinished(RunStatus::Failed, tr("the run could not be started"));
    m_clock.start();
    refreshHistory();
    updateButtons();
}

bool RunPanel::ensureTrusted()
{
    if (isTrusted())
        return true;
    // The same question the port dialog asks before its verification (views/common).
    QString why;
    if (!ensureProjectTrusted(this, m_project, m_interactive, &why)) {
        if (!why.isEmpty())
            appendLog(m_interactive ? why : tr("not started: %1").arg(why), true);
        return false;
    }
    m_trusted->setChecked(true);
    return true;
}

void RunPanel::askForArguments(const QJsonObject& failure)
{
    const QJsonArray arguments = failure.value("arguments").toArray();
    Q_EMIT argumentsRequired(arguments);
    if (!m_interactive || arguments.isEmpty())
        return;
    const QString entry = failure.value("location").toObject().value("file").toString();
    ArgumentDialog dialog(entry.isEmpty() ? tr("the entry point") : entry, arguments, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QStringList words = dialog.words();
    if (words.isEmpty())
        return;
    QStringList all = QProcess::splitCommand(m_dryArgs->text()) + words;
    for (QString& w : all)
        if (w.contains(QLatin1Char(' ')) || w.isEmpty())
            w = QLatin1Char('"') + w + QLatin1Char('"');
    setDryRunArguments(all.join(QLatin1Char(' ')));
    QTimer::singleShot(0, this, &RunPanel::start);
}

void RunPanel::stop()
{
    m_controller->stop();
}

void RunPanel::kill()
{
    m_controller->kill();
}

void RunPanel::appendLog(const QString& line, bool isError)
{
    m_log->appendPlainText(isError ? QStringLiteral("! ") + line : line);
}

void RunPanel::onEvent(const RunEvent& e)
{
    if (m_currentRun)
        m_history->appendEvent(m_currentRun, e);
    if (const QStringList made = syntheticInputs(e.json); !made.isEmpty()) {
        m_synthetic << made;
        m_synthetic.removeDuplicates();
        m_synthetic.sort();
        showSyntheticBadge();
    }
    switch (e.kind) {
    case RunEvent::Kind::Started:
        m_maxSteps = e.maxSteps;
        m_progress->setRange(0, int(std::max<qint64>(m_maxSteps, 1)));
        if (e.json.value("mode").toString() == QLatin1String("dry_run"))
            appendLog(tr("dry run of %1 (%2): %3 steps at batch %4")
                          .arg(e.json.value("entry").toString(), e.json.value("flavour").toString())
                          .arg(m_maxSteps)
                          .arg(e.json.value("batch").toInteger()),
                      false);
        else
            appendLog(tr("started %1 (%2 parameters), %3 steps")
                          .arg(e.model)
                          .arg(e.parameters)
                          .arg(m_maxSteps),
                      false);
        break;
    case RunEvent::Kind::Step: {
        const qint64 step = e.step;
        if (e.loss)
            m_chart->appendLoss(m_currentRun, double(step), *e.loss);
        if (m_firstStep < 0) {
            m_firstStep = step;
            m_clock.restart();
        }
        if (m_maxSteps > 0) {
            m_progress->setValue(int(step));
            const double done = double(step - m_firstStep);
            if (done > 0) {
                const double perStep = double(m_clock.elapsed()) / 1000.0 / done;
                const int left = int(perStep * double(m_maxSteps - step));
                m_remaining->setText(
                    tr("%1:%2 left").arg(left / 60).arg(left % 60, 2, 10, QLatin1Char('0')));
            }
        }
        // A dry run has a handful of steps: each is worth a line.
        if (step % 50 == 0 || m_maxSteps <= 20)
            appendLog(tr("step %1  loss %2  %3")
                          .arg(step)
                          .arg(e.loss ? QString::number(*e.loss, 'f', 4) : tr("n/a"))
                          .arg(QString::fromStdString(
                              format::samplesPerSecond(e.samplesPerSec ? *e.samplesPerSec : 0.0))),
                      false);
        break;
    }
    case RunEvent::Kind::Eval:
        if (e.loss)
            m_chart->appendEval(m_currentRun, double(e.step), *e.loss);
        appendLog(tr("eval at step %1: loss %2, accuracy %3")
                      .arg(e.step)
                      .arg(e.loss ? QString::number(*e.loss, 'f', 4) : tr("n/a"),
                           e.accuracy ? QString::number(*e.accuracy, 'f', 3) : tr("n/a")),
                  false);
        break;
    case RunEvent::Kind::Warning:
    case RunEvent::Kind::Info:
        appendLog(e.type + ": " + e.message, false);
        break;
    case RunEvent::Kind::Checkpoint:
        appendLog(e.type + ": " + e.path, false);
        break;
    case RunEvent::Kind::Capture:
        appendLog(tr("capture: %1 (%2, %3 parameters, %4)")
                      .arg(e.path, e.model)
                      .arg(e.parameters)
                      .arg(e.json.value("traced").toBool()
                               ? tr("traced")
                               : tr("not traced: %1").arg(e.json.value("trace_error").toString())),
                  false);
        break;
    case RunEvent::Kind::Arguments: {
        QStringList values;
        const QJsonObject v = e.json.value("values").toObject();
        for (auto it = v.begin(); it != v.end(); ++it)
            values << it.key() + QLatin1Char('=') + it.value().toVariant().toString();
        appendLog(tr("arguments: %1").arg(values.join(QStringLiteral(", "))), false);
        break;
    }
    case RunEvent::Kind::Output:
        appendLog(e.text, e.stream == QLatin1String("stderr"));
        break;
    case RunEvent::Kind::Failed:
        m_lastFailure = e.json;
        appendLog(e.diagnostic.isEmpty() ? e.message : e.diagnostic, true);
        if (e.code == QLatin1String("dryrun.needs-modelzoo"))
            appendLog(tr("hint: set the Model Zoo checkout above (the folder that holds "
                         "modelzoo/) and start again"),
                      false);
        break;
    case RunEvent::Kind::Finished:
    case RunEvent::Kind::Other:
        break;
    }
}

void RunPanel::onFinished(RunStatus status, const QString& reason)
{
    const QString name = runStatusName(status);
    if (m_currentRun)
        m_history->finishRun(m_currentRun, name, reason);
    appendLog(reason.isEmpty() || reason == name ? tr("run %1").arg(name)
                                                 : tr("run %1: %2").arg(name, reason),
              status == RunStatus::Failed);
    if (status == RunStatus::Failed && m_currentRun)
        m_chart->markFailed(m_currentRun, reason);
    m_chart->rescale();
    if (status == RunStatus::Completed)
        m_progress->setValue(m_progress->maximum());
    m_remaining->clear();
    refreshHistory();
    updateButtons();
    Q_EMIT runFinished(m_currentRun, name);
    if (status == RunStatus::Failed &&
        m_lastFailure.value("code").toString() == QLatin1String("dryrun.required-argument"))
        askForArguments(m_lastFailure);
}

void RunPanel::refreshHistory()
{
    m_historyModel->setRuns(m_history->isOpen() ? m_history->runs() : QList<RunRecord>{});
    m_historyView->scrollToBottom(); // the newest run, which may be the one just started
}

void RunPanel::overlaySelection()
{
    const QModelIndexList rows = m_historyView->selectionModel()->selectedRows();
    QSet<qint64> wanted;
    for (const QModelIndex& row : rows)
        wanted.insert(m_historyModel->runAt(row.row()).id);
    for (qint64 id : m_chart->runIds())
        if (id != m_currentRun && !wanted.contains(id))
            m_chart->removeRun(id);
    for (const QModelIndex& row : rows) {
        const RunRecord& r = m_historyModel->runAt(row.row());
        if (r.id == m_currentRun && m_controller->isRunning())
            continue;
        // A labelled run (a port's verification: "original", "port") is named by its label.
        const QString label = r.config.value(QStringLiteral("label")).toString();
        m_chart->setRun(r.id, label.isEmpty() ? tr("run %1").arg(r.id) : label,
                        m_history->lossCurve(r.id), m_history->evalPoints(r.id));
        if (r.status == QLatin1String("failed"))
            m_chart->markFailed(r.id, r.reason);
        m_chart->markSynthetic(r.id, syntheticBadge(r.synthetic));
        m_chart->setSide(r.id, verificationSide(r));
    }
    QList<RunRecord> shown;
    for (const QModelIndex& row : rows)
        shown << m_historyModel->runAt(row.row());
    showVerdict(shown, *m_history);
}

// The badge beside the progress bar, and in the chart, while the run uses made-up inputs.
void RunPanel::showSyntheticBadge()
{
    const QString badge = syntheticBadge(m_synthetic);
    m_syntheticBadge->setText(tr("⚠ %1").arg(badge));
    m_syntheticBadge->setVisible(!badge.isEmpty());
    if (m_currentRun)
        m_chart->markSynthetic(m_currentRun, badge);
}

QString RunPanel::syntheticBadgeText() const
{
    return m_syntheticBadge->isHidden() ? QString() : m_syntheticBadge->text();
}

} // namespace portolan::views
