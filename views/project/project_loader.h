#pragma once

#include "core/project/project_scan.h"
#include "views/common/job.h"
#include "views/project/project_files_model.h"

#include <QObject>
#include <QString>
#include <memory>

namespace portolan::views {

using ProjectScanPtr = std::shared_ptr<const ProjectScan>;

// Walks a project folder off the GUI thread and reports the result as signals, with the files
// model's tree already built there (the GUI thread only swaps it in).
class ProjectLoader : public QObject
{
    Q_OBJECT
public:
    explicit ProjectLoader(QObject* parent = nullptr);

    // Starts a walk; a walk still running for an earlier call is dropped when it finishes.
    void load(const QString& folder);
    bool isLoading() const { return m_loading; }

signals:
    void started(const QString& folder);
    void loaded(const QString& folder, portolan::views::ProjectScanPtr scan,
                portolan::views::ProjectFilesTreePtr tree);
    void failed(const QString& folder, const QString& message);

private:
    JobTicket m_ticket;
    bool m_loading = false;
};

} // namespace portolan::views

Q_DECLARE_METATYPE(portolan::views::ProjectScanPtr)
Q_DECLARE_METATYPE(portolan::views::ProjectFilesTreePtr)
