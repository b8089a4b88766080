#include "views/project/project_tree_view.h"

#include "views/project/project_files_model.h"

#include <QApplication>
#include <QHeaderView>
#include <QResizeEvent>
#include <QStyle>
#include <QStyledItemDelegate>
#include <algorithm>
#include <vector>

namespace portolan::views {

namespace {

int commonPrefix(const QString& a, const QString& b)
{
    int n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n])
        ++n;
    return n;
}

int commonSuffix(const QString& a, const QString& b)
{
    int n = 0;
    while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n])
        ++n;
    return n;
}

// Draws each name by the part that tells it from its neighbours (ProjectTreeView::shownName).
class NameDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (index.column() != ProjectFilesModel::NameColumn)
            return;
        option->textElideMode = ProjectTreeView::elideModeFor(index);
        // The text's room as the style draws it: its text rectangle less the margins it keeps
        // on each side. A guess of a few pixels more let the view cut the shortened name again
        // at the left ("…d_Cerebras-… › 111m").
        const QStyle* style = option->widget ? option->widget->style() : QApplication::style();
        const int margin =
            style->pixelMetric(QStyle::PM_FocusFrameHMargin, option, option->widget) + 1;
        const int room =
            style->subElementRect(QStyle::SE_ItemViewItemText, option, option->widget).width() -
            2 * margin;
        if (room <= 0 || option->fontMetrics.horizontalAdvance(option->text) <= room)
            return;
        // A flattened path too long for the room reads by its short name (the full one is on
        // hover), cut by the same rule among its neighbours' short names.
        const int role = index.data(ProjectFilesModel::ShortNameRole).toString().isEmpty()
                             ? int(Qt::DisplayRole)
                             : int(ProjectFilesModel::ShortNameRole);
        QStringList neighbours;
        for (int row : {index.row() - 1, index.row() + 1})
            if (const QModelIndex other = index.siblingAtRow(row); other.isValid())
                neighbours << other.data(role).toString();
        option->text = ProjectTreeView::shownName(index.data(role).toString(), neighbours,
                                                  option->fontMetrics, room);
    }
};

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

QString ProjectTreeView::shownName(const QString& name, const QStringList& neighbours,
                                   const QFontMetrics& fm, int width)
{
    if (fm.horizontalAdvance(name) <= width)
        return name;
    if (const QString shorter = shownShortName(name, neighbours, fm, width); !shorter.isNull())
        return shorter;
    // What it shares with the neighbours that look like it (a start or an end of four or more
    // characters); the part that differs from any of them must stay.
    int prefix = int(name.size()), suffix = int(name.size());
    std::vector<int> sharedEnds;
    // An end shared beyond the extension only: every "….py" ends like its neighbours, and
    // dataset.py beside randaugment.py read "…aug…t.py" for a shared "t.py".
    const int dot = name.lastIndexOf(QLatin1Char('.'));
    const int extension = dot > 0 ? int(name.size()) - dot : 0;
    for (const QString& other : neighbours) {
        const int p = commonPrefix(name, other), s = commonSuffix(name, other);
        if (p < 4 && s - extension < 4)
            continue;
        sharedEnds.push_back(s);
        prefix = std::min(prefix, p);
        suffix = std::min(suffix, s);
    }
    if (sharedEnds.empty())
        return fm.elidedText(name, Qt::ElideMiddle, width);
    const QString ellipsis = QStringLiteral("…");
    // The part that tells it apart: after the start and before the end it shares.
    const int distinctEnd = std::max(prefix, int(name.size()) - suffix);
    const QString distinct = name.mid(prefix, distinctEnd - prefix);
    // Cut at the start, as long as the distinguishing part stays whole ("…large.yaml").
    const QString left = fm.elidedText(name, Qt::ElideLeft, width);
    if (distinct.isEmpty() || left.contains(distinct))
        return left;
    // Else cut at the end, when the differing part stays whole there: a stem with no extension
    // reads "bert_large_summ…" rather than the fragment "…larg".
    if (const QString right = fm.elidedText(name, Qt::ElideRight, width); right.contains(distinct))
        return right;
    // Else the shared end gives way too, all but the extension: "…base….yaml".
    // The extension, after an ellipsis when a shared part lies between ("…base….yaml").
    const QString ext = dot > 0 ? name.mid(dot) : QString();
    const QString end = (distinctEnd < dot ? ellipsis : QString()) + ext;
    const int room = width - fm.horizontalAdvance(ellipsis) - fm.horizontalAdvance(end);
    if (room <= fm.averageCharWidth() * 2)
        return left;
    // Both ends of the differing part: its start tells it from one neighbour ("base" from
    // "large"), its end from the other ("128" from "512").
    QString part = fm.elidedText(distinct, Qt::ElideMiddle, room);
    if (part.endsWith(ellipsis))
        part.chop(ellipsis.size());
    // Unless the cut at the start already tells it from every neighbour: its visible end reaches
    // past the end it shares with each ("…dium.yaml" beside params_gpt2_large.yaml), and shows
    // more of the differing part than this would ("…m.yaml").
    const int tail = int(left.size()) - int(ellipsis.size());
    bool leftTells = true;
    for (const int shared : sharedEnds)
        leftTells = leftTells && tail > shared;
    const int inLeft = std::max(0, distinctEnd - std::max(prefix, int(name.size()) - tail));
    if (leftTells && int(part.size()) - int(part.count(ellipsis)) <= inLeft)
        return left;
    return ellipsis + part + end;
}

QString ProjectTreeView::shownShortName(const QString& name, const QStringList& neighbours,
                                        const QFontMetrics& fm, int width)
{
    // A flattened path's short name (flattenedShortNames: "Cerebras_GPT › 111m") ends in its
    // stem, which tells it from its neighbours: the folders in front give way first, in their
    // middle (the first differing folder of "V_1 › torch › params" stays in front). Cut at the
    // left, as other names are, it read "…erebras_GPT › 111m"; cut at their end, the folders
    // read "RE… › roberta_base".
    const QString join = QStringLiteral(" › ");
    const qsizetype at = name.lastIndexOf(join);
    if (at <= 0)
        return {};
    const QString stem = name.mid(at + join.size());
    const QString ellipsis = QStringLiteral("…");
    const int room = width - fm.horizontalAdvance(join + stem);
    // A folder cut to fewer than two characters tells nothing: the stem alone, after "…".
    // The folders are cut in their middle: their start (a release, "RELEASE_2.1.0") and their
    // end (the model's folder, "Cerebras_GPT") both tell a name apart ("RELE…_GPT › 111m").
    if (room >= fm.horizontalAdvance(name.left(2) + ellipsis))
        return fm.elidedText(name.left(at), Qt::ElideMiddle, room) + join + stem;
    if (fm.horizontalAdvance(ellipsis + join + stem) <= width)
        return ellipsis + join + stem;
    // Too narrow even for that: the stem, cut by the rule among its neighbours' stems.
    QStringList stems;
    for (const QString& other : neighbours) {
        const qsizetype j = other.lastIndexOf(join);
        stems << (j < 0 ? other : other.mid(j + join.size()));
    }
    return shownName(stem, stems, fm, width);
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
