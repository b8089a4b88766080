#include "views/graph/graph_view.h"

#include "views/graph/graphviz_render.h"

#include <QGraphicsScene>
#include <QGraphicsSvgItem>
#include <QMouseEvent>
#include <QSvgRenderer>
#include <QWheelEvent>
#include <QXmlStreamReader>

namespace portolan::views {

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent)
{
    setScene(new QGraphicsScene(this));
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing |
                   QPainter::SmoothPixmapTransform);
    m_renderer = new QSvgRenderer(this);
}

namespace {

// Graphviz writes each node as <g id="nodeN" class="node"><title>NAME</title>...; collect them.
QHash<QString, QString> svgNodeNames(const QByteArray& svg)
{
    QHash<QString, QString> out;
    QXmlStreamReader xml(svg);
    QString currentNode;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        if (xml.name() == QLatin1String("g")) {
            const auto attrs = xml.attributes();
            currentNode = attrs.value(QLatin1String("class")) == QLatin1String("node")
                              ? attrs.value(QLatin1String("id")).toString()
                              : QString();
        } else if (xml.name() == QLatin1String("title") && !currentNode.isEmpty()) {
            out.insert(currentNode, xml.readElementText());
            currentNode.clear();
        }
    }
    return out;
}

} // namespace

void GraphView::setDot(const QByteArray& dot)
{
    const quint64 id = m_ticket.next();
    m_rendering = true;
    runAsync(
        this, [dot] { return renderDotToSvg(dot); },
        [this, id](const SvgRender& r) {
            if (!m_ticket.isCurrent(id))
                return;
            m_rendering = false;
            if (!r.error.isEmpty()) {
                emit failed(r.error);
                return;
            }
            showSvg(r.svg);
            emit rendered();
        });
}

void GraphView::showSvg(const QByteArray& svg)
{
    m_svg = svg;
    m_nodeNames = svgNodeNames(svg);
    scene()->clear();
    m_item = nullptr;
    if (!m_renderer->load(svg))
        return;
    m_item = new QGraphicsSvgItem();
    m_item->setSharedRenderer(m_renderer);
    scene()->addItem(m_item);
    scene()->setSceneRect(m_item->boundingRect().adjusted(-20, -20, 20, 20));
    zoomToReadable();
    m_firstView = true;
}

void GraphView::zoomToReadable()
{
    if (!m_item)
        return;
    zoomToFit();
    // A graph that fits only below this scale (ViT's 15 stage nodes in a column, a flow of
    // dozens of flags) had 10-point labels of 3 or 4 pixels: it opens at a scale that keeps
    // them readable instead, at its start, and scrolls. "Fit" still shows it whole.
    if (transform().m11() < kReadableScale) {
        setTransform(QTransform::fromScale(kReadableScale, kReadableScale));
        const QRectF r = scene()->sceneRect();
        centerOn(r.center().x(), r.top() + viewport()->height() / kReadableScale / 2);
        if (r.width() * kReadableScale > viewport()->width())
            centerOn(r.left() + viewport()->width() / kReadableScale / 2,
                     r.top() + viewport()->height() / kReadableScale / 2);
    }
}

void GraphView::zoomToFit()
{
    if (!m_item)
        return;
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    // Never blow a small graph up beyond its natural size: text would look coarse.
    if (transform().m11() > 1.0)
        setTransform(QTransform());
}

bool GraphView::isCut() const
{
    if (!m_item)
        return false;
    const QRectF shown = mapToScene(viewport()->rect()).boundingRect();
    const QRectF graph = m_item->sceneBoundingRect();
    return !shown.adjusted(-1, -1, 1, 1).contains(graph);
}

void GraphView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (m_firstView)
        zoomToReadable();
}

void GraphView::zoomBy(double factor)
{
    m_firstView = false;
    const double current = transform().m11();
    const double next = std::clamp(current * factor, 0.02, 8.0);
    scale(next / current, next / current);
}

void GraphView::wheelEvent(QWheelEvent* event)
{
    zoomBy(event->angleDelta().y() > 0 ? 1.15 : 1 / 1.15);
    event->accept();
}

void GraphView::mousePressEvent(QMouseEvent* event)
{
    m_firstView = false;
    m_pressPos = event->pos();
    QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event)
{
    QGraphicsView::mouseReleaseEvent(event);
    // A click, not the end of a drag.
    if ((event->pos() - m_pressPos).manhattanLength() < 4) {
        const QString node = nodeAt(event->pos());
        if (!node.isEmpty())
            emit nodeActivated(node);
    }
}

QString GraphView::nodeAt(const QPoint& viewPos) const
{
    if (!m_item)
        return {};
    const QPointF p = m_item->mapFromScene(mapToScene(viewPos));
    for (auto it = m_nodeNames.cbegin(); it != m_nodeNames.cend(); ++it) {
        // boundsOnElement is in the element's own coordinates; map through its transform.
        const QRectF r = m_renderer->transformForElement(it.key()).mapRect(
            m_renderer->boundsOnElement(it.key()));
        if (r.contains(p))
            return it.value();
    }
    return {};
}

} // namespace portolan::views
