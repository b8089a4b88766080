#pragma once

#include "core/port/generate.h"
#include "views/common/job.h"

#include <QDialog>
#include <QStringList>
#include <atomic>
#include <memory>
#include <optional>

class QDialogButtonBox;
class QLabel;
class QLayout;
class QLineEdit;
class QListWidget;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTreeView;
class QTreeWidget;
class QTimer;

namespace portolan::analysis {
struct ProjectAnalysis;
}

namespace portolan::views {

class CodeView;
class LossChart;
class PortPlanModel;
class PortVerifyPanel;
class RunHistory;
class YamlTextView;
struct VerifyStepQueue;

// "Generate the port…" (issue 24): the plan of an original as an editable tree, a preview of
// every file of the port, writing it to a new folder (the original is never modified) and the
// verification (check, both dry runs, the per-step losses of original and port). Planning,
// generation and verification run off the GUI thread; a changed choice plans again and stale
// results are dropped by job id.
class PortDialog : public QDialog
{
    Q_OBJECT
public:
    // `analysis` is the original's; `target` a port target guide id (core/port portTargets()).
    PortDialog(std::shared_ptr<const analysis::ProjectAnalysis> analysis, const QString& target,
               QWidget* parent = nullptr);
    ~PortDialog() override;

    // With nobody to ask (tests, screenshots) nothing is confirmed with a message box, and an
    // untrusted project is not verified.
    void setInteractive(bool interactive) { m_interactive = interactive; }

    // The sibling folder named for the target: PROJECT-determined, PROJECT-poptorch, ...; a
    // number is added when that one is taken.
    static QString defaultOutputFolder(const QString& project, const QString& target);

    PortPlanModel* planModel() const { return m_planModel; }
    bool isGenerating() const { return m_generating; }
    // The last plan and port (empty before the first generation ends, or when planning failed).
    const port::PortPlan* plan() const { return m_plan ? &*m_plan : nullptr; }
    const port::PortResult* port() const { return m_port ? &*m_port : nullptr; }
    QString errorText() const { return m_error; }
    // The line under the tabs: ready, partial (and where its items are), written, ...
    QString statusText() const;
    QStringList fileNames() const;
    // Shows a file of the port in the preview, at a line (1-based) when given.
    bool showFile(const QString& path, int line = 0);
    QString shownFile() const { return m_shownFile; }
    QString previewText() const;
    // The manual items: where each is in the port (file, line), found from its TODO(portolan).
    struct ManualItem
    {
        QString message;
        QString portFile;
        int portLine = 0;
        QString originalFile;
        int originalLine = 0;
    };
    const QList<ManualItem>& manualItems() const { return m_manualItems; }
    // The port's notes, as the Manual items tab lists them under its items.
    QStringList noteTexts() const;

    // The original's command-line words (after --), for a script with required flags
    // (--dataset fake): the port takes them as its defaults and the verification's dry run of
    // the original gets them. Kept per project with the Runs tab's dry-run arguments.
    QString arguments() const;
    void setArguments(const QString& words);

    QString outputFolder() const;
    void setOutputFolder(const QString& folder);
    // Writes the port to the output folder; refuses a folder that exists and is not empty.
    bool writePort(QString* error = nullptr);
    QString writtenFolder() const { return m_written; }

    // Starts the verification of the written port (check, dry runs of original and port, loss
    // and weight agreement). False when it cannot start (nothing written, not trusted, running).
    bool verify();
    bool isVerifying() const { return m_verifying; }
    // Stops a running verification: its dry-run child processes are ended. False when none runs.
    bool cancelVerify();
    // The last verification's runs in the port's Runs history (original, port); 0 when none.
    qint64 originalRunId() const { return m_runIds.first; }
    qint64 portRunId() const { return m_runIds.second; }
    const port::VerifyResult* verifyResult() const { return m_verify ? &*m_verify : nullptr; }
    void setVerifySteps(int steps);
    void setPython(const QString& python) { m_python = python; }
    LossChart* lossChart() const;
    QString verifySummaryText() const;
    QTabWidget* tabs() const { return m_tabs; }

signals:
    void generated();
    void generationFailed(const QString& message);
    // A place to show in the Code tab: `root` is the project the path is relative to (the
    // original for the plan, the port for its manual items once written).
    void codeRequested(const QString& root, const QString& relativePath, int line, int column);
    // The port was written: the GUI opens it as the current project.
    void portWritten(const QString& folder);
    void verifyStarted();
    void verifyFinished(bool agrees);
    // The verification's two runs in the port's history changed (begun, a step of either, or
    // finished with the verdict): the Runs tab shows them live, overlaid.
    void verifyProgress(const QString& portFolder, qint64 originalRun, qint64 portRun);

private:
    // The constructor's parts, top to bottom, then their connections.
    QWidget* createPlanPage();
    QWidget* createFilesPage();
    QWidget* createManualPage();
    // Fills the Manual items tab (items, notes) from the port; nullptr when there is none.
    void showManualItems(const port::PortResult* port);
    QLayout* createArgumentsRow();
    QLayout* createOutputRow();
    QLayout* createStatusRow(QDialogButtonBox* close);
    void connectParts(QDialogButtonBox* close);
    void generate();
    void showPort();
    void showVerify();
    void beginVerifyRuns();
    void drainVerifySteps();
    void finishVerifyRuns(const port::VerifyResult* v);
    void updateButtons();
    void chooseFolder();
    void onChoiceEdited(int option, const QString& value);
    void activateManual(int row);
    std::vector<std::string> argumentWords() const;
    std::map<std::string, std::string> argumentValues() const;

    std::shared_ptr<const analysis::ProjectAnalysis> m_analysis;
    QString m_root;
    QString m_target;
    port::PortOptions m_options;
    std::optional<port::PortPlan> m_plan;
    std::optional<port::PortResult> m_port;
    std::optional<port::VerifyResult> m_verify;
    // The running verification's stop flag (shared with its worker, which may outlive a cancel).
    std::shared_ptr<std::atomic<bool>> m_verifyStop;
    // Steps the verifying thread reported and the GUI thread has not shown yet; drained by a
    // timer (the worker never touches a Qt object, so the dialog may close under it).
    std::shared_ptr<VerifyStepQueue> m_verifySteps;
    QTimer* m_verifyPoll = nullptr;
    std::unique_ptr<RunHistory> m_verifyHistory;
    std::pair<qint64, qint64> m_runIds{0, 0};
    QList<ManualItem> m_manualItems;
    QString m_error;
    QString m_written;
    QString m_shownFile;
    QString m_python;
    JobTicket m_planJob;
    JobTicket m_verifyJob;
    bool m_generating = false;
    bool m_verifying = false;
    bool m_interactive = true;

    QLabel* m_summary;
    QTabWidget* m_tabs;
    PortPlanModel* m_planModel;
    QTreeView* m_planView;
    QListWidget* m_fileList;
    QStackedWidget* m_previewStack;
    CodeView* m_codePreview;
    YamlTextView* m_yamlPreview;
    QTreeWidget* m_manualList;
    QLabel* m_manualNone;
    QStackedWidget* m_manualStack;
    QLabel* m_notesTitle;
    QListWidget* m_notesList;
    PortVerifyPanel* m_verifyPanel;
    QLineEdit* m_args;
    QString m_argsPlanned; // the arguments the shown port was generated with
    QLineEdit* m_folder;
    QPushButton* m_chooseButton;
    QPushButton* m_writeButton;
    QLabel* m_status;
};

} // namespace portolan::views
