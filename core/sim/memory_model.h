#pragma once

// The training memory model (docs/ARCHITECTURE.md, Simulated compilation): weights, gradients,
// optimizer state by optimizer, fp32 masters under mixed precision, activations stashed for
// backward (fewer with recomputation), temporaries. It is checked against a real LibTorch training
// step measured with a counting allocator (alloc_meter.h): within 15% of the measured peak.

#include "core/graph/op_graph.h"
#include "core/sim/training_config.h"

#include <cstdint>
#include <vector>

namespace portolan::sim {

// What one op contributes, in bytes. Stash and temporaries are per micro-batch.
struct OpMemory
{
    std::int64_t weights = 0;
    std::int64_t gradients = 0;
    std::int64_t gradAccumulators = 0; // separate accumulators when gradAccum > 1
    std::int64_t optimizerState = 0;
    std::int64_t masterWeights = 0;
    std::int64_t stash = 0;      // tensors kept from forward to backward (counted once)
    std::int64_t activation = 0; // this op's output at compute precision
    std::int64_t temporary = 0;  // gradient buffers while its backward runs
};

struct MemoryBreakdown
{
    std::int64_t weights = 0;
    std::int64_t gradients = 0;
    std::int64_t gradAccumulators = 0;
    std::int64_t optimizerState = 0;
    std::int64_t masterWeights = 0;
    std::int64_t stashedActivations = 0;
    std::int64_t temporaries = 0;
    std::int64_t total() const
    {
        return weights + gradients + gradAccumulators + optimizerState + masterWeights +
               stashedActivations + temporaries;
    }
};

// Bytes of a tensor recorded as `t` when held at the compute precision (integer tensors, token
// ids, keep their size).
std::int64_t atComputePrecision(std::int64_t bytes, graph::DType t, Precision p);

// Per-op figures for ops [first, end) (end < 0: to the last op). With recomputation, only the
// output of each layer's last op is stashed; the rest of a layer is recomputed in backward.
std::vector<OpMemory> perOpMemory(const graph::OpGraph& g, const TrainingConfig& c, int first = 0,
                                  int end = -1);

// While one lives on a thread, perOpMemory of graph `g` on that thread is remembered by what it
// reads (the range and the training settings it depends on), so that the remedies of a compile
// that leave those settings alone (a split over more IPUs, a serialized embedding, half
// partials, a smaller micro-batch) do not work the same figures out again. A compile holds one
// (sim::compileGraph); a nested one leaves the outer one in charge.
class PerOpMemoryScope
{
public:
    explicit PerOpMemoryScope(const graph::OpGraph& g);
    ~PerOpMemoryScope();
    PerOpMemoryScope(const PerOpMemoryScope&) = delete;
    PerOpMemoryScope& operator=(const PerOpMemoryScope&) = delete;

private:
    bool m_owner = false;
};

// Memory of one device holding ops [first, end): `inFlight` micro-batches of activations are
// stashed at once (1 without pipelining; GPipe keeps all of them, 1F1B at most the stages
// after this one plus one). Optimizer state and masters count 0 when kept off chip.
MemoryBreakdown estimateTrainingMemory(const graph::OpGraph& g, const TrainingConfig& c,
                                       int first = 0, int end = -1, int inFlight = 1);

} // namespace portolan::sim
