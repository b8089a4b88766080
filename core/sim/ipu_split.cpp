// The plan phase of the IPU simulation (ipu_phases.h): the automatic split into stages.
#include "core/common/number_format.h"
#include "core/sim/ipu_phases.h"
#include "core/sim/partition.h"

#include <algorithm>
#include <optional>

namespace portolan::sim::ipu {

namespace {

// Each IPU's fullest tile against a tile's capacity, and its share of the IPU in use.
std::vector<StageFill> ipuFill(const IpuProfile& prof, std::int64_t ipuBytes)
{
    std::vector<StageFill> f(static_cast<std::size_t>(std::max(1, prof.ipusPerReplica)));
    for (const auto& st : prof.stages) {
        auto& x = f[std::size_t(st.ipu)];
        x.peak = std::max(x.peak, double(st.maxTileBytes) / double(prof.tileCapacity));
        x.fill += double(st.usedBytes) / double(std::max<std::int64_t>(1, ipuBytes));
    }
    return f;
}

// The items the automatic split cuts between (layers, or ops when there are fewer layers than
// IPUs), and where a head tied to the embedding goes.
struct SplitItems
{
    std::vector<int> opItem;  // the item of each op, -1 for an op that follows `opOwner`
    std::vector<int> opOwner; // for those: the op whose IPU it takes (the tied weight's owner)
    int count = 0;
    std::string unit; // "layers" or "ops"
};

// Layers as items; with `headWithOwner`, the layers after the repeated blocks that use a weight
// tied to one before them (the MLM or LM head on the embedding) follow that weight's IPU, as
// Graphcore places them, instead of being cut with the rest.
SplitItems splitItems(const graph::OpGraph& g, int ipus, bool headWithOwner)
{
    const int n = int(g.ops.size());
    SplitItems it;
    it.opItem.assign(std::size_t(n), -1);
    it.opOwner.assign(std::size_t(n), -1);
    std::vector<int> follows; // per layer: the owner op of its tied weight, or -1
    if (headWithOwner && g.blockCount > 0) {
        follows.assign(std::max<std::size_t>(1, g.layerNames.size()), -1);
        for (const auto& op : g.ops)
            if (op.tiedTo >= 0 && op.layer >= g.firstBlock + g.blockCount &&
                std::size_t(op.layer) < follows.size() &&
                g.ops[std::size_t(op.tiedTo)].layer < g.firstBlock)
                follows[std::size_t(op.layer)] = op.tiedTo;
    }
    int layers = 0;
    for (int i = 0; i < n; ++i)
        if (i == 0 || g.ops[std::size_t(i)].layer != g.ops[std::size_t(i - 1)].layer)
            ++layers;
    if (layers < ipus) {
        // Fewer layers than IPUs: cut between ops.
        for (int i = 0; i < n; ++i)
            it.opItem[std::size_t(i)] = i;
        it.count = n;
        it.unit = "ops";
        return it;
    }
    it.unit = "layers";
    int item = -1;
    for (int i = 0; i < n; ++i) {
        const int l = g.ops[std::size_t(i)].layer;
        const int owner = l >= 0 && std::size_t(l) < follows.size() ? follows[std::size_t(l)] : -1;
        if (owner >= 0) {
            it.opOwner[std::size_t(i)] = owner;
            continue;
        }
        if (item < 0 || i == 0 || l != g.ops[std::size_t(i - 1)].layer ||
            it.opItem[std::size_t(i - 1)] < 0)
            ++item;
        it.opItem[std::size_t(i)] = item;
    }
    it.count = item + 1;
    return it;
}

// Stage s of `starts` holds items [starts[s], starts[s+1]) on IPU s; the ops that follow an
// owner go where it went.
Placement placementOfItems(const SplitItems& it, const std::vector<int>& starts)
{
    const int n = int(it.opItem.size());
    std::vector<int> itemIpu(static_cast<std::size_t>(std::max(1, it.count)), 0);
    for (std::size_t s = 0; s + 1 < starts.size(); ++s)
        for (int m = starts[s]; m < starts[s + 1]; ++m)
            itemIpu[std::size_t(m)] = int(s);
    std::vector<int> opIpu(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i)
        if (it.opItem[std::size_t(i)] >= 0)
            opIpu[std::size_t(i)] = itemIpu[std::size_t(it.opItem[std::size_t(i)])];
    for (int i = 0; i < n; ++i)
        if (it.opItem[std::size_t(i)] < 0)
            opIpu[std::size_t(i)] = opIpu[std::size_t(it.opOwner[std::size_t(i)])];
    Placement p;
    p.unit = it.unit;
    for (int i = 0; i < n; ++i) {
        const int ipu = opIpu[std::size_t(i)];
        if (p.stages.empty() || p.stages.back().ipu != ipu)
            p.stages.push_back({i, i + 1, ipu});
        else
            p.stages.back().endOp = i + 1;
    }
    return p;
}

struct AutomaticSplit
{
    Result<CompileResult> result = Result<CompileResult>::fail({});
    Placement placement; // the placement `result` is of
    std::vector<StageFill> fill;
    std::vector<Diagnostic> notes; // what the split did, for the result's diagnostics
};

// The automatic split for one item layout. Phase 1: the exact min-max partition of the items'
// time under the memory cap of the per-item estimate (partition.h). Phase 2: memory repair
// against the simulated IPUs (repairPartitionMemory), which moves layers off an IPU the
// estimate put over capacity.
AutomaticSplit splitLayout(const Context& x, PhaseCache& cache, const SplitItems& items,
                           const std::vector<double>& opCost,
                           const std::vector<std::int64_t>& opMemory)
{
    AutomaticSplit out;
    const auto& k = x.k;
    const int p = x.ipus;
    const std::int64_t ipuBytes = std::int64_t(x.computeTiles) * x.t.ipu.tileMemoryBytes;
    std::vector<double> cost(static_cast<std::size_t>(items.count), 0);
    std::vector<std::int64_t> memory(static_cast<std::size_t>(items.count), 0);
    for (std::size_t i = 0; i < items.opItem.size(); ++i) {
        int m = items.opItem[i];
        if (m < 0) // an op that follows its owner counts with the owner's item
            m = items.opItem[std::size_t(items.opOwner[i])];
        cost[std::size_t(m)] += opCost[i];
        memory[std::size_t(m)] += opMemory[i];
    }
    auto part = partitionMinMax(cost, memory, p, std::int64_t(double(ipuBytes) * k.usableFraction));
    if (!part.feasible) {
        // The estimate says no split keeps every IPU under the cap: balance memory, the best
        // start there is, and let the repair and the tiles decide.
        std::vector<double> bytes(memory.begin(), memory.end());
        part = partitionMinMax(bytes, memory, p, 0);
        out.notes.push_back({Severity::Warning,
                             "compile.no-memory-split",
                             "no split keeps every stage under " +
                                 std::to_string(int(k.usableFraction * 100)) +
                                 "% of IPU memory; the split balances memory instead of time",
                             {}});
    }
    if (!part.feasible) {
        out.result =
            Result<CompileResult>::fail({Severity::Error, "compile.split", part.reason, {}});
        return out;
    }
    IpuProfile prof;
    prof.splitSource = "automatic";
    // Phase 2. The first measurement is phase 1's split, kept so that a split that fits is
    // simulated once.
    std::optional<Result<CompileResult>> first;
    std::string failed;
    Placement firstPlacement;
    const StageMeasure measure = [&](const std::vector<int>& starts) {
        Placement placement = placementOfItems(items, starts);
        auto r = simulatePlacement(x, placement, prof, x.g.diagnostics, cache);
        if (!r) {
            failed = r.error.message;
            return std::vector<StageFill>(std::size_t(p), StageFill{2, 2});
        }
        auto fill = ipuFill(*r.value->ipu, ipuBytes);
        if (!first) {
            first = std::move(r);
            firstPlacement = std::move(placement);
        }
        return fill;
    };
    // When the IPUs together are over capacity (their fullest tiles average more than a tile),
    // no split fits: the repair is skipped (it costs a simulation a move).
    const auto firstFill = measure(part.starts);
    double sumPeak = 0;
    for (const auto& f : firstFill)
        sumPeak += f.peak;
    const bool hopeless = sumPeak > 1.02 * double(p);
    const MemoryRepair repaired =
        hopeless
            ? MemoryRepair{part.starts, firstFill, 0, 1}
            : repairPartitionMemory(cost, part.starts, [&, once = true](const auto& st) mutable {
                  if (once && st == part.starts) {
                      once = false;
                      return firstFill;
                  }
                  return measure(st);
              });
    if (repaired.moves == 0 && first) {
        out.result = std::move(*first);
        out.placement = std::move(firstPlacement);
    } else {
        out.placement = placementOfItems(items, repaired.starts);
        out.result = simulatePlacement(x, out.placement, prof, x.g.diagnostics, cache);
        if (out.result && repaired.moves > 0 && first && *first) {
            const auto before = ipuFill(*first->value->ipu, ipuBytes);
            std::string was, now;
            for (std::size_t i = 0; i < before.size(); ++i) {
                was += (i ? ", " : "") + format::percent(before[i].peak);
                now += (i ? ", " : "") + format::percent(repaired.fill[i].peak);
            }
            out.notes.push_back(
                {Severity::Info,
                 "compile.memory-repair",
                 "memory-aware split: the time-balanced split left an IPU over capacity "
                 "(fullest tile per IPU: " +
                     was + "); after " + std::to_string(repaired.moves) + " single-" +
                     (items.unit == "ops" ? "op" : "layer") + " move" +
                     (repaired.moves == 1 ? "" : "s") + " across IPU boundaries: " + now,
                 {}});
        }
    }
    if (!failed.empty() && !out.result)
        out.result = Result<CompileResult>::fail({Severity::Error, "compile.split", failed, {}});
    out.fill = repaired.fill;
    return out;
}

} // namespace

Result<CompileResult> splitAutomatically(const Context& full, PhaseCache& cache)
{
    // The first layout is measured in the caller's detail, usually the one kept; the tied-head
    // alternative reads only figures (fills, fullest tiles) and is simulated again in the
    // caller's detail only when it is chosen.
    const Context& x = full;
    Context figures = full;
    figures.detail = Detail::Figures;
    std::vector<double> cost;
    std::vector<std::int64_t> memory;
    ipuOpCosts(x.g, x.t, x.o, x.k, cost, memory, &x.kinds);
    // Cut between layers when there are enough of them, as PopTorch's BeginBlock does: a cut
    // inside a layer would stash a mid-layer tensor (attention scores) per micro-batch. The head
    // tied to the embedding goes with the last layers, or, when that leaves an IPU over
    // capacity, back on the embedding's IPU as Graphcore places it: whichever fits. The two
    // layouts share most stages, which the second takes from the cache.
    const SplitItems contiguous = splitItems(x.g, x.ipus, false);
    AutomaticSplit a = splitLayout(x, cache, contiguous, cost, memory);
    if (a.result && overCapacity(a.fill)) {
        const SplitItems withOwner = splitItems(x.g, x.ipus, true);
        if (withOwner.count != contiguous.count && withOwner.count >= x.ipus) {
            AutomaticSplit b = splitLayout(figures, cache, withOwner, cost, memory);
            const auto worst = [](const std::vector<StageFill>& f) {
                double w = 0;
                for (const auto& s : f)
                    w = std::max(w, s.peak);
                return w;
            };
            if (b.result && (!overCapacity(b.fill) || worst(b.fill) < worst(a.fill))) {
                b.notes.push_back({Severity::Info,
                                   "compile.tied-head",
                                   "the head tied to the embedding runs on the embedding's IPU "
                                   "(as Graphcore places it): with the last layers, an IPU was "
                                   "over capacity",
                                   {}});
                if (full.detail != Detail::Figures) {
                    IpuProfile prof;
                    prof.splitSource = "automatic";
                    b.result = simulatePlacement(full, b.placement, std::move(prof),
                                                 full.g.diagnostics, cache);
                }
                a = std::move(b);
            }
        }
    }
    if (!a.result)
        return std::move(a.result);
    for (auto& d : a.notes)
        a.result.value->diagnostics.push_back(std::move(d));
    return std::move(a.result);
}

} // namespace portolan::sim::ipu
