#pragma once

#include <QString>

class QWidget;

namespace portolan::views {

// Project code runs only once the user trusts the project: asked once, remembered per project in
// the trust store shared with portolan-cli. Returns true when the project is (now) trusted. With
// nobody to ask (`interactive` false: screenshots, tests) an untrusted project stays untrusted and
// `why` says so; `why` also gets the store's error when the answer cannot be saved.
bool ensureProjectTrusted(QWidget* parent, const QString& project, bool interactive,
                          QString* why = nullptr);

} // namespace portolan::views
