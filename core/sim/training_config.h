#pragma once

// How a model is trained on the target: what the memory model and the simulators need to know.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::sim {

enum class Precision
{
    Fp32,
    Fp16,
    Mixed
};
enum class Optimizer
{
    Sgd,
    SgdMomentum,
    Adam,
    AdamW,
    Lamb // two state slots, like Adam (Graphcore's BERT pretraining uses it)
};
enum class Schedule
{
    GPipe,
    OneFOneB
};

std::string_view precisionName(Precision p);
std::optional<Precision> precisionFromName(std::string_view s);
std::string_view optimizerName(Optimizer o);
std::optional<Optimizer>
optimizerFromName(std::string_view s); // "sgd", "sgd-momentum", "adam", "adamw", "lamb"
std::string_view scheduleName(Schedule s);
std::optional<Schedule> scheduleFromName(std::string_view s);

// Optimizer state slots per parameter: SGD 0, SGD with momentum 1, Adam/AdamW/LAMB 2.
int optimizerSlots(Optimizer o);

// "fp32" or "fp16": the first-order momentum's type as the CLI and reports write it.
std::string_view momentumTypeName(bool half);
std::optional<bool> momentumTypeFromName(std::string_view s); // true for fp16

struct TrainingConfig
{
    Precision precision = Precision::Fp32;
    Optimizer optimizer = Optimizer::Sgd;
    int microBatch = 1;
    int gradAccum = 1;             // micro-batches per weight update
    int replicas = 1;              // data-parallel copies of the whole pipeline
    bool recompute = false;        // keep only layer-boundary activations, recompute the rest
    bool optimizerOffChip = false; // optimizer state (and fp32 masters) in streaming memory
    Schedule schedule = Schedule::OneFOneB;
    // Forward only (inference): no gradients, optimizer state or stashed activations.
    bool inference = false;
    // Poplar options (IPU): the share of tile memory a matmul or convolution plan may use for
    // temporaries (availableMemoryProportion, Poplar's default 0.6), matmul partials in fp16,
    // the optimizer state sharded across replicas (replicated tensor sharding), the vocabulary
    // embedding and tied head serialized into this many chunks, and tiles kept for host I/O.
    double availableMemoryProportion = 0.6;
    bool halfPartials = false;
    bool replicatedTensorSharding = false;
    // The first-order momentum (Adam/LAMB's first moment, SGD's velocity) in fp16, as PopTorch's
    // first_order_momentum_accum_type / velocity_accum_type = torch.float16 keep it (Graphcore's
    // enable_half_first_order_momentum); the second moment stays fp32.
    bool halfFirstOrderMomentum = false;
    int serializationFactor = 1;
    int ioTiles = 0;
    // Per pipeline stage, one value per IPU of a replica, as Graphcore's configs give them
    // (optimum-graphcore's matmul_proportion list, recomputation per stage). Empty: the single
    // value above on every IPU.
    std::vector<double> availableMemoryProportionPerStage;
    std::vector<int> recomputePerStage; // 1: recompute that IPU's layers, 0: stash them

    // The settings the stages on IPU `ipu` run with (the per-IPU values, when given, in place
    // of the single ones).
    TrainingConfig forStage(int ipu) const;

    bool operator==(const TrainingConfig&) const = default;
};

// "0,1,1,1" / "0.15,0.18,0.2,0.25": the per-stage lists as the CLI and reports write them
// (empty when the list is).
std::string stageValuesText(const std::vector<int>& values);
std::string stageValuesText(const std::vector<double>& values);

// "0.15,0.18,0.2,0.25": one number per stage, each in [lo, hi]. Errors name the bad item.
std::optional<std::vector<double>> parseStageValues(std::string_view text, double lo, double hi,
                                                    std::string* error);

// Bytes of a weight, activation, gradient element under a precision (masters and optimizer
// state are fp32 under mixed precision).
// Inline: the memory model asks for them for every op of every stage of every simulation.
inline int computeBytes(Precision p)
{
    return p == Precision::Fp32 ? 4 : 2;
}
inline int stateBytes(Precision p)
{
    return p == Precision::Fp16 ? 2 : 4;
}

} // namespace portolan::sim
