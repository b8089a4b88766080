// Geometry checks for "fits in a small window": a visible control placed outside its parent,
// a form that scrolls sideways, a tab bar that hides pages behind scroll arrows. Geometry,
// not pixels, so the check does not depend on fonts or the style's colours.
#pragma once

#include <QStringList>

class QWidget;

namespace portolan::tests {

// One line per problem found under `root` (empty when everything fits), each naming the
// widget by its class and object name and its chain of parents.
QStringList layoutProblems(const QWidget* root);

// The widgets below `root` (on every page, shown or not, containers too) that ask for the most
// width (minimumSizeHint), widest first: what to look at when a window grows past the size it was
// given.
QStringList widestWidgets(const QWidget* root, int count = 6);

} // namespace portolan::tests
