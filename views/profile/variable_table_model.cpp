#include "views/profile/variable_table_model.h"

#include "views/common/reading_columns.h"

#include <QHeaderView>
#include <QTableView>
#include <algorithm>

namespace portolan::views {

void VariableTableModel::setVariables(ResultPtr result, std::vector<int> indices, int tile)
{
    beginResetModel();
    m_result = std::move(result);
    m_indices = std::move(indices);
    m_tile = tile;
    if (!m_result || !m_result->ipu)
        m_indices.clear();
    endResetModel();
}

void VariableTableModel::clear()
{
    setVariables(nullptr, {}, -1);
}

const sim::Variable* VariableTableModel::variable(int row) const
{
    if (row < 0 || row >= int(m_indices.size()) || !m_result || !m_result->ipu)
        return nullptr;
    const auto& vars = m_result->ipu->variables;
    const int i = m_indices[std::size_t(row)];
    return i >= 0 && i < int(vars.size()) ? &vars[std::size_t(i)] : nullptr;
}

std::int64_t VariableTableModel::bytesHere() const
{
    std::int64_t sum = 0;
    for (int r = 0; r < rowCount(); ++r)
        sum += variable(r)->bytesPerTile;
    return sum;
}

int VariableTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_indices.size());
}

int VariableTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString VariableTableModel::stepName(int step) const
{
    const auto& steps = m_result->ipu->steps;
    if (step >= 0 && step < int(steps.size()))
        return QString::fromStdString(steps[std::size_t(step)].name);
    return QString::number(step);
}

QVariant VariableTableModel::data(const QModelIndex& index, int role) const
{
    const sim::Variable* v = index.isValid() ? variable(index.row()) : nullptr;
    if (!v)
        return {};
    if (role == Qt::TextAlignmentRole && index.column() != Name && index.column() != Kind &&
        index.column() != Category && index.column() != Liveness)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::UserRole) { // raw values for sorting and tests
        switch (index.column()) {
        case BytesHere:
            return qlonglong(v->bytesPerTile);
        case TotalBytes:
            return qlonglong(v->bytes);
        case Stage:
            return v->stage;
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Name:
        return QString::fromStdString(v->name);
    case Kind:
        return QString::fromStdString(v->kind);
    case Stage:
        return v->stage;
    case BytesHere:
        return bytesText(double(v->bytesPerTile));
    case TotalBytes:
        return bytesText(double(v->bytes));
    case Tiles:
        return v->tileCount;
    case Category:
        return memoryCategoryLabel(v->alwaysLive ? int(sim::MemoryCategory::AlwaysLive)
                                                 : int(sim::MemoryCategory::NotAlwaysLive));
    case Liveness:
        if (v->alwaysLive)
            return tr("whole step");
        return tr("%1 .. %2").arg(stepName(v->liveFrom), stepName(v->liveTo));
    }
    return {};
}

QVariant VariableTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Variable");
    case Kind:
        return tr("Kind");
    case Stage:
        return tr("Stage");
    case BytesHere:
        return m_tile >= 0 ? tr("On tile %1").arg(m_tile) : tr("Per tile");
    case TotalBytes:
        return tr("Total");
    case Tiles:
        return tr("Tiles");
    case Category:
        return tr("Category");
    case Liveness:
        return tr("Live");
    }
    return {};
}

void VariableTableModel::sort(int column, Qt::SortOrder order)
{
    if (!m_result || !m_result->ipu)
        return;
    const auto& vars = m_result->ipu->variables;
    auto key = [&](int i) -> std::pair<std::int64_t, std::string> {
        const auto& v = vars[std::size_t(i)];
        switch (column) {
        case Stage:
            return {v.stage, {}};
        case BytesHere:
            return {v.bytesPerTile, {}};
        case TotalBytes:
            return {v.bytes, {}};
        case Tiles:
            return {v.tileCount, {}};
        case Kind:
            return {0, v.kind};
        case Category:
            return {v.alwaysLive ? 0 : 1, {}};
        case Liveness:
            return {v.liveFrom, {}};
        default:
            return {0, v.name};
        }
    };
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<int> oldRows;
    for (const QModelIndex& i : before)
        oldRows.push_back(m_indices[std::size_t(i.row())]);
    std::stable_sort(m_indices.begin(), m_indices.end(), [&](int a, int b) {
        return order == Qt::AscendingOrder ? key(a) < key(b) : key(b) < key(a);
    });
    QModelIndexList after;
    for (std::size_t k = 0; k < oldRows.size(); ++k) {
        const int row =
            int(std::find(m_indices.begin(), m_indices.end(), oldRows[k]) - m_indices.begin());
        after.push_back(index(row, before[int(k)].column()));
    }
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void setUpVariableTable(QTableView* view)
{
    QHeaderView* header = view->horizontalHeader();
    using C = VariableTableModel::Column;
    const C order[] = {C::Name,  C::BytesHere, C::TotalBytes, C::Category,
                       C::Stage, C::Tiles,     C::Kind,       C::Liveness};
    for (int visual = 0; visual < int(std::size(order)); ++visual)
        header->moveSection(header->visualIndex(order[visual]), visual);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->setTextElideMode(Qt::ElideMiddle);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    // No sideways scroll at 1024 pixels (issue 26, the Liveness table): the variable's name and
    // its bytes stay; the kind, tile count, category and stage are hidden for room in that
    // order (the header's menu shows them again), and the steps it is live between are elided
    // in the middle, never hidden. The CS kernel table shares the rule.
    auto* columns = new ReadingColumns(view, C::Name);
    for (const C c : {C::Kind, C::Tiles, C::Category, C::Stage})
        columns->addYielding(c, 4);
    columns->addEliding(C::Liveness, 12, Qt::ElideMiddle);
    columns->setHideRatherThanCut(true);
}

} // namespace portolan::views
