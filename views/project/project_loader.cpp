#include "views/project/project_loader.h"

namespace portolan::views {

ProjectLoader::ProjectLoader(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<ProjectScanPtr>();
}

void ProjectLoader::load(const QString& folder)
{
    const quint64 id = m_ticket.next();
    m_loading = true;
    emit started(folder);
    const std::string path = folder.toStdString();
    runAsync(
        this, [path] { return scanProject(path); },
        [this, id, folder](Result<ProjectScan> result) {
            if (!m_ticket.isCurrent(id))
                return;
            m_loading = false;
            if (!result) {
                emit failed(folder, QString::fromStdString(result.error.message));
                return;
            }
            emit loaded(folder, std::make_shared<const ProjectScan>(std::move(*result.value)));
        });
}

} // namespace portolan::views
