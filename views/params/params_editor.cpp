#include "views/params/params_editor.h"

#include "core/common/number_format.h"
#include "core/params/validate.h"
#include "views/common/diagnostics_model.h"
#include "views/common/wrap_anywhere_label.h"
#include "views/params/params_form.h"
#include "views/params/yaml_text_view.h"

#include <QAbstractButton>
#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

namespace portolan::views {

ParamsEditor::ParamsEditor(QWidget* parent) : QWidget(parent)
{
    m_schemas = params::loadBuiltinSchemas();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* bar = new QToolBar(this);
    m_undo = bar->addAction(tr("Undo"), this, [this] {
        commitTextNow();
        if (m_doc.undo())
            afterChange(true, true);
    });
    m_undo->setShortcut(QKeySequence::Undo);
    m_redo = bar->addAction(tr("Redo"), this, [this] {
        if (m_doc.redo())
            afterChange(true, true);
    });
    m_redo->setShortcut(QKeySequence::Redo);
    bar->addSeparator();
    m_save = bar->addAction(tr("Save"), this, [this] { save(); });
    m_save->setShortcut(QKeySequence::Save);
    m_revert = bar->addAction(tr("Revert"), this, [this] { revert(); });
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Schema: "), bar));
    m_schemaBox = new QComboBox(bar);
    m_schemaBox->addItem(tr("Detect from the file"), QString());
    for (const auto& s : m_schemas.schemas)
        m_schemaBox->addItem(QString::fromStdString(s.title), QString::fromStdString(s.name));
    connect(m_schemaBox, &QComboBox::activated, this,
            [this](int i) { setSchemaName(m_schemaBox->itemData(i).toString()); });
    bar->addWidget(m_schemaBox);
    m_dirtyMarker = new QLabel(tr("  ● Modified"), bar);
    m_dirtyMarker->setVisible(false);
    bar->addWidget(m_dirtyMarker);
    layout->addWidget(bar);

    auto* vertical = new QSplitter(Qt::Vertical, this);
    auto* horizontal = new QSplitter(Qt::Horizontal, vertical);
    m_form = new ParamsForm(horizontal);
    m_text = new YamlTextView(horizontal);
    horizontal->setStretchFactor(0, 3);
    horizontal->setStretchFactor(1, 2);
    // The same proportions from the start: the form's wide size hint (a Graphcore config's
    // long keys) left the YAML a 190-pixel strip at 1024 pixels, every line cut. Proportions,
    // so that they hold before the editor is first shown.
    horizontal->setSizes({3000, 2000});
    m_diagnosticsModel = new DiagnosticsModel(this);
    m_diagnosticsView = new QTableView(vertical);
    setUpDiagnosticsTable(m_diagnosticsView, m_diagnosticsModel);
    connect(m_diagnosticsView, &QTableView::activated, this, [this](const QModelIndex& index) {
        const auto& d = m_diagnosticsModel->diagnosticAt(index.row());
        m_text->goToLine(d.location.line, d.location.column);
    });
    vertical->setStretchFactor(0, 4);
    vertical->setStretchFactor(1, 1);
    // Before a file is open the tab said nothing (a blank form beside a blank text): it says
    // what fills it and offers to open a file.
    m_empty = new QWidget(this);
    m_empty->setObjectName(QStringLiteral("paramsEmpty"));
    auto* emptyLayout = new QVBoxLayout(m_empty);
    auto* emptyText = new QLabel(
        tr("No params file is open. This tab shows a project's params file (a Cerebras "
           "params.yaml, a Model Zoo Trainer YAML, a Determined experiment config) as a form "
           "beside its text, and keeps its comments on every edit.\n\n"
           "The project's own file opens here when the project is analysed; a project without "
           "one lists none in the Porting tab's \"Params file\". Open another file with the "
           "button or File > Open Params File."),
        m_empty);
    emptyText->setWordWrap(true);
    auto* openButton = new QPushButton(tr("Open a Params File…"), m_empty);
    openButton->setObjectName(QStringLiteral("openParamsFile"));
    connect(openButton, &QPushButton::clicked, this, [this] {
        const QString file =
            QFileDialog::getOpenFileName(this, tr("Open Params File"), QString(),
                                         tr("YAML files (*.yaml *.yml);;All files (*)"));
        if (!file.isEmpty())
            openFile(file);
    });
    emptyLayout->addWidget(emptyText);
    emptyLayout->addWidget(openButton, 0, Qt::AlignLeft);
    emptyLayout->addStretch();
    m_pages = new QStackedWidget(this);
    m_pages->addWidget(m_empty);
    m_pages->addWidget(vertical);
    layout->addWidget(m_pages, 1);
    // It names the file, which can have no break point (a Model Zoo config): it wraps anywhere.
    m_status = new WrapAnywhereLabel(QString(), this);
    layout->addWidget(m_status);

    connect(m_form, &ParamsForm::edited, this, &ParamsEditor::onFormEdited);
    connect(m_form, &ParamsForm::appendRequested, this, &ParamsEditor::onAppend);
    connect(m_form, &ParamsForm::removeRequested, this, &ParamsEditor::onRemove);

    // Typing is applied after a pause, as one undo step, so the form is not rebuilt per key.
    m_textTimer = new QTimer(this);
    m_textTimer->setSingleShot(true);
    m_textTimer->setInterval(400);
    connect(m_text, &YamlTextView::userEdited, m_textTimer, qOverload<>(&QTimer::start));
    connect(m_textTimer, &QTimer::timeout, this, &ParamsEditor::applyText);

    m_watcher = new QFileSystemWatcher(this);
    m_diskTimer = new QTimer(this);
    m_diskTimer->setSingleShot(true);
    m_diskTimer->setInterval(200); // writers often touch a file several times in a row
    connect(m_watcher, &QFileSystemWatcher::fileChanged, m_diskTimer, qOverload<>(&QTimer::start));
    connect(m_diskTimer, &QTimer::timeout, this, &ParamsEditor::checkDiskNow);
    updateActions();
}

ParamsEditor::~ParamsEditor() = default;

bool ParamsEditor::openFile(const QString& path)
{
    auto opened = params::ParamsDocument::open(path.toStdString());
    if (!opened) {
        m_lastError = QString::fromStdString(opened.error.toString());
        m_status->setText(m_lastError);
        return false;
    }
    m_doc = std::move(*opened.value);
    m_lastError.clear();
    m_pages->setCurrentIndex(1);
    m_diagnosticsModel->setBaseFolder(QFileInfo(path).absolutePath());
    watch();
    afterChange(true, true);
    emit fileChanged(filePath());
    return true;
}

QString ParamsEditor::filePath() const
{
    return QString::fromStdString(m_doc.path().string());
}

bool ParamsEditor::isDirty() const
{
    return m_doc.isModified() || m_textTimer->isActive();
}

QString ParamsEditor::schemaName() const
{
    return m_schema ? QString::fromStdString(m_schema->name) : QString();
}

void ParamsEditor::setSchemaName(const QString& name)
{
    m_forcedSchema = name;
    const int i = m_schemaBox->findData(name);
    m_schemaBox->setCurrentIndex(i < 0 ? 0 : i);
    afterChange(true, false);
}

ParamsEditor::Answer ParamsEditor::ask(Question q, const QString& text, QWidget* parent)
{
    if (m_ask)
        return m_ask(q, text, parent ? parent : this);
    QWidget* p = parent ? parent : this;
    switch (q) {
    case Question::SaveBeforeClose: {
        const auto b = QMessageBox::question(
            p, tr("Unsaved changes"), text,
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        return b == QMessageBox::Save      ? Answer::Save
               : b == QMessageBox::Discard ? Answer::Discard
                                           : Answer::Cancel;
    }
    case Question::ReloadChangedFile: {
        QMessageBox box(QMessageBox::Question, tr("File changed on disk"), text,
                        QMessageBox::NoButton, p);
        QAbstractButton* reload = box.addButton(tr("Reload"), QMessageBox::AcceptRole);
        box.addButton(tr("Keep my version"), QMessageBox::RejectRole);
        box.exec();
        return box.clickedButton() == reload ? Answer::Reload : Answer::Keep;
    }
    case Question::OverwriteChangedFile: {
        const auto b =
            QMessageBox::warning(p, tr("File changed on disk"), text,
                                 QMessageBox::Save | QMessageBox::Cancel, QMessageBox::Cancel);
        return b == QMessageBox::Save ? Answer::Overwrite : Answer::Cancel;
    }
    case Question::SaveFailed:
        QMessageBox::critical(p, tr("Could not save"), text);
        return Answer::Ok;
    }
    return Answer::Cancel;
}

bool ParamsEditor::save()
{
    commitTextNow();
    auto err = m_doc.save(false);
    if (err && err->code == "params.changed-on-disk") {
        if (ask(Question::OverwriteChangedFile,
                tr("%1 was changed by another program since it was opened. Overwrite it with "
                   "your version?")
                    .arg(filePath())) != Answer::Overwrite)
            return false;
        err = m_doc.save(true);
    }
    if (err) {
        m_lastError = QString::fromStdString(err->toString());
        ask(Question::SaveFailed, m_lastError);
        return false;
    }
    watch();
    updateActions();
    return true;
}

void ParamsEditor::revert()
{
    m_textTimer->stop();
    m_doc.revert();
    afterChange(true, true);
}

bool ParamsEditor::maybeClose(QWidget* dialogParent)
{
    if (!isDirty())
        return true;
    switch (ask(Question::SaveBeforeClose,
                tr("%1 has unsaved changes. Save them?").arg(QFileInfo(filePath()).fileName()),
                dialogParent)) {
    case Answer::Save:
        return save();
    case Answer::Discard:
        return true;
    default:
        return false;
    }
}

void ParamsEditor::commitTextNow()
{
    if (!m_textTimer->isActive())
        return;
    m_textTimer->stop();
    applyText();
}

void ParamsEditor::applyText()
{
    const std::string text = m_text->toPlainText().toStdString();
    if (text == m_doc.text())
        return;
    m_doc.setText(text, "Edit text");
    afterChange(true, false);
}

void ParamsEditor::checkDiskNow()
{
    if (m_asking || m_doc.path().empty())
        return;
    watch(); // an atomic rename by another program replaces the watched file
    if (!m_doc.changedOnDisk())
        return;
    m_asking = true;
    const Answer a = ask(Question::ReloadChangedFile,
                         isDirty() ? tr("%1 changed on disk. Reload it and lose your unsaved "
                                        "changes, or keep your version?")
                                         .arg(filePath())
                                   : tr("%1 changed on disk. Reload it?").arg(filePath()));
    m_asking = false;
    if (a == Answer::Reload) {
        m_textTimer->stop();
        if (auto err = m_doc.reload()) {
            m_lastError = QString::fromStdString(err->toString());
            m_status->setText(m_lastError);
            return;
        }
        afterChange(true, true);
    }
}

void ParamsEditor::watch()
{
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    if (!m_doc.path().empty())
        m_watcher->addPath(filePath());
}

void ParamsEditor::onFormEdited(const QString& path, const QString& value, int hint)
{
    commitTextNow();
    showError(m_doc.setOrAdd(path.toStdString(), value.toStdString(), params::ValueHint(hint)));
    afterChange(false, true);
}

void ParamsEditor::onAppend(const QString& listPath, const QString& value, int hint)
{
    commitTextNow();
    showError(
        m_doc.appendItem(listPath.toStdString(), value.toStdString(), params::ValueHint(hint)));
    // The list's widget sent this; rebuild once it has returned.
    QTimer::singleShot(0, this, [this] { afterChange(true, true); });
}

void ParamsEditor::onRemove(const QString& path)
{
    commitTextNow();
    showError(m_doc.remove(path.toStdString()));
    QTimer::singleShot(0, this, [this] { afterChange(true, true); });
}

void ParamsEditor::showError(const params::EditError& err)
{
    m_lastError = err ? QString::fromStdString(err->toString()) : QString();
    if (err)
        m_status->setText(m_lastError);
}

void ParamsEditor::afterChange(bool rebuildForm, bool updateText)
{
    if (updateText)
        m_text->setYaml(QString::fromStdString(m_doc.text()));
    m_schema = nullptr;
    if (m_doc.isParsed()) {
        m_schema = m_forcedSchema.isEmpty() ? params::detectSchema(m_doc.tree(), m_schemas)
                                            : m_schemas.find(m_forcedSchema.toStdString());
    }
    if (rebuildForm)
        m_form->rebuild(m_doc, m_schema);
    validateNow();
    updateActions();
    emit documentChanged();
}

void ParamsEditor::validateNow()
{
    std::vector<Diagnostic> diagnostics;
    QMap<QString, FieldProblem> problems;
    if (!m_doc.isParsed()) {
        diagnostics.push_back(*m_doc.syntaxError());
        m_text->setErrorLine(m_doc.syntaxError()->location.line);
    } else {
        m_text->setErrorLine(0);
        params::ValidationReport report;
        if (m_schema)
            report = params::validate(m_doc.tree(), *m_schema, m_doc.displayName());
        diagnostics = report.diagnostics;
        // Findings carry line:column; the form knows paths. Map one to the other.
        QMap<QPair<int, int>, QString> pathAt;
        const auto& tree = m_doc.tree();
        for (int i = 0; i < int(tree.nodes.size()); ++i) {
            const auto& n = tree.at(i);
            QString path = QString::fromStdString(params::formatKeyPath(params::pathOf(tree, i)));
            pathAt.insert({n.line, n.column}, path);
        }
        for (const auto& d : diagnostics) {
            if (d.severity == Severity::Info)
                continue;
            const QString path = pathAt.value({d.location.line, d.location.column});
            const bool isError = d.severity == Severity::Error;
            // The first finding of a field is shown, an error before any warning.
            if (!path.isEmpty() &&
                (!problems.contains(path) || (isError && !problems.value(path).isError)))
                problems.insert(path, {QString::fromStdString(d.message), isError});
        }
    }
    m_form->setProblems(problems);
    int errors = 0, warnings = 0;
    for (const auto& d : diagnostics) {
        if (d.severity == Severity::Error)
            ++errors;
        else if (d.severity == Severity::Warning)
            ++warnings;
    }
    m_status->setText(tr("%1 — %2 — %3, %4")
                          .arg(QFileInfo(filePath()).fileName(),
                               m_schema ? QString::fromStdString(m_schema->title)
                                        : tr("unknown layout (syntax checked only)"),
                               QString::fromStdString(format::counted(errors, "error")),
                               QString::fromStdString(format::counted(warnings, "warning"))));
    m_diagnosticsModel->setDiagnostics(std::move(diagnostics));
}

void ParamsEditor::updateActions()
{
    m_undo->setEnabled(m_doc.canUndo());
    m_undo->setToolTip(tr("Undo %1").arg(QString::fromStdString(m_doc.undoDescription())));
    m_redo->setEnabled(m_doc.canRedo());
    m_redo->setToolTip(tr("Redo %1").arg(QString::fromStdString(m_doc.redoDescription())));
    const bool dirty = m_doc.isModified();
    m_save->setEnabled(!m_doc.path().empty());
    m_revert->setEnabled(dirty);
    m_dirtyMarker->setVisible(dirty);
    if (dirty != m_lastDirty) {
        m_lastDirty = dirty;
        emit dirtyChanged(dirty);
    }
}

} // namespace portolan::views
