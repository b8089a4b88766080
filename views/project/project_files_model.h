#pragma once

#include "core/project/project_scan.h"

#include <QAbstractItemModel>
#include <memory>
#include <vector>

namespace portolan::views {

// The files model's tree as plain data: built off the GUI thread (ProjectLoader does it on its
// worker), then handed to the model in one reset, so that a project of 100,000 files costs the
// GUI thread a pointer swap rather than the build.
struct ProjectFilesTree;
using ProjectFilesTreePtr = std::shared_ptr<ProjectFilesTree>;

// The opened project's files as a tree: folders first, then files, both by name. Skipped entries
// (binary, too large, links leaving the project...) are shown too, greyed, with the reason.
class ProjectFilesModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column
    {
        NameColumn,
        SizeColumn,
        StatusColumn,
        ColumnCount
    };
    enum Role
    {
        RelativePathRole = Qt::UserRole + 1, // QString, '/'-separated, relative to the root
        IsFolderRole,                        // bool
        IsSkippedRole,                       // bool
        FileKindRole,                        // QString: python, yaml, json, text, other
        ShortNameRole, // QString: the part of a flattened path's name that tells it apart, or ""
    };

    explicit ProjectFilesModel(QObject* parent = nullptr);
    ~ProjectFilesModel() override;

    // Builds the tree of a scan; thread-safe (touches no model), linear in the number of entries.
    static ProjectFilesTreePtr buildTree(const ProjectScan& scan);
    // Shows a tree from buildTree(); the model takes it over (it must not be shared further).
    void setTree(ProjectFilesTreePtr tree);
    void setScan(const ProjectScan& scan) { setTree(buildTree(scan)); }
    void clear();
    QModelIndex indexForPath(const QString& relativePath) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    struct Node;

private:
    Node* nodeOf(const QModelIndex& index) const;
    ProjectFilesTreePtr m_tree;
};

} // namespace portolan::views
