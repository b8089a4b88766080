#pragma once

// The op graph that simulated compilation works on (docs/ARCHITECTURE.md, Simulated compilation).
// It is recorded from a real forward pass of a LibTorch model, from a TorchScript file or from a
// project's capture; never typed in by hand. The recorders run in the Torch child (portolan-torch),
// which hands the graph over as JSON (graph_json.h). This header and its library are plain C++ (no
// LibTorch) so that the views and the Torch-free CLI can use them.

#include "core/common/diagnostic.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::graph {

using Shape = std::vector<std::int64_t>;

enum class DType : std::uint8_t
{
    Float32,
    Float16,
    BFloat16,
    Float64,
    Int64,
    Int32,
    Int8,
    Bool,
    Other
};

std::string_view dtypeName(DType t);
DType dtypeFromName(std::string_view name);
int dtypeBytes(DType t);

std::int64_t elementCount(const Shape& s);
std::string shapeToString(const Shape& s); // "[8, 3, 32, 32]"
// Parses "1,3,32,32" (also "1x3x32x32"); an error names the bad element.
Result<Shape> parseShape(const std::string& text);

// One operation of the forward pass. Shapes are as recorded (with the recording batch in the
// first dimension); the per-sample figures divide by that batch so that the simulators can scale
// them to any micro-batch.
struct Op
{
    std::string name;       // unique in the graph, e.g. "features.0" or "blocks.3/aten::matmul#2"
    std::string kind;       // module type ("Linear", "Conv2d") or ATen op ("aten::matmul")
    std::string modulePath; // dotted path of the source module, "" for the root
    int layer = 0;          // index of the top-level child this op belongs to (the user's split)
    std::vector<Shape> inputShapes;
    Shape outputShape;
    DType dtype = DType::Float32;
    std::int64_t paramCount = 0;      // parameters owned by this op (counted once)
    std::int64_t paramBytes = 0;      // their bytes as recorded (fp32 usually)
    double forwardFlops = 0;          // per sample, 2 x multiply-accumulates
    double backwardFlops = 0;         // per sample, 2 x forward
    std::int64_t activationBytes = 0; // output bytes per sample
    std::int64_t inputBytes = 0;      // bytes per sample read from earlier ops
    // What autograd keeps for backward, so the memory model can count each stored tensor once:
    // matmuls and convolutions keep their inputs, ReLU and softmax their output, views share
    // their input's storage, dropout and max-pool keep a mask or indices (extraSavedBytes).
    bool savesInputs = false;
    bool savesOutput = false;
    bool aliasesInput = false;
    std::int64_t extraSavedBytes = 0; // per sample
    // Dropout keeps its scaled noise in the activation type (LibTorch on CPU: a float tensor
    // the size of the output), so it follows the precision; indices keep their own type.
    bool extraSavedScales = false;
    // Producers of this op's tensor inputs (indices into OpGraph::ops, -1 = the graph input).
    // Empty means "the previous op" (a plain chain, as in a Sequential).
    std::vector<int> inputOps;
    // The op whose parameters this one uses (a head tied to the embedding): they are stored and
    // counted once, there; this op still makes a gradient for them. -1: its own parameters.
    int tiedTo = -1;
    SourceLocation location; // TorchScript source position when known
};

// A pipeline split that the project itself declares (poptorch.BeginBlock and friends), in the
// graph's layers: stage s runs layers [layerStarts[s], layerStarts[s + 1]) on IPU ipus[s].
struct DeclaredSplit
{
    std::string source;   // "poptorch.BeginBlock", "poptorch.Block"
    std::string strategy; // the PopTorch execution strategy that placed it; "" when not known
    std::vector<int> layerStarts;
    std::vector<int> ipus;
    bool empty() const { return layerStarts.empty(); }
};

struct OpGraph
{
    std::string name;
    std::string origin; // "libtorch", "torchscript" or "synthetic: ..." (how it was recorded)
    Shape inputShape;   // without the batch dimension
    DType inputDtype = DType::Float32;
    std::int64_t recordedBatch = 1;
    std::vector<Op> ops;
    std::vector<std::string> layerNames; // top-level children, in order
    // The repeated layers (transformer blocks) are [firstBlock, firstBlock + blockCount). A split
    // given per block, as Graphcore's layers_per_ipu is, counts only these. 0: not known.
    int firstBlock = 0;
    int blockCount = 0;
    std::vector<Diagnostic> diagnostics; // unsupported constructs, with locations
    DeclaredSplit declaredSplit;         // empty when the project declares none

    std::int64_t totalParams() const;
    std::int64_t totalParamBytes() const;
    double totalForwardFlops() const;          // per sample
    std::int64_t totalActivationBytes() const; // per sample
};

} // namespace portolan::graph
