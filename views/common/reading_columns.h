#pragma once

#include <QObject>
#include <QPointer>
#include <QStyledItemDelegate>
#include <vector>

class QTableView;

namespace portolan::views {

// Draws a column's text elided on the side that matters less: a path keeps its file name and
// line (Qt::ElideLeft), an identifier its start. A table view has one elide mode for all
// its columns.
class ElideDelegate : public QStyledItemDelegate
{
public:
    ElideDelegate(Qt::TextElideMode mode, QObject* parent)
        : QStyledItemDelegate(parent), m_mode(mode)
    {}

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = m_mode;
    }

private:
    Qt::TextElideMode m_mode;
};

// Shares a table's width so that the text people read (a finding, a message) is the last to
// be elided: the columns that give way (a check's id, a location) shrink first, each down to
// its own minimum, in the order they were added; the reading column gets what is left, and all
// the spare width. The other columns keep their content width. Issue 26: the check id kept its
// full width while the finding was cut at 1024 pixels.
class ReadingColumns : public QObject
{
    Q_OBJECT
public:
    ReadingColumns(QTableView* table, int readingColumn);

    // `column` gives way before the ones added after it, down to `minChars` average characters
    // (its full text is in its tooltip), and is drawn elided by `elide`.
    void addYielding(int column, int minChars, Qt::TextElideMode elide = Qt::ElideRight);
    // As addYielding, but never hidden for room, only elided: a run's status must stay in sight,
    // yet its long form ("completed · synthetic", its icon kept) must not squeeze the reading
    // column to a sliver behind a scroll bar.
    void addEliding(int column, int minChars, Qt::TextElideMode elide = Qt::ElideRight);
    // Yielding columns that would be cut are hidden instead, least important first, until the
    // rest fit whole: fewer columns that can be read rather than many reading "25…" (the CS
    // kernel table at 1,024 pixels). The header's context menu shows or hides any column; a
    // column shown there is never hidden for room (it is elided if it must).
    void setHideRatherThanCut(bool hide);
    // The columns hidden for room now (not those the user hid).
    std::vector<int> hiddenForRoom() const;
    // As the header menu's entry does: shown (and kept) or hidden by the user.
    void setColumnShown(int column, bool shown);
    // Recomputes the widths (done on every resize of the table and change of its rows).
    void apply();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Yielding
    {
        int column;
        int minChars;
        bool mayHide;
    };
    int contentWidth(int column) const;
    void showHeaderMenu(const QPoint& at);

    QPointer<QTableView> m_table;
    int m_reading;
    std::vector<Yielding> m_yielding;
    bool m_applying = false;
    bool m_hide = false;
    std::vector<int> m_hiddenForRoom;
    std::vector<int> m_userShown;  // kept whatever the room
    std::vector<int> m_userHidden; // hidden whatever the room
};

} // namespace portolan::views
