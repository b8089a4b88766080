#pragma once
// Run history of one project: PROJECT/.portolan/runs.sqlite (QSQLITE, WAL mode). Each run keeps
// its configuration snapshot, every event as it arrived (written at once, so a crash of the
// child or of the GUI loses nothing already reported) and its final status.
#include "views/runs/run_event.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>

namespace portolan::views {

struct RunRecord
{
    qint64 id = 0;
    QString startedAt; // ISO 8601, UTC
    QString mode;
    QString model;
    QString status; // running, completed, stopped, failed
    QString reason;
    qint64 lastStep = 0;
    double lastLoss = 0;
    QJsonObject config; // command line and the resolved config from the started event
    // What a dry run made up, from its synthetic-* warning events: "data", "weights".
    QStringList synthetic;
};

class RunHistory
{
public:
    RunHistory();
    ~RunHistory();
    RunHistory(const RunHistory&) = delete;
    RunHistory& operator=(const RunHistory&) = delete;

    // Opens (creating when needed) PROJECT/.portolan/runs.sqlite.
    bool open(const QString& projectDir, QString* error = nullptr);
    bool isOpen() const;
    QString databasePath() const { return m_path; }

    qint64 beginRun(const QString& mode, const QJsonObject& config);
    // The started event fills model and config; a dry run's capture event names the model.
    void appendEvent(qint64 run, const RunEvent& event);
    void finishRun(qint64 run, const QString& status, const QString& reason);

    QList<RunRecord> runs() const; // as they were started, the newest last
    RunRecord run(qint64 id) const;
    QList<QJsonObject> events(qint64 run) const;
    // "data" and/or "weights" when the run's warnings say it used made-up ones.
    QStringList synthetic(qint64 run) const;
    QVector<QPointF> lossCurve(qint64 run) const;  // (step, loss) of step events
    QVector<QPointF> evalPoints(qint64 run) const; // (step, eval loss)
    bool removeRun(qint64 run);

    // .gitignore handling: asked to the user by the panel, never done silently.
    static bool gitignoreCoversPortolan(const QString& projectDir);
    static bool addPortolanToGitignore(const QString& projectDir);

private:
    QString m_connection;
    QString m_path;
    QHash<qint64, qint64> m_nextSeq; // per run, so that appending stays O(1)
};

} // namespace portolan::views
