#pragma once

#include <QWidget>

class QButtonGroup;
class QGridLayout;
class QTabWidget;

namespace portolan::views {

// A tab widget's pages as rows of buttons, in place of its tab bar: every page stays in sight
// at any width, where a tab bar hides the last ones behind scroll arrows (the Profile's
// "Op gr…" and Compare, a Model Zoo config's tenth section). Put it above the tab widget;
// the tab widget keeps its pages and its current index.
class TabRows : public QWidget
{
    Q_OBJECT
public:
    TabRows(QTabWidget* tabs, int perRow, QWidget* parent = nullptr);

    // Builds the buttons again from the tabs' titles: call after adding or removing pages.
    void rebuild();

private:
    QTabWidget* m_tabs = nullptr;
    int m_perRow = 4;
    QGridLayout* m_grid = nullptr;
    QButtonGroup* m_group = nullptr;
};

} // namespace portolan::views
