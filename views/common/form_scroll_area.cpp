#include "views/common/form_scroll_area.h"

#include <QEvent>
#include <QScrollBar>

namespace portolan::views {

QSize FormScrollArea::sizeHint() const
{
    QSize s = QScrollArea::sizeHint();
    s.rwidth() += verticalScrollBar()->sizeHint().width();
    return s;
}

QSize FormScrollArea::minimumSizeHint() const
{
    QSize s = QScrollArea::minimumSizeHint();
    if (widget())
        s.setWidth(widget()->minimumSizeHint().width() + verticalScrollBar()->sizeHint().width() +
                   2 * frameWidth());
    return s;
}

bool FormScrollArea::eventFilter(QObject* o, QEvent* e)
{
    if (o == widget() && e->type() == QEvent::LayoutRequest)
        updateGeometry(); // the form's minimum may have changed
    return QScrollArea::eventFilter(o, e);
}

} // namespace portolan::views
