#include "views/profile/op_graph_page.h"

#include "views/graph/graph_view.h"
#include "views/profile/chart_export.h"
#include "views/profile/op_graph_dot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace portolan::views {

OpGraphPage::OpGraphPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    m_colour = new QComboBox(this);
    m_colour->addItem(tr("by stage"));
    m_colour->addItem(tr("by placement"));
    m_colour->setItemData(1, tr("Colour by IPU, or by CS kernel"), Qt::ToolTipRole);
    m_depth = new QSpinBox(this);
    m_depth->setObjectName(QStringLiteral("moduleDepth"));
    m_depth->setRange(0, 8);
    m_depth->setSpecialValueText(tr("module depth: automatic"));
    m_depth->setToolTip(tr("Collapse ops into one node per module prefix of this depth; "
                           "automatic shows every op while the graph stays readable"));
    m_depth->setPrefix(tr("module depth "));
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_view = new GraphView(this);
    m_view->setObjectName(QStringLiteral("opGraph"));
    bar->addWidget(new QLabel(tr("Colour"), this));
    bar->addWidget(m_colour);
    bar->addWidget(m_depth);
    bar->addWidget(m_status, 1);
    bar->addWidget(makeExportButton(m_view, this));
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    connect(m_colour, &QComboBox::currentIndexChanged, this, [this] {
        m_dirty = true;
        refresh();
    });
    connect(m_depth, &QSpinBox::valueChanged, this, [this] {
        m_dirty = true;
        refresh();
    });
    connect(m_view, &GraphView::rendered, m_view, &GraphView::zoomToReadable);
    connect(m_view, &GraphView::failed, this, [this](const QString& m) { m_status->setText(m); });
}

bool OpGraphPage::isRendering() const
{
    return m_view->isRendering();
}

void OpGraphPage::setResult(ResultPtr result)
{
    m_result = std::move(result);
    m_dirty = true;
    if (isVisible())
        refresh();
}

void OpGraphPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

void OpGraphPage::refresh()
{
    if (!m_dirty || !m_result || !isVisible())
        return;
    m_dirty = false;
    OpGraphDotOptions o;
    o.moduleDepth = m_depth->value();
    if (o.moduleDepth == 0)
        o.maxNodes = 60; // automatic: every op of a small model, modules of a larger one
    o.byPlacement = m_colour->currentIndex() == 1;
    const OpGraphDot dot = opGraphDot(*m_result, o, palette());
    m_status->setText(
        tr("%1 ops shown as %2 nodes%3")
            .arg(m_result->graph.ops.size())
            .arg(dot.nodes)
            .arg(dot.depthUsed != o.moduleDepth
                     ? tr(" (collapsed to depth %1 to stay readable)").arg(dot.depthUsed)
                     : QString()));
    m_view->setDot(dot.dot);
}

} // namespace portolan::views
