// The Runs panel's construction, in named parts: the controls of each kind of run, the layout
// and the wiring. The behaviour is in run_panel.cpp.
#include "core/dryrun/dry_run.h"
#include "views/common/reading_columns.h"
#include "views/runs/loss_chart.h"
#include "views/runs/run_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace portolan::views {

// The kind of run, where it runs, its mode, steps and batch.
void RunPanel::createRunChoices()
{
    m_mode = new QComboBox(this);
    m_mode->addItems({"train", "eval", "train_and_eval"});
    m_steps = new QSpinBox(this);
    m_steps->setRange(0, 100000000);
    m_steps->setSpecialValueText(tr("from params"));
    m_batch = new QSpinBox(this);
    m_batch->setRange(1, 1 << 20);
    m_batch->setValue(2);
    m_batch->setToolTip(tr("Micro-batch of the dry run; the project's own batch size is kept for "
                           "the capture's figures"));
    m_runtime = new QComboBox(this);
    m_runtime->addItem(tr("Built-in (LibTorch)"));
    m_runtime->addItem(tr("Project's own script"));
    m_runtime->addItem(tr("Dry run (project code)"));
    m_runtime->setItemData(2,
                           tr("Runs the project's own entry point for a few steps on the CPU, with "
                              "stand-ins for the vendor SDKs, and captures the model"),
                           Qt::ToolTipRole);
    m_runOn = new QComboBox(this);
    m_runOn->addItem(tr("this machine"));
    m_runOn->addItem(tr("local processes"));
    m_runOn->addItem(tr("Slurm cluster"));
    m_runOn->setItemData(1,
                         tr("Data parallel on this computer: N ranks over Gloo, the params "
                            "file's batch split among them"),
                         Qt::ToolTipRole);
    m_runOn->setItemData(2,
                         tr("Submitted with sbatch; the job's events come back from its output "
                            "file into this tab"),
                         Qt::ToolTipRole);
}

// Ranks, and for Slurm the partition, time limit and the job script to be
// submitted.
void RunPanel::createSlurmControls()
{
    m_ranks = new QSpinBox(this);
    m_ranks->setRange(1, 256);
    m_ranks->setValue(2);
    m_ranks->setToolTip(tr("Data-parallel ranks (Slurm: tasks on the node)"));
    m_partition = new QComboBox(this);
    m_partition->setObjectName(QStringLiteral("partition"));
    m_partition->setEditable(true);
    m_partition->setToolTip(tr("Partitions from sinfo; empty: the cluster's default"));
    m_partition->lineEdit()->setPlaceholderText(tr("cluster default"));
    m_timeLimit = new QLineEdit(this);
    m_timeLimit->setPlaceholderText(tr("partition default (e.g. 30, 1:00:00, 2-0)"));
    m_slurmNote = new QLabel(this);
    m_slurmNote->setWordWrap(true);
    m_jobScript = new QPlainTextEdit(this);
    m_jobScript->setReadOnly(true);
    m_jobScript->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_jobScript->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_jobScript->setToolTip(tr("The job script written to .portolan/jobs/ and submitted; edit that "
                               "file and submit it with portolan-cli submit --script"));
}

// A dry run's Model Zoo checkout, arguments and trust; the project's own command.
void RunPanel::createDryRunControls()
{
    m_sdkRow = new QWidget(this);
    m_sdkPath = new QLineEdit(m_sdkRow);
    m_sdkPath->setPlaceholderText(tr("a Cerebras Model Zoo checkout (only for ports that need "
                                     "shared Model Zoo code)"));
    m_sdkPath->setText(QSettings().value(QStringLiteral("dryrun/sdkPath")).toString());
    auto* browse = new QPushButton(tr("…"), m_sdkRow);
    browse->setToolTip(tr("Choose the folder that holds modelzoo/"));
    auto* sdkLayout = new QHBoxLayout(m_sdkRow);
    sdkLayout->setContentsMargins(0, 0, 0, 0);
    sdkLayout->addWidget(m_sdkPath, 1);
    sdkLayout->addWidget(browse);
    m_dryArgs = new QLineEdit(this);
    m_dryArgs->setPlaceholderText(tr("arguments for the entry point (given after --)"));
    m_trusted = new QCheckBox(tr("I trust this project (its code will run)"), this);
    m_command = new QLineEdit(scriptCommand(QString()), this);
    m_lossPattern =
        new QLineEdit(QStringLiteral("step\\s+(?<step>\\d+).*?loss\\s+(?<loss>[-+0-9.eE]+)"), this);
    connect(browse, &QPushButton::clicked, this, &RunPanel::browseSdkPath);
}

// Start / Stop / Kill with the reason Start is off, progress, the log and the
// run history.
void RunPanel::createProgressAndHistory()
{
    m_start = new QPushButton(tr("Start"), this);
    m_startReason = new QLabel(this);
    m_startReason->setObjectName(QStringLiteral("startReason"));
    m_startReason->setWordWrap(true);
    m_startReason->setTextFormat(Qt::RichText);
    m_startReason->hide();
    connect(m_startReason, &QLabel::linkActivated, this, [this] { setRunKind(RunKind::DryRun); });
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setToolTip(tr("Finish the current step, write a checkpoint, then stop"));
    m_kill = new QPushButton(tr("Kill"), this);
    m_progress = new QProgressBar(this);
    // An empty bar at 0 % before any run read like a run stuck at its start: it appears with
    // the first run.
    m_progress->hide();
    m_remaining = new QLabel(this);
    m_verdict = new QLabel(this);
    m_verdict->setObjectName(QStringLiteral("verificationVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->hide();
    m_syntheticBadge = new QLabel(this);
    m_syntheticBadge->setObjectName(QStringLiteral("syntheticBadge"));
    m_syntheticBadge->setToolTip(tr("The run used made-up inputs (see the warnings in the log): "
                                    "its loss is not the project's real training"));
    QFont bold = m_syntheticBadge->font();
    bold.setBold(true);
    m_syntheticBadge->setFont(bold);
    m_syntheticBadge->hide();
    m_log = new QPlainTextEdit(this);
    m_log->setReadOnly(true);
    m_log->setPlaceholderText(tr("The run's log appears here."));
    m_log->setMaximumBlockCount(20000);
    m_historyView = new QTableView(this);
    m_historyView->setModel(m_historyModel);
    m_historyView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_historyView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_historyView->verticalHeader()->hide();
    // The figures keep their width; the model's name takes the rest and elides, so Steps, Loss
    // and Status stay in sight in a narrow panel. (Stretched, it shrank to nothing beside the
    // columns after it, and its header read "Aode".)
    m_historyView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_historyView->horizontalHeader()->setStretchLastSection(false);
    m_historyView->setTextElideMode(Qt::ElideMiddle);
    // One line per run: a wrapped model name made rows of two half-read lines.
    m_historyView->setWordWrap(false);
    // What a user looks for first, whether the run finished and at what loss, comes right after
    // the run's number; when and in which mode it ran come last, where a narrow window's scroll
    // bar may hide them. The model's columns keep their order (only the header moves them).
    QHeaderView* header = m_historyView->horizontalHeader();
    int visual = 1;
    for (const int column : {RunHistoryModel::Status, RunHistoryModel::Loss, RunHistoryModel::Steps,
                             RunHistoryModel::Model})
        header->moveSection(header->visualIndex(column), visual++);
    // No sideways scroll bar: when the panel is narrow, the mode and then the start time are
    // hidden (the header's menu shows them), then a long status ("completed · synthetic") is
    // elided down to its icon and a few letters (the tooltip is whole), and the model's name,
    // the run's identity, takes what is left: at 1024 pixels a status of nine letters cut a
    // 17-character name to 12.
    auto* columns = new ReadingColumns(m_historyView, RunHistoryModel::Model);
    columns->addYielding(RunHistoryModel::Mode, 5);
    columns->addYielding(RunHistoryModel::Started, 8);
    columns->addEliding(RunHistoryModel::Status, 7);
    columns->setHideRatherThanCut(true);
}

// The form and history on the left, the chart beside the log (or job script) on the
// right.
void RunPanel::layOut()
{
    auto* form = new QFormLayout;
    m_form = form;
    form->addRow(tr("Runtime"), m_runtime);
    form->addRow(tr("Run on"), m_runOn);
    form->addRow(tr("Ranks"), m_ranks);
    form->addRow(tr("Partition"), m_partition);
    form->addRow(tr("Time limit"), m_timeLimit);
    form->addRow(QString(), m_slurmNote);
    form->addRow(tr("Mode"), m_mode);
    form->addRow(tr("Steps"), m_steps);
    form->addRow(tr("Batch"), m_batch);
    form->addRow(tr("Model Zoo"), m_sdkRow);
    form->addRow(tr("Arguments"), m_dryArgs);
    form->addRow(QString(), m_trusted);
    form->addRow(tr("Command"), m_command);
    form->addRow(tr("Loss pattern"), m_lossPattern);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_kill);
    buttons->addWidget(m_startReason, 2);
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_remaining);
    buttons->addWidget(m_syntheticBadge);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->addLayout(form);
    leftLayout->addWidget(new QLabel(tr("Run history (select several to overlay)"), left));
    leftLayout->addWidget(m_historyView, 1);
    auto* right = new QSplitter(Qt::Horizontal, this);
    m_chartSplit = right;
    // A port's verification says above its two curves whether they agree, or where they part.
    auto* chartBox = new QWidget(this);
    auto* chartLayout = new QVBoxLayout(chartBox);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(m_verdict);
    chartLayout->addWidget(m_chart, 1);
    right->addWidget(chartBox);
    // The job script is read beside the chart, at full height, where the log will be.
    m_sideTabs = new QTabWidget(this);
    m_sideTabs->addTab(m_log, tr("Log"));
    m_sideTabs->addTab(m_jobScript, tr("Job script"));
    right->addWidget(m_sideTabs);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    // The history's columns (number, start, mode, model, steps, loss, status) need about a
    // third of the width: at 1:3 they hid behind a scroll bar, and at 38 % a model's name of 17
    // characters was cut at 1,024 pixels.
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({400, 600}); // the start, in proportion; the size hints gave the form 250
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
}

// Every control's effect, and the controller's events into the panel.
void RunPanel::connectControls()
{
    connect(m_start, &QPushButton::clicked, this, &RunPanel::start);
    connect(m_stop, &QPushButton::clicked, this, &RunPanel::stop);
    connect(m_kill, &QPushButton::clicked, this, &RunPanel::kill);
    connect(m_runtime, &QComboBox::currentIndexChanged, this, [this](int index) {
        // A dry run is a few steps; the built-in runtime's "from params" means its full run.
        if (index == int(RunKind::DryRun) && m_steps->value() == 0)
            m_steps->setValue(3);
        updateButtons();
    });
    connect(m_runOn, &QComboBox::currentIndexChanged, this, [this] {
        if (runOn() == RunOn::Slurm && !m_partitionsRead)
            readPartitions();
        updateButtons();
    });
    connect(m_ranks, &QSpinBox::valueChanged, this, &RunPanel::updateJobScript);
    connect(m_steps, &QSpinBox::valueChanged, this, &RunPanel::updateJobScript);
    connect(m_partition, &QComboBox::currentTextChanged, this, &RunPanel::updateJobScript);
    connect(m_timeLimit, &QLineEdit::textChanged, this, &RunPanel::updateJobScript);
    connect(m_trusted, &QCheckBox::clicked, this, [this](bool checked) {
        // The checkbox is the trust store's entry for this project, shared with portolan-cli.
        if (!m_project.isEmpty()) {
            if (auto error = dryrun::TrustStore().setTrusted(m_project.toStdString(), checked))
                appendLog(QString::fromStdString(error->toString()), true);
        }
        updateButtons();
    });
    connect(m_sdkPath, &QLineEdit::editingFinished, this,
            [this] { QSettings().setValue(QStringLiteral("dryrun/sdkPath"), m_sdkPath->text()); });
    connect(m_dryArgs, &QLineEdit::editingFinished, this, [this] {
        if (!m_project.isEmpty())
            QSettings().setValue(QStringLiteral("dryrun/arguments/") + m_project,
                                 m_dryArgs->text());
    });
    connect(m_controller, &RunController::eventReceived, this, &RunPanel::onEvent);
    connect(m_controller, &RunController::logLine, this, &RunPanel::appendLog);
    connect(m_controller, &RunController::finished, this, &RunPanel::onFinished);
    connect(m_historyView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RunPanel::overlaySelection);
}

} // namespace portolan::views
