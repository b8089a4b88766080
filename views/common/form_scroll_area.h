#pragma once

#include <QScrollArea>

namespace portolan::views {

// A scroll area for a form (the Profile's compile form): never narrower than the form with its
// scroll bar, as the form is now (a narrower pane cut the fields at the right edge, or they
// scrolled sideways; the selectors and the dry-run button come and go), and asking for room for
// the bar: QScrollArea's hint leaves it out, so the form wrapped its widest rows (the target,
// CS mode) under their labels even at 1,400 pixels.
class FormScrollArea : public QScrollArea
{
public:
    using QScrollArea::QScrollArea;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    bool eventFilter(QObject* o, QEvent* e) override;
};

} // namespace portolan::views
