#include "core/sim/project_training.h"

#include <algorithm>
#include <cstdint>

namespace portolan::sim {

void applyProjectTraining(const graph::ProjectTraining& p, targets::TargetKind target,
                          TrainingConfig& t, const TrainingOverrides& keep)
{
    constexpr std::int64_t maxSamples = 1 << 24;
    const std::int64_t batch = std::clamp<std::int64_t>(p.batchSize, 1, maxSamples);
    const int accum = std::max(1, p.gradAccum);
    if (!keep.microBatch) {
        if (target == targets::TargetKind::Cs) {
            t.microBatch = int(batch);
            if (!keep.gradAccum)
                t.gradAccum = accum;
        } else {
            t.microBatch = 1;
            if (!keep.gradAccum) {
                const std::int64_t samples = std::min(batch * accum, maxSamples);
                const std::int64_t replicas = std::max(1, t.replicas);
                t.gradAccum = int(std::max<std::int64_t>(1, (samples + replicas - 1) / replicas));
            }
        }
    }
    if (!keep.optimizer && !p.optimizer.empty()) {
        const std::string name = p.optimizer == "adafactor" ? "adam" : p.optimizer;
        if (auto o = optimizerFromName(name))
            t.optimizer = *o;
    }
    if (!keep.precision && p.mixedPrecision)
        t.precision = Precision::Mixed;
}

} // namespace portolan::sim
