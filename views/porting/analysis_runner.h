#pragma once

#include "views/common/job.h"
#include "views/porting/porting_snapshot.h"

#include <QObject>
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
    void analyse(const QString& folder, const QString& guideId = {});
    void setGuide(const QString& guideId);
    void rerun();
    void clear();

    QString folder() const { return m_folder; }
    PortingSnapshotPtr snapshot() const { return m_snapshot; }
    bool isRunning() const { return m_running; }
    // Delay between a change on disk and the re-run, to let a burst of saves settle.
    void setSettleDelay(int ms) { m_debounce.setInterval(ms); }

signals:
    void started();
    void finished(portolan::views::PortingSnapshotPtr snapshot);
    void failed(const QString& message);

private:
    void watch(const analysis::ProjectAnalysis& a);

    JobTicket m_ticket;
    QString m_folder;
    QString m_guideId;
    PortingSnapshotPtr m_snapshot;
    QFileSystemWatcher* m_watcher = nullptr;
    QTimer m_debounce;
    bool m_running = false;
};

} // namespace portolan::views
