#include "views/runtime/run_panel.h"

#include "core/project/params_file.h"
#include "views/runtime/loss_chart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace portolan::views {

RunHistoryModel::RunHistoryModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunHistoryModel::setRuns(const QList<RunRecord>& runs)
{
    beginResetModel();
    m_runs = runs;
    endResetModel();
}

int RunHistoryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_runs.size());
}

int RunHistoryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunHistoryModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_runs.size())
        return {};
    const RunRecord& r = m_runs[index.row()];
    if (role == Qt::UserRole)
        return r.id;
    if (role == Qt::ToolTipRole)
        return r.reason.isEmpty() ? r.status : r.status + QStringLiteral(": ") + r.reason;
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Id:
        return r.id;
    case Started: {
        const QDateTime t = QDateTime::fromString(r.startedAt, Qt::ISODate);
        return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd hh:mm"))
                           : r.startedAt;
    }
    case Mode:
        return r.mode;
    case Model:
        return r.model;
    case Steps:
        return r.lastStep;
    case Loss:
        return QString::number(r.lastLoss, 'f', 4);
    case Status:
        return r.status;
    }
    return {};
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = {"#", "Started", "Mode", "Model", "Steps", "Loss", "Status"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

namespace {

// The project's own entry point with the params file every tab uses (core/project's rule).
QString scriptCommand(const QString& folder)
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

} // namespace

RunPanel::RunPanel(QWidget* parent)
    : QWidget(parent), m_controller(new RunController(this)),
      m_history(std::make_unique<RunHistory>()), m_historyModel(new RunHistoryModel(this)),
      m_chart(new LossChart(this))
{
    m_mode = new QComboBox(this);
    m_mode->addItems({"train", "eval", "train_and_eval"});
    m_steps = new QSpinBox(this);
    m_steps->setRange(0, 100000000);
    m_steps->setSpecialValueText(tr("from params"));
    m_runtime = new QComboBox(this);
    m_runtime->addItem(tr("Built-in (LibTorch)"));
    m_runtime->addItem(tr("Project's own script"));
    m_trusted = new QCheckBox(tr("I trust this project (its code will run)"), this);
    m_command = new QLineEdit(scriptCommand(QString()), this);
    m_lossPattern =
        new QLineEdit(QStringLiteral("step\\s+(?<step>\\d+).*?loss\\s+(?<loss>[-+0-9.eE]+)"), this);
    m_start = new QPushButton(tr("Start"), this);
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setToolTip(tr("Finish the current step, write a checkpoint, then stop"));
    m_kill = new QPushButton(tr("Kill"), this);
    m_progress = new QProgressBar(this);
    m_remaining = new QLabel(this);
    m_log = new QPlainTextEdit(this);
    m_log->setReadOnly(true);
    m_log->setPlaceholderText(tr("The run's log appears here."));
    m_log->setMaximumBlockCount(20000);
    m_historyView = new QTableView(this);
    m_historyView->setModel(m_historyModel);
    m_historyView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_historyView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_historyView->verticalHeader()->hide();
    m_historyView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_historyView->horizontalHeader()->setStretchLastSection(true);

    auto* form = new QFormLayout;
    m_form = form;
    form->addRow(tr("Mode"), m_mode);
    form->addRow(tr("Steps"), m_steps);
    form->addRow(tr("Runtime"), m_runtime);
    form->addRow(QString(), m_trusted);
    form->addRow(tr("Command"), m_command);
    form->addRow(tr("Loss pattern"), m_lossPattern);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_kill);
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_remaining);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->addLayout(form);
    leftLayout->addWidget(new QLabel(tr("Run history (select several to overlay)"), left));
    leftLayout->addWidget(m_historyView, 1);
    auto* right = new QSplitter(Qt::Horizontal, this);
    right->addWidget(m_chart);
    right->addWidget(m_log);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);

    connect(m_start, &QPushButton::clicked, this, &RunPanel::start);
    connect(m_stop, &QPushButton::clicked, this, &RunPanel::stop);
    connect(m_kill, &QPushButton::clicked, this, &RunPanel::kill);
    connect(m_runtime, &QComboBox::currentIndexChanged, this, &RunPanel::updateButtons);
    connect(m_trusted, &QCheckBox::toggled, this, &RunPanel::updateButtons);
    connect(m_controller, &RunController::eventReceived, this, &RunPanel::onEvent);
    connect(m_controller, &RunController::logLine, this, &RunPanel::appendLog);
    connect(m_controller, &RunController::finished, this, &RunPanel::onFinished);
    connect(m_historyView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RunPanel::overlaySelection);
    updateButtons();
}

RunPanel::~RunPanel() = default;

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

void RunPanel::setProject(const QString& folder)
{
    if (m_controller->isRunning())
        m_controller->stop();
    m_project = folder;
    m_chart->clearRuns();
    m_log->clear();
    m_currentRun = 0;
    m_command->setText(scriptCommand(folder));
    m_history = std::make_unique<RunHistory>();
    // The database is created on the first run only (nothing is written to a project that
    // was just opened); an existing history is shown at once.
    if (QFileInfo::exists(QDir(folder).filePath(".portolan/runs.sqlite")))
        m_history->open(folder);
    refreshHistory();
    // Show the newest run's curve, so an opened project shows where its training stood.
    if (m_historyModel->rowCount() > 0)
        m_historyView->selectRow(0);
    updateButtons();
}

bool RunPanel::isRunning() const
{
    return m_controller->isRunning();
}

void RunPanel::updateButtons()
{
    const bool running = m_controller->isRunning();
    const bool script = m_runtime->currentIndex() == 1;
    // The script rows (with their labels) only exist for the project's own script.
    m_form->setRowVisible(m_trusted, script);
    m_form->setRowVisible(m_command, script);
    m_form->setRowVisible(m_lossPattern, script);
    m_start->setEnabled(!running && !m_project.isEmpty() &&
                        (script ? m_trusted->isChecked() : !m_cli.isEmpty()));
    m_stop->setEnabled(running);
    m_kill->setEnabled(running);
    m_mode->setEnabled(!running);
    m_steps->setEnabled(!running);
}

void RunPanel::start()
{
    if (m_controller->isRunning() || m_project.isEmpty())
        return;
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
    QStringList args{"--mode", m_mode->currentText(), "--log-steps", "1"};
    if (m_steps->value() > 0)
        args << "--steps" << QString::number(m_steps->value());
    const bool script = m_runtime->currentIndex() == 1;
    QJsonObject config{{"runtime", script ? "script" : "builtin"}, {"project", m_project}};
    config.insert("arguments", QJsonArray::fromStringList(
                                   script ? QProcess::splitCommand(m_command->text()) : args));
    m_currentRun = m_history->beginRun(m_mode->currentText(), config);
    m_maxSteps = m_steps->value();
    m_firstStep = -1;
    m_log->clear();
    m_progress->setValue(0);
    m_remaining->clear();
    m_chart->setRun(m_currentRun, tr("run %1").arg(m_currentRun), {}, {});
    bool ok = false;
    if (script) {
        QStringList parts = QProcess::splitCommand(m_command->text());
        const QString program = parts.isEmpty() ? QString() : parts.takeFirst();
        ok = m_controller->startScript(m_project, program, parts, m_lossPattern->text());
    } else {
        ok = m_controller->startBuiltin(m_cli, m_project, args);
    }
    if (!ok)
        onFinished(RunStatus::Failed, tr("the run could not be started"));
    m_clock.start();
    refreshHistory();
    updateButtons();
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

void RunPanel::onEvent(const QJsonObject& e)
{
    if (m_currentRun)
        m_history->appendEvent(m_currentRun, e);
    const QString type = e.value("event").toString();
    if (type == "started") {
        m_maxSteps = e.value("max_steps").toInteger();
        m_progress->setRange(0, int(std::max<qint64>(m_maxSteps, 1)));
        appendLog(tr("started %1 (%2 parameters), %3 steps")
                      .arg(e.value("model").toString())
                      .arg(e.value("parameters").toInteger())
                      .arg(m_maxSteps),
                  false);
    } else if (type == "step") {
        const qint64 step = e.value("step").toInteger();
        m_chart->appendLoss(m_currentRun, double(step), e.value("loss").toDouble());
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
        if (step % 50 == 0)
            appendLog(tr("step %1  loss %2  %3 samples/s")
                          .arg(step)
                          .arg(e.value("loss").toDouble(), 0, 'f', 4)
                          .arg(e.value("samples_per_sec").toDouble(), 0, 'f', 0),
                      false);
    } else if (type == "eval") {
        m_chart->appendEval(m_currentRun, double(e.value("step").toInteger()),
                            e.value("loss").toDouble());
        appendLog(tr("eval at step %1: loss %2, accuracy %3")
                      .arg(e.value("step").toInteger())
                      .arg(e.value("loss").toDouble(), 0, 'f', 4)
                      .arg(e.value("accuracy").toDouble(), 0, 'f', 3),
                  false);
    } else if (type == "warning" || type == "checkpoint") {
        appendLog(type + ": " + e.value(type == "warning" ? "message" : "path").toString(), false);
    } else if (type == "failed") {
        appendLog(e.value("diagnostic").toString(), true);
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
    m_chart->rescale();
    if (status == RunStatus::Completed)
        m_progress->setValue(m_progress->maximum());
    m_remaining->clear();
    refreshHistory();
    updateButtons();
    Q_EMIT runFinished(m_currentRun, name);
}

void RunPanel::refreshHistory()
{
    m_historyModel->setRuns(m_history->isOpen() ? m_history->runs() : QList<RunRecord>{});
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
    for (qint64 id : wanted)
        if (id != m_currentRun || !m_controller->isRunning())
            m_chart->setRun(id, tr("run %1").arg(id), m_history->lossCurve(id),
                            m_history->evalPoints(id));
}

} // namespace portolan::views
