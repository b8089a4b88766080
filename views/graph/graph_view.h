#pragma once

#include "views/common/job.h"

#include <QGraphicsView>
#include <QHash>

class QGraphicsSvgItem;
class QSvgRenderer;

namespace portolan::views {

// Shows a Graphviz graph: DOT in, laid out off the GUI thread, drawn as SVG. Zoom with the wheel,
// pan by dragging, click a node to activate it: nodeActivated() gives the node's DOT name, which
// the caller links to a payload (a file:line, say).
class GraphView : public QGraphicsView
{
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);

    // Starts the layout; `rendered` or `failed` follows.
    void setDot(const QByteArray& dot);
    void zoomToFit();
    // The first view of a graph: fitted, but never below kReadableScale (then scrolled to
    // the graph's start).
    void zoomToReadable();
    // Graphviz labels are 10 points (8 on edges): at 0.8 they are 8 pixels or more.
    static constexpr double kReadableScale = 0.8;
    void zoomBy(double factor);
    // Part of the graph is outside the viewport (it opened at the readable scale, or was zoomed).
    bool isCut() const;
    QByteArray svg() const { return m_svg; }
    bool isLaidOut() const { return !m_svg.isEmpty(); }
    bool isRendering() const { return m_rendering; }

signals:
    void rendered();
    void failed(const QString& message);
    void nodeActivated(const QString& nodeName);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void showSvg(const QByteArray& svg);
    QString nodeAt(const QPoint& viewPos) const;

    JobTicket m_ticket;
    QByteArray m_svg;
    QHash<QString, QString> m_nodeNames; // SVG element id -> DOT node name
    QSvgRenderer* m_renderer = nullptr;
    QGraphicsSvgItem* m_item = nullptr;
    QPoint m_pressPos;
    bool m_rendering = false;
    // The first view is the graph's own until the user zooms or pans: a graph laid out while
    // its tab was hidden (a viewport of another size) opens right when the tab is shown.
    bool m_firstView = false;
};

} // namespace portolan::views
