#pragma once

// Where a compile of a project's model starts: the training its params file (or capture) asks
// for, mapped onto the target. One rule for the CLI's compile and the Profile tab.

#include "core/graph/model_source.h"
#include "core/sim/profile.h"
#include "core/sim/training_config.h"
#include "core/targets/target.h"

namespace portolan::sim {

// The settings the user gave explicitly, which the project must not override.
struct TrainingOverrides
{
    bool microBatch = false;
    bool gradAccum = false;
    bool optimizer = false;
    bool precision = false;
    bool ipus = false; // --ipus or --split
    bool replicas = false;
    bool availableMemory = false; // --available-memory-proportion or --amp-per-ipu
    bool halfPartials = false;
};

// A CS system runs the whole batch per step. An IPU pipeline runs micro-batches of one and
// accumulates the samples of a weight update (batch x the project's accumulation), divided among
// the replicas: an IPU holds only a few samples' activations, and Graphcore's own configs keep the
// micro-batch small and reach the global batch by gradient accumulation and replication.
// The optimizer is the project's (Adafactor counts as Adam, whose two slots bound its factored
// moments from above); fp16/bf16 compute in the params means mixed precision.
void applyProjectTraining(const graph::ProjectTraining& p, targets::TargetKind target,
                          TrainingConfig& t, const TrainingOverrides& keep = {});

// The one rule for the options a compile of a project opens on, for `portolan-cli compile
// PROJECT` and the Profile tab. A params file's training goes through applyProjectTraining. A
// capture's batch is the micro-batch the project fed per step; a captured PopTorch project also
// brings its own strategy and Options: on an IPU target, IPUs per replica = the IPUs of its
// declared pipeline (its stages' highest IPU + 1), its device iterations, gradient
// accumulation, replication factor, half precision (a model.half() model), half partials and
// available memory proportion per IPU (filled with the single value where the project names
// no proportion for an IPU). On a CS target the samples of one step across the replicas are
// the batch, and the accumulation stays. What `keep` names stays as given.
void applyProjectSettings(const graph::ProjectTraining& p, targets::TargetKind target,
                          CompileOptions& o, const TrainingOverrides& keep = {});

// The vendor's hardware first (issue 26): the target a model source is for when the user names
// none. A Cerebras Model Zoo config (a ModelFamily source) compiles for a CS-2, a captured
// PopTorch project (its strategy or Options) for an IPU Mk2. An empty id means no preference:
// the caller's default stands. `reason` says why, for the user.
struct DefaultTarget
{
    std::string id;
    std::string reason;
};
DefaultTarget defaultTarget(const graph::GraphSource& source);

} // namespace portolan::sim
