#pragma once

#include <QWidget>

class QButtonGroup;
class QGridLayout;
class QTabWidget;

namespace portolan::views {

// A tab widget's pages as rows of buttons, in place of its tab bar: every page stays in sight
// at any width, where a tab bar hides the last ones behind scroll arrows (the Profile's
// "Op gr…" and Compare, a Model Zoo config's tenth section). Put it above the tab widget;
// the tab widget keeps its pages and its current index. Up to `perRow` buttons a row, fewer
// when the width does not hold them (a Graphcore config's ten named configurations set the
// Params form's width, leaving the YAML beside it a 190-pixel strip at 1024 pixels).
class TabRows : public QWidget
{
    Q_OBJECT
public:
    TabRows(QTabWidget* tabs, int perRow, QWidget* parent = nullptr);

    // Builds the buttons again from the tabs' titles: call after adding or removing pages.
    void rebuild();
    // How many buttons a row at `width` pixels.
    int columnsFor(int width) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void place(int columns);
    int heightFor(int columns) const;
    int widthFor(int columns) const;

    QTabWidget* m_tabs = nullptr;
    int m_perRow = 4;
    int m_columns = 0; // as placed now
    QGridLayout* m_grid = nullptr;
    QButtonGroup* m_group = nullptr;
};

} // namespace portolan::views
