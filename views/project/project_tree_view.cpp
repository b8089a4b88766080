#include "views/project/project_tree_view.h"

#include "views/project/project_files_model.h"

#include <QHeaderView>
#include <QResizeEvent>
#include <QStyledItemDelegate>

namespace portolan::views {

namespace {

// Elides each name by the part it shares with its neighbours (ProjectTreeView::elideModeFor).
class NameDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (index.column() == ProjectFilesModel::NameColumn)
            option->textElideMode = ProjectTreeView::elideModeFor(index);
    }
};

int commonPrefix(const QString& a, const QString& b)
{
    int n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n])
        ++n;
    return n;
}

} // namespace

Qt::TextElideMode ProjectTreeView::elideModeFor(const QModelIndex& index)
{
    // Siblings such as params_gpt2_large.yaml and params_gpt2_small.yaml differ after a shared
    // start: cut in the middle they all read "params_g…yaml". Such a name loses its start
    // instead; any other keeps both ends (its extension tells files apart).
    const QString name = index.data().toString();
    int shared = 0;
    for (int row : {index.row() - 1, index.row() + 1}) {
        const QModelIndex other = index.siblingAtRow(row);
        if (other.isValid())
            shared = std::max(shared, commonPrefix(name, other.data().toString()));
    }
    return shared >= 4 ? Qt::ElideLeft : Qt::ElideMiddle;
}

ProjectTreeView::ProjectTreeView(ProjectFilesModel* model, QWidget* parent) : QTreeView(parent)
{
    setModel(model);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setAnimated(false);
    setTextElideMode(
        Qt::ElideMiddle); // a file name's end (its extension, msl128.yaml) tells files apart
    setItemDelegate(new NameDelegate(this));
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
