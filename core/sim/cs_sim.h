#pragma once

// Simulated Cerebras compilation (DESIGN.md section 7): layer-pipelined mode (each layer's
// kernel on a rectangle of the wafer in proportion to its compute, holding its weights and
// activations in that rectangle's SRAM) and weight-streaming mode (weights streamed from
// off-wafer memory one layer at a time, activations on the wafer). The mode is chosen by size.

#include "core/sim/profile.h"
#include "core/targets/target.h"

namespace portolan::sim {

struct CsModelConstants
{
    double computeEfficiency = 0.5;   // share of a PE's peak FLOPs a kernel reaches
    double layerPipelinedFill = 0.8;  // layer-pipelined when the model needs < this x SRAM
    double streamingEfficiency = 0.8; // share of the off-wafer link weight streaming reaches
};

Result<CompileResult> simulateCs(const graph::OpGraph& g, const targets::Target& target,
                                 const CompileOptions& options, const CsModelConstants& k = {});

} // namespace portolan::sim
