#pragma once

// A list of single values (`betas: [0.9, 0.999]`, `data_dir: [a, b]`): edit items in place,
// append and remove them. Each change is one minimal edit of the file.

#include <QStringList>
#include <QWidget>

class QListWidget;

namespace portolan::views {

class ListField : public QWidget
{
    Q_OBJECT

public:
    ListField(const QString& path, const QStringList& items, QWidget* parent = nullptr);
    QString path() const { return m_path; }
    QListWidget* list() const { return m_list; }

signals:
    void edited(const QString& path, const QString& value, int hint);
    void appendRequested(const QString& listPath, const QString& value, int hint);
    void removeRequested(const QString& path);

private:
    QString m_path;
    QListWidget* m_list = nullptr;
};

} // namespace portolan::views
