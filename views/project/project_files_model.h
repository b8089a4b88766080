#pragma once

#include "core/project/project_scan.h"

#include <QAbstractItemModel>
#include <memory>
#include <vector>

namespace portolan::views {

// The opened project's files as a tree: folders first, then files, both by name. Skipped entries
// (binary, too large, links leaving the project...) are shown too, greyed, with the reason.
class ProjectFilesModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, SizeColumn, StatusColumn, ColumnCount };
    enum Role {
        RelativePathRole = Qt::UserRole + 1, // QString, '/'-separated, relative to the root
        IsFolderRole,                        // bool
        IsSkippedRole,                       // bool
        FileKindRole,                        // QString: python, yaml, json, text, other
    };

    explicit ProjectFilesModel(QObject* parent = nullptr);
    ~ProjectFilesModel() override;

    void setScan(const ProjectScan& scan);
    void clear();
    QModelIndex indexForPath(const QString& relativePath) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Node;
    Node* nodeOf(const QModelIndex& index) const;
    std::unique_ptr<Node> m_root;
};

} // namespace portolan::views
