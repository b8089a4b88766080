#pragma once

// Records an OpGraph from a TorchScript file (.pt) and the shape of its input (DESIGN.md section
// 7): the module is frozen, calls are inlined, the input type is set from an example tensor and
// shapes are propagated symbolically. The module also runs once on a zero tensor of that shape
// so that a wrong input shape is reported as the model itself would report it. Plain header.

#include "core/graph/op_graph.h"

#include <filesystem>

namespace portolan::graph {

// `inputShape` includes the batch dimension ("1,3,32,32").
Result<OpGraph> recordTorchScript(const std::filesystem::path& file, const Shape& inputShape,
                                  DType inputDtype = DType::Float32);

// Parses "1,3,32,32" (also "1x3x32x32"); an error names the bad element.
Result<Shape> parseShape(const std::string& text);

} // namespace portolan::graph
