#pragma once

// How a model is trained on the target: what the memory model and the simulators need to know.

#include <optional>
#include <string>
#include <string_view>

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
    AdamW
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
optimizerFromName(std::string_view s); // "sgd", "sgd-momentum", "adam", "adamw"
std::string_view scheduleName(Schedule s);
std::optional<Schedule> scheduleFromName(std::string_view s);

// Optimizer state slots per parameter: SGD 0, SGD with momentum 1, Adam/AdamW 2.
int optimizerSlots(Optimizer o);

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
};

// Bytes of a weight, activation, gradient element under a precision (masters and optimizer
// state are fp32 under mixed precision).
int computeBytes(Precision p);
int stateBytes(Precision p);

} // namespace portolan::sim
