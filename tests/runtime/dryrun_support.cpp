#include "dryrun_support.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>

QJsonObject DryRunResult::last(const QString& type) const
{
    for (auto it = events.rbegin(); it != events.rend(); ++it)
        if (it->value("event").toString() == type)
            return *it;
    return {};
}

QList<QJsonObject> DryRunResult::all(const QString& type) const
{
    QList<QJsonObject> out;
    for (const auto& e : events)
        if (e.value("event").toString() == type)
            out << e;
    return out;
}

QJsonObject DryRunResult::terminal() const
{
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
        const QString t = it->value("event").toString();
        if (t == "finished" || t == "failed")
            return *it;
    }
    return {};
}

bool copyProject(const QString& source, const QString& destination)
{
    QDir().mkpath(destination);
    QDirIterator it(source, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString rel = QDir(source).relativeFilePath(path);
        if (rel.startsWith(".portolan") || rel.contains("__pycache__"))
            continue;
        const QString target = QDir(destination).filePath(rel);
        if (QFileInfo(path).isDir())
            QDir().mkpath(target);
        else if (!QFile::copy(path, target))
            return false;
    }
    return true;
}

DryRunResult runDry(const QString& project, const QStringList& args, int timeoutMs,
                    const std::function<void(const QJsonObject&, QProcess&)>& onEvent)
{
    DryRunResult r;
    QProcess p;
    QElapsedTimer clock;
    clock.start();
    QByteArray pending;
    auto take = [&] {
        pending += p.readAllStandardOutput();
        qsizetype nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
            const QByteArray line = pending.left(nl);
            pending.remove(0, nl + 1);
            if (line.trimmed().isEmpty())
                continue;
            QJsonParseError error;
            const auto doc = QJsonDocument::fromJson(line, &error);
            if (error.error != QJsonParseError::NoError || !doc.isObject()) {
                r.allLinesValid = false;
                continue;
            }
            r.events << doc.object();
            if (onEvent)
                onEvent(doc.object(), p);
        }
    };
    QObject::connect(&p, &QProcess::readyReadStandardOutput, take);
    p.start(PORTOLAN_CLI, QStringList{"run", project, "--dry-run", "--events", "jsonl"} + args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    take();
    r.exitCode = p.exitCode();
    r.crashed = p.exitStatus() != QProcess::NormalExit;
    r.err = p.readAllStandardError();
    r.seconds = double(clock.elapsed()) / 1000.0;
    return r;
}
