#include "views/project/project_loader.h"

namespace portolan::views {

ProjectLoader::ProjectLoader(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<ProjectScanPtr>();
    qRegisterMetaType<ProjectFilesTreePtr>();
}

namespace {
// Everything behind shared pointers: the future's result is copied on the GUI thread, and a
// copy of 100,000 file entries would be a stall of its own.
struct Loaded
{
    ProjectScanPtr scan;
    QString error;
    ProjectFilesTreePtr tree;
};
} // namespace

void ProjectLoader::load(const QString& folder)
{
    const quint64 id = m_ticket.next();
    m_loading = true;
    emit started(folder);
    const std::string path = folder.toStdString();
    runAsync(
        this,
        [path] {
            auto scan = scanProject(path);
            if (!scan)
                return Loaded{nullptr, QString::fromStdString(scan.error.message), nullptr};
            auto shared = std::make_shared<const ProjectScan>(std::move(*scan.value));
            return Loaded{shared, {}, ProjectFilesModel::buildTree(*shared)};
        },
        [this, id, folder](const Loaded& result) {
            if (!m_ticket.isCurrent(id))
                return;
            m_loading = false;
            if (!result.scan) {
                emit failed(folder, result.error);
                return;
            }
            emit loaded(folder, result.scan, result.tree);
        });
}

} // namespace portolan::views
