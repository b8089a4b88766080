#include "views/porting/port_dialog.h"

#include "core/analysis/analysis.h"
#include "core/common/number_format.h"
#include "views/code/code_view.h"
#include "views/common/trust_prompt.h"
#include "views/params/yaml_text_view.h"
#include "views/porting/port_plan_model.h"
#include "views/porting/port_verify_panel.h"
#include "views/runs/run_history.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>

namespace portolan::views {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

// The choice column edits in a combo box: the candidates the model offers, and any other value
// typed (a model variable or a loss expression the plan did not think of).
class ChoiceDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&,
                          const QModelIndex& index) const override
    {
        auto* box = new QComboBox(parent);
        box->setEditable(true);
        box->addItems(index.data(PortPlanModel::CandidatesRole).toStringList());
        return box;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        auto* box = static_cast<QComboBox*>(editor);
        const QString current = index.data(Qt::EditRole).toString();
        const int at = box->findText(current);
        if (at >= 0)
            box->setCurrentIndex(at);
        else
            box->setEditText(current);
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model,
                      const QModelIndex& index) const override
    {
        model->setData(index, static_cast<QComboBox*>(editor)->currentText());
    }
};

// The short name a port folder gets for its target.
QString targetSuffix(const QString& target)
{
    if (target.startsWith(QLatin1String("determined")))
        return QStringLiteral("determined");
    if (target.contains(QLatin1String("poptorch")))
        return QStringLiteral("poptorch");
    if (target == QLatin1String("cerebras-pytorch"))
        return QStringLiteral("cerebras-runner");
    if (target == QLatin1String("cerebras-cstorch"))
        return QStringLiteral("cerebras-cstorch");
    return QStringLiteral("cerebras");
}

bool isEmptyOrMissing(const QString& folder)
{
    const QFileInfo info(folder);
    if (!info.exists())
        return true;
    return info.isDir() && QDir(folder).isEmpty(QDir::AllEntries | QDir::Hidden | QDir::System |
                                                QDir::NoDotAndDotDot);
}

struct Generation
{
    Result<port::PortPlan> plan;
    Result<port::PortResult> port;
};

} // namespace

PortDialog::PortDialog(std::shared_ptr<const analysis::ProjectAnalysis> analysis,
                       const QString& target, QWidget* parent)
    : QDialog(parent), m_analysis(std::move(analysis)), m_target(target),
      m_planModel(new PortPlanModel(this))
{
    m_root = m_analysis ? qs(m_analysis->root.string()) : QString();
    setWindowTitle(tr("Generate the port for %1").arg(target));
    setSizeGripEnabled(true);
    m_python = qEnvironmentVariable("PORTOLAN_PYTHON", QStringLiteral("/usr/bin/python3"));

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    QWidget* planPage = createPlanPage();
    QWidget* filesPage = createFilesPage();
    QWidget* manualPage = createManualPage();
    m_verifyPanel = new PortVerifyPanel(this);

    m_tabs = new QTabWidget(this);
    m_tabs->addTab(planPage, tr("Plan"));
    m_tabs->addTab(filesPage, tr("Files"));
    m_tabs->addTab(manualPage, tr("Manual items"));
    m_tabs->addTab(m_verifyPanel, tr("Verify"));

    QLayout* argsRow = createArgumentsRow();
    QLayout* out = createOutputRow();
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QLayout* bottom = createStatusRow(close);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
    layout->addLayout(argsRow);
    layout->addLayout(out);
    layout->addLayout(bottom);

    connectParts(close);

    m_verifyPoll = new QTimer(this);
    m_verifyPoll->setInterval(100);
    connect(m_verifyPoll, &QTimer::timeout, this, &PortDialog::drainVerifySteps);

    resize(1100, 760);
    updateButtons();
    generate();
}

QWidget* PortDialog::createPlanPage()
{
    // Plan
    m_planView = new QTreeView(this);
    m_planView->setModel(m_planModel);
    m_planView->setItemDelegateForColumn(PortPlanModel::ChoiceColumn, new ChoiceDelegate(this));
    m_planView->setEditTriggers(QAbstractItemView::DoubleClicked |
                                QAbstractItemView::EditKeyPressed);
    m_planView->setAlternatingRowColors(true);
    m_planView->setUniformRowHeights(true);
    m_planView->header()->setStretchLastSection(false);
    m_planView->header()->setSectionResizeMode(PortPlanModel::ItemColumn,
                                               QHeaderView::ResizeToContents);
    m_planView->header()->setSectionResizeMode(PortPlanModel::ChoiceColumn, QHeaderView::Stretch);
    m_planView->header()->setSectionResizeMode(PortPlanModel::LocationColumn,
                                               QHeaderView::ResizeToContents);
    auto* planHint = new QLabel(
        tr("Each part links to its code (click it). Double-click an underlined choice (the "
           "training script, the model, the loss expression) to change it: the port is planned "
           "again."),
        this);
    planHint->setWordWrap(true);
    auto* planPage = new QWidget(this);
    auto* planLayout = new QVBoxLayout(planPage);
    planLayout->addWidget(planHint);
    planLayout->addWidget(m_planView, 1);
    return planPage;
}

QWidget* PortDialog::createFilesPage()
{
    // Files
    m_fileList = new QListWidget(this);
    m_fileList->setMinimumWidth(200);
    m_codePreview = new CodeView(this);
    m_yamlPreview = new YamlTextView(this);
    m_yamlPreview->setReadOnly(true);
    m_yamlPreview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_previewStack = new QStackedWidget(this);
    m_previewStack->addWidget(m_codePreview);
    m_previewStack->addWidget(m_yamlPreview);
    auto* filesPage = new QSplitter(Qt::Horizontal, this);
    filesPage->addWidget(m_fileList);
    filesPage->addWidget(m_previewStack);
    filesPage->setStretchFactor(1, 1);
    filesPage->setSizes({240, 700});
    return filesPage;
}

QLayout* PortDialog::createArgumentsRow()
{
    // The original's arguments, then the output
    m_args = new QLineEdit(this);
    m_args->setPlaceholderText(tr("only if it needs some to run, e.g. --dataset fake"));
    m_args->setToolTip(tr("Command-line values of the original (after --): the port takes them "
                          "as its defaults, and the verification's dry run of the original gets "
                          "them. Shared with the Runs tab's dry run of the original."));
    m_args->setText(QSettings().value(QStringLiteral("dryrun/arguments/") + m_root).toString());
    m_argsPlanned = m_args->text();
    auto* argsRow = new QHBoxLayout;
    argsRow->addWidget(new QLabel(tr("Original's arguments:"), this));
    argsRow->addWidget(m_args, 1);
    return argsRow;
}

QLayout* PortDialog::createOutputRow()
{
    m_folder = new QLineEdit(this);
    m_folder->setText(defaultOutputFolder(m_root, m_target));
    m_folder->setToolTip(tr("A new or empty folder: the original is never modified"));
    m_chooseButton = new QPushButton(tr("Choose…"), this);
    m_writeButton = new QPushButton(tr("Write the Port"), this);
    m_writeButton->setDefault(true);
    auto* out = new QHBoxLayout;
    out->addWidget(new QLabel(tr("Write to:"), this));
    out->addWidget(m_folder, 1);
    out->addWidget(m_chooseButton);
    out->addWidget(m_writeButton);
    return out;
}

QLayout* PortDialog::createStatusRow(QDialogButtonBox* close)
{
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_status, 1);
    bottom->addWidget(close);
    return bottom;
}

void PortDialog::connectParts(QDialogButtonBox* close)
{
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_chooseButton, &QPushButton::clicked, this, &PortDialog::chooseFolder);
    connect(m_writeButton, &QPushButton::clicked, this, [this] {
        QString error;
        if (!writePort(&error) && m_interactive)
            QMessageBox::warning(this, tr("Cannot write the port"), error);
    });
    connect(m_verifyPanel, &PortVerifyPanel::verifyRequested, this, &PortDialog::verify);
    connect(m_verifyPanel, &PortVerifyPanel::cancelRequested, this, &PortDialog::cancelVerify);
    connect(m_folder, &QLineEdit::textChanged, this, &PortDialog::updateButtons);
    // New values are new defaults of the port: planned again while it is not written.
    connect(m_args, &QLineEdit::editingFinished, this, [this] {
        if (m_written.isEmpty() && m_args->text().trimmed() != m_argsPlanned.trimmed())
            generate();
    });
    connect(m_planModel, &PortPlanModel::choiceEdited, this,
            [this](PortPlanModel::Option option, const QString& value) {
                onChoiceEdited(int(option), value);
            });
    connect(m_planView, &QTreeView::clicked, this, [this](const QModelIndex& index) {
        const QString file = index.data(PortPlanModel::FileRole).toString();
        if (!file.isEmpty())
            emit codeRequested(m_root, file, index.data(PortPlanModel::LineRole).toInt(),
                               index.data(PortPlanModel::ColumnRole).toInt());
    });
    connect(m_fileList, &QListWidget::currentRowChanged, this, [this](int row) {
        if (m_port && row >= 0 && std::size_t(row) < m_port->files.size())
            showFile(qs(m_port->files[std::size_t(row)].path));
    });
    // A check error is in the port: its line in the preview, and in the Code tab (the port is
    // the open project once written).
    connect(m_verifyPanel, &PortVerifyPanel::findingActivated, this,
            [this](const QString& file, int line) {
                if (!showFile(file, line))
                    return;
                emit codeRequested(m_written, file, line, 1);
                m_tabs->setCurrentIndex(1);
            });
}

PortDialog::~PortDialog()
{
    // A verification still running ends its child processes rather than outliving the dialog.
    if (m_verifyStop)
        m_verifyStop->store(true);
    // Its two runs in the port's history do not stay "running" forever.
    if (m_verifyHistory)
        for (const qint64 run : {m_runIds.first, m_runIds.second})
            if (run > 0)
                m_verifyHistory->finishRun(run, QStringLiteral("stopped"),
                                           tr("verification stopped: its dialog was closed"));
}

QString PortDialog::defaultOutputFolder(const QString& project, const QString& target)
{
    const QFileInfo info(project);
    const QString base = info.absolutePath() + QLatin1Char('/') + info.fileName() +
                         QLatin1Char('-') + targetSuffix(target);
    QString candidate = base;
    for (int i = 2; !isEmptyOrMissing(candidate) && i < 100; ++i)
        candidate = base + QLatin1Char('-') + QString::number(i);
    return candidate;
}

void PortDialog::generate()
{
    if (!m_analysis)
        return;
    m_generating = true;
    m_argsPlanned = m_args->text();
    m_status->setText(tr("Planning the port…"));
    updateButtons();
    const quint64 id = m_planJob.next();
    // Inputs by value: the analysis is shared and immutable, the options are copied.
    runAsync(
        this,
        [analysis = m_analysis, options = m_options, target = m_target.toStdString(),
         values = argumentValues()] {
            Generation g;
            const auto t0 = std::chrono::steady_clock::now();
            // The arguments choose flag-selected branches in the plan as they do in the CLI.
            port::PortOptions planned = options;
            planned.values = values;
            g.plan = port::planPort(*analysis, planned);
            const double planMs =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            if (g.plan)
                g.port = port::generatePort(*g.plan.value, target, {}, values);
            if (g.port)
                g.port.value->planMs = planMs;
            return g;
        },
        [this, id](Generation g) {
            if (!m_planJob.isCurrent(id))
                return;
            m_generating = false;
            if (!g.plan || !g.port) {
                m_plan.reset();
                m_port.reset();
                m_error = qs(g.plan ? g.port.error.message : g.plan.error.message);
                if (g.plan)
                    m_planModel->setPlan(*g.plan.value, m_analysis.get());
                else
                    m_planModel->clear();
                showPort();
                emit generationFailed(m_error);
                return;
            }
            m_error.clear();
            m_plan = std::move(*g.plan.value);
            m_port = std::move(*g.port.value);
            m_planModel->setPlan(*m_plan, m_analysis.get(), &m_port->manual);
            showPort();
            emit generated();
        });
}

void PortDialog::onChoiceEdited(int option, const QString& value)
{
    switch (PortPlanModel::Option(option)) {
    case PortPlanModel::EntryOption:
        m_options.entry = value.toStdString();
        break;
    case PortPlanModel::ModelVariableOption:
        m_options.modelVariable = value.toStdString();
        break;
    case PortPlanModel::LossOption:
        m_options.lossExpression = value.toStdString();
        break;
    case PortPlanModel::NoOption:
        return;
    }
    // A new plan makes the written port and its verification out of date.
    generate();
}

void PortDialog::showPort()
{
    // Groups open, except long lists (the flags of a big script) that would push the rest of the
    // plan out of sight; they open with a click.
    for (int r = 0; r < m_planModel->rowCount(); ++r) {
        const QModelIndex g = m_planModel->index(r, 0);
        m_planView->setExpanded(g, m_planModel->rowCount(g) <= 6);
        for (int c = 0; c < m_planModel->rowCount(g); ++c)
            m_planView->expand(m_planModel->index(c, 0, g));
    }
    m_fileList->clear();
    showManualItems(m_port ? &*m_port : nullptr);
    if (!m_port) {
        m_summary->setText(tr("<b>No port</b>: %1").arg(m_error.toHtmlEscaped()));
        m_status->setText(m_error);
        m_codePreview->setSource(QString(), QString());
        m_tabs->setTabText(1, tr("Files"));
        m_tabs->setTabText(2, tr("Manual items"));
        updateButtons();
        return;
    }
    const auto& p = *m_port;
    for (const auto& f : p.files) {
        auto* item = new QListWidgetItem(qs(f.path), m_fileList);
        if (!f.from.empty())
            item->setToolTip(tr("from %1").arg(qs(f.from)));
        else
            item->setToolTip(tr("written by Portolan"));
    }

    m_tabs->setTabText(1, tr("Files (%1)").arg(p.files.size()));
    m_tabs->setTabText(2, tr("Manual items (%1)").arg(p.manual.size()));
    m_summary->setText(
        tr("<b>%1</b> port of <code>%2</code> for <b>%3</b>%4 · %5 · %6 · %7 · planned in %8, "
           "generated in %9")
            .arg(p.full() ? tr("Full") : tr("Partial"),
                 QFileInfo(m_root).fileName().toHtmlEscaped(), qs(p.target).toHtmlEscaped(),
                 p.api.empty() ? QString() : tr(" (API %1)").arg(qs(p.api)))
            .arg(qs(format::counted(long(p.files.size()), "file")))
            .arg(qs(format::counted(long(p.manual.size()), "manual item")))
            .arg(qs(format::counted(long(p.notes.size()), "note")))
            .arg(qs(format::milliseconds(p.planMs)))
            .arg(qs(format::milliseconds(p.generateMs))));
    // The notes are listed on the Manual items tab; here too, for a glance.
    m_summary->setToolTip(noteTexts().join(QLatin1Char('\n')));
    // Said as it is: an item the generator did not mark in the port is found only in the
    // original (its link there), not at a TODO the user would search for.
    const auto marked = std::count_if(m_manualItems.cbegin(), m_manualItems.cend(),
                                      [](const ManualItem& m) { return !m.portFile.isEmpty(); });
    if (p.full())
        m_status->setText(tr("Ready to write."));
    else if (marked == m_manualItems.size())
        m_status->setText(tr("Partial: what the plan could not place is marked TODO(portolan) in "
                             "the port (Manual items)."));
    else
        m_status->setText(tr("Partial: %1 to do by hand (Manual items): %2 marked "
                             "TODO(portolan) in the port, %3 shown at their place in the "
                             "original only.")
                              .arg(qs(format::counted(long(m_manualItems.size()), "item")))
                              .arg(marked)
                              .arg(m_manualItems.size() - marked));
    if (!p.files.empty())
        m_fileList->setCurrentRow(0);
    updateButtons();
}

QString PortDialog::statusText() const
{
    return m_status->text();
}

QStringList PortDialog::fileNames() const
{
    QStringList out;
    if (m_port)
        for (const auto& f : m_port->files)
            out << qs(f.path);
    return out;
}

bool PortDialog::showFile(const QString& path, int line)
{
    if (!m_port)
        return false;
    for (std::size_t i = 0; i < m_port->files.size(); ++i) {
        const auto& f = m_port->files[i];
        if (qs(f.path) != path)
            continue;
        m_shownFile = path;
        if (m_fileList->currentRow() != int(i)) {
            const QSignalBlocker block(m_fileList);
            m_fileList->setCurrentRow(int(i));
        }
        const bool yaml =
            path.endsWith(QLatin1String(".yaml")) || path.endsWith(QLatin1String(".yml"));
        if (yaml) {
            m_yamlPreview->setYaml(qs(f.text));
            m_previewStack->setCurrentWidget(m_yamlPreview);
            if (line > 0)
                m_yamlPreview->goToLine(line, 1);
        } else {
            m_codePreview->setSource(path, qs(f.text));
            // The spots the port leaves open stand out in the preview as warnings.
            QVector<CodeMarker> markers;
            for (const auto& m : m_manualItems)
                if (m.portFile == path && m.portLine > 0)
                    markers.append({m.portLine, 0, Severity::Warning, m.message});
            m_codePreview->setMarkers(markers);
            m_previewStack->setCurrentWidget(m_codePreview);
            if (line > 0)
                m_codePreview->goTo(line);
        }
        return true;
    }
    return false;
}

QString PortDialog::previewText() const
{
    return m_previewStack->currentWidget() == m_yamlPreview ? m_yamlPreview->toPlainText()
                                                            : m_codePreview->toPlainText();
}

QString PortDialog::arguments() const
{
    return m_args->text();
}

void PortDialog::setArguments(const QString& words)
{
    m_args->setText(words);
    if (m_written.isEmpty() && words.trimmed() != m_argsPlanned.trimmed())
        generate();
}

std::vector<std::string> PortDialog::argumentWords() const
{
    std::vector<std::string> out;
    for (const QString& w : QProcess::splitCommand(m_args->text().trimmed()))
        out.push_back(w.toStdString());
    return out;
}

std::map<std::string, std::string> PortDialog::argumentValues() const
{
    if (!m_analysis)
        return port::argumentValues(argumentWords());
    return port::argumentValues(argumentWords(), m_analysis->facts().flags);
}

QString PortDialog::outputFolder() const
{
    return QDir::cleanPath(m_folder->text().trimmed());
}

void PortDialog::setOutputFolder(const QString& folder)
{
    m_folder->setText(folder);
}

void PortDialog::chooseFolder()
{
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Folder for the port (new or empty)"), QFileInfo(outputFolder()).absolutePath());
    if (!folder.isEmpty())
        setOutputFolder(folder);
}

bool PortDialog::writePort(QString* error)
{
    auto fail = [&](const QString& message) {
        m_status->setText(message);
        if (error)
            *error = message;
        return false;
    };
    if (!m_port)
        return fail(tr("Nothing to write yet: the port is still being planned."));
    const QString out = QFileInfo(outputFolder()).absoluteFilePath();
    if (outputFolder().isEmpty())
        return fail(tr("Choose a folder for the port."));
    const QString root = QFileInfo(m_root).absoluteFilePath();
    if (out == root || out.startsWith(root + QLatin1Char('/')))
        return fail(tr("The port must be written outside the original project (%1): the "
                       "original is never modified.")
                        .arg(QDir::toNativeSeparators(root)));
    if (!isEmptyOrMissing(out))
        return fail(tr("%1 is not empty: choose a new or empty folder, the port never "
                       "overwrites files.")
                        .arg(QDir::toNativeSeparators(out)));
    if (auto d = port::writePort(*m_port, out.toStdString()))
        return fail(tr("Cannot write the port: %1").arg(qs(d->message)));
    m_written = out;
    m_verify.reset();
    m_status->setText(tr("Written to %1. It is now the open project; Verify checks that it trains "
                         "like the original.")
                          .arg(QDir::toNativeSeparators(out)));
    updateButtons();
    emit portWritten(out);
    return true;
}

void PortDialog::updateButtons()
{
    const bool ready = m_port && !m_generating;
    m_writeButton->setEnabled(ready && m_written.isEmpty() &&
                              !m_folder->text().trimmed().isEmpty());
    m_chooseButton->setEnabled(m_written.isEmpty());
    m_folder->setEnabled(m_written.isEmpty());
    m_verifyPanel->verifyButton()->setEnabled(ready && !m_written.isEmpty() && !m_verifying);
    m_verifyPanel->cancelButton()->setEnabled(m_verifying && m_verifyStop && !m_verifyStop->load());
    m_verifyPanel->verifyButton()->setToolTip(m_written.isEmpty()
                                                  ? tr("Write the port first")
                                                  : tr("Check the port, dry-run original and "
                                                       "port, and compare their losses"));
    // Once written, the plan stays browsable (its items still link to the code) but no longer
    // editable: the files on disk are the port.
    m_planView->setEditTriggers(m_written.isEmpty() ? QAbstractItemView::DoubleClicked |
                                                          QAbstractItemView::EditKeyPressed
                                                    : QAbstractItemView::NoEditTriggers);
}

} // namespace portolan::views
