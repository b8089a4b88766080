#pragma once

// What Poplar keeps in IPU memory for the ops of one pipeline stage, op by op
// (docs/ARCHITECTURE.md, Simulated compilation, IPU). The rules and their sources
// (resources/targets/poplar.yaml names each constant's source):
// - weights in the compute type; a weight tied to another op's (a head sharing the embedding)
//   is stored once, where it is owned;
// - with gradient accumulation, one accumulator per weight in the weight's type (PopART
//   accumulates in the weight type unless told otherwise); without it the gradient is only live
//   while its backward runs;
// - optimizer state in fp32 (PopTorch's default accumulation types), on chip unless it is kept
//   in streaming memory; replicated tensor sharding splits it across the replicas; state kept
//   off chip is streamed in for the weight update, one weight at a time, so the largest weight's
//   state (divided by the serialization factor for the vocabulary embedding) is live then;
// - matmul and convolution plans hold their operand slices and partial sums (fp32 unless half
//   partials) on each tile, up to availableMemoryProportion of the tile (ipu_plan.h);
// - the vocabulary embedding and the head tied to it, serialized into N chunks, keep 1/N of
//   their temporaries and weight gradient at a time.

#include "core/graph/op_graph.h"
#include "core/sim/training_config.h"

#include <cstdint>
#include <vector>

namespace portolan::sim {

struct IpuModelConstants; // ipu_sim.h

struct IpuOpMemory
{
    std::int64_t weights = 0;
    std::int64_t accumulators = 0;   // gradient accumulation buffers (always live)
    std::int64_t optimizerState = 0; // on chip, after sharding
    std::int64_t masterWeights = 0;  // fp32 copies under mixed precision, on chip
    std::int64_t stash = 0;          // kept from forward to backward, per micro-batch
    std::int64_t forwardTemp = 0;    // live while its forward runs (micro-batch included)
    std::int64_t backwardTemp = 0;   // live while its backward runs (micro-batch included)
    std::int64_t updateTemp = 0;     // live while its weights are updated
    std::int64_t recomputeStash =
        0; // its layer's stash beyond the checkpoint, rebuilt for backward
    std::int64_t outputGradient = 0; // the part of backwardTemp that is its output's gradient
    bool vocabulary = false;         // a vocabulary-sized op (serialized)
};

// What each op of a graph is, as the IPU model asks for every op of every stage of every
// simulation: worked out once per simulation (by name, the kinds are strings).
struct OpKinds
{
    std::vector<bool> contraction; // isContraction(op.kind)
    std::vector<bool> vocabulary;  // vocabularyOps(g, k.vocabularyMinRows)
    // Ops with the same number have the same content for the place and memory phases: every
    // field but the name, module path, source position, layer and producers (which are
    // indices), and the same kinds. Lets a stage be found to repeat an earlier one
    // (ipu_shift.cpp) with a compare of numbers.
    std::vector<std::uint32_t> content;
};
OpKinds opKinds(const graph::OpGraph& g, std::int64_t vocabularyMinRows);

// Which terms of IpuOpMemory to work out: all of them, or only what stays live across a step
// (weights, accumulators, state, masters, stash, and the streamed update), which is what the
// automatic split's per-op estimate reads; the temporaries' tile plans are most of the cost.
enum class OpMemoryTerms
{
    All,
    Persistent
};

// Ops [first, end) of `g` on an IPU of `tiles` compute tiles of `tileBytes` each (a contraction's
// temporaries are planned over the tiles, at most availableMemoryProportion of each). `kinds`
// is opKinds(g, ...) when the caller has it (worked out here otherwise). With
// OpMemoryTerms::Persistent the temporaries (forwardTemp, backwardTemp, recomputeStash,
// outputGradient) are left 0.
std::vector<IpuOpMemory> ipuOpMemory(const graph::OpGraph& g, const TrainingConfig& c,
                                     const IpuModelConstants& k, std::int64_t tileBytes, int tiles,
                                     int first, int end, const OpKinds* kinds = nullptr,
                                     OpMemoryTerms terms = OpMemoryTerms::All);

// Matmuls, linear layers and convolutions: the ops the AMP units run, with plan temporaries.
bool isContraction(const std::string& kind);

// The ops whose weight spans a vocabulary: embedding tables with at least `minRows` rows and
// the linear layers producing that many outputs or tied to such a table.
std::vector<bool> vocabularyOps(const graph::OpGraph& g, std::int64_t minRows);

} // namespace portolan::sim
