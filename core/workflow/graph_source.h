#pragma once

// Where the op graph of a project comes from: the one place that decides it, for the CLI's
// compile and the GUI's Profile tab (docs/ARCHITECTURE.md, Data flow). In order:
//   1. the runtime model: a params file whose model Portolan's LibTorch runtime rebuilds
//      (core/runtime/model_names.h), recorded by a forward pass in the Torch child;
//   2. a Model Zoo family built from the params file's `model:` keys, without LibTorch
//      (core/families), in the calling process;
//   3. the project's capture from a dry run (core/graph/capture.h), imported in the Torch child;
//   4. none: a message saying what to do.
// Torch-free: choosing reads YAML and JSON only; the recording itself runs in portolan-torch
// (core/graph/torch_child.h) with the arguments graph::torchChildArguments gives. The result is
// plain data (core/graph/model_source.h), which the libraries below read.

#include "core/families/families.h"
#include "core/graph/model_source.h"
#include "core/graph/op_graph.h"

#include <filesystem>
#include <optional>
#include <string>

namespace portolan::workflow {

// How a project's params file says it trains (its optimizer, batch and accumulation). `project`
// is a project folder or a params file (core/runtime/run_config.h, modelParamsFile).
Result<graph::ProjectTraining> projectTraining(const std::filesystem::path& projectOrParams);

// `input` is a project folder, a params file, a capture folder or a capture.json.
graph::GraphSource chooseGraphSource(const std::filesystem::path& input,
                                     const std::string& namedConfig = {});
// The same, and for a ModelFamily source the model built on the way (empty otherwise), so that
// a compile does not build it a second time.
graph::GraphSource chooseGraphSource(const std::filesystem::path& input,
                                     const std::string& namedConfig,
                                     std::optional<families::ModelFromParams>& built);

// `d` as a GUI words it: compile.no-model without the portolan-cli command that ends the CLI's
// message (the GUI offers the dry run as a button); any other diagnostic as it is.
Diagnostic guiWording(const Diagnostic& d);

// The op graph of a ModelFamily source, built here (no Torch child).
Result<graph::OpGraph> buildModelFamily(const graph::GraphSource& source);

} // namespace portolan::workflow
