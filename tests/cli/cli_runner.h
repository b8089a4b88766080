#pragma once

#include <QByteArray>
#include <QStringList>

// Runs portolan-cli as a user would, and keeps what it printed.
struct CliRun
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

CliRun runCli(const QStringList& args, int timeoutMs = 120000);
