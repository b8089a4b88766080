#include "views/common/reading_columns.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QMenu>
#include <QSignalBlocker>
#include <QStringList>
#include <QTableView>
#include <algorithm>

namespace portolan::views {

ReadingColumns::ReadingColumns(QTableView* table, int readingColumn)
    : QObject(table), m_table(table), m_reading(readingColumn)
{
    QHeaderView* header = table->horizontalHeader();
    // The reading column is not the last: its width is set here, never stretched by the header.
    header->setStretchLastSection(false);
    header->setSectionResizeMode(readingColumn, QHeaderView::Fixed);
    table->viewport()->installEventFilter(this);
    if (QAbstractItemModel* model = table->model()) {
        // After the view has seen the change (its size hints read the new rows).
        connect(model, &QAbstractItemModel::modelReset, this, &ReadingColumns::apply,
                Qt::QueuedConnection);
        connect(model, &QAbstractItemModel::layoutChanged, this, &ReadingColumns::apply,
                Qt::QueuedConnection);
        connect(model, &QAbstractItemModel::rowsInserted, this, &ReadingColumns::apply,
                Qt::QueuedConnection);
    }
}

void ReadingColumns::addYielding(int column, int minChars, Qt::TextElideMode elide)
{
    m_yielding.push_back({column, minChars, true});
    m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Fixed);
    m_table->setItemDelegateForColumn(column, new ElideDelegate(elide, this));
    apply();
}

void ReadingColumns::addEliding(int column, int minChars, Qt::TextElideMode elide)
{
    addYielding(column, minChars, elide);
    m_yielding.back().mayHide = false;
    apply();
}

namespace {

bool holds(const std::vector<int>& list, int value)
{
    return std::find(list.begin(), list.end(), value) != list.end();
}

void drop(std::vector<int>& list, int value)
{
    list.erase(std::remove(list.begin(), list.end(), value), list.end());
}

} // namespace

void ReadingColumns::setHideRatherThanCut(bool hide)
{
    m_hide = hide;
    QHeaderView* header = m_table->horizontalHeader();
    header->setContextMenuPolicy(hide ? Qt::CustomContextMenu : Qt::DefaultContextMenu);
    if (hide)
        connect(header, &QWidget::customContextMenuRequested, this, &ReadingColumns::showHeaderMenu,
                Qt::UniqueConnection);
    apply();
}

std::vector<int> ReadingColumns::hiddenForRoom() const
{
    return m_hiddenForRoom;
}

void ReadingColumns::setColumnShown(int column, bool shown)
{
    drop(m_userShown, column);
    drop(m_userHidden, column);
    (shown ? m_userShown : m_userHidden).push_back(column);
    m_table->horizontalHeader()->setSectionHidden(column, !shown);
    apply();
}

void ReadingColumns::showHeaderMenu(const QPoint& at)
{
    QHeaderView* header = m_table->horizontalHeader();
    QMenu menu(header);
    for (int c = 0; c < header->count(); ++c) {
        if (c == m_reading)
            continue;
        QAction* a = menu.addAction(
            m_table->model()->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
        a->setCheckable(true);
        a->setChecked(!header->isSectionHidden(c));
        connect(a, &QAction::toggled, this, [this, c](bool on) { setColumnShown(c, on); });
    }
    menu.exec(header->mapToGlobal(at));
}

int ReadingColumns::contentWidth(int column) const
{
    // QTableView makes the hint protected; QAbstractItemView's is public.
    const QAbstractItemView* view = m_table;
    QHeaderView* header = m_table->horizontalHeader();
    // A hidden section's size hint is 0, so a column once hidden for room (every one of them
    // while the table is hidden, its viewport at Qt's default 100 px) came back a sliver when
    // room came, with a sideways scroll bar. It is measured shown, the header told nothing.
    const bool wasHidden = header->isSectionHidden(column);
    int headerWidth = 0;
    if (wasHidden) {
        const QSignalBlocker quiet(header);
        header->setSectionHidden(column, false);
        headerWidth = header->sectionSizeHint(column);
        header->setSectionHidden(column, true);
    } else {
        headerWidth = header->sectionSizeHint(column);
    }
    return std::max(view->sizeHintForColumn(column), headerWidth);
}

void ReadingColumns::apply()
{
    if (!m_table || m_applying || !m_table->model())
        return;
    m_applying = true;
    QHeaderView* header = m_table->horizontalHeader();
    int available = m_table->viewport()->width();
    for (int c = 0; c < header->count(); ++c) {
        const bool managed =
            c == m_reading || std::any_of(m_yielding.begin(), m_yielding.end(),
                                          [c](const Yielding& y) { return y.column == c; });
        if (!managed && !header->isSectionHidden(c))
            available -= header->sectionSize(c);
    }
    std::vector<int> widths;
    std::vector<bool> hidden;
    int total = contentWidth(m_reading);
    for (const Yielding& y : m_yielding) {
        widths.push_back(contentWidth(y.column));
        hidden.push_back(holds(m_userHidden, y.column));
        total += hidden.back() ? 0 : widths.back();
    }
    // Whole columns go, least important first, rather than every one of them cut.
    m_hiddenForRoom.clear();
    for (std::size_t i = 0; m_hide && i < m_yielding.size() && total > available; ++i) {
        if (hidden[i] || !m_yielding[i].mayHide || holds(m_userShown, m_yielding[i].column))
            continue;
        hidden[i] = true;
        total -= widths[i];
        m_hiddenForRoom.push_back(m_yielding[i].column);
    }
    QStringList names;
    for (std::size_t i = 0; i < m_yielding.size(); ++i) {
        header->setSectionHidden(m_yielding[i].column, hidden[i]);
        if (hidden[i])
            widths[i] = 0;
        if (holds(m_hiddenForRoom, m_yielding[i].column))
            names << m_table->model()
                         ->headerData(m_yielding[i].column, Qt::Horizontal, Qt::DisplayRole)
                         .toString();
    }
    // Said where a user looks for the columns that went.
    if (m_hide)
        header->setToolTip(names.isEmpty() ? QString()
                                           : tr("Hidden for room: %1. Right-click the header to "
                                                "show a column.")
                                                 .arg(names.join(QStringLiteral(", "))));
    // Shrink the yielding columns in order until the reading column's text fits.
    const int charWidth = m_table->fontMetrics().averageCharWidth();
    int excess = total - available;
    for (std::size_t i = 0; i < m_yielding.size() && excess > 0; ++i) {
        if (hidden[i])
            continue;
        // An item's margins and a little room for its ellipsis come on top of the characters.
        const int least = std::min(widths[i], m_yielding[i].minChars * charWidth + 2 * charWidth);
        const int cut = std::min(excess, widths[i] - least);
        widths[i] -= cut;
        excess -= cut;
    }
    int rest = available;
    for (std::size_t i = 0; i < m_yielding.size(); ++i) {
        if (hidden[i])
            continue;
        header->resizeSection(m_yielding[i].column, widths[i]);
        rest -= widths[i];
    }
    // Ten characters at least, or its whole text when that is shorter (a kernel's name).
    header->resizeSection(m_reading,
                          std::max(rest, std::min(10 * charWidth, contentWidth(m_reading))));
    m_applying = false;
}

bool ReadingColumns::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::Resize && m_table && watched == m_table->viewport())
        apply();
    return QObject::eventFilter(watched, event);
}

} // namespace portolan::views
