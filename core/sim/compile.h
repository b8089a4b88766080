#pragma once

// Simulated compilation of an op graph for a target, with advice when it does not fit.

#include "core/sim/ipu_sim.h"
#include "core/sim/profile.h"
#include "core/targets/target.h"

namespace portolan::sim {

// Loads the target, simulates it (IPU or CS), and when the model does not fit re-simulates with
// each remedy (remedies.h). IPU results name their system (ipu-systems.yaml).
// compileMilliseconds covers all of it. With a cache (ipu_sim.h), a compile of the same graph
// after a split edit re-simulates only the stages the edit touched, in the result and in each
// remedy of its advice; the result is the same as without. `detail` is the result's (ipu_sim.h:
// the advice and the project's split are figures whatever it is); a CS result is always whole.
Result<CompileResult> compileGraph(const graph::OpGraph& g, const CompileOptions& options,
                                   IpuSimCache* cache = nullptr,
                                   SimDetail detail = SimDetail::Full);
Result<CompileResult> compileGraph(const graph::OpGraph& g, const targets::Target& target,
                                   const CompileOptions& options, IpuSimCache* cache = nullptr,
                                   SimDetail detail = SimDetail::Full);

// Simulates the split the graph declares (graph::OpGraph::declaredSplit) with `options`' other
// settings; nullopt for CS targets and graphs that declare none.
std::optional<ProjectSplit> simulateProjectSplit(const graph::OpGraph& g,
                                                 const targets::Target& target,
                                                 const CompileOptions& options,
                                                 IpuSimCache* cache = nullptr);

// Re-simulates with each applicable remedy: fp16, recomputation, more pipeline stages (or weight
// streaming on CS), a smaller micro-batch, optimizer state off chip.
std::vector<Remedy> adviseRemedies(const graph::OpGraph& g, const targets::Target& target,
                                   const CompileResult& baseline, IpuSimCache* cache = nullptr);

} // namespace portolan::sim
