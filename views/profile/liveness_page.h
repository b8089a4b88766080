#pragma once

// Liveness report: always-live and not-always-live memory per program step as stacked bars;
// clicking a step lists the variables live during it.

#include "views/profile/plot_theme.h"

#include <QPoint>
#include <QWidget>

class QCPBars;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QTableView;

namespace portolan::views {

class VariableTableModel;

class LivenessPage : public QWidget
{
    Q_OBJECT
public:
    explicit LivenessPage(QWidget* parent = nullptr);
    void setResult(ResultPtr result);
    void showStep(int step);
    int step() const { return m_step; }
    QCustomPlot* chart() const { return m_plot; }
    VariableTableModel* model() const { return m_model; }
    QString stepSummary() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void fill();
    int stepAt(const QPoint& pos) const; // -1: no step there
    QString stepText(int step) const;    // "Step 12 "name" (forward, stage 0): 3 MiB live"

    ResultPtr m_result;
    int m_step = -1;
    int m_peak = -1; // the step with the most live memory, shown first
    QCustomPlot* m_plot = nullptr;
    QCPItemText* m_empty = nullptr; // why the chart is empty
    QLabel* m_summary = nullptr;
    QTableView* m_view = nullptr;
    QWidget* m_lower = nullptr; // the step's summary and table, under the chart
    VariableTableModel* m_model = nullptr;
};

} // namespace portolan::views
