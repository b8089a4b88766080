#pragma once
// Runs one training run as a child process and turns its output into events: either
// `portolan-cli train ... --events jsonl` (JSON lines, core/runtime/EVENTS.md) or, for a trusted
// project, the project's own Python entry point, whose loss values are parsed from its output by
// an editable pattern. The GUI never blocks on the run, and a crashing child only ends the run.
#include <QJsonObject>
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

// One event line as the CLI writes it; nullopt-like empty object for anything else (garbage,
// partial JSON, JSON that is not an object with a string "event").
QJsonObject parseEventLine(const QByteArray& line);

class RunController : public QObject
{
    Q_OBJECT

public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    // The built-in runtime: `cli train PROJECT --events jsonl <extraArgs>`.
    bool startBuiltin(const QString& cli, const QString& project, const QStringList& extraArgs);
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
    void eventReceived(const QJsonObject& event);
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
    QJsonObject m_lastTerminal; // the finished or failed event, when one arrived
};

} // namespace portolan::views

Q_DECLARE_METATYPE(portolan::views::RunStatus)
