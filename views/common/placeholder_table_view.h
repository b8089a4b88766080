#pragma once

#include <QAbstractItemModel>
#include <QPainter>
#include <QTableView>

namespace portolan::views {

// A table that says why it is empty, in its own viewport, rather than a blank grid under its
// header (issue 26: an empty table with no "nothing here" read as "still loading" or "broken").
class PlaceholderTableView : public QTableView
{
public:
    using QTableView::QTableView;

    void setPlaceholderText(const QString& text)
    {
        m_placeholder = text;
        viewport()->update();
    }
    QString placeholderText() const { return m_placeholder; }
    // The text shown now: the placeholder when the model has no rows, else nothing.
    QString shownPlaceholder() const
    {
        return model() && model()->rowCount() == 0 ? m_placeholder : QString();
    }

protected:
    void paintEvent(QPaintEvent* event) override
    {
        QTableView::paintEvent(event);
        const QString text = shownPlaceholder();
        if (text.isEmpty())
            return;
        QPainter painter(viewport());
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(viewport()->rect().adjusted(12, 12, -12, -12),
                         Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, text);
    }

private:
    QString m_placeholder;
};

} // namespace portolan::views
