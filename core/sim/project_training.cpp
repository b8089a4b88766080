#include "core/sim/project_training.h"

#include <algorithm>
#include <cstdint>
#include <vector>

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

void applyProjectSettings(const graph::ProjectTraining& p, targets::TargetKind target,
                          CompileOptions& o, const TrainingOverrides& keep)
{
    TrainingConfig& t = o.training;
    if (!p.batchIsMicroBatch) {
        applyProjectTraining(p, target, t, keep);
        return;
    }
    constexpr int maxSamples = 1 << 24;
    const int batch = std::clamp(p.batchSize, 1, maxSamples);
    const int accum = std::clamp(p.gradAccum, 1, maxSamples);
    const int replicas = std::clamp(p.replicas, 1, 1 << 16);
    if (target == targets::TargetKind::Cs) {
        if (!keep.microBatch)
            t.microBatch = int(std::min<std::int64_t>(std::int64_t(batch) * replicas, maxSamples));
        if (!keep.gradAccum)
            t.gradAccum = accum;
    } else {
        if (!keep.ipus && p.ipus > 0) {
            o.ipus = p.ipus;
            o.split.clear();
        }
        if (!keep.replicas && p.replicas > 0)
            t.replicas = replicas;
        if (!keep.microBatch)
            t.microBatch = batch;
        if (!keep.gradAccum)
            t.gradAccum = accum;
        if (!keep.halfPartials && p.halfPartials)
            t.halfPartials = true;
        if (!keep.ipus && !p.layersPerIpu.empty() && int(p.layersPerIpu.size()) == o.ipus)
            o.split = p.layersPerIpu;
        if (!keep.availableMemory && p.matmulProportion > 0)
            t.availableMemoryProportion = std::clamp(p.matmulProportion, 0.01, 1.0);
        // Graphcore's memory settings, as the configuration turns them on.
        if (p.serializationFactor > 1)
            t.serializationFactor = p.serializationFactor;
        t.recompute = t.recompute || p.recompute;
        t.optimizerOffChip = t.optimizerOffChip || p.optimizerOffChip;
        t.replicatedTensorSharding = t.replicatedTensorSharding || p.replicatedTensorSharding;
        t.halfFirstOrderMomentum = t.halfFirstOrderMomentum || p.halfFirstOrderMomentum;
        if (!keep.availableMemory && !p.availableMemoryProportion.empty() && p.ipus > 0 &&
            o.ipus == p.ipus) {
            std::vector<double> perIpu(std::size_t(o.ipus), t.availableMemoryProportion);
            for (const auto& [ipu, value] : p.availableMemoryProportion)
                if (ipu >= 0 && ipu < o.ipus)
                    perIpu[std::size_t(ipu)] = std::clamp(value, 0.01, 1.0);
            t.availableMemoryProportionPerStage = std::move(perIpu);
        }
    }
    if (p.deviceIterations > 0)
        o.deviceIterations = p.deviceIterations;
    if (!keep.optimizer && !p.optimizer.empty()) {
        const std::string name = p.optimizer == "adafactor" ? "adam" : p.optimizer;
        if (auto opt = optimizerFromName(name))
            t.optimizer = *opt;
    }
    if (!keep.precision) {
        if (p.fp16)
            t.precision = Precision::Fp16;
        else if (p.mixedPrecision)
            t.precision = Precision::Mixed;
    }
}

DefaultTarget defaultTarget(const graph::GraphSource& source)
{
    if (source.kind == graph::GraphSourceKind::ModelFamily && source.training &&
        !source.training->namedConfig.empty())
        return {"ipu-mk2", "a Graphcore application config (" + source.params.filename().string() +
                               ", '" + source.training->namedConfig + "'): Graphcore IPU Mk2"};
    if (source.kind == graph::GraphSourceKind::ModelFamily)
        return {"cs-2", "a Cerebras Model Zoo config (" + source.params.filename().string() +
                            "): Cerebras CS-2"};
    // Only a PopTorch project's capture brings a strategy or Options; a plain PyTorch capture
    // names no hardware.
    if (source.kind == graph::GraphSourceKind::Capture && source.training) {
        const graph::ProjectTraining& t = *source.training;
        if (t.ipus > 0 || !t.strategy.empty() || t.deviceIterations > 0 || t.replicas > 0 ||
            t.halfPartials || !t.availableMemoryProportion.empty())
            return {"ipu-mk2", "a PopTorch project: Graphcore IPU Mk2"};
    }
    return {};
}

} // namespace portolan::sim
