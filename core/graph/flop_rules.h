#pragma once

// FLOP and saved-tensor rules, by module type (LibTorch modules) or ATen op (TorchScript and
// traced composite modules). FLOPs are 2 x multiply-accumulates for matmul-like ops and one per
// output element per elementwise operation for the rest; backward is 2 x forward (the usual
// convention: one matmul for the input gradient and one for the weight gradient).

#include "core/graph/op_graph.h"

#include <optional>
#include <string_view>

namespace portolan::graph {

struct OpShapes
{
    std::vector<Shape> inputs; // tensor inputs, data first
    Shape output;
    std::vector<Shape> params; // parameter shapes (weight first) for module rules
};

struct OpRule
{
    double flops = 0; // forward FLOPs for the whole recorded batch
    bool savesInputs = false;
    bool savesOutput = false;
    bool aliasesInput = false;
    double extraSavedBytesPerOutputElement = 0; // masks, indices
    bool extraSavedScales = false;              // in the activation type (dropout noise)
    bool known = true;                          // false: no rule, FLOPs estimated
};

// `kind` is the cleaned module type name ("Linear", "Conv2d", "ReLU", ...).
OpRule moduleRule(std::string_view kind, const OpShapes& shapes);

// `kind` is the ATen name ("aten::linear", "aten::matmul", ...).
OpRule atenRule(std::string_view kind, const OpShapes& shapes);

// Fills forwardFlops/backwardFlops/saved flags of `op` from a rule and the recording batch.
void applyRule(Op& op, const OpRule& rule, std::int64_t batch);

// "torch::nn::LinearImpl" -> "Linear".
std::string cleanModuleName(std::string_view name);

} // namespace portolan::graph
