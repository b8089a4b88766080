#pragma once

// Pipeline view: the schedule's Gantt chart, per-stage time and memory bars, the balance ratio,
// and the split, both as a bar whose stage boundaries can be dragged and as numbers per stage
// (layers per stage); either edit emits splitEdited at once.

#include "core/sim/layer_split.h"
#include "core/sim/profile.h"
#include "views/profile/plot_theme.h"

#include <QWidget>

class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QSpinBox;

namespace portolan::views {

class GanttChart;
class SplitBar;

// "The project's split (poptorch.BeginBlock): layers per stage 3,4 on IPUs 0,1: fits, ..." for
// the Pipeline and Summary pages.
QString projectSplitText(const sim::ProjectSplit& split);

class PipelinePage : public QWidget
{
    Q_OBJECT
public:
    explicit PipelinePage(QWidget* parent = nullptr);
    void setResult(ResultPtr result);
    std::vector<int> split() const { return m_split.perStage(); } // layers per stage as shown
    // Sets stage `stage` to `layers` layers, taking them from (or giving them to) the next stage
    // (the split arithmetic is sim::LayerSplit's).
    bool editStage(int stage, int layers);
    // Replaces the whole split (same number of stages), as a boundary drag does.
    void applySplit(const std::vector<int>& layersPerStage);
    GanttChart* gantt() const { return m_gantt; }
    SplitBar* splitBar() const { return m_splitBar; }
    QCustomPlot* stageChart() const { return m_stagePlot; }
    QString balanceText() const;
    QString projectSplitText() const; // "" when the project declares no split

signals:
    void splitEdited(const std::vector<int>& layersPerStage);

protected:
    void changeEvent(QEvent* event) override;

private:
    void fillStageChart();
    void rebuildSplitEditor();
    void showSplit(); // puts m_split into the spin boxes and the bar, without signals

    ResultPtr m_result;
    GanttChart* m_gantt = nullptr;
    QCustomPlot* m_stagePlot = nullptr;
    QLabel* m_balance = nullptr;
    QLabel* m_projectSplit = nullptr;
    QPushButton* m_useProjectSplit = nullptr;
    SplitBar* m_splitBar = nullptr;
    QWidget* m_splitBox = nullptr;
    QHBoxLayout* m_splitLayout = nullptr;
    std::vector<QSpinBox*> m_spins;
    // The split editor, the stage chart and the export buttons: shown only with IPU stages (a
    // CS report or none left an empty 0..5 chart and an empty split bar under the schedule's
    // own explanation).
    std::vector<QWidget*> m_stageParts;
    sim::LayerSplit m_split;
};

} // namespace portolan::views
