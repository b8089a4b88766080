#pragma once

// The op graph of a project's own model: the runtime rebuilds it in LibTorch from the project's
// params file (configs/params.yaml, params.yaml or Determined's const.yaml), and the recorder
// runs a real forward pass on it. Plain header, for the CLI and the views.

#include "core/graph/op_graph.h"

#include <filesystem>

namespace portolan::graph {

// The params file Portolan builds the model from, or an error naming where it looked.
Result<std::filesystem::path> findParamsFile(const std::filesystem::path& project);

// Records the project's model with a batch of `batch` samples.
Result<OpGraph> recordProjectModel(const std::filesystem::path& projectOrParams, int batch = 2);

} // namespace portolan::graph
