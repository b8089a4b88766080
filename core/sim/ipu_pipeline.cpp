// One placement through the place, memory, schedule and summary phases of the IPU simulation
// (ipu_phases.h), with the place and memory results reused from the cache where their keys
// match.
#include "core/sim/ipu_memory.h"
#include "core/sim/ipu_phases.h"
#include "core/sim/schedule.h"

#include <algorithm>
#include <map>

namespace portolan::sim::ipu {

namespace {

// How many stages back a stage looks for one it is a shift of: a layer's period in stages.
constexpr int kShiftWindow = 8;

template <typename Key, typename Value, typename Make>
std::shared_ptr<const Value> cached(const Context& x, PhaseCache& cache,
                                    std::map<Key, PhaseCache::Slot<Value>>& slots, const Key& key,
                                    Make make)
{
    auto it = slots.find(key);
    // A result without the names and tiles serves only a simulation that does not want them.
    if (it == slots.end() || (x.detail == Detail::Full && it->second.value->detail != Detail::Full))
        it = slots
                 .insert_or_assign(
                     key, PhaseCache::Slot<Value>{std::make_shared<const Value>(make()), 0})
                 .first;
    it->second.generation = cache.generation;
    return it->second.value;
}

// Schedule phase: the pipeline's events, the step time with the slowest stage's weight update,
// the bubble and the throughput.
void schedulePipeline(const Context& x, const std::vector<double>& fwd,
                      const std::vector<double>& bwd, const std::vector<double>& link,
                      IpuProfile& prof)
{
    const auto& c = x.o.training;
    const int m = c.inference ? 1 : std::max(1, c.gradAccum);
    // The figures and the summary read only the step's end; the trace and the report, the
    // events (p x m x 2 of them: 28,160 at 256 stages of 55 micro-batches).
    const double makespan = scheduleEnd(c.schedule, fwd, bwd, link, m,
                                        x.detail == Detail::Full ? &prof.schedule : nullptr);
    double maxUpdate = 0;
    if (!c.inference)
        for (const auto& st : prof.stages) {
            std::int64_t params = 0;
            for (int i = st.firstOp; i < st.endOp; ++i)
                params += x.g.ops[std::size_t(i)].paramCount;
            // Weight update: a few FLOPs per parameter, bound by memory like elementwise work.
            maxUpdate = std::max(maxUpdate,
                                 10.0 * double(params) / (x.peakFlops * x.k.elementwiseEfficiency));
        }
    prof.stepSeconds = makespan + maxUpdate;
    prof.bubble = bubbleFraction(int(fwd.size()), m);
    const double samples = x.microBatch * m * std::max(1, c.replicas);
    prof.samplesPerSecond = prof.stepSeconds > 0 ? samples / prof.stepSeconds : 0;
    // Balance is between IPUs, not stages: a stage that shares an IPU (the tied head back on the
    // embeddings' IPU) adds its time to that IPU's, so a small head stage does not read as a
    // badly balanced pipeline.
    std::map<int, double> perIpu;
    for (std::size_t s = 0; s < fwd.size(); ++s)
        perIpu[prof.stages[s].ipu] += fwd[s] + bwd[s];
    double slow = 0, fast = 1e300;
    for (const auto& [ipu, tt] : perIpu) {
        slow = std::max(slow, tt);
        fast = std::min(fast, tt);
    }
    prof.balance = slow > 0 ? fast / slow : 1;
}

// Summary phase: whether the target can keep the optimizer state off chip at all, and whether
// the model fits.
void summarize(const Context& x, CompileResult& r)
{
    const auto& c = x.o.training;
    const auto& t = x.t;
    const int n = int(x.g.ops.size());
    bool supported = true;
    if (c.optimizerOffChip && !c.inference && !t.ipu.streamingMemory) {
        // Not a memory figure: the target cannot do it (ipu-mk1.yaml streaming_memory: false).
        supported = false;
        r.diagnostics.push_back(
            {Severity::Error,
             "compile.no-streaming-memory",
             t.name + " has no streaming memory, so optimizer state cannot be kept off chip (" +
                 t.file.filename().string() + ": streaming_memory: false); keep it on chip",
             {}});
    } else if (c.optimizerOffChip && !c.inference) {
        const int slots = optimizerSlots(c.optimizer);
        const std::int64_t perParam =
            slots * x.k.optimizerStateBytes -
            (c.halfFirstOrderMomentum && slots > 0 ? x.k.optimizerStateBytes - x.k.halfMomentumBytes
                                                   : 0) +
            (c.precision == Precision::Mixed ? 4 : 0);
        std::int64_t offChip = 0;
        for (int i = 0; i < n; ++i)
            offChip += x.g.ops[std::size_t(i)].paramCount * perParam;
        if (c.replicatedTensorSharding)
            offChip /= std::max(1, c.replicas);
        if (double(offChip) > t.ipu.streamingMemoryBytes * x.ipus) {
            supported = false;
            r.diagnostics.push_back({Severity::Error,
                                     "compile.streaming-memory",
                                     "the optimizer state does not fit in streaming memory",
                                     {}});
        }
    }
    // The model's breakdown is a line of the summary and of the report; the advice's and a
    // search's figures do not read it.
    if (x.detail != Detail::Figures)
        r.memory = estimateTrainingMemory(x.g, c, 0, n, 1);
    // Fits only when every tile holds its share and the target can run it at all.
    r.fits = r.ipu->oomTiles == 0 && supported;
    r.peakBytes = r.ipu->maxTileBytes;
    r.capacityBytes = t.ipu.tileMemoryBytes;
    r.samplesPerSecond = r.ipu->samplesPerSecond;
}

// Memory phase: IPU by IPU. The IPU's figures go to its stages (the first one carries them when
// several share). `shiftedFrom[s]`: the earlier stage that stage s is a shift of, or -1.
void memoryPhase(const Context& x, PhaseCache& cache, const std::vector<StageKey>& keys,
                 const std::vector<std::shared_ptr<const PlacedStage>>& placed,
                 const std::vector<int>& shiftedFrom, IpuProfile& prof)
{
    const bool full = x.detail == Detail::Full;
    std::vector<std::vector<int>> stagesOn(static_cast<std::size_t>(x.ipus));
    for (std::size_t s = 0; s < keys.size(); ++s)
        stagesOn[std::size_t(keys[s].ipu)].push_back(int(s));
    std::vector<std::shared_ptr<const IpuMemory>> soleMemory(static_cast<std::size_t>(x.ipus));
    for (int ipu = 0; ipu < x.ipus; ++ipu) {
        const std::vector<int>& mine = stagesOn[std::size_t(ipu)];
        if (mine.empty())
            continue;
        std::vector<StageKey> mineKeys;
        std::vector<const PlacedStage*> mineStages;
        for (int s : mine) {
            mineKeys.push_back(keys[std::size_t(s)]);
            mineStages.push_back(placed[std::size_t(s)].get());
        }
        const auto memory = cached(x, cache, cache.ipus, mineKeys, [&] {
            // An IPU whose only stage is a shift of another IPU's only stage holds the same
            // tiles turned: its figures (bytes, fullest tile, tiles over capacity) are the same.
            const int from = mine.size() == 1 ? shiftedFrom[std::size_t(mine.front())] : -1;
            const int fromIpu = from >= 0 ? keys[std::size_t(from)].ipu : -1;
            if (fromIpu >= 0 && !full && soleMemory[std::size_t(fromIpu)]) {
                const IpuMemory& m = *soleMemory[std::size_t(fromIpu)];
                IpuMemory turned;
                turned.usedBytes = m.usedBytes;
                turned.maxTileBytes = m.maxTileBytes;
                turned.oomTiles = m.oomTiles;
                turned.detail = x.detail; // without the tiles, which are turned
                return turned;
            }
            return ipuMemory(x, ipu, mineStages);
        });
        if (mine.size() == 1)
            soleMemory[std::size_t(ipu)] = memory;
        StageProfile& head = prof.stages[std::size_t(mine.front())];
        head.usedBytes = memory->usedBytes;
        head.oomTiles = memory->oomTiles;
        for (int s : mine)
            prof.stages[std::size_t(s)].maxTileBytes = memory->maxTileBytes;
        prof.oomTiles += memory->oomTiles;
        prof.maxTileBytes = std::max(prof.maxTileBytes, memory->maxTileBytes);
        prof.totalBytes += memory->usedBytes;
        if (full)
            for (int cat = 0; cat < kMemoryCategories; ++cat)
                std::copy(memory->tileBytes[std::size_t(cat)].begin(),
                          memory->tileBytes[std::size_t(cat)].end(),
                          prof.tileBytes[std::size_t(cat)].begin() + std::ptrdiff_t(ipu) * x.tiles);
    }
}

} // namespace

Result<CompileResult> simulatePlacement(const Context& x, const Placement& placement,
                                        IpuProfile prof, std::vector<Diagnostic> diagnostics,
                                        PhaseCache& cache)
{
    CompileResult r;
    r.options = x.o;
    r.targetName = x.t.name;
    r.targetKind = "ipu";
    r.diagnostics = std::move(diagnostics);
    const bool full = x.detail == Detail::Full;
    const int stageCount = int(placement.stages.size());
    prof.ipusPerReplica = x.ipus;
    prof.tilesPerIpu = x.tiles;
    prof.ioTilesPerIpu = x.ioTiles;
    prof.tileCapacity = x.t.ipu.tileMemoryBytes;
    if (full)
        for (auto& cat : prof.tileBytes)
            cat.assign(std::size_t(x.tiles) * std::size_t(x.ipus), 0);
    r.opStage.assign(x.g.ops.size(), 0);

    // Place: each stage, in pipeline order (an IPU's mapping continues where its previous
    // stage's ended).
    std::vector<std::shared_ptr<const PlacedStage>> placed;
    std::vector<StageKey> keys;
    std::vector<int> cursor(static_cast<std::size_t>(x.ipus), 0);
    std::vector<double> fwd, bwd, link;
    // shiftedFrom[s]: the earlier stage that stage s is a shift of (-1: placed itself).
    std::vector<int> shiftedFrom(static_cast<std::size_t>(stageCount), -1);
    int stepBase = 0;
    for (int s = 0; s < stageCount; ++s) {
        const StagePlacement& place = placement.stages[std::size_t(s)];
        const StageKey key{
            place.firstOp, place.endOp, place.ipu, s, stageCount, cursor[std::size_t(place.ipu)],
            stepBase};
        auto stage = cached(x, cache, cache.stages, key, [&] {
            // A repeated layer's stages come back every few stages: the nearest earlier one of
            // the same length whose ops are the same is shifted instead of placed again.
            for (int back = 1; back <= kShiftWindow && back <= s; ++back) {
                const StageKey& from = keys[std::size_t(s - back)];
                if (from.end - from.first != key.end - key.first)
                    continue;
                if (auto shifted = shiftedStage(x, from, *placed[std::size_t(s - back)], key)) {
                    shiftedFrom[std::size_t(s)] = s - back;
                    return std::move(*shifted);
                }
            }
            return placeStage(x, key);
        });
        cursor[std::size_t(place.ipu)] = stage->cursorAfter;
        stepBase += stage->stepCount;
        std::fill(r.opStage.begin() + place.firstOp, r.opStage.begin() + place.endOp, s);
        if (full) {
            prof.variables.insert(prof.variables.end(), stage->variables.begin(),
                                  stage->variables.end());
            prof.steps.insert(prof.steps.end(), stage->steps.begin(), stage->steps.end());
        }
        prof.stages.push_back(stage->profile);
        fwd.push_back(stage->forward);
        bwd.push_back(stage->backward);
        link.push_back(stage->link);
        keys.push_back(key);
        placed.push_back(std::move(stage));
    }

    memoryPhase(x, cache, keys, placed, shiftedFrom, prof);

    schedulePipeline(x, fwd, bwd, link, prof);
    r.ipu = std::move(prof);
    summarize(x, r);
    return Result<CompileResult>::ok(std::move(r));
}

} // namespace portolan::sim::ipu
