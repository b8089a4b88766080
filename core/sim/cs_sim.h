#pragma once

// Simulated Cerebras compilation (docs/ARCHITECTURE.md, Simulated compilation): layer-pipelined
// mode (each layer's kernel on a rectangle of the wafer in proportion to its compute, holding its
// weights and activations in that rectangle's SRAM) and weight-streaming mode (weights streamed
// from off-wafer memory one layer at a time, activations on the wafer, the batch processed in
// micro-batches as large as the wafer holds, as the Model Zoo's `micro_batch_size: auto` lets
// the compiler choose). The mode is chosen by parameter count and fit, and named in the result.

#include "core/sim/profile.h"
#include "core/targets/target.h"

namespace portolan::sim {

struct CsModelConstants
{
    double computeEfficiency = 0.5;   // share of a PE's peak FLOPs a kernel reaches
    double streamingEfficiency = 0.8; // share of the off-wafer link weight streaming reaches
    // Layer-pipelined execution holds models "with less than a billion parameters" (Cerebras
    // Model Zoo README, R_1.6.0, "Execution modes"); larger ones need weight streaming.
    double layerPipelinedMaxParams = 1.0e9;
    // A layer-pipelined kernel works on one sample at a time as samples stream through the
    // wafer, so it holds one sample's activations (estimate: no published figure).
    int pipelinedSamplesInFlight = 1;
};

Result<CompileResult> simulateCs(const graph::OpGraph& g, const targets::Target& target,
                                 const CompileOptions& options, const CsModelConstants& k = {});

} // namespace portolan::sim
