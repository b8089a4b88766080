#pragma once
// Runs one training run as a child process and turns its output into events: either
// `portolan-cli train ... --events jsonl` (JSON lines, core/runtime/EVENTS.md), a dry run of a
// trusted project's own code (`portolan-cli run ... --dry-run --events jsonl`, same stream) or,
// for a trusted project, the project's own Python entry point, whose loss values are parsed from
// its output by an editable pattern. The GUI never blocks on the run, and a crashing child only
// ends the run.
#include "views/runs/run_event.h"

#include <QObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStringList>

namespace portolan::views {

enum class RunStatus
{
    Running,
    Completed,
    Stopped,
    Failed
};
QString runStatusName(RunStatus s); // "running", "completed", "stopped", "failed"

class RunController : public QObject
{
    Q_OBJECT

public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    // The built-in runtime: `cli train PROJECT --events jsonl <extraArgs>`.
    bool startBuiltin(const QString& cli, const QString& project, const QStringList& extraArgs);
    // A dry run of a trusted project's own code: `cli run PROJECT --dry-run --events jsonl
    // --trust <extraArgs>` (the panel asks for trust before).
    bool startDryRun(const QString& cli, const QString& project, const QStringList& extraArgs);
    // Any other portolan-cli command that writes the same event stream (`cli submit PROJECT
    // --slurm ...`: a Slurm job followed from its output file).
    bool startCli(const QString& cli, const QString& project, const QStringList& args);
    // A trusted project's own command (program + arguments, run in `project`); each output line
    // matching `lossPattern` (named groups "loss" and optionally "step") becomes a step event.
    bool startScript(const QString& project, const QString& program, const QStringList& args,
                     const QString& lossPattern);

    bool isRunning() const;
    void stop(); // SIGTERM: the CLI finishes its step, checkpoints and reports "stopped"
    void kill(); // SIGKILL
    QStringList arguments() const { return m_arguments; }
    QString program() const { return m_program; }
    int garbageLines() const { return m_garbage; }

Q_SIGNALS:
    void started();
    void eventReceived(const portolan::views::RunEvent& event);
    void logLine(const QString& line, bool isError);
    void finished(portolan::views::RunStatus status, const QString& reason);

private:
    void begin(const QString& program, const QStringList& args, const QString& dir);
    void readOutput();
    void readErrors();
    void handleLine(const QByteArray& line);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);

    QProcess* m_process = nullptr;
    QByteArray m_buffer;
    QByteArray m_errorTail;
    QString m_program;
    QStringList m_arguments;
    bool m_scriptMode = false;
    QRegularExpression m_lossPattern;
    int m_scriptStep = 0;
    int m_garbage = 0;
    bool m_stopRequested = false;
    bool m_killRequested = false;
    bool m_ended = false;
    RunEvent m_lastTerminal; // the finished or failed event, when one arrived
};

} // namespace portolan::views

Q_DECLARE_METATYPE(portolan::views::RunStatus)
