#pragma once

// The params.yaml editor: the form and the YAML text side by side, kept in sync both ways, over
// one lossless document with a shared undo history; validation findings below (and on the
// fields); Save, Revert, a dirty marker, a prompt to reload when the file changes on disk and a
// prompt before closing with unsaved edits. Public API for the main window (docs/ARCHITECTURE.md,
// Params files).

#include "core/params/params_document.h"
#include "core/params/schema.h"

#include <QWidget>
#include <functional>

class QAction;
class QComboBox;
class QFileSystemWatcher;
class QLabel;
class QStackedWidget;
class QTableView;
class QTimer;

namespace portolan::views {

class DiagnosticsModel;
class ParamsForm;
class YamlTextView;

class ParamsEditor : public QWidget
{
    Q_OBJECT

public:
    // The questions the editor asks; tests answer them without dialogs.
    enum class Question
    {
        SaveBeforeClose,
        ReloadChangedFile,
        OverwriteChangedFile,
        SaveFailed
    };
    enum class Answer
    {
        Save,
        Discard,
        Cancel,
        Reload,
        Keep,
        Overwrite,
        Ok
    };
    using QuestionHandler =
        std::function<Answer(Question, const QString& text, QWidget* dialogParent)>;

    explicit ParamsEditor(QWidget* parent = nullptr);
    ~ParamsEditor() override;

    bool openFile(const QString& path);
    bool isDirty() const;
    bool save();
    void revert();
    // True when the editor may close: nothing unsaved, or the user chose Save (and it worked)
    // or Discard. False on Cancel.
    bool maybeClose(QWidget* dialogParent);

    QString filePath() const;
    const params::ParamsDocument& document() const { return m_doc; }
    ParamsForm* form() const { return m_form; }
    YamlTextView* textView() const { return m_text; }
    DiagnosticsModel* diagnosticsModel() const { return m_diagnosticsModel; }
    QString schemaName() const;              // the schema in use, empty for an unknown layout
    void setSchemaName(const QString& name); // empty: detect from the top-level keys
    QString lastError() const { return m_lastError; }
    void setQuestionHandler(QuestionHandler handler) { m_ask = std::move(handler); }

    QAction* undoAction() const { return m_undo; }
    QAction* redoAction() const { return m_redo; }
    QAction* saveAction() const { return m_save; }
    QAction* revertAction() const { return m_revert; }

    // Applies what the text view holds now instead of waiting for the typing pause.
    void commitTextNow();
    // Checks the file on disk now (the watcher calls this after a change).
    void checkDiskNow();

signals:
    void dirtyChanged(bool dirty);
    void fileChanged(const QString& path);
    void documentChanged();

private:
    void applyText();
    void onFormEdited(const QString& path, const QString& value, int hint);
    void onAppend(const QString& listPath, const QString& value, int hint);
    void onRemove(const QString& path);
    void afterChange(bool rebuildForm, bool updateText);
    void validateNow();
    void updateActions();
    void showError(const params::EditError& err);
    void watch();
    Answer ask(Question q, const QString& text, QWidget* parent = nullptr);

    params::ParamsDocument m_doc;
    params::SchemaSet m_schemas;
    QString m_forcedSchema;
    const params::Schema* m_schema = nullptr;
    ParamsForm* m_form = nullptr;
    YamlTextView* m_text = nullptr;
    DiagnosticsModel* m_diagnosticsModel = nullptr;
    QTableView* m_diagnosticsView = nullptr;
    QComboBox* m_schemaBox = nullptr;
    QLabel* m_status = nullptr;
    QStackedWidget* m_pages = nullptr; // the empty state, then the form and its text
    QWidget* m_empty = nullptr;
    QLabel* m_dirtyMarker = nullptr;
    QAction* m_undo = nullptr;
    QAction* m_redo = nullptr;
    QAction* m_save = nullptr;
    QAction* m_revert = nullptr;
    QFileSystemWatcher* m_watcher = nullptr;
    QTimer* m_textTimer = nullptr;
    QTimer* m_diskTimer = nullptr;
    QuestionHandler m_ask;
    QString m_lastError;
    bool m_lastDirty = false;
    bool m_asking = false;
};

} // namespace portolan::views
