#pragma once

// The pipeline split as a bar: the model's layers from left to right, one coloured segment per
// stage. Dragging the boundary between two stages moves whole layers from one to the other; the
// new split is emitted once, when the drag ends, so a drag costs one re-simulation and not one
// per pixel. Escape during a drag puts the boundary back.

#include <QStringList>
#include <QWidget>
#include <vector>

namespace portolan::views {

class SplitBar : public QWidget
{
    Q_OBJECT
public:
    explicit SplitBar(QWidget* parent = nullptr);
    void setSplit(std::vector<int> layersPerStage);
    void setLayerNames(QStringList names) { m_layerNames = std::move(names); } // for tooltips
    const std::vector<int>& split() const { return m_split; }
    // Widget x of the boundary after stage `boundary` (0 .. stages-2); for hit tests and tests.
    int boundaryX(int boundary) const;
    bool dragging() const { return m_drag >= 0; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void splitDragged(const std::vector<int>& layersPerStage);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    int layerCount() const;
    QRectF barRect() const;
    double xOfLayer(double layer) const;
    int boundaryNear(double x) const; // -1 when no boundary is within reach
    int stageOfLayer(int layer) const;

    std::vector<int> m_split;
    QStringList m_layerNames;
    int m_drag = -1;               // boundary being dragged
    std::vector<int> m_beforeDrag; // restored by Escape
};

} // namespace portolan::views
