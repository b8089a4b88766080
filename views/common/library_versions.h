#pragma once

#include <QList>
#include <QPair>
#include <QString>

namespace portolan::views {

// Every library Portolan runs with and its version: Qt, QCustomPlot and Graphviz from here, the
// rest (LibTorch, yaml-cpp, tree-sitter) from core.
QList<QPair<QString, QString>> libraryVersions();

} // namespace portolan::views
