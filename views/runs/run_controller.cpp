#include "views/runs/run_controller.h"

#include <QDateTime>

namespace portolan::views {

QString runStatusName(RunStatus s)
{
    switch (s) {
    case RunStatus::Running:
        return QStringLiteral("running");
    case RunStatus::Completed:
        return QStringLiteral("completed");
    case RunStatus::Stopped:
        return QStringLiteral("stopped");
    case RunStatus::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

RunController::RunController(QObject* parent) : QObject(parent) {}

RunController::~RunController()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(2000);
    }
}

bool RunController::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

bool RunController::startBuiltin(const QString& cli, const QString& project,
                                 const QStringList& extraArgs)
{
    if (isRunning())
        return false;
    m_scriptMode = false;
    begin(cli, QStringList{"train", project, "--events", "jsonl"} + extraArgs, project);
    return true;
}

bool RunController::startDryRun(const QString& cli, const QString& project,
                                const QStringList& extraArgs)
{
    if (isRunning())
        return false;
    m_scriptMode = false;
    begin(cli, QStringList{"run", project, "--dry-run", "--events", "jsonl", "--trust"} + extraArgs,
          project);
    return true;
}

bool RunController::startCli(const QString& cli, const QString& project, const QStringList& args)
{
    if (isRunning())
        return false;
    m_scriptMode = false;
    begin(cli, args, project);
    return true;
}

bool RunController::startScript(const QString& project, const QString& program,
                                const QStringList& args, const QString& lossPattern)
{
    if (isRunning())
        return false;
    m_lossPattern = QRegularExpression(lossPattern);
    if (!m_lossPattern.isValid())
        return false;
    m_scriptMode = true;
    m_scriptStep = 0;
    begin(program, args, project);
    return true;
}

void RunController::begin(const QString& program, const QStringList& args, const QString& dir)
{
    delete m_process;
    m_process = new QProcess(this);
    m_process->setWorkingDirectory(dir);
    m_buffer.clear();
    m_errorTail.clear();
    m_garbage = 0;
    m_stopRequested = m_killRequested = m_ended = false;
    m_lastTerminal = {};
    m_program = program;
    m_arguments = args;
    connect(m_process, &QProcess::readyReadStandardOutput, this, &RunController::readOutput);
    connect(m_process, &QProcess::readyReadStandardError, this, &RunController::readErrors);
    connect(m_process, &QProcess::finished, this, &RunController::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &RunController::onError);
    connect(m_process, &QProcess::started, this, &RunController::started);
    m_process->start(program, args);
}

void RunController::stop()
{
    if (!isRunning())
        return;
    m_stopRequested = true;
    m_process->terminate();
}

void RunController::kill()
{
    if (!isRunning())
        return;
    m_killRequested = true;
    m_process->kill();
}

void RunController::readOutput()
{
    m_buffer += m_process->readAllStandardOutput();
    qsizetype newline;
    while ((newline = m_buffer.indexOf('\n')) >= 0) {
        const QByteArray line = m_buffer.left(newline);
        m_buffer.remove(0, newline + 1);
        handleLine(line);
    }
    // A child that never ends its lines must not grow the buffer without bound.
    if (m_buffer.size() > qsizetype{4} * 1024 * 1024) {
        handleLine(m_buffer);
        m_buffer.clear();
    }
}

void RunController::readErrors()
{
    const QByteArray chunk = m_process->readAllStandardError();
    m_errorTail = (m_errorTail + chunk).right(4000);
    for (const QByteArray& line : chunk.split('\n'))
        if (!line.trimmed().isEmpty())
            Q_EMIT logLine(QString::fromUtf8(line), true);
}

void RunController::handleLine(const QByteArray& line)
{
    if (line.trimmed().isEmpty())
        return;
    if (m_scriptMode) {
        const QString text = QString::fromUtf8(line);
        Q_EMIT logLine(text, false);
        const auto match = m_lossPattern.match(text);
        bool ok = false;
        const double loss = match.hasMatch() ? match.captured("loss").toDouble(&ok) : 0.0;
        if (ok) {
            bool stepOk = false;
            const int step = match.captured("step").toInt(&stepOk);
            m_scriptStep = stepOk ? step : m_scriptStep + 1;
            Q_EMIT eventReceived(RunEvent::makeStep(
                m_scriptStep, loss, double(QDateTime::currentMSecsSinceEpoch()) / 1000.0));
        }
        return;
    }
    const RunEvent e = RunEvent::parse(line);
    if (!e.isValid()) {
        ++m_garbage;
        Q_EMIT logLine(QStringLiteral("[not an event] ") + QString::fromUtf8(line.left(500)), true);
        return;
    }
    if (e.isTerminal())
        m_lastTerminal = e;
    Q_EMIT eventReceived(e);
}

void RunController::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (m_ended)
        return;
    m_ended = true;
    readOutput();
    if (!m_buffer.trimmed().isEmpty())
        handleLine(m_buffer); // a last line without newline
    m_buffer.clear();
    if (m_lastTerminal.kind == RunEvent::Kind::Finished) {
        const bool stopped = m_lastTerminal.reason == "stopped";
        Q_EMIT finished(stopped ? RunStatus::Stopped : RunStatus::Completed, m_lastTerminal.reason);
        return;
    }
    if (m_lastTerminal.kind == RunEvent::Kind::Failed) {
        Q_EMIT finished(RunStatus::Failed, m_lastTerminal.diagnostic.isEmpty()
                                               ? m_lastTerminal.message
                                               : m_lastTerminal.diagnostic);
        return;
    }
    QString reason;
    if (m_killRequested)
        reason = tr("killed by the user");
    else if (status == QProcess::CrashExit)
        reason = tr("the process crashed (%1)").arg(m_process->errorString());
    else if (m_scriptMode && exitCode == 0)
        reason.clear();
    else
        reason = tr("the process exited with status %1 without a final event").arg(exitCode);
    const QString tail = QString::fromUtf8(m_errorTail).trimmed();
    if (!reason.isEmpty() && !tail.isEmpty())
        reason += QStringLiteral(": ") + tail.section('\n', -1);
    if (m_scriptMode && status == QProcess::NormalExit && exitCode == 0)
        Q_EMIT finished(m_stopRequested ? RunStatus::Stopped : RunStatus::Completed, {});
    else
        Q_EMIT finished(RunStatus::Failed, reason);
}

void RunController::onError(QProcess::ProcessError error)
{
    if (error == QProcess::FailedToStart && !m_ended) {
        m_ended = true;
        Q_EMIT finished(RunStatus::Failed,
                        tr("cannot start %1: %2").arg(m_program, m_process->errorString()));
    }
}

} // namespace portolan::views
