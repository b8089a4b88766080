#pragma once
// Learning-rate schedules as params files write them: a number (constant), one scheduler
// mapping, or a list of scheduler segments run one after the other (Cerebras Model Zoo style:
// `scheduler:` Constant | Linear | Step | Exponential | Cosine | CosineDecay |
// InverseSquareRootDecay | PiecewiseConstant, lengths in `steps:`, `total_iters:` or
// `decay_steps:`).
#include "core/runtime/params_access.h"

#include <cstdint>
#include <string>
#include <vector>

namespace portolan::runtime {

struct LrSegment
{
    enum class Kind
    {
        Constant,
        Linear,
        Step,
        Exponential,
        Cosine,
        InverseSqrt,
        Piecewise
    };
    Kind kind = Kind::Constant;
    int64_t length = 0; // steps; 0 = until the end (only the last segment)
    double initial = 0; // initial_learning_rate (or learning_rate for Constant)
    double end = 0;     // end_learning_rate (Linear, CosineDecay)
    double alpha = -1;  // Cosine's floor as a fraction of initial (TF form); <0: use `end`
    double gamma = 1;   // Step: gamma; Exponential: decay_rate
    int64_t period = 1; // Step: step_size; Exponential: decay_steps; InverseSqrt: warmup_steps
    bool staircase = false;
    double scale = 1;                // InverseSqrt
    std::vector<int64_t> boundaries; // Piecewise
    std::vector<double> values;      // Piecewise (boundaries.size() + 1 values)
};

struct LrSchedule
{
    std::vector<LrSegment> segments;

    // Learning rate for optimizer step `step` (0-based).
    double at(int64_t step) const;
    std::string describe() const;

    static LrSchedule constant(double lr);
    // StepLR(step_size, gamma) in optimizer steps.
    static LrSchedule stepDecay(double lr, int64_t stepSize, double gamma);
};

// Parses `optimizer.learning_rate` (number, mapping or list). Throws ParamsError.
LrSchedule parseLrSchedule(const ParamsSection& optimizer, const std::string& key);

} // namespace portolan::runtime
