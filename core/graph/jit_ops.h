#pragma once

// Turns a TorchScript IR graph (scripted and frozen, or traced from a LibTorch module) with
// concrete tensor types into ops of an OpGraph. Shared by the TorchScript route and by the
// LibTorch recorder for composite modules whose forward is not a plain chain of children.

#include "core/graph/op_graph.h"

#include <functional>
#include <torch/csrc/jit/ir/ir.h>
#include <unordered_map>

namespace portolan::graph {

struct JitImportContext
{
    std::string pathPrefix; // module path of the traced module ("" for a whole script)
    int layer = 0;
    // Producer of each graph input in OpGraph::ops (-1: the model input). Inputs not listed
    // here with a tensor in `paramInputs` are parameters.
    std::unordered_map<const torch::jit::Value*, int> inputProducers;
    std::unordered_map<const torch::jit::Value*, at::Tensor> paramInputs;
    // Tensors that reach ops like parameters but are not trained (buffers: BatchNorm's running
    // statistics, position ids; constants): their shapes are read, they are never counted.
    std::unordered_map<const torch::jit::Value*, at::Tensor> bufferInputs;
    std::int64_t batch = 1;
    std::string file;          // for diagnostics when the source range has no file name
    bool moduleLayers = false; // TorchScript: layer = index of the top-level submodule
    // With moduleLayers: the layer unit of an op's module path (captures and TorchScript files
    // cut deeper than the top-level submodules; capture.h). Unset: the top-level submodule.
    std::function<std::string(const std::string&)> layerUnit;
};

// Appends ops; unsupported constructs (data-dependent control flow, ops whose shapes could not
// be inferred) become diagnostics in `out.diagnostics` with the node's source position.
void appendJitGraph(const torch::jit::Graph& graph, JitImportContext& ctx, OpGraph& out);

} // namespace portolan::graph
