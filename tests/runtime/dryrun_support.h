#pragma once
// Helpers of the dry-run tests: a copy of a project in a temporary folder (a dry run writes
// PROJECT/.portolan, and corpus files are never edited), and `portolan-cli run` with its events.
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <functional>

struct DryRunResult
{
    int exitCode = -1;
    bool crashed = false;
    bool allLinesValid = true;
    QList<QJsonObject> events;
    QByteArray err;
    double seconds = 0;

    QJsonObject last(const QString& type) const;
    QList<QJsonObject> all(const QString& type) const;
    QJsonObject terminal() const; // the finished or failed event, or {}
};

// Copies `source` (recursively) to `destination`.
bool copyProject(const QString& source, const QString& destination);

// portolan-cli run PROJECT --dry-run --events jsonl <args>; PORTOLAN_CONFIG_DIR is the test's.
DryRunResult runDry(const QString& project, const QStringList& args, int timeoutMs = 300000,
                    const std::function<void(const QJsonObject&, class QProcess&)>& onEvent = {});
