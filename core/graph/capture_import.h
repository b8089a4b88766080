#pragma once

// Imports a project's capture (capture.h) into an OpGraph: model.pt runs on inputs of the
// recorded shapes and dtypes (script_import.h), the module tree cuts it into layers, and the
// split the project declares (BeginBlock IPU ids) becomes the graph's declaredSplit. Without a
// model.pt, the module tree alone gives the graph (graphFromModules). LibTorch header: the
// library links LibTorch, so this runs in the Torch child (portolan-torch capture DIR).

#include "core/graph/capture.h"

#include <torch/script.h>

namespace portolan::graph {

Result<OpGraph> importCapture(const Capture& capture);
Result<OpGraph> importCapture(const std::filesystem::path& dirOrFile);

// The forward arguments the import runs the model on: inputs of the recorded shapes and dtypes
// (floats random, integer ids zero so that they index any table, masks one), nested into tuples
// as the capture's input_structure says. Shared with the tests that measure a captured model.
Result<std::vector<torch::jit::IValue>> captureExampleInputs(const Capture& capture);

} // namespace portolan::graph
