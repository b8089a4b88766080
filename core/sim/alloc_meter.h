#pragma once

// Measures the true memory of LibTorch work: a c10::Allocator that wraps the default CPU
// allocator and counts live bytes and their peak. Used to check the memory model against a
// real training step (docs/ARCHITECTURE.md, Simulated compilation). Core only (LibTorch header).

#include "core/common/diagnostic.h"
#include "core/sim/training_config.h"

#include <cstdint>
#include <functional>
#include <torch/torch.h>

namespace portolan::sim {

// While an AllocationMeter lives, every CPU tensor allocation is counted. Allocations made
// before it started are not (their frees are not seen either). One meter at a time.
class AllocationMeter
{
public:
    AllocationMeter();
    ~AllocationMeter();
    AllocationMeter(const AllocationMeter&) = delete;
    AllocationMeter& operator=(const AllocationMeter&) = delete;

    std::int64_t liveBytes() const;
    std::int64_t peakBytes() const;
    void resetPeak(); // peak := live
};

struct MeasuredStep
{
    std::int64_t peakBytes = 0;      // during the measured (second) step, everything live
    std::int64_t paramBytes = 0;     // of the model built inside the meter
    std::int64_t liveBeforeStep = 0; // weights, gradients, optimizer state, input batch
};

// Builds the model inside a meter, runs one warm-up training step (forward, cross-entropy loss,
// backward, optimizer step) so gradients and optimizer state exist, then measures the peak of
// a second step. `input` and `labels` are created inside too (counted, as in a real run).
Result<MeasuredStep> measureTrainingStep(const std::function<torch::nn::Sequential()>& build,
                                         const std::function<torch::Tensor()>& input,
                                         const std::function<torch::Tensor()>& labels,
                                         Optimizer optimizer);

} // namespace portolan::sim
