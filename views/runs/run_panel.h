#pragma once
// The run panel: choose the kind of run (built-in LibTorch through portolan-cli, a dry run of
// the project's own code on the CPU, or the project's own Python command) with its mode, steps
// and batch, Start / Stop / Kill, a progress bar with time remaining, the live loss chart beside
// a log view, and the project's run history (select several runs to overlay their curves).
// Project code runs only once the user trusts the project (asked once, remembered per project
// in the trust store shared with portolan-cli).
#include "views/runs/loss_chart.h"
#include "views/runs/run_controller.h"
#include "views/runs/run_history.h"
#include "views/runs/run_history_model.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QPointer>
#include <QProcess>
#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QSplitter;
class QTabWidget;
class QCheckBox;
class QFormLayout;

namespace portolan::views {

// Which side of a port's verification a run of the history is (None for other runs): the chart
// draws each side in its fixed colour (run_panel_verify.cpp).
LossChart::Side verificationSide(const RunRecord& r);

class RunPanel : public QWidget
{
    Q_OBJECT

public:
    explicit RunPanel(QWidget* parent = nullptr);
    ~RunPanel() override;

    enum class RunKind
    {
        Builtin,
        Script,
        DryRun
    };

    void setProject(const QString& folder);
    // The params file opened on its own (portolan PARAMS.yaml), which the built-in runtime and
    // the dry run use instead of the folder's default, as every other tab does; empty: the
    // project's rule. setProject forgets it.
    void setParamsFile(const QString& file);
    QString paramsFile() const;
    void setCliPath(const QString& path);
    void setRunKind(RunKind kind);
    RunKind runKind() const;

    // For tests and the screenshot option.
    RunController* controller() const { return m_controller; }
    RunHistory* history() const { return m_history.get(); }
    LossChart* chart() const { return m_chart; }
    RunHistoryModel* historyModel() const { return m_historyModel; }
    qint64 currentRun() const { return m_currentRun; }
    // Where a run goes: this process's machine, N local ranks, or a Slurm job.
    enum class RunOn
    {
        ThisMachine,
        LocalProcesses,
        Slurm
    };
    void setRunOn(RunOn where);
    RunOn runOn() const;
    void setRanks(int ranks);
    QString jobScriptPreview() const;
    void setSteps(int steps);
    void setBatch(int batch);
    void setMode(const QString& mode);
    // Dry run: a Cerebras Model Zoo checkout (kept in the settings for every project) and the
    // entry's arguments (kept per project).
    void setSdkPath(const QString& path);
    QString sdkPath() const;
    void setDryRunArguments(const QString& words);
    QString dryRunArguments() const;
    bool isTrusted() const;
    bool isRunning() const;
    // Why Start is disabled, shown next to it ("" when a run can start): a built-in run without
    // a params file cannot start.
    QString startBlockedReason() const;
    bool builtinKnowsModel(const QString& paramsFile) const;
    QPushButton* startButton() const { return m_start; }
    // "⚠ synthetic data and weights" while the current run uses made-up inputs, else empty.
    QString syntheticBadgeText() const;
    // A port's verification (the port dialog's two dry runs, which it records in PORT's history
    // as they run): both curves overlaid and the verdict above the chart, live, whether PORT is
    // the open project (its two rows selected in the history) or not (the curves alone, named
    // for PORT). Called again on every step and at the end.
    void showVerification(const QString& portFolder, qint64 originalRun, qint64 portRun);
    // The verdict shown above the chart ("" when no verification run is shown).
    QString verificationText() const;
    bool isProgressShown() const;
    // Without a user (screenshots, tests) nothing is asked: .gitignore is left alone.
    void setInteractive(bool interactive) { m_interactive = interactive; }

public Q_SLOTS:
    void start();
    void stop();
    void kill();

Q_SIGNALS:
    void runFinished(qint64 run, const QString& status);
    // A dry run stopped for arguments the entry requires; the panel asks for them when
    // interactive (and starts again), else it only reports them.
    void argumentsRequired(const QJsonArray& arguments);

protected:
    // The params file may have been chosen in the Porting tab meanwhile: Start's state is
    // checked again when the tab is shown.
    void showEvent(QShowEvent* event) override;

private:
    void createRunChoices();
    void createSlurmControls();
    void createDryRunControls();
    void createProgressAndHistory();
    void layOut();
    void connectControls();
    void showSyntheticBadge();
    static QString scriptCommand(const QString& folder);
    void onEvent(const RunEvent& e);
    bool ensureTrusted();
    void askForArguments(const QJsonObject& failure);
    void browseSdkPath();
    void onFinished(RunStatus status, const QString& reason);
    void refreshHistory();
    void overlaySelection();
    void showVerdict(const QList<RunRecord>& shown, const RunHistory& history,
                     const QString& elsewhere = {});
    bool followsVerificationOf(const QString& folder) const;
    void updateButtons();
    void appendLog(const QString& line, bool isError);
    void updateJobScript();
    void readPartitions();
    QStringList submitArguments() const;

    QString m_project;
    QString m_paramsFile;                // setParamsFile
    QStringList paramsArguments() const; // --params FILE when one was opened on its own
    // builtinKnowsModel's last answer, keyed by the params file and its modification time.
    mutable QString m_knownModelKey;
    mutable bool m_knownModel = false;
    QString m_cli;
    RunController* m_controller;
    std::unique_ptr<RunHistory> m_history;
    RunHistoryModel* m_historyModel;
    LossChart* m_chart;
    QFormLayout* m_form = nullptr;
    QComboBox* m_mode;
    QSpinBox* m_steps;
    QSpinBox* m_batch;
    QLineEdit* m_sdkPath;
    QWidget* m_sdkRow;
    QLineEdit* m_dryArgs;
    QComboBox* m_runtime;
    QComboBox* m_runOn;
    QSpinBox* m_ranks;
    QComboBox* m_partition;
    QLineEdit* m_timeLimit;
    QLabel* m_slurmNote;
    QPlainTextEdit* m_jobScript;
    QTabWidget* m_sideTabs = nullptr;
    QSplitter* m_chartSplit = nullptr; // the chart beside the log / job script
    bool m_partitionsRead = false;
    QPointer<QProcess> m_sinfo;
    QCheckBox* m_trusted;
    QLineEdit* m_command;
    QLineEdit* m_lossPattern;
    QPushButton* m_start;
    QLabel* m_startReason;
    QPushButton* m_stop;
    QPushButton* m_kill;
    QProgressBar* m_progress;
    QLabel* m_remaining;
    QLabel* m_syntheticBadge = nullptr;
    QLabel* m_verdict = nullptr; // a verification's verdict, above the chart
    // The verification the panel follows: the port's folder and its two runs.
    struct Followed
    {
        QString folder;
        qint64 original = 0;
        qint64 port = 0;
    } m_followed;
    QStringList m_synthetic; // what the current run made up: "data", "weights"
    QPlainTextEdit* m_log;
    QTableView* m_historyView;
    qint64 m_currentRun = 0;
    bool m_interactive = true;
    qint64 m_maxSteps = 0;
    qint64 m_firstStep = -1;
    QElapsedTimer m_clock;
    QJsonObject m_lastFailure; // the failed event of the current run, if any
};

} // namespace portolan::views
