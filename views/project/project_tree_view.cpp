#include "views/project/project_tree_view.h"

#include "views/project/project_files_model.h"

#include <QHeaderView>

namespace portolan::views {

ProjectTreeView::ProjectTreeView(ProjectFilesModel* model, QWidget* parent) : QTreeView(parent)
{
    setModel(model);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setAnimated(false);
    header()->setStretchLastSection(false);
    header()->setSectionResizeMode(ProjectFilesModel::NameColumn, QHeaderView::Stretch);
    header()->setSectionResizeMode(ProjectFilesModel::SizeColumn, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(ProjectFilesModel::StatusColumn, QHeaderView::ResizeToContents);
    connect(model, &QAbstractItemModel::modelReset, this, [this] { expandToDepth(0); });
    connect(this, &QTreeView::activated, this, [this](const QModelIndex& index) {
        if (!index.data(ProjectFilesModel::IsFolderRole).toBool() &&
            !index.data(ProjectFilesModel::IsSkippedRole).toBool())
            emit fileActivated(index.data(ProjectFilesModel::RelativePathRole).toString());
    });
}

} // namespace portolan::views
