#pragma once

// The phases of the IPU simulation, which simulateIpu (ipu_sim.cpp) runs in order:
//   plan     the split into stages: the user's, or the automatic one (ipu_split.cpp);
//   place    each stage's variables mapped onto its IPU's tiles, its program steps, their
//            liveness and its cycles (placeStage);
//   memory   each IPU's tiles by category at the IPU's peak (ipuMemory);
//   schedule the pipeline's events and throughput;
//   summary  balance, streaming memory and whether it fits.
// A phase reads only its inputs, named in full by its key, so a stage or an IPU whose key did not
// change since an earlier placement is taken from the cache (IpuSimCache) instead of simulated
// again: the automatic split's memory repair, the tied-head alternative and a split edit each
// re-simulate only the stages they change, with results identical to a full simulation.
// Internal to core/sim.

#include "core/sim/ipu_memory.h"
#include "core/sim/ipu_sim.h"
#include "core/sim/layer_split.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace portolan::sim::ipu {

using Detail = SimDetail;

// What every phase of one simulation reads.
struct Context
{
    Context(const graph::OpGraph& graph, const targets::Target& target,
            const CompileOptions& options, const IpuModelConstants& constants, Detail detail,
            const OpKinds* kinds = nullptr);
    const graph::OpGraph& g;
    const targets::Target& t;
    const CompileOptions& o;
    const IpuModelConstants& k;
    Detail detail;
    int ipus = 1;          // per replica
    int tiles = 0;         // per IPU, I/O tiles included
    int ioTiles = 0;       // per IPU
    int computeTiles = 0;  // per IPU
    double microBatch = 1; // as a factor
    double peakFlops = 0;  // of the compute precision
    double passes = 3;     // exchanges per op and micro-batch (1 in inference)
    OpKinds kinds;         // opKinds(g): contractions and vocabulary ops
};

// Everything a stage's placement depends on besides the context: its ops, IPU, place in the
// pipeline, the tile its IPU's mapping continues from and its first program step.
struct StageKey
{
    int first = 0, end = 0, ipu = 0, index = 0, count = 0, cursor = 0, stepBase = 0;
    auto operator<=>(const StageKey&) const = default;
};

// A variable as the place and memory phases read it: numbers only. Every simulation of the
// advice places all of a model's variables (over 20,000 at 70 B parameters), and a record with
// two strings per variable cost more than the mapping itself; the report's named Variable is
// made beside it with Detail::Full.
enum class VariableKind : std::uint8_t
{
    Weight,
    Accumulator,
    Optimizer,
    Master,
    Stash,
    Temporary
};

struct PlacedVariable
{
    std::int64_t bytes = 0, bytesPerTile = 0;
    int op = -1, firstTile = 0, tileCount = 0, liveFrom = 0, liveTo = 0;
    VariableKind kind = VariableKind::Temporary;
    bool alwaysLive = false;
};

struct PlacedStage
{
    StageProfile profile;               // without its IPU's figures (memory phase)
    std::vector<PlacedVariable> placed; // mapped, in the order of `variables`
    std::vector<Variable> variables;    // the same, named; only with Detail::Full
    std::vector<ProgramStep> steps;     // empty with Detail::Figures
    int stepCount = 0;
    int peakStep = 0;                           // global step of the stage's own peak
    std::int64_t peakLive = 0;                  // not-always-live bytes at that step
    std::int64_t stashBytes = 0;                // live while the other stages on its IPU run
    double forward = 0, backward = 0, link = 0; // seconds per micro-batch
    int cursorAfter = 0;                        // where its IPU's mapping continues
    Detail detail = Detail::Full;
};

// Place phase.
PlacedStage placeStage(const Context& x, const StageKey& key);

// Stage `to` as stage `from` (placed as `placed`) shifted by whole ops, when the ops it reads
// (its own, their producers and the views between) are the same ones `to.first - from.first`
// ops later, with the same length, stash depth, link and per-IPU settings: what placeStage
// would give, without placing it. Not in full detail. Nothing when the shift does not hold.
std::optional<PlacedStage> shiftedStage(const Context& x, const StageKey& from,
                                        const PlacedStage& placed, const StageKey& to);

struct IpuMemory
{
    std::int64_t usedBytes = 0, maxTileBytes = 0;
    int oomTiles = 0;
    // Per category, one value per tile of the IPU; empty with Detail::Figures.
    std::array<std::vector<std::int64_t>, kMemoryCategories> tileBytes;
    Detail detail = Detail::Full;
};

// Memory phase for IPU `ipu`, whose stages are `stages` in pipeline order.
IpuMemory ipuMemory(const Context& x, int ipu, const std::vector<const PlacedStage*>& stages);

// The results of the place and memory phases by key, for the placements of one context (one
// graph, target and options apart from the split). `generation` marks what each simulation
// used, so the rest can be dropped.
struct PhaseCache
{
    template <typename Value> struct Slot
    {
        std::shared_ptr<const Value> value;
        int generation = 0;
    };
    std::map<StageKey, Slot<PlacedStage>> stages;
    std::map<std::vector<StageKey>, Slot<IpuMemory>> ipus;
    int generation = 0;

    // Drops what neither of the latest two simulations used.
    void keepLatest();
};

// Places `placement` (stages, memory, schedule, summary), with the phases' results taken from
// `cache` where their keys match. The graph is not copied into the result.
Result<CompileResult> simulatePlacement(const Context& x, const Placement& placement,
                                        IpuProfile prof, std::vector<Diagnostic> diagnostics,
                                        PhaseCache& cache);

// Plan phase: the automatic split (memory-aware), with the notes of what it did.
Result<CompileResult> splitAutomatically(const Context& x, PhaseCache& cache);

} // namespace portolan::sim::ipu
