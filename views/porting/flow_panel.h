#pragma once

#include "views/porting/porting_snapshot.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QToolButton;

namespace portolan::views {

class AnalysisRunner;
class GraphView;

// The information-flow diagram of the project (config -> keys -> functions -> framework entry ->
// model, data, optimizer) and each guide's suggested-order diagram, rendered with Graphviz.
// Clicking a flow node asks to show its code; clicking a step of the order diagram selects it.
class FlowPanel : public QWidget
{
    Q_OBJECT
public:
    explicit FlowPanel(AnalysisRunner* runner, QWidget* parent = nullptr);

    GraphView* graphView() const { return m_view; }
    // 0 = information flow, 1 = suggested order of the current guide.
    void showDiagram(int which);
    // A flow of more nodes than this is not laid out until the user asks: Graphviz takes
    // minutes over thousands of nodes, and cannot be stopped once started.
    static constexpr std::size_t kLayoutLimit = 1500;
    bool isWaitingForLayout() const;

signals:
    void locationActivated(const QString& relativePath, int line, int column);
    void stepActivated(int stepIndex);

private:
    void refresh();
    QString cutHint() const;
    void exportSvg();

    PortingSnapshotPtr m_snapshot;
    GraphView* m_view;
    QComboBox* m_which;
    QLabel* m_status;
    QToolButton* m_layOut;
    bool m_layOutLarge = false; // the user asked for this snapshot's large flow
};

} // namespace portolan::views
