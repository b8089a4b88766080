#include "views/common/tab_rows.h"

#include <QButtonGroup>
#include <QGridLayout>
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
        m_grid->addWidget(button, i / m_perRow, i % m_perRow);
    }
    setVisible(m_tabs->count() > 0);
}

} // namespace portolan::views
