#pragma once

// Imports a project's capture (capture.h) into an OpGraph: model.pt runs on inputs of the
// recorded shapes and dtypes (script_import.h), the module tree cuts it into layers, and the
// split the project declares (BeginBlock IPU ids) becomes the graph's declaredSplit. Without a
// model.pt, the module tree alone gives the graph (graphFromModules). Plain header; the library
// links LibTorch, so this runs in the Torch child (portolan-torch capture DIR).

#include "core/graph/capture.h"

namespace portolan::graph {

Result<OpGraph> importCapture(const Capture& capture);
Result<OpGraph> importCapture(const std::filesystem::path& dirOrFile);

} // namespace portolan::graph
