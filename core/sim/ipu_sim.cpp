#include "core/sim/ipu_sim.h"

#include "core/common/number_format.h"
#include "core/common/resources.h"
#include "core/sim/ipu_memory.h"
#include "core/sim/ipu_phases.h"
#include "core/sim/layer_split.h"
#include "core/sim/partition.h"
#include "core/sim/schedule.h"
#include "core/sim/tiles.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <optional>
#include <yaml-cpp/yaml.h>

namespace portolan::sim {

namespace {

double peakFlops(const targets::Target& t, Precision p)
{
    return p == Precision::Fp32 ? t.ipu.fp32Flops : t.ipu.fp16Flops;
}

std::int64_t getInt(const YAML::Node& n, const char* key, std::int64_t d)
{
    return n[key] ? n[key].as<std::int64_t>() : d;
}
double getDouble(const YAML::Node& n, const char* key, double d)
{
    return n[key] ? n[key].as<double>() : d;
}

} // namespace

int stashDepth(const TrainingConfig& c, int stage, int stages)
{
    if (c.inference)
        return 0;
    const int m = std::max(1, c.gradAccum);
    if (stages <= 1)
        return 1;
    if (c.schedule == Schedule::GPipe)
        return m;
    return std::min(m, 2 * (stages - 1 - stage) + 1);
}

Result<IpuModelConstants> loadIpuModelConstants(const std::filesystem::path& file)
{
    try {
        const YAML::Node root = YAML::LoadFile(file.string());
        const YAML::Node m = root["constants"];
        if (!m.IsMap())
            return Result<IpuModelConstants>::fail(
                {Severity::Error, "targets.poplar", "no constants: mapping", {file.string()}});
        IpuModelConstants k;
        k.grainBytes = getInt(m, "grain_bytes", k.grainBytes);
        k.minBytesPerTile = getInt(m, "min_bytes_per_tile", k.minBytesPerTile);
        k.gapBytesPerPiece = getInt(m, "gap_bytes_per_piece", k.gapBytesPerPiece);
        k.codeMatmulBytes = getInt(m, "code_matmul_bytes", k.codeMatmulBytes);
        k.codeOtherBytes = getInt(m, "code_other_bytes", k.codeOtherBytes);
        k.vertexStateBytes = getInt(m, "vertex_state_bytes", k.vertexStateBytes);
        k.computeSetsPerOp = int(getInt(m, "compute_sets_per_op", k.computeSetsPerOp));
        k.verticesPerComputeSet =
            int(getInt(m, "vertices_per_compute_set", k.verticesPerComputeSet));
        k.exchangeCodePerByte = getDouble(m, "exchange_code_per_byte", k.exchangeCodePerByte);
        k.exchangeCodePerOp = getInt(m, "exchange_code_per_op", k.exchangeCodePerOp);
        k.controlBytesBase = getInt(m, "control_bytes_base", k.controlBytesBase);
        k.controlBytesPerStep = getInt(m, "control_bytes_per_step", k.controlBytesPerStep);
        k.matmulEfficiency = getDouble(m, "matmul_efficiency", k.matmulEfficiency);
        k.elementwiseEfficiency = getDouble(m, "elementwise_efficiency", k.elementwiseEfficiency);
        k.usableFraction = getDouble(m, "usable_fraction", k.usableFraction);
        k.optimizerStateBytes = getInt(m, "optimizer_state_bytes", k.optimizerStateBytes);
        k.halfMomentumBytes = getInt(m, "half_first_order_momentum_bytes", k.halfMomentumBytes);
        k.offChipWeightsInFlight =
            int(getInt(m, "offchip_state_weights_in_flight", k.offChipWeightsInFlight));
        k.partialsBytes = getInt(m, "partials_bytes", k.partialsBytes);
        k.vocabularyMinRows = getInt(m, "vocabulary_min_rows", k.vocabularyMinRows);
        k.source = file.string();
        return Result<IpuModelConstants>::ok(k);
    } catch (const YAML::Exception& e) {
        Diagnostic d{Severity::Error, "targets.poplar", e.msg, {file.string(), 0, 0}};
        if (e.mark.line >= 0) {
            d.location.line = e.mark.line + 1;
            d.location.column = e.mark.column + 1;
        }
        return Result<IpuModelConstants>::fail(d);
    }
}

const IpuModelConstants& ipuModelConstants()
{
    static const IpuModelConstants k = [] {
        const auto file = resourcesDir() / "targets" / "poplar.yaml";
        if (auto r = loadIpuModelConstants(file))
            return *r.value;
        IpuModelConstants d;
        d.source = "built-in";
        return d;
    }();
    return k;
}

const char* memoryCategoryName(MemoryCategory c)
{
    switch (c) {
    case MemoryCategory::AlwaysLive:
        return "always_live";
    case MemoryCategory::NotAlwaysLive:
        return "not_always_live";
    case MemoryCategory::VertexCode:
        return "vertex_code";
    case MemoryCategory::VertexState:
        return "vertex_state";
    case MemoryCategory::ExchangeCode:
        return "exchange_code";
    case MemoryCategory::ControlCode:
        return "control_code";
    case MemoryCategory::Gaps:
        return "gaps";
    }
    return "?";
}

std::int64_t IpuProfile::tileTotal(int tile) const
{
    std::int64_t n = 0;
    for (const auto& c : tileBytes)
        n += c[std::size_t(tile)];
    return n;
}

void ipuOpCosts(const graph::OpGraph& g, const targets::Target& t, const CompileOptions& o,
                const IpuModelConstants& k, std::vector<double>& cost,
                std::vector<std::int64_t>& memory, const OpKinds* kinds)
{
    const auto& c = o.training;
    const int tiles = t.ipu.tiles - std::clamp(c.ioTiles, 0, t.ipu.tiles - 1);
    OpKinds own;
    if (!kinds) {
        own = opKinds(g, k.vocabularyMinRows);
        kinds = &own;
    }
    // Only what stays live across a step is summed below: the temporaries' plans are skipped.
    const auto ops = ipuOpMemory(g, c, k, t.ipu.tileMemoryBytes, tiles, 0, int(g.ops.size()), kinds,
                                 OpMemoryTerms::Persistent);
    const double peak = peakFlops(t, c.precision);
    const double mb = std::max(1, c.microBatch);
    // The stash depth falls from 2p-1 micro-batches on the first stage to 1 on the last; the
    // partitioner, which does not know where an op will land, takes the middle stage's.
    const int depth = std::max(1, stashDepth(c, std::max(1, o.ipus) / 2, std::max(1, o.ipus)));
    const double passes = c.inference ? 1.0 : 3.0;
    cost.resize(g.ops.size());
    memory.resize(g.ops.size());
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        const auto& op = g.ops[i];
        const double eff = kinds->contraction[i] ? k.matmulEfficiency : k.elementwiseEfficiency;
        const double flops = c.inference ? op.forwardFlops
                                         : op.forwardFlops + op.backwardFlops +
                                               (c.recompute ? op.forwardFlops : 0.0);
        cost[i] = flops * mb / (peak * eff) +
                  passes * double(op.inputBytes) * mb / t.ipu.exchangeBytesPerSec;
        const auto& m = ops[i];
        memory[i] = m.weights + m.accumulators + m.optimizerState + m.masterWeights +
                    std::int64_t(double(m.stash) * mb * depth);
    }
}

struct IpuSimCache::Impl
{
    // One context: the graph, target, constants and options apart from the split.
    struct Entry
    {
        const graph::OpGraph* graph = nullptr;
        std::size_t ops = 0;
        std::int64_t params = 0;
        std::string target;
        std::filesystem::path targetFile;
        const IpuModelConstants* constants = nullptr;
        CompileOptions options; // split cleared, advice off
        ipu::PhaseCache phases;
        std::uint64_t lastUse = 0;
    };
    std::mutex mutex;
    std::vector<Entry> entries;
    std::uint64_t uses = 0;

    // The remedies of the advice each have a context of their own; a few more than there are
    // remedies keeps a split edit's advice incremental too.
    static constexpr std::size_t kEntries = 12;

    ipu::PhaseCache& phasesFor(const graph::OpGraph& g, const targets::Target& t,
                               const CompileOptions& o, const IpuModelConstants& k)
    {
        CompileOptions key = o;
        key.split.clear();
        key.advice = false;
        const std::int64_t params = g.totalParams();
        ++uses;
        for (auto& e : entries)
            if (e.graph == &g && e.ops == g.ops.size() && e.params == params &&
                e.target == t.name && e.targetFile == t.file && e.constants == &k &&
                e.options == key) {
                e.lastUse = uses;
                return e.phases;
            }
        if (entries.size() >= kEntries)
            entries.erase(std::min_element(
                entries.begin(), entries.end(),
                [](const Entry& a, const Entry& b) { return a.lastUse < b.lastUse; }));
        entries.push_back({&g, g.ops.size(), params, t.name, t.file, &k, std::move(key), {}, uses});
        return entries.back().phases;
    }
};

IpuSimCache::IpuSimCache() : m(std::make_unique<Impl>()) {}
IpuSimCache::~IpuSimCache() = default;

void IpuSimCache::clear()
{
    std::lock_guard lock(m->mutex);
    m->entries.clear();
}

Result<CompileResult> simulateIpu(const graph::OpGraph& g, const targets::Target& t,
                                  const CompileOptions& o, const IpuModelConstants& k,
                                  IpuSimCache* cache, SimDetail detail, const OpKinds* kinds)
{
    const auto& c = o.training;
    const int p = std::max(1, o.ipus);
    const int n = int(g.ops.size());
    if (n == 0)
        return Result<CompileResult>::fail(
            {Severity::Error, "compile.empty", "the model has no ops to compile", {}});
    // Per-IPU settings: one value per IPU of a replica, as Graphcore's matmul_proportion lists
    // give them (a stage is an IPU's share of the model; the head may be a stage of its own on
    // an IPU that holds others).
    for (const auto& [count, what] :
         {std::pair{c.availableMemoryProportionPerStage.size(), "available memory proportions"},
          std::pair{c.recomputePerStage.size(), "recomputation settings"}})
        if (count != 0 && int(count) != p)
            return Result<CompileResult>::fail({Severity::Error,
                                                "compile.stage-values",
                                                std::to_string(count) + " per-IPU " + what +
                                                    " for " + std::to_string(p) +
                                                    " IPUs: give one per IPU",
                                                {}});
    Placement placement;
    if (!o.split.empty()) {
        auto placed = placeSplit(g, LayerSplit(o.split), p);
        if (!placed)
            return Result<CompileResult>::fail(placed.error);
        placement = std::move(*placed.value);
    }

    // Without a cache of the caller's, one for this simulation: the automatic split's repair and
    // its tied-head alternative still share their unchanged stages.
    ipu::PhaseCache own;
    std::unique_lock<std::mutex> lock;
    ipu::PhaseCache* phases = &own;
    if (cache) {
        lock = std::unique_lock(cache->m->mutex);
        phases = &cache->m->phasesFor(g, t, o, k);
    }
    ++phases->generation;
    const ipu::Context x(g, t, o, k, detail, kinds);

    // Plan: the user's split, or the automatic one (memory-aware); then place, memory, schedule
    // and summary (ipu_phases.h).
    Result<CompileResult> r = Result<CompileResult>::fail({});
    if (!o.split.empty()) {
        IpuProfile prof;
        prof.splitSource = "user";
        prof.splitUnit = placement.unit;
        r = ipu::simulatePlacement(x, placement, std::move(prof), g.diagnostics, *phases);
    } else {
        r = ipu::splitAutomatically(x, *phases);
    }
    phases->keepLatest();
    if (r && detail == SimDetail::Full)
        r.value->graph = g;
    return r;
}

} // namespace portolan::sim
