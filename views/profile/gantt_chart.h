#pragma once

// Gantt chart of the pipeline schedule: one row per stage, time across, a box per micro-batch's
// forward and backward pass in the forward/backward pair of colours the stage chart uses
// (issue 26: one colour language; colours per micro-batch made red a micro-batch), micro-batches
// apart by a thin gap, and each stage's idle time (the bubble) hatched. The key is a row of its
// own under the time axis, never over the boxes.

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
    // The colour of a pass's box: forwardColor or backwardColor, whatever its micro-batch.
    static QColor passColor(bool backward, const QPalette& p);
    // The hatch of idle stage time, on the chart and in its key.
    static QBrush idleBrush(const QPalette& p);
    // Where the boxes are drawn, and where the key is: apart (for the tests, and paintEvent).
    QRect plotArea() const;
    QRect keyArea() const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    ResultPtr m_result;
    double m_idle = 0;
};

} // namespace portolan::views
