#pragma once

#include "core/common/diagnostic.h"

#include <string>
#include <vector>

namespace portolan::analysis {

struct ProjectAnalysis;

enum class FlowNodeKind : std::uint8_t
{
    ConfigFile,
    Section,
    Key,
    Function,
    FrameworkEntry, // run(...), the Trial class, poptorch.trainingModel, CerebrasEstimator
    Model,
    Data,
    Optimizer,
};
std::string_view flowNodeKindName(FlowNodeKind k);

struct FlowNode
{
    std::string id; // stable, DOT-safe: "n12"
    FlowNodeKind kind = FlowNodeKind::Function;
    std::string label;
    SourceLocation location; // every node has file:line (config keys: the YAML line)
};

struct FlowEdge
{
    std::string from;
    std::string to;
    std::string label;
};

// How configuration values travel through the project's own functions: config file -> sections
// -> keys -> the functions that read them -> the framework entry -> model, data, optimizer.
struct FlowGraph
{
    std::vector<FlowNode> nodes;
    std::vector<FlowEdge> edges;

    const FlowNode* find(std::string_view id) const;
};

FlowGraph buildFlowGraph(const ProjectAnalysis& analysis);

// DOT text. Each node carries `URL="file:line"` and a tooltip, so that a view can jump to the code
// when the node is clicked.
std::string toDot(const FlowGraph& graph, const std::string& title);

// Lays DOT out with Graphviz's C library and returns SVG. Fails with a message when Graphviz
// rejects the text.
Result<std::string> renderSvg(const std::string& dot);

} // namespace portolan::analysis
