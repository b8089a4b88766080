#include "core/sim/remedies.h"

#include <algorithm>

namespace portolan::sim {

int maxIpus()
{
    static const int largest = [] {
        int n = 64;
        if (auto systems = targets::loadIpuSystems())
            for (const auto& s : *systems.value)
                n = std::max(n, s.ipus);
        return n;
    }();
    return largest;
}

bool canKeepStateOffChip(const targets::Target& t)
{
    return t.kind == targets::TargetKind::Cs || t.ipu.streamingMemory;
}

std::vector<RemedyOption> remedyOptions(const CompileOptions& o, const targets::Target& t)
{
    std::vector<RemedyOption> out;
    const bool cs = t.kind == targets::TargetKind::Cs;
    const TrainingConfig& c = o.training;
    const auto add = [&](std::string id, std::string description, auto&& change) {
        RemedyOption r{std::move(id), std::move(description), o};
        change(r.options);
        r.options.advice = false;
        out.push_back(std::move(r));
    };
    if (c.precision != Precision::Fp16)
        add("fp16", "train in fp16 (weights, gradients, activations and state)",
            [](CompileOptions& x) { x.training.precision = Precision::Fp16; });
    const bool everyStageRecomputes =
        c.recomputePerStage.empty()
            ? c.recompute
            : std::all_of(c.recomputePerStage.begin(), c.recomputePerStage.end(),
                          [](int r) { return r != 0; });
    if (!everyStageRecomputes && !c.inference)
        add("recompute", "recompute activations in backward from layer checkpoints",
            [](CompileOptions& x) {
                x.training.recompute = true;
                x.training.recomputePerStage.clear();
            });
    if (!cs && o.ipus < maxIpus())
        add("more-stages",
            "split over " + std::to_string(std::min(maxIpus(), o.ipus * 2)) +
                " IPUs (automatic split)",
            [](CompileOptions& x) {
                x.ipus = std::min(maxIpus(), x.ipus * 2);
                x.split.clear();
                x.training.availableMemoryProportionPerStage.clear();
                x.training.recomputePerStage.clear();
            });
    if (cs && o.csMode != "weight-streaming")
        add("weight-streaming", "stream weights from off-wafer memory (weight-streaming mode)",
            [](CompileOptions& x) { x.csMode = "weight-streaming"; });
    if (c.microBatch > 1)
        add("smaller-micro-batch",
            "micro-batch " + std::to_string(c.microBatch / 2) + " (gradient accumulation " +
                std::to_string(c.gradAccum * 2) + " keeps the batch)",
            [](CompileOptions& x) {
                x.training.microBatch /= 2;
                x.training.gradAccum *= 2;
            });
    const bool hasState = optimizerSlots(c.optimizer) > 0 || c.precision == Precision::Mixed;
    if (!c.inference && !c.optimizerOffChip && hasState && canKeepStateOffChip(t))
        add("optimizer-off-chip",
            cs ? "keep optimizer state off the wafer" : "keep optimizer state in streaming memory",
            [](CompileOptions& x) { x.training.optimizerOffChip = true; });
    if (!cs && !c.inference && hasState && c.replicas > 1 && !c.replicatedTensorSharding)
        add("sharded-state",
            "shard the optimizer state across the " + std::to_string(c.replicas) +
                " replicas (replicated tensor sharding)",
            [](CompileOptions& x) { x.training.replicatedTensorSharding = true; });
    if (!cs && c.serializationFactor < 8)
        add("serialize-embedding",
            "serialize the vocabulary embedding and head into " +
                std::to_string(std::max(2, c.serializationFactor * 2)) + " chunks",
            [](CompileOptions& x) {
                x.training.serializationFactor = std::max(2, x.training.serializationFactor * 2);
            });
    if (!cs && !c.halfPartials && c.precision != Precision::Fp32)
        add("half-partials", "keep matmul partials in fp16",
            [](CompileOptions& x) { x.training.halfPartials = true; });
    return out;
}

std::optional<CompileOptions> applyRemedy(const CompileOptions& o, const std::string& id,
                                          const targets::Target& t)
{
    for (auto& r : remedyOptions(o, t))
        if (r.id == id) {
            r.options.advice = o.advice;
            return r.options;
        }
    return std::nullopt;
}

} // namespace portolan::sim
