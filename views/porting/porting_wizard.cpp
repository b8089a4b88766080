#include "views/porting/porting_wizard.h"

#include "core/common/number_format.h"
#include "core/guides/fixes/apply_fix.h"
#include "core/port/generate.h"
#include "core/project/params_file.h"
#include "views/common/placeholder_table_view.h"
#include "views/common/reading_columns.h"
#include "views/porting/analysis_runner.h"
#include "views/porting/findings_model.h"
#include "views/porting/fix_dialog.h"
#include "views/porting/guide_steps_model.h"
#include "views/porting/params_fix_dialog.h"
#include "views/porting/port_dialog.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

namespace portolan::views {

PortingWizard::PortingWizard(AnalysisRunner* runner, QWidget* parent)
    : QWidget(parent), m_runner(runner), m_steps(new GuideStepsModel(this)),
      m_findings(new FindingsModel(this))
{
    QLayout* top = createChoiceRows();
    m_stepList = new QListView(this);
    m_stepList->setObjectName(QStringLiteral("stepList"));
    m_stepList->setModel(m_steps);
    m_stepList->setSpacing(2);
    m_stepList->setWordWrap(true);
    m_stepList->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_stepList->setMinimumWidth(200);

    QWidget* detail = createStepDetail();

    auto* body = new QSplitter(Qt::Horizontal, this);
    body->addWidget(m_stepList);
    body->addWidget(detail);
    body->setStretchFactor(1, 1);
    body->setSizes({280, 800});

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(body, 1);

    connectParts();
    showSnapshot(nullptr);
}

QLayout* PortingWizard::createChoiceRows()
{
    m_guideCombo = new QComboBox(this);
    m_guideCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_paramsCombo = new QComboBox(this);
    // The params file takes the rest of the row, so a long path shows in full when there is
    // room, and the tab still fits a 1024-pixel window when there is not.
    m_paramsCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_paramsCombo->setMinimumContentsLength(24);
    m_guideCombo->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);
    m_paramsCombo->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_flavour = new QLabel(this);
    m_flavour->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_flavour->setWordWrap(true);
    m_progress = new QProgressBar(this);
    m_progress->setFormat(tr("%v / %m steps done"));
    m_progress->setMinimumWidth(180);
    m_progress->setMaximumWidth(260);

    // Two rows: the choices above, what was detected and the progress below. On one row the
    // tab could not shrink below about 1,100 pixels.
    auto* choices = new QHBoxLayout;
    choices->addWidget(new QLabel(tr("Target workflow:"), this));
    choices->addWidget(m_guideCombo);
    choices->addSpacing(12);
    choices->addWidget(new QLabel(tr("Params file:"), this));
    choices->addWidget(m_paramsCombo, 1);
    auto* detected = new QHBoxLayout;
    detected->addWidget(m_flavour, 1);
    detected->addWidget(m_progress);
    auto* top = new QVBoxLayout;
    top->addLayout(choices);
    top->addLayout(detected);
    return top;
}

// The selected step: its title, why it matters, its findings and the buttons that act on them.
QWidget* PortingWizard::createStepDetail()
{
    m_stepTitle = new QLabel(this);
    m_stepTitle->setObjectName(QStringLiteral("stepTitle"));
    QFont f = m_stepTitle->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.25);
    m_stepTitle->setFont(f);
    m_stepTitle->setWordWrap(true);
    m_explanation = new QTextBrowser(this);
    m_explanation->setObjectName(QStringLiteral("stepExplanation"));
    m_explanation->setOpenExternalLinks(true);
    createFindingTable();
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_fixButton = new QPushButton(tr("Apply Fix…"), this);
    m_undoButton = new QPushButton(tr("Undo Fix"), this);
    m_portButton = new QPushButton(tr("Generate the Port…"), this);
    m_status = new QLabel(this);
    m_status->setWordWrap(true); // the counts wrap before the buttons are pushed out
    m_verifyReason = new QLabel(this);
    m_verifyReason->setWordWrap(true);
    m_verifyButton = new QPushButton(this);
    m_verifyButton->hide();
    auto* verifyRow = new QHBoxLayout;
    verifyRow->addWidget(m_verifyReason, 1);
    verifyRow->addWidget(m_verifyButton);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_portButton);
    buttons->addWidget(m_undoButton);
    buttons->addWidget(m_fixButton);

    auto* detail = new QWidget(this);
    auto* right = new QVBoxLayout(detail);
    right->setContentsMargins(0, 0, 0, 0);
    right->addWidget(m_stepTitle);
    right->addLayout(verifyRow);
    auto* split = new QSplitter(Qt::Vertical, detail);
    split->addWidget(m_explanation);
    split->addWidget(m_findingTable);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    right->addWidget(split, 1);
    right->addWidget(m_hint);
    right->addLayout(buttons);
    return detail;
}

void PortingWizard::createFindingTable()
{
    auto* findingTable = new PlaceholderTableView(this);
    findingTable->setObjectName(QStringLiteral("findingTable"));
    // A step without findings showed an empty grid: its status is in the list beside it.
    findingTable->setPlaceholderText(
        tr("No findings in this step. Its status is in the list of steps."));
    m_findingTable = findingTable;
    m_findingTable->setModel(m_findings);
    m_findingTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_findingTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_findingTable->setAlternatingRowColors(true);
    m_findingTable->verticalHeader()->hide();
    m_findingTable->setWordWrap(false);
    m_findingTable->horizontalHeader()->setSectionResizeMode(FindingsModel::SeverityColumn,
                                                             QHeaderView::ResizeToContents);
    // The finding is what a user reads: the check's name gives way first (down to a few
    // characters, its full id in the tooltip), then the location (keeping its file name and
    // line); the finding is cut only when both are at their least.
    auto* columns = new ReadingColumns(m_findingTable, FindingsModel::MessageColumn);
    columns->addYielding(FindingsModel::CheckColumn, 6);
    columns->addYielding(FindingsModel::LocationColumn, 22, Qt::ElideLeft);
}

void PortingWizard::connectParts()
{
    connect(m_runner, &AnalysisRunner::finished, this, &PortingWizard::showSnapshot);
    connect(m_runner, &AnalysisRunner::started, this,
            [this] { m_status->setText(tr("Checking…")); });
    connect(m_runner, &AnalysisRunner::failed, this,
            [this](const QString& msg) { m_status->setText(tr("Analysis failed: %1").arg(msg)); });
    connect(m_guideCombo, &QComboBox::activated, this,
            [this](int i) { m_runner->setGuide(m_guideCombo->itemData(i).toString()); });
    connect(m_paramsCombo, &QComboBox::activated, this,
            [this](int i) { chooseParamsFile(m_paramsCombo->itemData(i).toString()); });
    connect(m_stepList->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showStep(current.row()); });
    connect(m_findingTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { selectFinding(current.row()); });
    connect(m_findingTable, &QTableView::activated, this,
            [this](const QModelIndex& index) { selectFinding(index.row()); });
    connect(m_fixButton, &QPushButton::clicked, this,
            [this] { applyFixOfFinding(m_findingTable->currentIndex().row()); });
    connect(m_undoButton, &QPushButton::clicked, this, &PortingWizard::undoLastFix);
    connect(m_portButton, &QPushButton::clicked, this, &PortingWizard::openPortDialog);
    connect(m_verifyButton, &QPushButton::clicked, this, [this] {
        if (m_verifyAction == int(guides::VerifyAction::Compile))
            emit compileRequested();
        else if (m_verifyAction == int(guides::VerifyAction::Run))
            emit dryRunRequested();
    });
}

void PortingWizard::showSnapshot(const PortingSnapshotPtr& snapshot)
{
    m_snapshot = snapshot;
    const int keepStep = m_currentStep;
    m_steps->setSnapshot(snapshot);

    m_guideCombo->clear();
    m_paramsCombo->clear();
    if (!snapshot) {
        m_flavour->setText(tr("Open a project to see its porting checklist."));
        m_progress->setRange(0, 1);
        m_progress->setValue(0);
        showStep(-1);
        m_status->clear();
        return;
    }
    for (const auto& g : snapshot->guides->guides)
        m_guideCombo->addItem(QString::fromStdString(g.title), QString::fromStdString(g.id));
    m_guideCombo->setCurrentIndex(
        m_guideCombo->findData(QString::fromStdString(snapshot->guideId)));
    // No workflow recognised: the empty box asks for one rather than looking broken.
    m_guideCombo->setPlaceholderText(tr("Choose a workflow…"));

    // The params file: the project's YAML files, the one in use selected, and the rule's default.
    const ParamsFileChoice& params = snapshot->analysis->paramsFile;
    if (params.candidates.empty()) {
        m_paramsCombo->addItem(tr("(none)"), QString());
    } else {
        if (params.source == ParamsSource::Saved)
            m_paramsCombo->addItem(tr("Default rule"), QString());
        for (const auto& c : params.candidates)
            m_paramsCombo->addItem(QString::fromStdString(c), QString::fromStdString(c));
        if (!params.path.empty() &&
            m_paramsCombo->findData(QString::fromStdString(params.path)) < 0)
            m_paramsCombo->addItem(QString::fromStdString(params.path),
                                   QString::fromStdString(params.path));
        m_paramsCombo->setCurrentIndex(
            m_paramsCombo->findData(QString::fromStdString(params.path)));
    }
    m_paramsCombo->setEnabled(params.candidates.size() > 1 || params.source == ParamsSource::Saved);
    m_paramsCombo->setToolTip(
        tr("%1 (%2). The choice is saved with the project and used by every tab and the CLI.")
            .arg(QString::fromStdString(params.empty() ? std::string("no params file")
                                                       : params.path),
                 QString::fromStdString(params.reason)));

    const analysis::FlavourReport& fl = snapshot->analysis->flavour;
    QString flavour =
        tr("Detected: <b>%1</b>").arg(QString::fromStdString(fl.summary()).toHtmlEscaped());
    // The Cerebras API generation sits beside the flavour: it decides which Cerebras guide
    // (runner, cstorch or Trainer) the port follows; the guide picker offers the others.
    if (fl.apiGeneration != analysis::ApiGeneration::None)
        flavour += tr(" · %1").arg(
            QString::fromStdString(std::string(analysis::apiGenerationName(fl.apiGeneration)))
                .toHtmlEscaped());
    if (!fl.suggestedGuide.empty() && fl.suggestedGuide != snapshot->guideId)
        flavour += tr(" · suggested workflow: %1").arg(QString::fromStdString(fl.suggestedGuide));
    m_flavour->setText(flavour);
    QStringList evidence;
    for (const auto& e : fl.evidence)
        evidence << QStringLiteral("%1 — %2").arg(QString::fromStdString(e.location.toString()),
                                                  QString::fromStdString(e.what));
    if (fl.apiGeneration != analysis::ApiGeneration::None) {
        evidence << QString() << QString::fromStdString(fl.generationReason);
        for (const auto& e : fl.generationEvidence)
            evidence << QStringLiteral("%1 — %2").arg(QString::fromStdString(e.location.toString()),
                                                      QString::fromStdString(e.what));
    }
    m_flavour->setToolTip(QString::fromStdString(fl.suggestionReason) + QStringLiteral("\n\n") +
                          evidence.mid(0, 20).join(QLatin1Char('\n')));

    m_progress->setRange(0, std::max(1, m_steps->stepCount()));
    m_progress->setValue(m_steps->stepsDone());
    // "0 / 1 steps done" without a checklist counted a step that does not exist.
    m_progress->setFormat(m_steps->stepCount() > 0 ? tr("%v / %m steps done") : tr("no checklist"));
    const auto& r = snapshot->result;
    m_status->setText(
        tr("%1, %2, %3 · checked in %4")
            .arg(QString::fromStdString(format::counted(r.errors, "error")),
                 QString::fromStdString(format::counted(r.warnings, "warning")),
                 QString::fromStdString(format::counted(r.infos, "note")),
                 QString::fromStdString(format::milliseconds(snapshot->milliseconds))));
    // A re-check of the same project and guide keeps the user's step; a new project or guide
    // opens on the step with something to do, not on a step 1 with nothing to show.
    const QString key = QString::fromStdString(snapshot->analysis->root.string()) +
                        QLatin1Char('\n') + QString::fromStdString(snapshot->guideId);
    const bool fresh = key != std::exchange(m_shownKey, key);
    selectStep(fresh ? firstStepToShow()
                     : std::clamp(keepStep, 0, std::max(0, m_steps->stepCount() - 1)));
}

int PortingWizard::firstStepToShow() const
{
    // Errors and warnings first, then a step with notes only, then the first step.
    for (const bool notesToo : {false, true})
        for (int row = 0; row < m_steps->rowCount(); ++row) {
            const QModelIndex i = m_steps->index(row);
            const int serious = i.data(GuideStepsModel::ErrorsRole).toInt() +
                                i.data(GuideStepsModel::WarningsRole).toInt();
            if (serious > 0 || (notesToo && i.data(GuideStepsModel::FindingCountRole).toInt() > 0))
                return row;
        }
    return 0;
}

void PortingWizard::selectStep(int row)
{
    if (row < 0 || row >= m_steps->rowCount()) {
        showStep(-1);
        return;
    }
    m_stepList->setCurrentIndex(m_steps->index(row));
    showStep(row);
}

void PortingWizard::showStep(int row)
{
    const guides::Guide* g = m_snapshot ? m_snapshot->guide() : nullptr;
    if (!g || row < 0 || std::size_t(row) >= g->steps.size()) {
        m_verifyAction = 0;
        m_verifyReason->hide();
        m_verifyButton->hide();
        m_stepTitle->setText(g ? tr("Select a step") : QString());
        m_explanation->clear();
        // Without a checklist, its list and its findings table have nothing to hold.
        m_stepList->setVisible(g || !m_snapshot);
        m_findingTable->setVisible(g || !m_snapshot);
        if (!g && m_snapshot) {
            // No workflow was recognised: a blank list, a blank page and "0 / 1 steps" said
            // nothing. Say why, and what would fill the checklist.
            m_stepTitle->setText(tr("No workflow to check against"));
            m_explanation->setHtml(
                m_snapshot->analysis->python.empty()
                    ? tr("<p>There is no Python code here, so there is nothing to port yet. A "
                         "params file opened on its own is edited in the Params tab and compiled "
                         "in the Profile tab; open the project folder that holds its code "
                         "(File › Open Project…) to check the port.</p>")
                    : tr("<p>Portolan did not recognise the training workflow of this code. "
                         "Choose a target workflow above: its checklist appears here, with "
                         "each step's findings.</p>"));
        }
        m_findings->setFindings({});
        updateButtons();
        return;
    }
    m_currentStep = row;
    m_stepList->show();
    m_findingTable->show();
    const guides::Step& step = g->steps[std::size_t(row)];
    m_stepTitle->setText(tr("Step %1 of %2: %3")
                             .arg(row + 1)
                             .arg(g->steps.size())
                             .arg(QString::fromStdString(step.title)));
    QString html = QStringLiteral("<p>%1</p>")
                       .arg(QString::fromStdString(step.explanation)
                                .toHtmlEscaped()
                                .replace(QStringLiteral("\n\n"), QStringLiteral("</p><p>")));
    if (!step.files.empty()) {
        QStringList files;
        for (const auto& file : step.files)
            files << QStringLiteral("<code>%1</code>")
                         .arg(QString::fromStdString(file).toHtmlEscaped());
        html += tr("<p><i>Files:</i> %1</p>").arg(files.join(QStringLiteral(", ")));
    }
    html += tr("<p><i>Checks in this step:</i> %1</p>").arg(step.checks.size());
    m_explanation->setHtml(html);
    const auto& results = m_snapshot->result.steps;
    m_findings->setFindings(std::size_t(row) < results.size() ? results[std::size_t(row)].findings
                                                              : std::vector<guides::Finding>{});
    if (m_findings->rowCount() > 0)
        m_findingTable->selectRow(0);
    // A step "not verified" says why next to the action that verifies it.
    const QModelIndex index = m_steps->index(row);
    m_verifyAction = index.data(GuideStepsModel::VerifyActionRole).toInt();
    const bool notVerified = m_verifyAction != int(guides::VerifyAction::None);
    m_verifyReason->setText(
        notVerified
            ? tr("<b>Not verified:</b> %1.")
                  .arg(
                      index.data(GuideStepsModel::NotVerifiedReasonRole).toString().toHtmlEscaped())
            : QString());
    m_verifyReason->setVisible(notVerified);
    m_verifyButton->setText(GuideStepsModel::verifyActionText(m_verifyAction));
    m_verifyButton->setVisible(notVerified);
    updateButtons();
}

QString PortingWizard::notVerifiedText() const
{
    return m_verifyReason->isVisible() ? m_verifyReason->text() : QString();
}

void PortingWizard::selectFinding(int row)
{
    const guides::Finding* f = m_findings->findingAt(row);
    if (!f) {
        updateButtons();
        return;
    }
    if (m_findingTable->currentIndex().row() != row)
        m_findingTable->selectRow(row);
    // The table shows one line of each finding; the selected one is read here in full.
    QString text = QString::fromStdString(f->message).toHtmlEscaped();
    if (!f->hint.empty())
        text += QStringLiteral("<br>") +
                tr("<b>How to fix:</b> %1").arg(QString::fromStdString(f->hint).toHtmlEscaped());
    m_hint->setText(text);
    updateButtons();
    emit findingActivated(QString::fromStdString(f->location.file), f->location.line,
                          f->location.column);
}

void PortingWizard::updateButtons()
{
    const guides::Finding* f = m_findings->findingAt(m_findingTable->currentIndex().row());
    m_fixButton->setEnabled(f && f->fix.has_value());
    m_fixButton->setToolTip(f && f->fix ? QString::fromStdString(f->fix->description) : QString());
    m_undoButton->setEnabled(!m_undo.empty());
    m_portButton->setEnabled(canGeneratePort());
    m_portButton->setToolTip(
        canGeneratePort()
            ? tr("Plan the port of this original for the chosen workflow, preview its files, "
                 "write it to a new folder and verify that it trains like the original")
            : tr("For an original (plain PyTorch) project, with a Determined, PopTorch or "
                 "Cerebras PyTorch workflow chosen"));
    m_undoButton->setToolTip(m_undo.empty() ? QString()
                                            : QString::fromStdString(m_undo.back().description));
    if (!f)
        m_hint->clear();
}

bool PortingWizard::applyFixOfFinding(int row, bool confirm)
{
    const guides::Finding* f = m_findings->findingAt(row);
    if (!f || !f->fix || !m_snapshot)
        return false;
    const std::filesystem::path root = m_snapshot->analysis->root;
    guides::Fix fix = *f->fix;
    auto diff = guides::previewFix(root, fix);
    if (!diff) {
        emit message(
            tr("Cannot apply the fix: %1").arg(QString::fromStdString(diff.error.message)));
        return false;
    }
    // The params file from argparse: the user sees where each flag goes and can move it first.
    const guides::Guide* guide = m_snapshot->guide();
    const guides::Check* check = guide ? guide->findCheck(f->checkId) : nullptr;
    if (confirm && check && check->fixKind == "params-from-argparse") {
        const auto target = check->fixParams.get("target") == "determined"
                                ? guides::ParamsTarget::Determined
                                : guides::ParamsTarget::Cerebras;
        if (auto plan = guides::planParamsFromArgparse(*m_snapshot->analysis, target)) {
            ParamsFixDialog dialog(m_snapshot->analysis, std::move(*plan), this);
            if (dialog.exec() != QDialog::Accepted || !dialog.fix())
                return false;
            fix = *dialog.fix();
            confirm = false;
        }
    }
    if (confirm) {
        FixDialog dialog(QString::fromStdString(fix.description),
                         QString::fromStdString(*diff.value), this);
        if (dialog.exec() != QDialog::Accepted)
            return false;
    }
    auto inverse = guides::applyFix(root, fix);
    if (!inverse) {
        emit message(
            tr("Cannot apply the fix: %1").arg(QString::fromStdString(inverse.error.toString())));
        return false;
    }
    m_undo.push_back({root.string(), *inverse.value, "Undo: " + fix.description});
    emit message(tr("Applied: %1").arg(QString::fromStdString(fix.description)));
    updateButtons();
    m_runner->rerun();
    return true;
}

bool PortingWizard::canGeneratePort() const
{
    if (!m_snapshot || !m_snapshot->analysis ||
        m_snapshot->analysis->flavour.flavour != analysis::Flavour::PlainPyTorch)
        return false;
    const auto targets = port::portTargets();
    return std::find(targets.begin(), targets.end(), m_snapshot->guideId) != targets.end();
}

PortDialog* PortingWizard::openPortDialog()
{
    if (!canGeneratePort())
        return nullptr;
    auto* dialog =
        new PortDialog(m_snapshot->analysis, QString::fromStdString(m_snapshot->guideId), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PortDialog::codeRequested, this, &PortingWizard::codeRequested);
    connect(dialog, &PortDialog::portWritten, this, &PortingWizard::portWritten);
    connect(dialog, &PortDialog::verifyStarted, this, &PortingWizard::portVerifyStarted);
    connect(dialog, &PortDialog::verifyProgress, this, &PortingWizard::portVerifyProgress);
    dialog->show();
    return dialog;
}

bool PortingWizard::chooseParamsFile(const QString& relativePath)
{
    if (!m_snapshot)
        return false;
    const std::filesystem::path root = m_snapshot->analysis->root;
    if (relativePath.toStdString() == m_snapshot->analysis->paramsFile.path &&
        m_snapshot->analysis->paramsFile.source == ParamsSource::Saved)
        return true;
    if (auto err = saveParamsFile(root, relativePath.toStdString())) {
        emit message(
            tr("Cannot save the params file choice: %1").arg(QString::fromStdString(err->message)));
        return false;
    }
    // The user's pick is saved: it replaces a file opened on its own as the one the checks read.
    m_runner->setParamsOverride({});
    const ParamsFileChoice now = paramsFileFor(root);
    emit message(tr("Params file: %1 (%2)")
                     .arg(QString::fromStdString(now.path), QString::fromStdString(now.reason)));
    if (!now.empty())
        emit paramsFileChosen(QString::fromStdString(now.absolute(root).string()));
    m_runner->rerun();
    return true;
}

bool PortingWizard::undoLastFix()
{
    if (m_undo.empty())
        return false;
    const Undo u = m_undo.back();
    auto redo = guides::applyFix(u.root, u.inverse);
    if (!redo) {
        emit message(tr("Cannot undo: %1").arg(QString::fromStdString(redo.error.toString())));
        return false;
    }
    m_undo.pop_back();
    emit message(QString::fromStdString(u.description));
    updateButtons();
    m_runner->rerun();
    return true;
}

QVector<CodeMarker> PortingWizard::markersForFile(const QString& relativePath) const
{
    QVector<CodeMarker> out;
    if (!m_snapshot)
        return out;
    const std::string path = relativePath.toStdString();
    for (const auto& f : m_snapshot->result.allFindings())
        if (f.location.file == path)
            out.append({f.location.line, f.location.column, f.severity,
                        QString::fromStdString(f.message + " [" + f.checkId + "]")});
    for (const auto& d : m_snapshot->analysis->diagnostics)
        if (d.location.file == path && d.location.line > 0)
            out.append({d.location.line, d.location.column, d.severity,
                        QString::fromStdString(d.message)});
    return out;
}

} // namespace portolan::views
