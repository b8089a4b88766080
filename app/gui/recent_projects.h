#pragma once

#include <QObject>
#include <QStringList>

namespace portolan::app {

// The most recently opened projects, newest first, kept in QSettings.
class RecentProjects : public QObject
{
    Q_OBJECT
public:
    static constexpr int MaxEntries = 10;
    explicit RecentProjects(QObject* parent = nullptr);

    QStringList folders() const { return m_folders; }
    void add(const QString& folder);
    void remove(const QString& folder);
    void clear();

signals:
    void changed();

private:
    void save();
    QStringList m_folders;
};

} // namespace portolan::app
