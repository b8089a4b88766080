#include "views/common/reading_columns.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
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
    m_yielding.push_back({column, minChars});
    m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Fixed);
    m_table->setItemDelegateForColumn(column, new ElideDelegate(elide, this));
    apply();
}

int ReadingColumns::contentWidth(int column) const
{
    // QTableView makes the hint protected; QAbstractItemView's is public.
    const QAbstractItemView* view = m_table;
    return std::max(view->sizeHintForColumn(column),
                    m_table->horizontalHeader()->sectionSizeHint(column));
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
    int total = contentWidth(m_reading);
    for (const Yielding& y : m_yielding) {
        widths.push_back(contentWidth(y.column));
        total += widths.back();
    }
    // Shrink the yielding columns in order until the reading column's text fits.
    const int charWidth = m_table->fontMetrics().averageCharWidth();
    int excess = total - available;
    for (std::size_t i = 0; i < m_yielding.size() && excess > 0; ++i) {
        // An item's margins and a little room for its ellipsis come on top of the characters.
        const int least = std::min(widths[i], m_yielding[i].minChars * charWidth + 2 * charWidth);
        const int cut = std::min(excess, widths[i] - least);
        widths[i] -= cut;
        excess -= cut;
    }
    int rest = available;
    for (std::size_t i = 0; i < m_yielding.size(); ++i) {
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
