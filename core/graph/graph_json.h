#pragma once

// The op graph as JSON: one serialisation for the compile report's "graph" member and for the
// document the Torch child (portolan-torch) writes on stdout, so that a graph recorded in that
// process reaches the GUI and the Torch-free CLI unchanged. The document's shape is described in
// resources/report/README.md ("The op graph document"); it is versioned on its own.

#include "core/graph/op_graph.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::graph {

inline constexpr std::string_view kGraphDocumentFormat = "portolan-op-graph";
// Bumped when a field changes meaning or is removed; optional fields may be added freely.
inline constexpr int kGraphDocumentVersion = 1;

// The graph object. With `opStage`, every op also carries its "stage" (the report's use).
nlohmann::json graphToJson(const OpGraph& g, const std::vector<int>& opStage = {});
// Throws nlohmann::json::exception on a missing or mistyped member (callers report it with
// their own file name). `opStage` receives the ops' "stage" members when given.
OpGraph graphFromJson(const nlohmann::json& j, std::vector<int>* opStage = nullptr);

SourceLocation locationFromJson(const nlohmann::json& j);
Diagnostic diagnosticFromJson(const nlohmann::json& j);

// The document: {"format": "portolan-op-graph", "version": 1, "graph": {...},
// "diagnostics": [...]} on success, {"format", "version", "error": {diagnostic}} on failure.
std::string graphDocument(const OpGraph& g);
std::string errorDocument(const Diagnostic& error);
// Reads a document; `source` names where it came from in messages (the child's path).
Result<OpGraph> parseGraphDocument(std::string_view text, const std::string& source);

} // namespace portolan::graph
