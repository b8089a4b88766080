#pragma once

// The details of one tile: its bytes per memory category and the variables on it (a table with
// sizes, categories and liveness). Shared by the memory page and the tile map.

#include "views/profile/plot_theme.h"

#include <QWidget>

class QLabel;

namespace portolan::views {

class PlaceholderTableView;
class VariableTableModel;

class TileDetails : public QWidget
{
    Q_OBJECT
public:
    explicit TileDetails(QWidget* parent = nullptr);
    void setResult(ResultPtr result);
    void showTile(int tile);
    int tile() const { return m_tile; }
    QString summary() const;
    VariableTableModel* model() const { return m_model; }
    PlaceholderTableView* view() const { return m_view; }

private:
    ResultPtr m_result;
    int m_tile = -1;
    QLabel* m_summary = nullptr;
    PlaceholderTableView* m_view = nullptr;
    VariableTableModel* m_model = nullptr;
};

} // namespace portolan::views
