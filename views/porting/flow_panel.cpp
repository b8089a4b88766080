#include "views/porting/flow_panel.h"

#include "core/common/atomic_file.h"
#include "core/guides/findings_report.h"
#include "views/graph/graph_view.h"
#include "views/porting/analysis_runner.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace portolan::views {

FlowPanel::FlowPanel(AnalysisRunner* runner, QWidget* parent) : QWidget(parent)
{
    m_view = new GraphView(this);
    m_which = new QComboBox(this);
    m_which->addItems({tr("Information flow"), tr("Suggested order of the guide")});
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("flowStatus"));
    m_status->setWordWrap(true); // an empty diagram explains itself in a sentence
    auto tool = [this](const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        return b;
    };
    QToolButton* zoomIn = tool(QStringLiteral("+"), tr("Zoom in"));
    QToolButton* zoomOut = tool(QStringLiteral("−"), tr("Zoom out"));
    QToolButton* fit = tool(tr("Fit"), tr("Fit the whole diagram"));
    QToolButton* save = tool(tr("Export SVG…"), tr("Save the diagram as SVG"));

    m_layOut = tool(tr("Lay Out Anyway"), tr("Lay the whole flow out with Graphviz: minutes for "
                                             "thousands of nodes"));
    m_layOut->setObjectName(QStringLiteral("layOutAnyway"));
    m_layOut->hide();
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_which);
    bar->addWidget(m_status, 1);
    bar->addWidget(m_layOut);
    for (auto* b : {zoomIn, zoomOut, fit, save})
        bar->addWidget(b);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);

    connect(zoomIn, &QToolButton::clicked, this, [this] { m_view->zoomBy(1.25); });
    connect(zoomOut, &QToolButton::clicked, this, [this] { m_view->zoomBy(0.8); });
    connect(fit, &QToolButton::clicked, m_view, &GraphView::zoomToFit);
    connect(save, &QToolButton::clicked, this, &FlowPanel::exportSvg);
    connect(m_which, &QComboBox::currentIndexChanged, this, &FlowPanel::refresh);
    connect(runner, &AnalysisRunner::finished, this, [this](const PortingSnapshotPtr& s) {
        m_snapshot = s;
        m_layOutLarge = false;
        refresh();
    });
    connect(m_layOut, &QToolButton::clicked, this, [this] {
        m_layOutLarge = true;
        refresh();
    });
    connect(m_view, &GraphView::failed, this,
            [this](const QString& e) { m_status->setText(tr("Graphviz: %1").arg(e)); });
    connect(m_view, &GraphView::rendered, this, [this] {
        if (isWaitingForLayout())
            return; // the status says why nothing is drawn
        if (m_which->currentIndex() == 0 && m_snapshot && m_snapshot->flow.nodes.empty())
            // "0 nodes, 0 edges" gave no reason: say what fills the diagram.
            m_status->setText(
                tr("Nothing to draw: no key of a params file was found read by the project's "
                   "code. The flow fills when the code reads the keys of the params file chosen "
                   "in the Porting tab. Pick \"Suggested order of the guide\" to see the guide's "
                   "steps."));
        else if (m_which->currentIndex() == 0 && m_snapshot && m_snapshot->flow.edges.empty())
            // "2 nodes, 0 edges" gave no reason either: the sources are there, their reads not.
            m_status->setText(
                tr("%n source(s) of settings, and no edge: none of their keys or flags is seen "
                   "read by the project's functions. An edge is drawn from a key or flag to the "
                   "function that reads it (args.lr, params[\"model\"]) · click a node to see "
                   "its code",
                   nullptr, int(m_snapshot->flow.nodes.size())) +
                cutHint());
        else if (m_which->currentIndex() == 0 && m_snapshot)
            m_status->setText(tr("%1 nodes, %2 edges · click a node to see its code")
                                  .arg(m_snapshot->flow.nodes.size())
                                  .arg(m_snapshot->flow.edges.size()) +
                              cutHint());
        else
            m_status->setText(tr("Click a step to open it in the wizard") + cutHint());
    });
    connect(m_view, &GraphView::nodeActivated, this, [this](const QString& name) {
        if (!m_snapshot)
            return;
        if (m_which->currentIndex() == 1) {
            if (name.startsWith(QLatin1Char('s')))
                emit stepActivated(QStringView(name).mid(1).toInt());
            return;
        }
        if (const auto* node = m_snapshot->flow.find(name.toStdString());
            node && node->location.line > 0)
            emit locationActivated(QString::fromStdString(node->location.file), node->location.line,
                                   node->location.column);
    });
}

// A graph opened at a readable size but bigger than the view says so: the rest is a drag or a
// scroll away, or the Fit button shows it whole (issue 26: a wide flow looked cut off).
QString FlowPanel::cutHint() const
{
    return m_view->isCut() ? tr(" · larger than the view: drag or scroll to see the rest, Fit "
                                "shows it whole")
                           : QString();
}

void FlowPanel::showDiagram(int which)
{
    m_which->setCurrentIndex(which);
}

bool FlowPanel::isWaitingForLayout() const
{
    return m_snapshot && m_which->currentIndex() == 0 && !m_layOutLarge &&
           m_snapshot->flow.nodes.size() > kLayoutLimit;
}

void FlowPanel::refresh()
{
    m_layOut->hide();
    if (!m_snapshot)
        return;
    if (isWaitingForLayout()) {
        m_view->setDot(QByteArray("digraph flow {}"));
        m_layOut->show();
        m_status->setText(tr("%1 nodes and %2 edges: too many to lay out at once (Graphviz "
                             "takes minutes). The Porting tab lists the same findings.")
                              .arg(m_snapshot->flow.nodes.size())
                              .arg(m_snapshot->flow.edges.size()));
        return;
    }
    if (m_which->currentIndex() == 0) {
        m_view->setDot(QByteArray::fromStdString(m_snapshot->flowDot));
        return;
    }
    if (const guides::Guide* g = m_snapshot->guide())
        m_view->setDot(QByteArray::fromStdString(guides::guideOrderDot(*g, &m_snapshot->result)));
}

void FlowPanel::exportSvg()
{
    if (!m_view->isLaidOut())
        return;
    const QString file = QFileDialog::getSaveFileName(
        this, tr("Export Diagram"), QStringLiteral("flow.svg"), tr("SVG images (*.svg)"));
    if (file.isEmpty())
        return;
    const QByteArray svg = m_view->svg();
    if (auto err = writeFileAtomically(file.toStdString(),
                                       std::string_view(svg.constData(), std::size_t(svg.size()))))
        m_status->setText(QString::fromStdString(err->toString()));
}

} // namespace portolan::views
