#pragma once

// Turns a TorchScript module (a .pt file given to compile, or a capture's model.pt) into an
// OpGraph with every op's real output shape. The forward graph is inlined, its parameters and
// buffers are resolved from the module's attributes (shared parameters count once, buffers never
// count), and the graph runs once on example inputs with real tensors: each op's output is
// recorded and becomes its type. Symbolic shape propagation alone leaves traced convolutions
// (aten::_convolution) without shapes, which made a ResNet-50 look like 4.7 kFLOP; running the
// graph cannot miss a shape. The module is the user's trusted model, and this runs in the Torch
// child. LibTorch header: core only.

#include "core/graph/capture.h"

#include <filesystem>
#include <torch/script.h>

namespace portolan::graph {

struct ScriptImportOptions
{
    std::string name;
    std::string origin;
    std::string file;                       // for diagnostics
    std::vector<torch::jit::IValue> inputs; // example inputs, batch first
    // The module tree (pre-order, own parameters) that cuts the graph into layers; empty: taken
    // from the module itself.
    std::vector<CaptureModule> modules;
    // The batch of the inputs and the dimension of the first tensor input that holds it; unset:
    // the first tensor input's dimension 0.
    std::optional<std::int64_t> batch;
    int batchDim = 0;
};

// Loads a TorchScript archive; a missing or corrupt file is a positioned error.
Result<torch::jit::Module> loadTorchScript(const std::filesystem::path& file);
c10::ScalarType scalarTypeOf(DType t);

// The module tree of a TorchScript module, as a capture lists it (path, type, own parameters).
std::vector<CaptureModule> scriptModules(const torch::jit::Module& module);

// `layerUnits` receives the layer unit of each layer of the result (for the declared split).
Result<OpGraph> importScriptModule(torch::jit::Module& module, const ScriptImportOptions& options,
                                   std::vector<std::string>* layerUnits = nullptr);

} // namespace portolan::graph
