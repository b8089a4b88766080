#include "views/common/tab_rows.h"

#include <QButtonGroup>
#include <QGridLayout>
#include <QResizeEvent>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>

namespace portolan::views {

TabRows::TabRows(QTabWidget* tabs, int perRow, QWidget* parent)
    : QWidget(parent), m_tabs(tabs), m_perRow(std::max(1, perRow))
{
    m_grid = new QGridLayout(this);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(2);
    // The rows' own minimum (the widest row as laid out now) must not hold the widget wide:
    // its minimum is one button a row (minimumSizeHint), and a narrower width reflows them.
    m_grid->setSizeConstraint(QLayout::SetNoConstraint);
    m_group = new QButtonGroup(this);
    m_group->setExclusive(true);
    m_tabs->tabBar()->hide();
    connect(m_group, &QButtonGroup::idClicked, m_tabs, &QTabWidget::setCurrentIndex);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        if (QAbstractButton* b = m_group->button(index))
            b->setChecked(true);
    });
    rebuild();
}

void TabRows::rebuild()
{
    for (QAbstractButton* b : m_group->buttons()) {
        m_group->removeButton(b);
        delete b;
    }
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto* button = new QToolButton(this);
        button->setText(m_tabs->tabText(i));
        button->setToolTip(m_tabs->tabToolTip(i));
        // The page's id names its button, so a test or a screenshot can press it.
        if (const QWidget* page = m_tabs->widget(i); !page->objectName().isEmpty())
            button->setObjectName(page->objectName() + QStringLiteral("Tab"));
        button->setCheckable(true);
        button->setAutoRaise(true);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        button->setChecked(i == m_tabs->currentIndex());
        m_group->addButton(button, i);
    }
    m_columns = 0;
    place(width() > 0 && isVisible() ? columnsFor(width()) : m_perRow);
    setVisible(m_tabs->count() > 0);
    updateGeometry();
}

int TabRows::widthFor(int columns) const
{
    // Each column as wide as its widest button, as the grid lays them out.
    const int n = int(m_group->buttons().size());
    int total = m_grid->horizontalSpacing() * (columns - 1);
    for (int c = 0; c < columns; ++c) {
        int widest = 0;
        for (int i = c; i < n; i += columns)
            widest = std::max(widest, m_group->button(i)->sizeHint().width());
        total += widest;
    }
    return total;
}

int TabRows::columnsFor(int width) const
{
    const int n = int(m_group->buttons().size());
    for (int columns = std::min(m_perRow, n); columns > 1; --columns)
        if (widthFor(columns) <= width)
            return columns;
    return 1;
}

void TabRows::place(int columns)
{
    columns = std::max(1, columns);
    if (columns == m_columns)
        return;
    m_columns = columns;
    for (QAbstractButton* b : m_group->buttons())
        m_grid->removeWidget(b);
    for (int i = 0; i < int(m_group->buttons().size()); ++i)
        m_grid->addWidget(m_group->button(i), i / columns, i % columns);
    updateGeometry();
}

int TabRows::heightFor(int columns) const
{
    const int n = int(m_group->buttons().size());
    if (n == 0)
        return 0;
    const int rows = (n + columns - 1) / columns;
    return rows * m_group->button(0)->sizeHint().height() + (rows - 1) * m_grid->verticalSpacing();
}

// As wide as `perRow` buttons would like, as narrow as the widest button; as high as the rows
// the current width makes.
QSize TabRows::sizeHint() const
{
    const int n = int(m_group->buttons().size());
    return {widthFor(std::max(1, std::min(m_perRow, n))), heightFor(std::max(1, m_columns))};
}

QSize TabRows::minimumSizeHint() const
{
    return {widthFor(1), heightFor(std::max(1, m_columns))};
}

void TabRows::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    place(columnsFor(width()));
}

} // namespace portolan::views
