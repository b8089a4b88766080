#pragma once

// The op graph through Graphviz, coloured by stage or placement, with modules collapsible (ops
// grouped by a module path prefix of the chosen depth). Laid out only when the page is shown.

#include "views/profile/plot_theme.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;

namespace portolan::views {

class GraphView;

class OpGraphPage : public QWidget
{
    Q_OBJECT
public:
    explicit OpGraphPage(QWidget* parent = nullptr);
    void setResult(ResultPtr result);
    GraphView* graphView() const { return m_view; }
    bool isRendering() const;
    QSpinBox* depth() const { return m_depth; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();

    ResultPtr m_result;
    bool m_dirty = true;
    GraphView* m_view = nullptr;
    QComboBox* m_colour = nullptr;
    QSpinBox* m_depth = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace portolan::views
