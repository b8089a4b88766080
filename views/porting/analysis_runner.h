#pragma once

#include "views/common/job.h"
#include "views/porting/porting_snapshot.h"

#include <QObject>
#include <QSet>
#include <QStringList>
#include <QTimer>

class QFileSystemWatcher;

namespace portolan::views {

// Runs project analysis and the chosen guide off the GUI thread (QtConcurrent, job ids drop stale
// results) and re-runs them when a file of the project changes on disk, so the wizard stays
// current within a second of an edit made elsewhere.
class AnalysisRunner : public QObject
{
    Q_OBJECT
public:
    explicit AnalysisRunner(QObject* parent = nullptr);

    // Analyses `folder` and runs `guideId` ("" = the guide suggested for the project).
    // `paramsFile`, when given, is the params file the user opened on its own: the checks and the
    // flow read that file, as the Params and Profile tabs do, until the user picks another
    // (setParamsOverride({})). Else the project's saved choice or its default.
    void analyse(const QString& folder, const QString& guideId = {},
                 const QString& paramsFile = {});
    void setParamsOverride(const QString& paramsFile) { m_paramsOverride = paramsFile; }
    QString paramsOverride() const { return m_paramsOverride; }
    void setGuide(const QString& guideId);
    void rerun();
    void clear();

    QString folder() const { return m_folder; }
    PortingSnapshotPtr snapshot() const { return m_snapshot; }
    bool isRunning() const { return m_running; }
    // Delay between a change on disk and the re-run, to let a burst of saves settle.
    void setSettleDelay(int ms) { m_debounce.setInterval(ms); }
    // How many of the analysed Python and YAML files are watched for changes, of how many; the
    // shallowest are watched first, up to setMaxWatched().
    int watchedFiles() const { return m_watchedFiles; }
    int watchableFiles() const { return m_watchable; }
    void setMaxWatched(int files) { m_maxWatched = files; }

signals:
    void started();
    void finished(portolan::views::PortingSnapshotPtr snapshot);
    void failed(const QString& message);

private:
    void watch(const analysis::ProjectAnalysis& a);
    void applyWatchSlice();

    JobTicket m_ticket;
    QString m_folder;
    QString m_guideId;
    QString m_paramsOverride;
    PortingSnapshotPtr m_snapshot;
    QFileSystemWatcher* m_watcher = nullptr;
    QSet<QString> m_watched; // files and folders, watched or about to be
    QStringList m_toAdd, m_toRemove;
    int m_watchedFiles = 0;
    int m_watchable = 0;
    int m_maxWatched = 2000;
    QTimer m_debounce;
    bool m_running = false;
};

} // namespace portolan::views
