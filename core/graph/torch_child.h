#pragma once

// The Torch child: portolan-torch, the only Portolan executable that loads LibTorch
// (docs/ARCHITECTURE.md, Processes). It records models, imports captures and trains; the GUI and
// the Torch-free CLI start it as a child process and read an op graph document (graph_json.h) from
// its standard output. A crash of LibTorch or of the user's model ends only that process.

#include "core/graph/op_graph.h"

#include <filesystem>
#include <string>
#include <vector>

namespace portolan::graph {

inline constexpr const char* kTorchChildName = "portolan-torch";

// Where portolan-torch is, looked up in this order: the PORTOLAN_TORCH environment variable;
// beside the running executable (the installed layout, bin/); the build tree's app/torch/ next
// to app/cli/ and app/gui/; then PATH. Empty when none of them holds it.
std::filesystem::path torchChildPath();
// The places torchChildPath() looked in, for a message when it found nothing.
std::string torchChildSearchText();

// Runs `portolan-torch args...`, waits for it and reads its op graph document. The child's
// standard error goes to ours (its warnings stay visible). A child that fails reports its
// diagnostic; one that crashes or writes no document gives an error naming how it ended.
Result<OpGraph> runTorchChild(const std::vector<std::string>& args);

// Replaces the calling process by `portolan-torch args...` (for `portolan-cli train`, whose
// events, signals and exit code are then the child's own). Returns only on failure, with why.
Diagnostic execTorchChild(const std::vector<std::string>& args);

} // namespace portolan::graph
