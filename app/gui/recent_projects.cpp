#include "app/gui/recent_projects.h"

#include <QDir>
#include <QSettings>

namespace portolan::app {

namespace {
constexpr char key[] = "recentProjects"; // QSettings takes QAnyStringView: no global QString
}

RecentProjects::RecentProjects(QObject* parent) : QObject(parent)
{
    m_folders = QSettings().value(key).toStringList();
}

void RecentProjects::add(const QString& folder)
{
    const QString clean = QDir::cleanPath(QDir(folder).absolutePath());
    m_folders.removeAll(clean);
    m_folders.prepend(clean);
    while (m_folders.size() > MaxEntries)
        m_folders.removeLast();
    save();
}

void RecentProjects::remove(const QString& folder)
{
    if (m_folders.removeAll(folder) > 0)
        save();
}

void RecentProjects::clear()
{
    m_folders.clear();
    save();
}

void RecentProjects::save()
{
    QSettings().setValue(key, m_folders);
    emit changed();
}

} // namespace portolan::app
