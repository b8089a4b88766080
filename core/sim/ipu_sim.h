#pragma once

// Simulated Poplar compilation for Graphcore IPUs (DESIGN.md section 7): pipeline split, tile
// mapping of every tensor, per-tile memory by category, liveness per program step, out-of-memory
// tiles, cycle estimates per stage and the pipeline schedule.

#include "core/sim/profile.h"
#include "core/targets/target.h"

namespace portolan::sim {

// Constants of the model, documented so the numbers can be checked by hand (tests do).
struct IpuModelConstants
{
    std::int64_t grainBytes = 16;        // mapping granule: Poplar maps whole grains per tile
    std::int64_t minBytesPerTile = 128;  // a tensor is not spread thinner than this per tile
    std::int64_t gapBytesPerPiece = 8;   // alignment padding per variable piece on a tile
    std::int64_t codeMatmulBytes = 3072; // vertex code of a matmul/conv codelet on a tile
    std::int64_t codeOtherBytes = 512;   // vertex code of an elementwise/other codelet
    std::int64_t vertexStateBytes = 24;  // per vertex (pointers and sizes)
    int computeSetsPerOp = 3;            // forward, input gradient, weight gradient
    double exchangeCodePerByte = 0.02;   // exchange code per byte received by a tile
    std::int64_t exchangeCodePerOp = 64; // fixed per exchange on a tile
    std::int64_t controlBytesBase = 1024;
    std::int64_t controlBytesPerStep = 32;
    double matmulEfficiency = 0.6;      // fraction of peak FLOPs reached by matmuls and convs
    double elementwiseEfficiency = 0.1; // elementwise ops are bound by tile memory
    double usableFraction = 0.9;        // automatic split caps a stage at this share of IPU memory
};

Result<CompileResult> simulateIpu(const graph::OpGraph& g, const targets::Target& target,
                                  const CompileOptions& options, const IpuModelConstants& k = {});

// The stage costs (seconds per micro-batch) and memory (bytes) of each op, as the partitioner
// sees them.
void ipuOpCosts(const graph::OpGraph& g, const targets::Target& target, const CompileOptions& o,
                const IpuModelConstants& k, std::vector<double>& cost,
                std::vector<std::int64_t>& memory);

} // namespace portolan::sim
