#pragma once

#include "views/code/code_view.h"
#include "views/porting/porting_snapshot.h"

#include <QWidget>
#include <vector>

class QComboBox;
class QLabel;
class QLayout;
class QListView;
class QProgressBar;
class QPushButton;
class QTableView;
class QTextBrowser;

namespace portolan::views {

class AnalysisRunner;
class FindingsModel;
class PortDialog;
class GuideStepsModel;

// The porting wizard: the chosen guide's steps in the suggested order with their status and
// progress on the left; the selected step's explanation and findings on the right. Selecting a
// finding asks to show its code; "Apply Fix…" shows the diff first and can be undone.
class PortingWizard : public QWidget
{
    Q_OBJECT
public:
    explicit PortingWizard(AnalysisRunner* runner, QWidget* parent = nullptr);

    // Markers for the code view: the findings of the current guide plus diagnostics, in one file.
    QVector<CodeMarker> markersForFile(const QString& relativePath) const;

    GuideStepsModel* stepsModel() const { return m_steps; }
    FindingsModel* findingsModel() const { return m_findings; }
    void selectStep(int row);
    int currentStep() const { return m_currentStep; }
    void selectFinding(int row);
    // Applies the fix of a finding; `confirm` shows the diff dialog first (tests pass false).
    bool applyFixOfFinding(int row, bool confirm = true);
    bool undoLastFix();
    int undoDepth() const { return int(m_undo.size()); }
    // Uses another of the project's YAML files as its params file: the choice is saved with the
    // project (PROJECT/.portolan/params-file), so every tab and the CLI use it, and the checks
    // run again. An empty path goes back to the default rule.
    bool chooseParamsFile(const QString& relativePath);
    QComboBox* paramsCombo() const { return m_paramsCombo; }
    // "Generate the port…" (issue 24): for an original (plain PyTorch) whose chosen guide is a
    // port target. Opens the dialog (not modal: the Code tab stays usable beside it) and returns
    // it, or nullptr when the action is not available.
    bool canGeneratePort() const;
    PortDialog* openPortDialog();
    QPushButton* portButton() const { return m_portButton; }
    // The button of the action that verifies the shown step when it is "not verified" (hidden
    // otherwise), and the reason beside it.
    QPushButton* verifyButton() const { return m_verifyButton; }
    QString notVerifiedText() const;

signals:
    void findingActivated(const QString& relativePath, int line, int column);
    void message(const QString& text);
    // The user chose another params file (absolute path).
    void paramsFileChosen(const QString& path);
    // From the port dialog: a place in `root` (the original, or the written port) to show.
    void codeRequested(const QString& root, const QString& relativePath, int line, int column);
    // The port was written to `folder`: open it as the current project.
    void portWritten(const QString& folder);
    // The port dialog's verification began, and its two runs in the port's history changed
    // (PortDialog::verifyProgress): the Runs tab overlays them live.
    void portVerifyStarted();
    void portVerifyProgress(const QString& portFolder, qint64 originalRun, qint64 portRun);
    // A step only a compile or a run can verify: the user asked for it (MainWindow shows the
    // Profile, or the Runs tab with a dry run).
    void compileRequested();
    void dryRunRequested();

private:
    // The constructor's parts: the rows of choices, the step's detail, their connections.
    QLayout* createChoiceRows();
    QWidget* createStepDetail();
    void createFindingTable();
    void connectParts();
    void showSnapshot(const PortingSnapshotPtr& snapshot);
    void showStep(int row);
    int firstStepToShow() const;
    void updateButtons();

    AnalysisRunner* m_runner;
    PortingSnapshotPtr m_snapshot;
    GuideStepsModel* m_steps;
    FindingsModel* m_findings;
    QComboBox* m_guideCombo;
    QComboBox* m_paramsCombo;
    QLabel* m_flavour;
    QProgressBar* m_progress;
    QListView* m_stepList;
    QLabel* m_stepTitle;
    QTextBrowser* m_explanation;
    QTableView* m_findingTable;
    QLabel* m_hint;
    QPushButton* m_fixButton;
    QPushButton* m_undoButton;
    QPushButton* m_portButton;
    QLabel* m_verifyReason;
    QPushButton* m_verifyButton;
    int m_verifyAction = 0;
    QLabel* m_status;
    int m_currentStep = 0;
    QString m_shownKey; // project root and guide of the snapshot shown
    struct Undo
    {
        std::string root;
        guides::Fix inverse;
        std::string description;
    };
    std::vector<Undo> m_undo;
};

} // namespace portolan::views
