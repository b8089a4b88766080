#pragma once

// Gantt chart of the pipeline schedule: one row per stage, time across, a box per micro-batch's
// forward (solid) and backward (hatched) pass coloured by micro-batch, and each stage's idle time
// (the bubble) shaded.

#include "views/profile/plot_theme.h"

#include <QWidget>

namespace portolan::views {

class GanttChart : public QWidget
{
    Q_OBJECT
public:
    explicit GanttChart(QWidget* parent = nullptr);
    void setResult(ResultPtr result);
    // Fraction of stage-time that is idle over the simulated step (the drawn bubble).
    double idleFraction() const { return m_idle; }
    QSize sizeHint() const override { return {700, 300}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    ResultPtr m_result;
    double m_idle = 0;
};

} // namespace portolan::views
