#include "core/sim/ipu_sim.h"

#include "core/sim/partition.h"
#include "core/sim/schedule.h"

#include <algorithm>
#include <cmath>

namespace portolan::sim {

namespace {

bool isContraction(const std::string& kind)
{
    for (const char* k : {"Linear", "Conv", "matmul", "linear", "conv", "mm", "bmm", "addmm",
                          "Bilinear", "convolution", "baddbmm"})
        if (kind.find(k) != std::string::npos)
            return true;
    return false;
}

double peakFlops(const targets::Target& t, Precision p)
{
    return p == Precision::Fp32 ? t.ipu.fp32Flops : t.ipu.fp16Flops;
}

// Micro-batches whose activations a stage holds at once: GPipe keeps every micro-batch of the
// step; 1F1B keeps at most the number of stages from this one to the last.
int inFlight(const TrainingConfig& c, int stage, int stages)
{
    const int m = std::max(1, c.gradAccum);
    if (stages <= 1)
        return 1;
    return c.schedule == Schedule::GPipe ? m : std::min(m, stages - stage);
}

// Adds `bytes` to tiles [first, first+count) of one IPU (wrapping) in a difference array.
void addRange(std::vector<std::int64_t>& diff, int ipuBase, int tiles, int first, int count,
              std::int64_t bytes)
{
    const int local = first - ipuBase;
    const int endLocal = local + count;
    if (endLocal <= tiles) {
        diff[std::size_t(ipuBase + local)] += bytes;
        diff[std::size_t(ipuBase + endLocal)] -= bytes;
    } else {
        diff[std::size_t(ipuBase + local)] += bytes;
        diff[std::size_t(ipuBase + tiles)] -= bytes;
        diff[std::size_t(ipuBase)] += bytes;
        diff[std::size_t(ipuBase + endLocal - tiles)] -= bytes;
    }
}

struct Mapper
{
    const IpuModelConstants& k;
    int tiles;
    int cursor = 0; // rotating start, so small tensors do not all land on tile 0

    void map(Variable& v, int ipu)
    {
        const std::int64_t bytes = std::max<std::int64_t>(v.bytes, 1);
        const std::int64_t wanted = (bytes + k.minBytesPerTile - 1) / k.minBytesPerTile;
        v.tileCount = int(std::min<std::int64_t>(tiles, wanted));
        const std::int64_t share = (bytes + v.tileCount - 1) / v.tileCount;
        v.bytesPerTile = (share + k.grainBytes - 1) / k.grainBytes * k.grainBytes;
        v.firstTile = ipu * tiles + cursor;
        cursor = (cursor + v.tileCount) % tiles;
    }
};

} // namespace

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
    const auto ops = perOpMemory(g, c);
    const double peak = peakFlops(t, c.precision);
    const double mb = std::max(1, c.microBatch);
    const int flight = inFlight(c, 0, o.ipus);
    cost.resize(g.ops.size());
    memory.resize(g.ops.size());
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        const auto& op = g.ops[i];
        const double eff = isContraction(op.kind) ? k.matmulEfficiency : k.elementwiseEfficiency;
        cost[i] = (op.forwardFlops + op.backwardFlops) * mb / (peak * eff) +
                  3.0 * double(op.inputBytes) * mb / t.ipu.exchangeBytesPerSec;
        const auto& m = ops[i];
        memory[i] = m.weights + m.gradients + m.gradAccumulators + m.optimizerState +
                    m.masterWeights + std::int64_t(m.stash * mb * flight);
    }
}

Result<CompileResult> simulateIpu(const graph::OpGraph& g, const targets::Target& t,
                                  const CompileOptions& o, const IpuModelConstants& k)
{
    CompileResult r;
    r.options = o;
    r.targetName = t.name;
    r.targetKind = "ipu";
    r.graph = g;
    r.diagnostics = g.diagnostics;
    const auto& c = o.training;
    const int p = std::max(1, o.ipus);
    const int n = int(g.ops.size());
    if (n == 0)
        return Result<CompileResult>::fail(
            {Severity::Error, "compile.empty", "the model has no ops to compile", {}});

    // 1. The split.
    std::vector<double> cost;
    std::vector<std::int64_t> memory;
    ipuOpCosts(g, t, o, k, cost, memory);
    const std::int64_t ipuBytes = std::int64_t(t.ipu.tiles) * t.ipu.tileMemoryBytes;
    IpuProfile prof;
    std::vector<int> starts;
    if (!o.split.empty()) {
        if (int(o.split.size()) != p)
            return Result<CompileResult>::fail({Severity::Error,
                                                "compile.split",
                                                "the split has " + std::to_string(o.split.size()) +
                                                    " stages but " + std::to_string(p) +
                                                    " IPUs were asked for",
                                                {}});
        std::vector<int> opLayer(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i)
            opLayer[std::size_t(i)] = g.ops[std::size_t(i)].layer;
        auto s =
            splitFromLayers(opLayer, int(std::max<std::size_t>(1, g.layerNames.size())), o.split);
        if (!s.error.empty())
            return Result<CompileResult>::fail(
                Diagnostic{Severity::Error, "compile.split", s.error, {}});
        starts = s.starts;
        prof.splitSource = "user";
    } else {
        auto part =
            partitionMinMax(cost, memory, p, std::int64_t(double(ipuBytes) * k.usableFraction));
        if (!part.feasible) {
            // It does not fit anyway: balance compute alone and let the tiles show the overflow.
            part = partitionMinMax(cost, memory, p, 0);
            Diagnostic d{Severity::Warning,
                         "compile.no-memory-split",
                         "no split keeps every stage under " +
                             std::to_string(int(k.usableFraction * 100)) +
                             "% of IPU memory; the split balances compute only",
                         {}};
            r.diagnostics.push_back(d);
        }
        if (!part.feasible)
            return Result<CompileResult>::fail({Severity::Error, "compile.split", part.reason, {}});
        starts = part.starts;
        prof.splitSource = "automatic";
    }

    // 2. Stages, variables, tile mapping, program steps.
    const int tiles = t.ipu.tiles;
    prof.ipusPerReplica = p;
    prof.tilesPerIpu = tiles;
    prof.tileCapacity = t.ipu.tileMemoryBytes;
    const int totalTiles = tiles * p;
    for (auto& cat : prof.tileBytes)
        cat.assign(std::size_t(totalTiles), 0);
    r.opStage.assign(std::size_t(n), 0);
    const double mb = std::max(1, c.microBatch);
    const double peak = peakFlops(t, c.precision);
    const double clock = t.ipu.clockHz;
    const auto stagesCount = static_cast<std::size_t>(p);
    std::vector<double> fwd(stagesCount), bwd(stagesCount), link(stagesCount, 0);

    for (int s = 0; s < p; ++s) {
        const int first = starts[std::size_t(s)], end = starts[std::size_t(s) + 1];
        const int flight = inFlight(c, s, p);
        StageProfile st;
        st.index = s;
        st.ipu = s;
        st.firstOp = first;
        st.endOp = end;
        st.firstLayer = g.ops[std::size_t(first)].layer;
        st.endLayer = g.ops[std::size_t(end - 1)].layer + 1;
        st.memory = estimateTrainingMemory(g, c, first, end, flight);
        const auto ops = perOpMemory(g, c, first, end);
        Mapper mapper{k, tiles};
        const int base = s * tiles;
        const int stepBase = int(prof.steps.size());
        const int count = end - first;
        // Steps: forward of each op, backward in reverse, then the weight update.
        for (int i = first; i < end; ++i)
            prof.steps.push_back({"fwd " + g.ops[std::size_t(i)].name, "forward", s, i, 0, 0});
        for (int i = end - 1; i >= first; --i)
            prof.steps.push_back({"bwd " + g.ops[std::size_t(i)].name, "backward", s, i, 0, 0});
        prof.steps.push_back({"update stage " + std::to_string(s), "update", s, -1, 0, 0});
        const int updateStep = stepBase + 2 * count;
        const auto fwdStep = [&](int i) {
            return stepBase + (i - first);
        };
        const auto bwdStep = [&](int i) {
            return stepBase + count + (end - 1 - i);
        };
        const std::size_t varBase = prof.variables.size();
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
            mapper.map(v, s);
            prof.variables.push_back(std::move(v));
        };
        double flops = 0, contractionFlops = 0, exchangeBytes = 0;
        for (int i = first; i < end; ++i) {
            const auto& op = g.ops[std::size_t(i)];
            const auto& m = ops[std::size_t(i - first)];
            r.opStage[std::size_t(i)] = s;
            const std::string& nm = op.name;
            addVar(nm + "/weight", "weight", true, i, m.weights, 0, 0);
            addVar(nm + "/gradient", "gradient", true, i, m.gradients, 0, 0);
            addVar(nm + "/accumulator", "accumulator", true, i, m.gradAccumulators, 0, 0);
            addVar(nm + "/optimizer", "optimizer", true, i, m.optimizerState, 0, 0);
            addVar(nm + "/master", "master", true, i, m.masterWeights, 0, 0);
            addVar(nm + "/stash", "stash", false, i, std::int64_t(double(m.stash) * mb * flight),
                   fwdStep(i), bwdStep(i));
            // Gradient buffers of the op's backward, plus the new weight gradient.
            addVar(nm + "/grad-buffers", "temporary", false, i,
                   std::int64_t(double(m.temporary) * mb) + m.gradients, bwdStep(i), bwdStep(i));
            const double f = (op.forwardFlops + op.backwardFlops) * mb;
            flops += f;
            if (isContraction(op.kind))
                contractionFlops += f;
            exchangeBytes += 3.0 * double(op.inputBytes) * mb;
        }
        if (end == n) // the loss gradient enters backward on the last stage
            addVar("loss/gradient", "temporary", false, end - 1,
                   std::int64_t(double(ops.back().activation) * mb), bwdStep(end - 1),
                   bwdStep(end - 1));

        // Liveness per step (difference arrays over this stage's steps).
        const int stepCount = 2 * count + 1;
        std::vector<std::int64_t> alive(static_cast<std::size_t>(stepCount) + 1, 0);
        std::int64_t always = 0;
        for (std::size_t vi = varBase; vi < prof.variables.size(); ++vi) {
            const auto& v = prof.variables[vi];
            const std::int64_t mapped = v.bytesPerTile * v.tileCount;
            if (v.alwaysLive) {
                always += mapped;
                continue;
            }
            alive[std::size_t(v.liveFrom - stepBase)] += mapped;
            alive[std::size_t(v.liveTo - stepBase) + 1] -= mapped;
        }
        std::int64_t run = 0, peakLive = -1;
        int peakStep = stepBase;
        for (int j = 0; j < stepCount; ++j) {
            run += alive[std::size_t(j)];
            auto& step = prof.steps[std::size_t(stepBase + j)];
            step.alwaysLiveBytes = always;
            step.notAlwaysLiveBytes = run;
            if (run > peakLive) {
                peakLive = run;
                peakStep = stepBase + j;
            }
        }

        // Per-tile memory by category: variables (not-always-live at the peak step), code,
        // vertex state, exchange code, control code and gaps.
        // Difference arrays over this stage's own tiles only: sized for all 94,208 tiles of 64
        // IPUs they cost more to clear, stage after stage, than the whole simulation.
        std::array<std::vector<std::int64_t>, kMemoryCategories> diff;
        for (auto& d : diff)
            d.assign(std::size_t(tiles) + 1, 0);
        std::vector<std::int64_t> contractionTouch(static_cast<std::size_t>(tiles) + 1, 0);
        std::vector<std::int64_t> otherTouch(static_cast<std::size_t>(tiles) + 1, 0);
        const auto add = [&](std::vector<std::int64_t>& d, int firstTile, int tileCount,
                             std::int64_t bytes) {
            addRange(d, 0, tiles, firstTile - base, tileCount, bytes);
        };
        for (std::size_t vi = varBase; vi < prof.variables.size(); ++vi) {
            const auto& v = prof.variables[vi];
            const bool liveAtPeak =
                v.alwaysLive || (v.liveFrom <= peakStep && peakStep <= v.liveTo);
            if (liveAtPeak) {
                const auto cat =
                    v.alwaysLive ? MemoryCategory::AlwaysLive : MemoryCategory::NotAlwaysLive;
                add(diff[int(cat)], v.firstTile, v.tileCount, v.bytesPerTile);
                add(diff[int(MemoryCategory::Gaps)], v.firstTile, v.tileCount, k.gapBytesPerPiece);
            }
            if (v.kind == std::string("stash") || v.kind == std::string("weight")) {
                // The op's compute runs where its tensors live: vertices, their state and
                // the exchange that brings its inputs there.
                const auto& op = g.ops[std::size_t(v.op)];
                const bool mm = isContraction(op.kind);
                add(mm ? contractionTouch : otherTouch, v.firstTile, v.tileCount, 1);
                const std::int64_t vertices =
                    std::int64_t(k.computeSetsPerOp) * t.ipu.threadsPerTile;
                add(diff[int(MemoryCategory::VertexState)], v.firstTile, v.tileCount,
                    vertices * k.vertexStateBytes);
                const double received = 3.0 * double(op.inputBytes) * mb / v.tileCount;
                add(diff[int(MemoryCategory::ExchangeCode)], v.firstTile, v.tileCount,
                    k.exchangeCodePerOp + std::int64_t(received * k.exchangeCodePerByte));
            }
        }
        // Control code: every tile runs the whole program of its stage.
        add(diff[int(MemoryCategory::ControlCode)], base, tiles,
            k.controlBytesBase + k.controlBytesPerStep * stepCount);
        std::int64_t runMM = 0, runOther = 0;
        std::array<std::int64_t, kMemoryCategories> runs{};
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
            st.usedBytes += total;
            st.maxTileBytes = std::max(st.maxTileBytes, total);
            if (total > t.ipu.tileMemoryBytes)
                ++st.oomTiles;
        }

        // 3. Cycles: compute at the efficiency of each op family, exchange inside the IPU, and
        // the IPU-Link transfer of the boundary activation (and its gradient back).
        const double otherFlops = flops - contractionFlops;
        const double computeSec = contractionFlops / (peak * k.matmulEfficiency) +
                                  otherFlops / (peak * k.elementwiseEfficiency);
        const double exchangeSec = exchangeBytes / t.ipu.exchangeBytesPerSec;
        double linkSec = 0;
        if (s + 1 < p) {
            const auto& last = g.ops[std::size_t(end - 1)];
            const double bytes = double(last.activationBytes) * computeBytes(c.precision) /
                                 std::max(1, graph::dtypeBytes(last.dtype)) * mb;
            linkSec = bytes / t.ipu.interIpuBytesPerSec;
            link[std::size_t(s)] = linkSec;
        }
        st.flops = flops;
        st.computeCycles = computeSec * clock;
        st.exchangeCycles = exchangeSec * clock;
        st.linkCycles = 2 * linkSec * clock;
        // Backward is 2x forward in FLOPs, so a third of the stage time is forward.
        st.forwardSeconds = (computeSec + exchangeSec) / 3.0;
        st.backwardSeconds = (computeSec + exchangeSec) * 2.0 / 3.0;
        fwd[std::size_t(s)] = st.forwardSeconds;
        bwd[std::size_t(s)] = st.backwardSeconds;
        prof.oomTiles += st.oomTiles;
        prof.maxTileBytes = std::max(prof.maxTileBytes, st.maxTileBytes);
        prof.totalBytes += st.usedBytes;
        prof.stages.push_back(std::move(st));
    }

    // 4. Schedule and throughput.
    const int m = std::max(1, c.gradAccum);
    prof.schedule = simulateSchedule(c.schedule, fwd, bwd, link, m);
    double makespan = 0;
    for (const auto& e : prof.schedule)
        makespan = std::max(makespan, e.end);
    // Weight update: a few FLOPs per parameter, bound by memory like elementwise work.
    double maxUpdate = 0;
    for (const auto& st : prof.stages) {
        std::int64_t params = 0;
        for (int i = st.firstOp; i < st.endOp; ++i)
            params += g.ops[std::size_t(i)].paramCount;
        maxUpdate = std::max(maxUpdate, 10.0 * double(params) / (peak * k.elementwiseEfficiency));
    }
    prof.stepSeconds = makespan + maxUpdate;
    prof.bubble = bubbleFraction(p, m);
    const double samples = mb * m * std::max(1, c.replicas);
    prof.samplesPerSecond = prof.stepSeconds > 0 ? samples / prof.stepSeconds : 0;
    double slow = 0, fast = 1e300;
    for (int s = 0; s < p; ++s) {
        const double tt = fwd[std::size_t(s)] + bwd[std::size_t(s)];
        slow = std::max(slow, tt);
        fast = std::min(fast, tt);
    }
    prof.balance = slow > 0 ? fast / slow : 1;

    if (c.optimizerOffChip) {
        std::int64_t offChip = 0;
        for (int i = 0; i < n; ++i)
            offChip += g.ops[std::size_t(i)].paramCount *
                       (optimizerSlots(c.optimizer) + (c.precision == Precision::Mixed ? 1 : 0)) *
                       stateBytes(c.precision);
        if (double(offChip) > t.ipu.streamingMemoryBytes * p)
            r.diagnostics.push_back({Severity::Error,
                                     "compile.streaming-memory",
                                     "the optimizer state does not fit in streaming memory",
                                     {}});
    }
    r.memory = estimateTrainingMemory(g, c, 0, n, 1);
    r.fits = prof.oomTiles == 0;
    r.peakBytes = prof.maxTileBytes;
    r.capacityBytes = t.ipu.tileMemoryBytes;
    r.samplesPerSecond = prof.samplesPerSecond;
    r.ipu = std::move(prof);
    return Result<CompileResult>::ok(std::move(r));
}

} // namespace portolan::sim
