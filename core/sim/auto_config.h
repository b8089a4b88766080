#pragma once

// "Find a configuration that fits": a search over the IPU count, the split, the micro-batch,
// recomputation, optimizer placement and precision for the fewest IPUs, or for the highest
// throughput on a given number of IPUs. The batch (micro-batch x accumulation) is kept.
//
// What is exact and what is pruned:
// - the split for each IPU count is the exact min-max partition (partition.h);
// - IPU counts are the system sizes (powers of two up to the largest system); a count is ruled
//   out when its most memory-frugal setting does not fit, since every saver only lowers memory
//   (monotone: recomputation, off-chip state, sharding, serialization, half partials, fp16, a
//   smaller micro-batch);
// - savers that the simulator gives no time cost (off-chip state, sharded state, serialization,
//   half partials) are set to their frugal value when they help, not searched;
// - the rest (recomputation x micro-batch x precision) is searched exhaustively for the counts
//   that remain. The result lists what was pruned.

#include "core/sim/profile.h"
#include "core/targets/target.h"

#include <string>
#include <vector>

namespace portolan::sim {

struct AutoRequest
{
    enum class Goal
    {
        FewestIpus,
        HighestThroughput
    };
    Goal goal = Goal::FewestIpus;
    CompileOptions base;   // target, replicas, optimizer, precision, batch (micro x accumulation)
    int ipus = 0;          // HighestThroughput: the count to use (0: base.ipus)
    int maxIpus = 0;       // FewestIpus: the largest count tried (0: the largest system)
    bool allowFp16 = true; // precision may go down to fp16 (mixed stays mixed otherwise)
};

struct AutoTrial
{
    CompileOptions options;
    bool fits = false;
    std::int64_t peakBytes = 0;
    double samplesPerSecond = 0;
};

struct AutoResult
{
    bool found = false;
    CompileResult best;              // the chosen configuration, simulated (with advice off)
    std::vector<AutoTrial> trials;   // every configuration simulated, in order
    std::vector<std::string> pruned; // what was ruled out without simulating it, and why
    int simulated = 0;
    double milliseconds = 0;
};

Result<AutoResult> findFittingConfiguration(const graph::OpGraph& g, const targets::Target& target,
                                            const AutoRequest& request,
                                            const ProgressCallback& progress = {});

// "micro-batch 8, recompute, ..." for a person.
std::string describeOptions(const CompileOptions& o);

} // namespace portolan::sim
