#pragma once

// DOT text of a report's op graph for Graphviz, coloured by stage (IPU) or by placement (CS
// kernel). Modules can be collapsed: ops whose module path shares its first `moduleDepth`
// components become one node (depth 0: every op is a node).

#include "core/sim/profile.h"

#include <QByteArray>
#include <QPalette>
#include <vector>

namespace portolan::views {

struct OpGraphDotOptions
{
    int moduleDepth = 0;
    bool byPlacement = false; // colour by CS kernel/IPU rather than by pipeline stage
    int maxNodes = 600;       // deeper collapsing is chosen automatically above this
};

struct OpGraphDot
{
    QByteArray dot;
    int nodes = 0;
    int depthUsed = 0;
    std::vector<int> groupOfOp; // node index of each op
};

OpGraphDot opGraphDot(const sim::CompileResult& r, const OpGraphDotOptions& o, const QPalette& p);

} // namespace portolan::views
