#pragma once

// Records an OpGraph from a TorchScript file (.pt) and the shape of its input
// (docs/ARCHITECTURE.md, Simulated compilation): the module runs once on a zero tensor of that
// shape and every op's output shape is what it produced (script_import.h), so a wrong input shape
// is reported as the model itself reports it. Plain header; the library that implements it links
// LibTorch (the Torch child uses it).

#include "core/graph/op_graph.h"

#include <filesystem>

namespace portolan::graph {

// `inputShape` includes the batch dimension ("1,3,32,32").
Result<OpGraph> recordTorchScript(const std::filesystem::path& file, const Shape& inputShape,
                                  DType inputDtype = DType::Float32);

} // namespace portolan::graph
