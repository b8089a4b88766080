#include "cli_runner.h"

#include <QProcess>

CliRun runCli(const QStringList& args, int timeoutMs)
{
    QProcess p;
    p.start(QStringLiteral(PORTOLAN_CLI), args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}
