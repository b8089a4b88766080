#pragma once

// The remedies offered when a model does not fit, as options changes (docs/ARCHITECTURE.md,
// Simulated compilation, "Advice"). Defined once: the advice list re-simulates each, and the GUI's
// advice table applies one to its settings through the same function.

#include "core/sim/profile.h"
#include "core/targets/target.h"

#include <optional>
#include <string>
#include <vector>

namespace portolan::sim {

struct RemedyOption
{
    std::string id; // fp16, recompute, more-stages, weight-streaming, smaller-micro-batch,
                    // optimizer-off-chip, sharded-state, serialize-embedding, half-partials
    std::string description;
    CompileOptions options; // the options with the remedy applied
};

// The largest IPU count a remedy asks for: the largest IPU system in ipu-systems.yaml.
int maxIpus();

// Whether target `t` can keep optimizer state off the device: an IPU system only with streaming
// memory (targets::IpuFigures::streamingMemory, from the target file; Mk1 has none), a CS system
// always (its weights and state live off the wafer in weight-streaming mode).
bool canKeepStateOffChip(const targets::Target& t);

// Every remedy that applies to `o` on target `t` (CS or IPU), in the order they are offered; only
// what the target can do.
std::vector<RemedyOption> remedyOptions(const CompileOptions& o, const targets::Target& t);

// `o` with remedy `id` applied; nullopt when it does not apply.
std::optional<CompileOptions> applyRemedy(const CompileOptions& o, const std::string& id,
                                          const targets::Target& t);

} // namespace portolan::sim
