#pragma once

// A table of variables of a report (the ones on a clicked tile, or live at a program step):
// name, kind, stage, bytes (on the tile when a tile is set), total bytes, category, liveness.

#include "views/profile/plot_theme.h"

#include <QAbstractTableModel>

class QTableView;
#include <vector>

namespace portolan::views {

class VariableTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        Kind,
        Stage,
        BytesHere,
        TotalBytes,
        Tiles,
        Category,
        Liveness,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;

    // `tile` < 0: no tile (BytesHere shows bytes per tile).
    void setVariables(ResultPtr result, std::vector<int> indices, int tile = -1);
    void clear();
    int tile() const { return m_tile; }
    std::int64_t bytesHere() const; // sum of the BytesHere column
    const sim::Variable* variable(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    QString stepName(int step) const;

    ResultPtr m_result;
    std::vector<int> m_indices;
    int m_tile = -1;
};

// Sets up a view of a VariableTableModel so that its important columns show first and whole in
// a narrow pane (the Profile's right side is about 500 pixels at 1024x700): the name, then the
// bytes and the category, in the visual order; the figures sized to their contents (sampled,
// so cheap on 37,000 rows); the name elided in the middle (its start and its op both tell);
// the liveness range, long and least read, last, with its full text in the tooltip.
void setUpVariableTable(QTableView* view);

} // namespace portolan::views
