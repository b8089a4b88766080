#pragma once

// Where a compile of a project's model starts: the training its params file (or capture) asks
// for, mapped onto the target. One rule for the CLI's compile and the Profile tab.

#include "core/graph/graph_source.h"
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
};

// A CS system runs the whole batch per step. An IPU pipeline runs micro-batches of one and
// accumulates the samples of a weight update (batch x the project's accumulation), divided among
// the replicas: an IPU holds only a few samples' activations, and Graphcore's own configs keep the
// micro-batch small and reach the global batch by gradient accumulation and replication.
// The optimizer is the project's (Adafactor counts as Adam, whose two slots bound its factored
// moments from above); fp16/bf16 compute in the params means mixed precision.
void applyProjectTraining(const graph::ProjectTraining& p, targets::TargetKind target,
                          TrainingConfig& t, const TrainingOverrides& keep = {});

} // namespace portolan::sim
