#include "layout_check.h"

#include <QAbstractScrollArea>
#include <QScrollArea>
#include <QTabBar>
#include <QWidget>
#include <algorithm>
#include <vector>

namespace portolan::tests {

namespace {

QString describe(const QWidget* w)
{
    QStringList chain;
    for (const QWidget* p = w; p; p = p->parentWidget()) {
        QString name = QString::fromLatin1(p->metaObject()->className());
        if (!p->objectName().isEmpty() && !p->objectName().startsWith(QLatin1String("qt_")))
            name += QLatin1Char('#') + p->objectName();
        chain.prepend(name);
        if (p->isWindow())
            break;
    }
    return chain.join(QLatin1String(" > "));
}

// A widget scrolled inside a scroll area's viewport may lie outside it: that is what
// scrolling is for. Only its sideways scrolling of a form is a problem (checked apart).
bool isScrolledContent(const QWidget* w)
{
    const QWidget* parent = w->parentWidget();
    if (!parent)
        return false;
    const auto* area = qobject_cast<const QAbstractScrollArea*>(parent->parentWidget());
    return area && area->viewport() == parent;
}

void check(const QWidget* w, const QWidget* root, QStringList& out)
{
    for (const QObject* o : w->children()) {
        const auto* child = qobject_cast<const QWidget*>(o);
        if (!child || child->isWindow() || !child->isVisibleTo(root))
            continue;
        if (!isScrolledContent(child)) {
            // One pixel of slack: styles draw frames that overhang by a pixel.
            const QRect inside = w->rect().adjusted(-1, -1, 1, 1);
            if (!inside.contains(child->geometry()))
                out << QStringLiteral("%1 at (%2,%3 %4x%5) is outside its parent (%6x%7)")
                           .arg(describe(child))
                           .arg(child->x())
                           .arg(child->y())
                           .arg(child->width())
                           .arg(child->height())
                           .arg(w->width())
                           .arg(w->height());
        }
        // A form in a scroll area that resizes it, but scrolls sideways: its controls are cut
        // at the right edge. Item views and text views scroll by design and are not checked.
        if (const auto* area = qobject_cast<const QScrollArea*>(child);
            area && area->widgetResizable() && area->widget() &&
            area->widget()->width() > area->viewport()->width() + 1)
            out << QStringLiteral("%1 scrolls sideways (content %2 px in %3 px)")
                       .arg(describe(child))
                       .arg(area->widget()->width())
                       .arg(area->viewport()->width());
        // Tabs that do not fit are behind scroll arrows: pages a user does not see.
        if (const auto* bar = qobject_cast<const QTabBar*>(child);
            bar && bar->count() > 0 &&
            (bar->tabRect(0).left() < 0 || bar->tabRect(bar->count() - 1).right() > bar->width()))
            out << QStringLiteral("%1 hides tabs behind scroll arrows (needs %2 px, has %3)")
                       .arg(describe(child))
                       .arg(bar->tabRect(bar->count() - 1).right())
                       .arg(bar->width());
        check(child, root, out);
    }
}

} // namespace

QStringList layoutProblems(const QWidget* root)
{
    QStringList out;
    check(root, root, out);
    return out;
}

QStringList widestWidgets(const QWidget* root, int count)
{
    const auto depth = [root](const QWidget* w) {
        int d = 0;
        for (; w && w != root; w = w->parentWidget())
            ++d;
        return d;
    };
    std::vector<std::pair<int, const QWidget*>> all;
    for (const QWidget* w : root->findChildren<QWidget*>())
        all.emplace_back(w->minimumSizeHint().width(), w);
    // Widest first; among equals, the deepest: the widget that asks, not its containers.
    std::sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : depth(a.second) > depth(b.second);
    });
    QStringList out;
    for (int i = 0; i < count && i < int(all.size()); ++i) {
        const QWidget* w = all[std::size_t(i)].second;
        // The widget and its two nearest parents: a failure message has room for many of them.
        QString path;
        int shown = 0;
        for (const QWidget* p = w; p && p != root && shown < 3; p = p->parentWidget(), ++shown)
            path.prepend(
                QLatin1Char('/') + QString::fromLatin1(p->metaObject()->className()) +
                (p->objectName().isEmpty() ? QString() : QLatin1Char('#') + p->objectName()));
        out << QStringLiteral("%1 px: %2").arg(all[std::size_t(i)].first).arg(path);
    }
    return out;
}

} // namespace portolan::tests
