#pragma once

#include <QByteArray>
#include <QString>

namespace portolan::views {

struct SvgRender
{
    QByteArray svg;
    QString error; // empty on success; Graphviz's own message otherwise
};

// Lays out DOT text with Graphviz's library (gvc) and renders it to SVG. Safe to call from any
// thread: Graphviz keeps global state, so calls are serialised. DOT comes from core.
SvgRender renderDotToSvg(const QByteArray& dot, const char* layoutEngine = "dot");

} // namespace portolan::views
