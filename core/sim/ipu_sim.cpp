#include "core/sim/ipu_sim.h"

#include "core/common/number_format.h"
#include "core/common/resources.h"
#include "core/sim/ipu_memory.h"
#include "core/sim/layer_split.h"
#include "core/sim/partition.h"
#include "core/sim/schedule.h"
#include "core/sim/tiles.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <yaml-cpp/yaml.h>

namespace portolan::sim {

namespace {

double peakFlops(const targets::Target& t, Precision p)
{
    return p == Precision::Fp32 ? t.ipu.fp32Flops : t.ipu.fp16Flops;
}

struct Mapper
{
    const IpuModelConstants& k;
    int tiles; // compute tiles of the IPU (I/O tiles excluded)
    int tilesPerIpu;
    int cursor = 0; // rotating start, so small tensors do not all land on tile 0

    void map(Variable& v, int ipu)
    {
        const std::int64_t bytes = std::max<std::int64_t>(v.bytes, 1);
        const std::int64_t wanted = (bytes + k.minBytesPerTile - 1) / k.minBytesPerTile;
        v.tileCount = int(std::min<std::int64_t>(tiles, wanted));
        const std::int64_t share = (bytes + v.tileCount - 1) / v.tileCount;
        v.bytesPerTile = (share + k.grainBytes - 1) / k.grainBytes * k.grainBytes;
        v.firstTile = ipu * tilesPerIpu + cursor;
        cursor = (cursor + v.tileCount) % tiles;
    }
};

// One stage's variables, steps and peak, before they go onto tiles.
struct StageWork
{
    StagePlacement place;
    std::size_t varBegin = 0, varEnd = 0;
    int stepBegin = 0, stepCount = 0;
    int peakStep = 0;
    std::int64_t peakLive = 0;   // not-always-live bytes at the peak step
    std::int64_t stashBytes = 0; // the stage's stash (live while other stages on its IPU run)
};

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
                std::vector<std::int64_t>& memory)
{
    const auto& c = o.training;
    const int tiles = t.ipu.tiles - std::clamp(c.ioTiles, 0, t.ipu.tiles - 1);
    const auto ops = ipuOpMemory(g, c, k, t.ipu.tileMemoryBytes, tiles, 0, int(g.ops.size()));
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
        const double eff = isContraction(op.kind) ? k.matmulEfficiency : k.elementwiseEfficiency;
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

namespace {

// Steps 2 to 5 for one placement: variables, liveness, tiles, cycles and the schedule. The
// graph is not copied into the result (the automatic split measures many placements).
Result<CompileResult> simulatePlacement(const graph::OpGraph& g, const targets::Target& t,
                                        const CompileOptions& o, const IpuModelConstants& k,
                                        const Placement& placement, IpuProfile prof,
                                        std::vector<Diagnostic> diagnostics)
{
    CompileResult r;
    r.options = o;
    r.targetName = t.name;
    r.targetKind = "ipu";
    r.diagnostics = std::move(diagnostics);
    const auto& c = o.training;
    const int p = std::max(1, o.ipus);
    const int n = int(g.ops.size());
    const int tiles = t.ipu.tiles;
    const int ioTiles = std::clamp(c.ioTiles, 0, tiles - 1);
    const int computeTiles = tiles - ioTiles;
    const int stageCount = int(placement.stages.size());
    const std::vector<bool> vocabulary = vocabularyOps(g, k.vocabularyMinRows);

    // 2. Stages: variables, program steps and liveness.
    prof.ipusPerReplica = p;
    prof.tilesPerIpu = tiles;
    prof.ioTilesPerIpu = ioTiles;
    prof.tileCapacity = t.ipu.tileMemoryBytes;
    for (auto& cat : prof.tileBytes)
        cat.assign(std::size_t(tiles) * std::size_t(p), 0);
    r.opStage.assign(std::size_t(n), 0);
    const double mb = std::max(1, c.microBatch);
    const double peak = peakFlops(t, c.precision);
    const double clock = t.ipu.clockHz;
    std::vector<double> fwd(static_cast<std::size_t>(stageCount)),
        bwd(static_cast<std::size_t>(stageCount)), link(static_cast<std::size_t>(stageCount), 0);
    std::vector<StageWork> work(static_cast<std::size_t>(stageCount));
    std::vector<Mapper> mappers(static_cast<std::size_t>(p), Mapper{k, computeTiles, tiles});
    const double passes = c.inference ? 1.0 : 3.0;

    for (int s = 0; s < stageCount; ++s) {
        const StagePlacement& place = placement.stages[std::size_t(s)];
        const int first = place.firstOp, end = place.endOp;
        const int depth = stashDepth(c, s, stageCount);
        StageWork& w = work[std::size_t(s)];
        w.place = place;
        StageProfile st;
        st.index = s;
        st.ipu = place.ipu;
        st.firstOp = first;
        st.endOp = end;
        st.firstLayer = g.ops[std::size_t(first)].layer;
        st.endLayer = g.ops[std::size_t(end - 1)].layer + 1;
        // This stage's recomputation and available memory proportion (its IPU's, from the
        // per-IPU lists).
        const TrainingConfig sc = c.forStage(place.ipu);
        st.memory = estimateTrainingMemory(g, sc, first, end, std::max(1, depth));
        const auto ops =
            ipuOpMemory(g, sc, k, t.ipu.tileMemoryBytes, computeTiles, first, end, &vocabulary);
        Mapper& mapper = mappers[std::size_t(place.ipu)];
        const int stepBase = int(prof.steps.size());
        const int count = end - first;
        for (int i = first; i < end; ++i)
            prof.steps.push_back({"fwd " + g.ops[std::size_t(i)].name, "forward", s, i, 0, 0});
        if (!c.inference) {
            for (int i = end - 1; i >= first; --i)
                prof.steps.push_back({"bwd " + g.ops[std::size_t(i)].name, "backward", s, i, 0, 0});
            prof.steps.push_back({"update stage " + std::to_string(s), "update", s, -1, 0, 0});
        }
        const int stepCount = c.inference ? count : 2 * count + 1;
        const int updateStep = stepBase + stepCount - 1;
        const auto fwdStep = [&](int i) {
            return stepBase + (i - first);
        };
        const auto bwdStep = [&](int i) {
            return c.inference ? fwdStep(i) : stepBase + count + (end - 1 - i);
        };
        w.stepBegin = stepBase;
        w.stepCount = stepCount;
        w.varBegin = prof.variables.size();
        const auto addVar = [&](const std::string& name, const char* kind, bool always, int op,
                                std::int64_t bytes, int from, int to) {
            if (bytes <= 0)
                return;
            Variable v;
            v.name = name;
            v.kind = kind;
            v.alwaysLive = always;
            v.stage = s;
            v.op = op;
            v.bytes = bytes;
            v.liveFrom = always ? stepBase : from;
            v.liveTo = always ? updateStep : to;
            mapper.map(v, place.ipu);
            prof.variables.push_back(std::move(v));
        };
        // Recomputation runs each layer's forward again before its backward (PopTorch user
        // guide, "Recomputation": the activations between checkpoints are recomputed in the
        // backward pass instead of stored), so it costs a second forward pass.
        const bool recompute = sc.recompute && !c.inference;
        // State kept off chip comes on chip for its weight's update and goes back before the next
        // weight's (PopART: RemoteLoad, VarUpdate, RemoteStore per weight), so only the largest
        // `offChipWeightsInFlight` weights' state is on chip at once, not the stage's.
        std::vector<bool> streamedNow(ops.size(), true);
        if (c.optimizerOffChip && !c.inference) {
            std::vector<std::pair<std::int64_t, std::size_t>> sizes;
            for (std::size_t j = 0; j < ops.size(); ++j)
                if (ops[j].updateTemp > 0)
                    sizes.push_back({ops[j].updateTemp, j});
            const std::size_t keep =
                std::min(sizes.size(), std::size_t(std::max(1, k.offChipWeightsInFlight)));
            std::partial_sort(sizes.begin(), sizes.begin() + std::ptrdiff_t(keep), sizes.end(),
                              std::greater<>());
            std::fill(streamedNow.begin(), streamedNow.end(), false);
            for (std::size_t j = 0; j < keep; ++j)
                streamedNow[sizes[j].second] = true;
        }
        double flops = 0, contractionFlops = 0, exchangeBytes = 0, recomputeFlops = 0,
               recomputeContraction = 0;
        for (int i = first; i < end; ++i) {
            const auto& op = g.ops[std::size_t(i)];
            const auto& m = ops[std::size_t(i - first)];
            r.opStage[std::size_t(i)] = s;
            const std::string& nm = op.name;
            addVar(nm + "/weight", "weight", true, i, m.weights, 0, 0);
            addVar(nm + "/accumulator", "accumulator", true, i, m.accumulators, 0, 0);
            addVar(nm + "/optimizer", "optimizer", true, i, m.optimizerState, 0, 0);
            addVar(nm + "/master", "master", true, i, m.masterWeights, 0, 0);
            const std::int64_t stash = std::int64_t(double(m.stash) * mb * depth);
            w.stashBytes += stash;
            addVar(nm + "/stash", "stash", false, i, stash, fwdStep(i), bwdStep(i));
            addVar(nm + "/forward", "temporary", false, i, m.forwardTemp, fwdStep(i), fwdStep(i));
            if (!c.inference) {
                // Gradient buffers, the weight gradient and the plan's temporaries; with
                // recomputation, the layer's rebuilt activations.
                // The model's last op gets its output's gradient from the loss (the
                // loss/gradient variable below): not counted twice.
                const std::int64_t lossGradient = i == n - 1 ? m.outputGradient : 0;
                addVar(nm + "/backward", "temporary", false, i,
                       m.backwardTemp - lossGradient + m.recomputeStash, bwdStep(i), bwdStep(i));
                if (streamedNow[std::size_t(i - first)])
                    addVar(nm + "/update", "temporary", false, i, m.updateTemp, updateStep,
                           updateStep);
            }
            const double f =
                (c.inference ? op.forwardFlops : op.forwardFlops + op.backwardFlops) * mb;
            flops += f;
            if (isContraction(op.kind))
                contractionFlops += f;
            if (recompute) {
                recomputeFlops += op.forwardFlops * mb;
                if (isContraction(op.kind))
                    recomputeContraction += op.forwardFlops * mb;
            }
            exchangeBytes += passes * double(op.inputBytes) * mb;
        }
        if (end == n && !c.inference) {
            // The loss gradient enters backward on the stage that ends the model.
            const auto& last = g.ops[std::size_t(end - 1)];
            addVar("loss/gradient", "temporary", false, end - 1,
                   std::int64_t(double(last.activationBytes) * computeBytes(c.precision) /
                                std::max(1, graph::dtypeBytes(last.dtype)) * mb),
                   bwdStep(end - 1), bwdStep(end - 1));
        }
        w.varEnd = prof.variables.size();

        // Liveness per step (difference arrays over this stage's steps).
        std::vector<std::int64_t> alive(static_cast<std::size_t>(stepCount) + 1, 0);
        std::int64_t always = 0;
        for (std::size_t vi = w.varBegin; vi < w.varEnd; ++vi) {
            const auto& v = prof.variables[vi];
            const std::int64_t mapped = v.bytesPerTile * v.tileCount;
            if (v.alwaysLive) {
                always += mapped;
                continue;
            }
            alive[std::size_t(v.liveFrom - stepBase)] += mapped;
            alive[std::size_t(v.liveTo - stepBase) + 1] -= mapped;
        }
        std::int64_t run = 0;
        w.peakLive = -1;
        w.peakStep = stepBase;
        for (int j = 0; j < stepCount; ++j) {
            run += alive[std::size_t(j)];
            auto& step = prof.steps[std::size_t(stepBase) + std::size_t(j)];
            step.alwaysLiveBytes = always;
            step.notAlwaysLiveBytes = run;
            if (run > w.peakLive) {
                w.peakLive = run;
                w.peakStep = stepBase + j;
            }
        }

        // 3. Cycles: compute at the efficiency of each op family, exchange inside the IPU, and
        // the IPU-Link transfer of the boundary activation (and its gradient back).
        const double otherFlops = flops - contractionFlops;
        const double computeSec = contractionFlops / (peak * k.matmulEfficiency) +
                                  otherFlops / (peak * k.elementwiseEfficiency);
        const double exchangeSec = exchangeBytes / t.ipu.exchangeBytesPerSec;
        double linkSec = 0;
        if (s + 1 < stageCount) {
            const auto& last = g.ops[std::size_t(end - 1)];
            const double bytes = double(last.activationBytes) * computeBytes(c.precision) /
                                 std::max(1, graph::dtypeBytes(last.dtype)) * mb;
            linkSec = bytes / t.ipu.interIpuBytesPerSec;
            link[std::size_t(s)] = linkSec;
        }
        const double recomputeSec =
            recomputeContraction / (peak * k.matmulEfficiency) +
            (recomputeFlops - recomputeContraction) / (peak * k.elementwiseEfficiency);
        st.flops = flops + recomputeFlops;
        st.computeCycles = (computeSec + recomputeSec) * clock;
        st.exchangeCycles = exchangeSec * clock;
        st.linkCycles = (c.inference ? 1 : 2) * linkSec * clock;
        const double total = computeSec + exchangeSec;
        st.forwardSeconds = c.inference ? total : total / 3.0;
        st.backwardSeconds = c.inference ? 0 : total * 2.0 / 3.0 + recomputeSec;
        fwd[std::size_t(s)] = st.forwardSeconds;
        bwd[std::size_t(s)] = st.backwardSeconds;
        prof.stages.push_back(st);
    }

    // 4. Tiles, IPU by IPU: every variable of the IPU's stages that is live at the IPU's peak
    // (the stage whose own peak plus the other stages' stashes is largest), code and gaps.
    for (int ipu = 0; ipu < p; ++ipu) {
        std::vector<int> mine;
        for (int s = 0; s < stageCount; ++s)
            if (work[std::size_t(s)].place.ipu == ipu)
                mine.push_back(s);
        if (mine.empty())
            continue;
        std::int64_t stashAll = 0;
        for (int s : mine)
            stashAll += work[std::size_t(s)].stashBytes;
        int peakStage = mine.front();
        std::int64_t best = -1;
        for (int s : mine) {
            const auto& w = work[std::size_t(s)];
            const std::int64_t v = w.peakLive + stashAll - w.stashBytes;
            if (v > best) {
                best = v;
                peakStage = s;
            }
        }
        const int base = ipu * tiles;
        std::array<std::vector<std::int64_t>, kMemoryCategories> diff;
        for (auto& d : diff)
            d.assign(std::size_t(tiles) + 1, 0);
        std::vector<std::int64_t> contractionTouch(static_cast<std::size_t>(tiles) + 1, 0);
        std::vector<std::int64_t> otherTouch(static_cast<std::size_t>(tiles) + 1, 0);
        const auto add = [&](std::vector<std::int64_t>& d, int firstTile, int tileCount,
                             std::int64_t bytes) {
            addTileRange(d, computeTiles, firstTile - base, tileCount, bytes);
        };
        int steps = 0;
        for (int s : mine) {
            const auto& w = work[std::size_t(s)];
            steps += w.stepCount;
            const int peakStep = work[std::size_t(peakStage)].peakStep;
            for (std::size_t vi = w.varBegin; vi < w.varEnd; ++vi) {
                const auto& v = prof.variables[vi];
                const bool live =
                    v.alwaysLive || (s == peakStage ? v.liveFrom <= peakStep && peakStep <= v.liveTo
                                                    : v.kind == std::string("stash"));
                if (live) {
                    const auto cat =
                        v.alwaysLive ? MemoryCategory::AlwaysLive : MemoryCategory::NotAlwaysLive;
                    add(diff[int(cat)], v.firstTile, v.tileCount, v.bytesPerTile);
                    add(diff[int(MemoryCategory::Gaps)], v.firstTile, v.tileCount,
                        k.gapBytesPerPiece);
                }
            }
            // The op's compute runs where its tensors live: vertices, their state and the
            // exchange that brings its inputs there, once per op, on the tiles of its widest
            // tensor.
            std::vector<int> widest(std::size_t(w.place.endOp - w.place.firstOp), -1);
            for (std::size_t vi = w.varBegin; vi < w.varEnd; ++vi) {
                const auto& v = prof.variables[vi];
                if (v.op < w.place.firstOp || v.op >= w.place.endOp || v.kind == "optimizer" ||
                    v.kind == "accumulator" || v.kind == "master")
                    continue;
                int& best = widest[std::size_t(v.op - w.place.firstOp)];
                if (best < 0 || v.tileCount > prof.variables[std::size_t(best)].tileCount)
                    best = int(vi);
            }
            for (int vi : widest) {
                if (vi < 0)
                    continue;
                const auto& v = prof.variables[std::size_t(vi)];
                const auto& op = g.ops[std::size_t(v.op)];
                const bool mm = isContraction(op.kind);
                add(mm ? contractionTouch : otherTouch, v.firstTile, v.tileCount, 1);
                // One vertex per compute set on each tile: PopLibs' codelets are MultiVertex
                // (one vertex runs on all the tile's worker threads), not one per thread.
                const std::int64_t vertices =
                    std::int64_t(c.inference ? 1 : k.computeSetsPerOp) * k.verticesPerComputeSet;
                add(diff[int(MemoryCategory::VertexState)], v.firstTile, v.tileCount,
                    vertices * k.vertexStateBytes);
                const double received = passes * double(op.inputBytes) * mb / v.tileCount;
                add(diff[int(MemoryCategory::ExchangeCode)], v.firstTile, v.tileCount,
                    k.exchangeCodePerOp + std::int64_t(received * k.exchangeCodePerByte));
            }
        }
        // Control code: every compute tile runs the whole program of its IPU's stages.
        add(diff[int(MemoryCategory::ControlCode)], base, computeTiles,
            k.controlBytesBase + k.controlBytesPerStep * steps);
        std::int64_t runMM = 0, runOther = 0;
        std::array<std::int64_t, kMemoryCategories> runs{};
        std::vector<std::int64_t> stageUsed(static_cast<std::size_t>(stageCount), 0);
        std::int64_t ipuUsed = 0, ipuMax = 0;
        int ipuOom = 0;
        for (int local = 0; local < tiles; ++local) {
            const int tIdx = base + local;
            runMM += contractionTouch[std::size_t(local)];
            runOther += otherTouch[std::size_t(local)];
            // Codelets are shared by every op of one kind on a tile: count each family once.
            std::int64_t code =
                (runMM > 0 ? k.codeMatmulBytes : 0) + (runOther > 0 ? k.codeOtherBytes : 0);
            std::int64_t total = code;
            prof.tileBytes[int(MemoryCategory::VertexCode)][std::size_t(tIdx)] = code;
            for (int cat = 0; cat < kMemoryCategories; ++cat) {
                if (cat == int(MemoryCategory::VertexCode))
                    continue;
                runs[std::size_t(cat)] += diff[std::size_t(cat)][std::size_t(local)];
                prof.tileBytes[std::size_t(cat)][std::size_t(tIdx)] = runs[std::size_t(cat)];
                total += runs[std::size_t(cat)];
            }
            ipuUsed += total;
            ipuMax = std::max(ipuMax, total);
            if (total > t.ipu.tileMemoryBytes)
                ++ipuOom;
        }
        // The IPU's figures go to its stages (the first one carries them when several share).
        StageProfile& head = prof.stages[std::size_t(mine.front())];
        head.usedBytes = ipuUsed;
        head.oomTiles = ipuOom;
        for (int s : mine)
            prof.stages[std::size_t(s)].maxTileBytes = ipuMax;
        prof.oomTiles += ipuOom;
        prof.maxTileBytes = std::max(prof.maxTileBytes, ipuMax);
        prof.totalBytes += ipuUsed;
    }

    // 5. Schedule and throughput.
    const int m = c.inference ? 1 : std::max(1, c.gradAccum);
    prof.schedule = simulateSchedule(c.schedule, fwd, bwd, link, m);
    double makespan = 0;
    for (const auto& e : prof.schedule)
        makespan = std::max(makespan, e.end);
    double maxUpdate = 0;
    if (!c.inference)
        for (const auto& st : prof.stages) {
            std::int64_t params = 0;
            for (int i = st.firstOp; i < st.endOp; ++i)
                params += g.ops[std::size_t(i)].paramCount;
            // Weight update: a few FLOPs per parameter, bound by memory like elementwise work.
            maxUpdate =
                std::max(maxUpdate, 10.0 * double(params) / (peak * k.elementwiseEfficiency));
        }
    prof.stepSeconds = makespan + maxUpdate;
    prof.bubble = bubbleFraction(stageCount, m);
    const double samples = mb * m * std::max(1, c.replicas);
    prof.samplesPerSecond = prof.stepSeconds > 0 ? samples / prof.stepSeconds : 0;
    // Balance is between IPUs, not stages: a stage that shares an IPU (the tied head back on the
    // embeddings' IPU) adds its time to that IPU's, so a small head stage does not read as a
    // badly balanced pipeline.
    std::map<int, double> perIpu;
    for (int s = 0; s < stageCount; ++s)
        perIpu[prof.stages[std::size_t(s)].ipu] += fwd[std::size_t(s)] + bwd[std::size_t(s)];
    double slow = 0, fast = 1e300;
    for (const auto& [ipu, tt] : perIpu) {
        slow = std::max(slow, tt);
        fast = std::min(fast, tt);
    }
    prof.balance = slow > 0 ? fast / slow : 1;

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
            slots * k.optimizerStateBytes -
            (c.halfFirstOrderMomentum && slots > 0 ? k.optimizerStateBytes - k.halfMomentumBytes
                                                   : 0) +
            (c.precision == Precision::Mixed ? 4 : 0);
        std::int64_t offChip = 0;
        for (int i = 0; i < n; ++i)
            offChip += g.ops[std::size_t(i)].paramCount * perParam;
        if (c.replicatedTensorSharding)
            offChip /= std::max(1, c.replicas);
        if (double(offChip) > t.ipu.streamingMemoryBytes * p) {
            supported = false;
            r.diagnostics.push_back({Severity::Error,
                                     "compile.streaming-memory",
                                     "the optimizer state does not fit in streaming memory",
                                     {}});
        }
    }
    r.memory = estimateTrainingMemory(g, c, 0, n, 1);
    // Fits only when every tile holds its share and the target can run it at all.
    r.fits = prof.oomTiles == 0 && supported;
    r.peakBytes = prof.maxTileBytes;
    r.capacityBytes = t.ipu.tileMemoryBytes;
    r.samplesPerSecond = prof.samplesPerSecond;
    r.ipu = std::move(prof);
    return Result<CompileResult>::ok(std::move(r));
}

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

std::string percent(double v)
{
    return format::percent(v);
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
    std::vector<StageFill> fill;
    std::vector<Diagnostic> notes; // what the split did, for the result's diagnostics
};

// The automatic split for one item layout. Phase 1: the exact min-max partition of the items'
// time under the memory cap of the per-item estimate (partition.h). Phase 2: memory repair
// against the simulated IPUs (repairPartitionMemory), which moves layers off an IPU the
// estimate put over capacity.
AutomaticSplit splitAutomatically(const graph::OpGraph& g, const targets::Target& t,
                                  const CompileOptions& o, const IpuModelConstants& k,
                                  const SplitItems& items, const std::vector<double>& opCost,
                                  const std::vector<std::int64_t>& opMemory,
                                  const std::vector<Diagnostic>& diagnostics)
{
    AutomaticSplit out;
    const int p = std::max(1, o.ipus);
    const int tiles = t.ipu.tiles;
    const int computeTiles = tiles - std::clamp(o.training.ioTiles, 0, tiles - 1);
    const std::int64_t ipuBytes = std::int64_t(computeTiles) * t.ipu.tileMemoryBytes;
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
    const StageMeasure measure = [&](const std::vector<int>& starts) {
        auto r = simulatePlacement(g, t, o, k, placementOfItems(items, starts), prof, diagnostics);
        if (!r) {
            failed = r.error.message;
            return std::vector<StageFill>(std::size_t(p), StageFill{2, 2});
        }
        auto fill = ipuFill(*r.value->ipu, ipuBytes);
        if (!first)
            first = std::move(r);
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
    } else {
        out.result = simulatePlacement(g, t, o, k, placementOfItems(items, repaired.starts), prof,
                                       diagnostics);
        if (out.result && repaired.moves > 0 && first && *first) {
            const auto before = ipuFill(*first->value->ipu, ipuBytes);
            std::string was, now;
            for (std::size_t i = 0; i < before.size(); ++i) {
                was += (i ? ", " : "") + percent(before[i].peak);
                now += (i ? ", " : "") + percent(repaired.fill[i].peak);
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

Result<CompileResult> simulateIpu(const graph::OpGraph& g, const targets::Target& t,
                                  const CompileOptions& o, const IpuModelConstants& k)
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

    // 1. Placement: the user's split, or the automatic one (memory-aware; see
    // splitAutomatically).
    Result<CompileResult> r = Result<CompileResult>::fail({});
    if (!o.split.empty()) {
        auto placed = placeSplit(g, LayerSplit(o.split), p);
        if (!placed)
            return Result<CompileResult>::fail(placed.error);
        IpuProfile prof;
        prof.splitSource = "user";
        prof.splitUnit = placed.value->unit;
        r = simulatePlacement(g, t, o, k, *placed.value, std::move(prof), g.diagnostics);
    } else {
        std::vector<double> cost;
        std::vector<std::int64_t> memory;
        ipuOpCosts(g, t, o, k, cost, memory);
        // Cut between layers when there are enough of them, as PopTorch's BeginBlock does: a
        // cut inside a layer would stash a mid-layer tensor (attention scores) per micro-batch.
        // The head tied to the embedding goes with the last layers, or, when that leaves an IPU
        // over capacity, back on the embedding's IPU as Graphcore places it: whichever fits.
        const SplitItems contiguous = splitItems(g, p, false);
        AutomaticSplit a = splitAutomatically(g, t, o, k, contiguous, cost, memory, g.diagnostics);
        if (a.result && overCapacity(a.fill)) {
            const SplitItems withOwner = splitItems(g, p, true);
            if (withOwner.count != contiguous.count && withOwner.count >= p) {
                AutomaticSplit b =
                    splitAutomatically(g, t, o, k, withOwner, cost, memory, g.diagnostics);
                const auto worst = [](const std::vector<StageFill>& f) {
                    double w = 0;
                    for (const auto& x : f)
                        w = std::max(w, x.peak);
                    return w;
                };
                if (b.result && (!overCapacity(b.fill) || worst(b.fill) < worst(a.fill))) {
                    b.notes.push_back({Severity::Info,
                                       "compile.tied-head",
                                       "the head tied to the embedding runs on the embedding's "
                                       "IPU (as Graphcore places it): with the last layers, an "
                                       "IPU was over capacity",
                                       {}});
                    a = std::move(b);
                }
            }
        }
        if (!a.result)
            return std::move(a.result);
        r = std::move(a.result);
        for (auto& d : a.notes)
            r.value->diagnostics.push_back(std::move(d));
    }
    if (r)
        r.value->graph = g;
    return r;
}

} // namespace portolan::sim
