#pragma once

// Memory report: the per-tile stacked chart with IPU and stage filters, and the clicked tile's
// details below it.

#include "views/profile/plot_theme.h"

#include <QWidget>

class QComboBox;
class QLabel;

namespace portolan::views {

class DryRunNotice;
class MemoryChart;
class TileDetails;

class MemoryPage : public QWidget
{
    Q_OBJECT
public:
    explicit MemoryPage(QWidget* parent = nullptr);
    void setResult(ResultPtr result);
    void showTile(int tile);
    MemoryChart* chart() const { return m_chart; }
    TileDetails* details() const { return m_details; }
    QComboBox* ipuFilter() const { return m_ipu; }
    QComboBox* stageFilter() const { return m_stage; }
    // No report because only a dry run can tell the model: say so, with the button that runs it
    // (hidden again by the next report).
    void showNeedsDryRun();
    DryRunNotice* dryRunNotice() const { return m_needsDryRun; }

signals:
    void dryRunRequested();

private:
    void updateHint();
    void applyFilter(QComboBox* from);

    ResultPtr m_result;
    MemoryChart* m_chart = nullptr;
    TileDetails* m_details = nullptr;
    QComboBox* m_ipu = nullptr;
    QComboBox* m_stage = nullptr;
    QLabel* m_hint = nullptr;
    QComboBox* m_height = nullptr;
    DryRunNotice* m_needsDryRun = nullptr;
    QWidget* m_controls = nullptr;
};

} // namespace portolan::views
