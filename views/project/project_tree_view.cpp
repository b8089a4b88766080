#include "views/project/project_tree_view.h"

#include "views/project/project_files_model.h"

#include <QHeaderView>
#include <QResizeEvent>

namespace portolan::views {

ProjectTreeView::ProjectTreeView(ProjectFilesModel* model, QWidget* parent) : QTreeView(parent)
{
    setModel(model);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setAnimated(false);
    setTextElideMode(
        Qt::ElideMiddle); // a file name's end (its extension, msl128.yaml) tells files apart
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

void ProjectTreeView::resizeEvent(QResizeEvent* event)
{
    QTreeView::resizeEvent(event);
    fitColumns();
}

// The name is what a user reads: in a narrow dock the kind goes first, then the size (both stay
// in the tooltip), so that names are not cut down to "...".
void ProjectTreeView::fitColumns()
{
    const int ch = fontMetrics().averageCharWidth();
    const int width = viewport()->width();
    setColumnHidden(ProjectFilesModel::StatusColumn, width < 44 * ch);
    setColumnHidden(ProjectFilesModel::SizeColumn, width < 34 * ch);
}

} // namespace portolan::views
