#pragma once

// Records an OpGraph from a real forward pass of a LibTorch model (docs/ARCHITECTURE.md, Simulated
// compilation). Every child of the Sequential runs on the real tensor; shapes, dtypes and parameter
// bytes are read from what actually happened. Nested Sequentials are descended into; other
// composite modules (a transformer block, an attention module) are traced with the JIT tracer so
// their ATen ops are attributed to the module's path. This header uses LibTorch: core only.

#include "core/graph/op_graph.h"

#include <torch/torch.h>

namespace portolan::graph {

// `example` carries the batch dimension (its first dimension is the recording batch).
Result<OpGraph> recordSequential(torch::nn::Sequential net, const torch::Tensor& example,
                                 const std::string& name, const ProgressCallback& progress = {});

} // namespace portolan::graph
