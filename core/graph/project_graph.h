#pragma once

// The op graph of a project's own model: the runtime rebuilds it in LibTorch from the project's
// params file (the one rule of core/project/params_file.h), and the recorder
// runs a real forward pass on it. Plain header, for the CLI and the views.

#include "core/graph/op_graph.h"

#include <filesystem>
#include <string>

namespace portolan::graph {

// The params file Portolan builds the model from, or an error naming where it looked.
Result<std::filesystem::path> findParamsFile(const std::filesystem::path& project);

// How the project trains, as its params file says; a compile of its model starts from this.
struct ProjectTraining
{
    std::string optimizer = "sgd"; // as sim::optimizerFromName reads it
    int batchSize = 1;             // train_input batch size (global_batch_size for Determined)
    int gradAccum = 1;
};
Result<ProjectTraining> projectTraining(const std::filesystem::path& projectOrParams);

// Records the project's model with a batch of `batch` samples.
Result<OpGraph> recordProjectModel(const std::filesystem::path& projectOrParams, int batch = 2);

} // namespace portolan::graph
