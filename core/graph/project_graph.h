#pragma once

// The op graph of a project's own model: the runtime rebuilds it in LibTorch from the project's
// params file (the one rule of core/project/params_file.h), and the recorder runs a real forward
// pass on it. Plain header, but its library links the runtime and LibTorch: only the Torch child
// (portolan-torch record) calls it; others choose the source in core/workflow/graph_source.h.

#include "core/graph/op_graph.h"

#include <filesystem>

namespace portolan::graph {

// Records the project's model with a batch of `batch` samples.
Result<OpGraph> recordProjectModel(const std::filesystem::path& projectOrParams, int batch = 2);

} // namespace portolan::graph
