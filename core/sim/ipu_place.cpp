// The place and memory phases of the IPU simulation (ipu_phases.h): a stage's variables on its
// IPU's tiles, its steps, liveness and cycles; an IPU's tiles by category at its peak.
#include "core/sim/ipu_memory.h"
#include "core/sim/ipu_phases.h"
#include "core/sim/tiles.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <utility>

namespace portolan::sim::ipu {

namespace {

// The report's word for a variable's kind.
const char* variableKindName(VariableKind k)
{
    switch (k) {
    case VariableKind::Weight:
        return "weight";
    case VariableKind::Accumulator:
        return "accumulator";
    case VariableKind::Optimizer:
        return "optimizer";
    case VariableKind::Master:
        return "master";
    case VariableKind::Stash:
        return "stash";
    case VariableKind::Temporary:
        return "temporary";
    }
    return "temporary";
}

// Maps a variable onto the tiles of its IPU: as few tiles as keep each piece at least
// minBytesPerTile, in whole grains, from a rotating start so that small tensors do not all land
// on tile 0.
struct Mapper
{
    const IpuModelConstants& k;
    int tiles; // compute tiles of the IPU (I/O tiles excluded)
    int tilesPerIpu;
    int cursor = 0;

    void map(PlacedVariable& v, int ipu)
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

// Of a stage's ops, those whose optimizer state is on chip for the update at once: all of them,
// or with the state off chip, the largest `offChipWeightsInFlight`. State kept off chip comes on
// chip for its weight's update and goes back before the next weight's (PopART: RemoteLoad,
// VarUpdate, RemoteStore per weight).
std::vector<bool> stateOnChipForUpdate(const Context& x, const std::vector<IpuOpMemory>& ops)
{
    std::vector<bool> now(ops.size(), true);
    if (!x.o.training.optimizerOffChip || x.o.training.inference)
        return now;
    std::vector<std::pair<std::int64_t, std::size_t>> sizes;
    for (std::size_t j = 0; j < ops.size(); ++j)
        if (ops[j].updateTemp > 0)
            sizes.push_back({ops[j].updateTemp, j});
    const std::size_t keep =
        std::min(sizes.size(), std::size_t(std::max(1, x.k.offChipWeightsInFlight)));
    std::partial_sort(sizes.begin(), sizes.begin() + std::ptrdiff_t(keep), sizes.end(),
                      std::greater<>());
    std::fill(now.begin(), now.end(), false);
    for (std::size_t j = 0; j < keep; ++j)
        now[sizes[j].second] = true;
    return now;
}

// The boundary activation (or the loss gradient) of op `op`, in the compute type, per
// micro-batch.
double activationBytes(const Context& x, int op)
{
    const auto& last = x.g.ops[std::size_t(op)];
    return double(last.activationBytes) * computeBytes(x.o.training.precision) /
           std::max(1, graph::dtypeBytes(last.dtype)) * x.microBatch;
}

// Liveness per step of a stage (difference arrays over its steps): its peak, and each step's
// bytes when the steps are kept.
void stageLiveness(PlacedStage& out, int stepBase)
{
    std::vector<std::int64_t> alive(static_cast<std::size_t>(out.stepCount) + 1, 0);
    std::int64_t always = 0;
    for (const auto& v : out.placed) {
        const std::int64_t mapped = v.bytesPerTile * v.tileCount;
        if (v.alwaysLive) {
            always += mapped;
            continue;
        }
        alive[std::size_t(v.liveFrom - stepBase)] += mapped;
        alive[std::size_t(v.liveTo - stepBase) + 1] -= mapped;
    }
    std::int64_t run = 0;
    out.peakLive = -1;
    out.peakStep = stepBase;
    for (int j = 0; j < out.stepCount; ++j) {
        run += alive[std::size_t(j)];
        if (!out.steps.empty()) {
            auto& step = out.steps[std::size_t(j)];
            step.alwaysLiveBytes = always;
            step.notAlwaysLiveBytes = run;
        }
        if (run > out.peakLive) {
            out.peakLive = run;
            out.peakStep = stepBase + j;
        }
    }
}

// The FLOPs of a stage per micro-batch, split by op family, with the recomputed forward apart.
struct StageFlops
{
    double all = 0, contraction = 0, exchangeBytes = 0, recompute = 0, recomputeContraction = 0;
};

// Cycles: compute at the efficiency of each op family, exchange inside the IPU, and the IPU-Link
// transfer of the boundary activation (and its gradient back).
void stageCycles(const Context& x, const StageKey& key, const StageFlops& f, PlacedStage& out)
{
    const auto& c = x.o.training;
    const auto& k = x.k;
    const double peak = x.peakFlops;
    const double clock = x.t.ipu.clockHz;
    const double computeSec = f.contraction / (peak * k.matmulEfficiency) +
                              (f.all - f.contraction) / (peak * k.elementwiseEfficiency);
    const double exchangeSec = f.exchangeBytes / x.t.ipu.exchangeBytesPerSec;
    double linkSec = 0;
    if (key.index + 1 < key.count) {
        linkSec = activationBytes(x, key.end - 1) / x.t.ipu.interIpuBytesPerSec;
        out.link = linkSec;
    }
    const double recomputeSec =
        f.recomputeContraction / (peak * k.matmulEfficiency) +
        (f.recompute - f.recomputeContraction) / (peak * k.elementwiseEfficiency);
    StageProfile& st = out.profile;
    st.flops = f.all + f.recompute;
    st.computeCycles = (computeSec + recomputeSec) * clock;
    st.exchangeCycles = exchangeSec * clock;
    st.linkCycles = (c.inference ? 1 : 2) * linkSec * clock;
    const double total = computeSec + exchangeSec;
    st.forwardSeconds = c.inference ? total : total / 3.0;
    st.backwardSeconds = c.inference ? 0 : total * 2.0 / 3.0 + recomputeSec;
    out.forward = st.forwardSeconds;
    out.backward = st.backwardSeconds;
}

// A stage's program steps, named: each op's forward in order, then (training) each backward in
// reverse and the weight update.
std::vector<ProgramStep> programSteps(const Context& x, const StageKey& key)
{
    const auto& g = x.g;
    const bool inference = x.o.training.inference;
    const int first = key.first, end = key.end, s = key.index, count = end - first;
    std::vector<ProgramStep> steps;
    steps.reserve(std::size_t(inference ? count : 2 * count + 1));
    for (int i = first; i < end; ++i)
        steps.push_back({"fwd " + g.ops[std::size_t(i)].name, "forward", s, i, 0, 0});
    if (!inference) {
        for (int i = end - 1; i >= first; --i)
            steps.push_back({"bwd " + g.ops[std::size_t(i)].name, "backward", s, i, 0, 0});
        steps.push_back({"update stage " + std::to_string(s), "update", s, -1, 0, 0});
    }
    return steps;
}

} // namespace

Context::Context(const graph::OpGraph& graph, const targets::Target& target,
                 const CompileOptions& options, const IpuModelConstants& constants, Detail d,
                 const OpKinds* given)
    : g(graph), t(target), o(options), k(constants), detail(d)
{
    const auto& c = o.training;
    ipus = std::max(1, o.ipus);
    tiles = t.ipu.tiles;
    ioTiles = std::clamp(c.ioTiles, 0, tiles - 1);
    computeTiles = tiles - ioTiles;
    microBatch = std::max(1, c.microBatch);
    peakFlops = c.precision == Precision::Fp32 ? t.ipu.fp32Flops : t.ipu.fp16Flops;
    passes = c.inference ? 1.0 : 3.0;
    kinds = given ? *given : opKinds(g, k.vocabularyMinRows);
}

PlacedStage placeStage(const Context& x, const StageKey& key)
{
    const auto& g = x.g;
    const auto& c = x.o.training;
    const bool named = x.detail == Detail::Full;
    const int n = int(g.ops.size());
    const int first = key.first, end = key.end, s = key.index, stepBase = key.stepBase;
    const int depth = stashDepth(c, s, key.count);
    PlacedStage out;
    out.detail = x.detail;
    StageProfile& st = out.profile;
    st.index = s;
    st.ipu = key.ipu;
    st.firstOp = first;
    st.endOp = end;
    st.firstLayer = g.ops[std::size_t(first)].layer;
    st.endLayer = g.ops[std::size_t(end - 1)].layer + 1;
    // This stage's recomputation and available memory proportion (its IPU's, from the per-IPU
    // lists).
    const TrainingConfig sc = c.forStage(key.ipu);
    // The stage's breakdown is the report's and the Profile's (memory by stage); no figure reads
    // it, and at 256 stages it is a pass over every op of the model per simulation.
    if (named)
        st.memory = estimateTrainingMemory(g, sc, first, end, std::max(1, depth));
    const auto ops =
        ipuOpMemory(g, sc, x.k, x.t.ipu.tileMemoryBytes, x.computeTiles, first, end, &x.kinds);
    Mapper mapper{x.k, x.computeTiles, x.tiles, key.cursor};
    const int count = end - first;
    if (named)
        out.steps = programSteps(x, key);
    out.stepCount = c.inference ? count : 2 * count + 1;
    // Up to seven variables an op (weight, accumulator, state, master, stash, forward, backward)
    // and a streamed update: growing the vector one by one moved each stage's several times.
    out.placed.reserve(std::size_t(count) * 7 + 1);
    if (named)
        out.variables.reserve(std::size_t(count) * 7 + 1);
    const int updateStep = stepBase + out.stepCount - 1;
    const auto fwdStep = [&](int i) {
        return stepBase + (i - first);
    };
    const auto bwdStep = [&](int i) {
        return c.inference ? fwdStep(i) : stepBase + count + (end - 1 - i);
    };
    const std::string noName;
    const auto addVar = [&](const std::string& opName, const char* suffix, VariableKind kind,
                            bool always, int op, std::int64_t bytes, int from, int to) {
        if (bytes <= 0)
            return;
        PlacedVariable& v = out.placed.emplace_back();
        v.kind = kind;
        v.alwaysLive = always;
        v.op = op;
        v.bytes = bytes;
        v.liveFrom = always ? stepBase : from;
        v.liveTo = always ? updateStep : to;
        mapper.map(v, key.ipu);
        if (named)
            out.variables.push_back({opName + suffix, variableKindName(kind), v.alwaysLive, s, v.op,
                                     v.bytes, v.firstTile, v.tileCount, v.bytesPerTile, v.liveFrom,
                                     v.liveTo});
    };
    // Recomputation runs each layer's forward again before its backward (PopTorch user guide,
    // "Recomputation": the activations between checkpoints are recomputed in the backward pass
    // instead of stored), so it costs a second forward pass.
    const bool recompute = sc.recompute && !c.inference;
    const std::vector<bool> streamedNow = stateOnChipForUpdate(x, ops);
    StageFlops f;
    for (int i = first; i < end; ++i) {
        const auto& op = g.ops[std::size_t(i)];
        const auto& m = ops[std::size_t(i - first)];
        const std::string& nm = named ? op.name : noName;
        addVar(nm, "/weight", VariableKind::Weight, true, i, m.weights, 0, 0);
        addVar(nm, "/accumulator", VariableKind::Accumulator, true, i, m.accumulators, 0, 0);
        addVar(nm, "/optimizer", VariableKind::Optimizer, true, i, m.optimizerState, 0, 0);
        addVar(nm, "/master", VariableKind::Master, true, i, m.masterWeights, 0, 0);
        const std::int64_t stash = std::int64_t(double(m.stash) * x.microBatch * depth);
        out.stashBytes += stash;
        addVar(nm, "/stash", VariableKind::Stash, false, i, stash, fwdStep(i), bwdStep(i));
        addVar(nm, "/forward", VariableKind::Temporary, false, i, m.forwardTemp, fwdStep(i),
               fwdStep(i));
        if (!c.inference) {
            // Gradient buffers, the weight gradient and the plan's temporaries; with
            // recomputation, the layer's rebuilt activations. The model's last op gets its
            // output's gradient from the loss (the loss/gradient variable below): not counted
            // twice.
            const std::int64_t lossGradient = i == n - 1 ? m.outputGradient : 0;
            addVar(nm, "/backward", VariableKind::Temporary, false, i,
                   m.backwardTemp - lossGradient + m.recomputeStash, bwdStep(i), bwdStep(i));
            if (streamedNow[std::size_t(i - first)])
                addVar(nm, "/update", VariableKind::Temporary, false, i, m.updateTemp, updateStep,
                       updateStep);
        }
        const double fl =
            (c.inference ? op.forwardFlops : op.forwardFlops + op.backwardFlops) * x.microBatch;
        f.all += fl;
        const bool contraction = x.kinds.contraction[std::size_t(i)];
        if (contraction)
            f.contraction += fl;
        if (recompute) {
            f.recompute += op.forwardFlops * x.microBatch;
            if (contraction)
                f.recomputeContraction += op.forwardFlops * x.microBatch;
        }
        f.exchangeBytes += x.passes * double(op.inputBytes) * x.microBatch;
    }
    if (end == n && !c.inference) {
        // The loss gradient enters backward on the stage that ends the model.
        const std::string loss = named ? "loss" : "";
        addVar(loss, named ? "/gradient" : "", VariableKind::Temporary, false, end - 1,
               std::int64_t(activationBytes(x, end - 1)), bwdStep(end - 1), bwdStep(end - 1));
    }
    out.cursorAfter = mapper.cursor;
    stageLiveness(out, stepBase);
    stageCycles(x, key, f, out);
    return out;
}

namespace {

// Codelets are shared by every op of one kind on a tile: each family counts once.
std::int64_t vertexCode(const Context& x, std::int64_t contractions, std::int64_t others)
{
    return (contractions > 0 ? x.k.codeMatmulBytes : 0) + (others > 0 ? x.k.codeOtherBytes : 0);
}

void addTileTotal(const Context& x, std::int64_t total, int tiles, IpuMemory& out)
{
    out.usedBytes += total * tiles;
    out.maxTileBytes = std::max(out.maxTileBytes, total);
    if (total > x.t.ipu.tileMemoryBytes)
        out.oomTiles += tiles;
}

// The memory phase's last step, in full: every tile's bytes by category, from the difference
// arrays.
void sweepCategories(const Context& x,
                     const std::array<std::vector<std::int64_t>, kMemoryCategories>& diff,
                     const std::vector<std::int64_t>& contractionTouch,
                     const std::vector<std::int64_t>& otherTouch, IpuMemory& out)
{
    for (auto& cat : out.tileBytes)
        cat.assign(std::size_t(x.tiles), 0);
    std::int64_t runMM = 0, runOther = 0;
    std::array<std::int64_t, kMemoryCategories> runs{};
    for (int local = 0; local < x.tiles; ++local) {
        runMM += contractionTouch[std::size_t(local)];
        runOther += otherTouch[std::size_t(local)];
        const std::int64_t code = vertexCode(x, runMM, runOther);
        std::int64_t total = code;
        out.tileBytes[int(MemoryCategory::VertexCode)][std::size_t(local)] = code;
        for (int cat = 0; cat < kMemoryCategories; ++cat) {
            if (cat == int(MemoryCategory::VertexCode))
                continue;
            runs[std::size_t(cat)] += diff[std::size_t(cat)][std::size_t(local)];
            out.tileBytes[std::size_t(cat)][std::size_t(local)] = runs[std::size_t(cat)];
            total += runs[std::size_t(cat)];
        }
        addTileTotal(x, total, 1, out);
    }
}

// The same for the figures (the IPU's bytes, its fullest tile and its tiles over capacity),
// run by run: the tiles between two changes of the difference arrays hold the same bytes, and
// at 256 IPUs a simulation has 376,832 tiles but only a few changes per tensor. Only the entries
// marked in `touched` can be non-zero, so only those are visited, in tile order. The arrays and
// the marks are left all zero (the entries it reads are cleared as it goes), so that the next
// IPU need not clear them whole.
void sweepTotals(const Context& x, std::vector<std::int64_t>& diff,
                 std::vector<std::int64_t>& contractionTouch, std::vector<std::int64_t>& otherTouch,
                 std::vector<std::uint64_t>& touched, IpuMemory& out)
{
    std::int64_t runMM = 0, runOther = 0, run = 0;
    int from = 0; // the first tile of the current run
    for (std::size_t word = 0; word < touched.size(); ++word) {
        for (std::uint64_t bits = std::exchange(touched[word], 0); bits != 0; bits &= bits - 1) {
            const int local = int(word * 64) + std::countr_zero(bits);
            const std::size_t i = std::size_t(local);
            if (local >= x.tiles ||
                (diff[i] == 0 && contractionTouch[i] == 0 && otherTouch[i] == 0))
                continue;
            if (local > from)
                addTileTotal(x, vertexCode(x, runMM, runOther) + run, local - from, out);
            runMM += std::exchange(contractionTouch[i], 0);
            runOther += std::exchange(otherTouch[i], 0);
            run += std::exchange(diff[i], 0);
            from = local;
        }
    }
    addTileTotal(x, vertexCode(x, runMM, runOther) + run, x.tiles - from, out);
    // The end marker of a range that ends at the last tile.
    const std::size_t end = std::size_t(x.tiles);
    diff[end] = contractionTouch[end] = otherTouch[end] = 0;
}

} // namespace

IpuMemory ipuMemory(const Context& x, int ipu, const std::vector<const PlacedStage*>& mine)
{
    const auto& k = x.k;
    const int tiles = x.tiles, computeTiles = x.computeTiles;
    IpuMemory out;
    out.detail = x.detail;
    // The IPU's peak: the stage whose own peak plus the other stages' stashes is largest.
    std::int64_t stashAll = 0;
    for (const PlacedStage* w : mine)
        stashAll += w->stashBytes;
    const PlacedStage* peakStage = mine.front();
    std::int64_t best = -1;
    for (const PlacedStage* w : mine) {
        const std::int64_t v = w->peakLive + stashAll - w->stashBytes;
        if (v > best) {
            best = v;
            peakStage = w;
        }
    }
    const int base = ipu * tiles;
    // Difference arrays over the IPU's tiles, one per category; without the whole profile only
    // the total is wanted, so every category adds into the first (the same integer sums). Kept
    // per thread between IPUs: at 256 IPUs, fresh arrays cost more in page faults than the sums.
    // `clear`: the figures' sweep left the first and the touches all zero.
    const bool full = x.detail == Detail::Full;
    thread_local std::array<std::vector<std::int64_t>, kMemoryCategories> diff;
    thread_local std::vector<std::int64_t> contractionTouch, otherTouch;
    thread_local std::vector<std::uint64_t> touched; // the entries the figures' sweep visits
    thread_local bool clear = false;
    const std::size_t size = std::size_t(tiles) + 1;
    if (full || !clear || diff[0].size() != size) {
        for (int cat = 0; cat < (full ? kMemoryCategories : 1); ++cat)
            diff[std::size_t(cat)].assign(size, 0);
        contractionTouch.assign(size, 0);
        otherTouch.assign(size, 0);
        touched.assign((size + 63) / 64, 0);
    }
    clear = false;
    const auto category = [&](MemoryCategory c) -> std::vector<std::int64_t>& {
        return diff[full ? std::size_t(c) : 0];
    };
    const auto add = [&](std::vector<std::int64_t>& d, int firstTile, int tileCount,
                         std::int64_t bytes) {
        addTileRange(d, computeTiles, firstTile - base, tileCount, bytes,
                     full ? nullptr : &touched);
    };
    // Every variable of the IPU's stages that is live at the peak, and its gap.
    int steps = 0;
    const int peakStep = peakStage->peakStep;
    for (const PlacedStage* w : mine) {
        steps += w->stepCount;
        for (const auto& v : w->placed) {
            const bool live =
                v.alwaysLive || (w == peakStage ? v.liveFrom <= peakStep && peakStep <= v.liveTo
                                                : v.kind == VariableKind::Stash);
            if (live) {
                const auto cat =
                    v.alwaysLive ? MemoryCategory::AlwaysLive : MemoryCategory::NotAlwaysLive;
                add(category(cat), v.firstTile, v.tileCount, v.bytesPerTile);
                add(category(MemoryCategory::Gaps), v.firstTile, v.tileCount, k.gapBytesPerPiece);
            }
        }
        // The op's compute runs where its tensors live: vertices, their state and the exchange
        // that brings its inputs there, once per op, on the tiles of its widest tensor.
        const int firstOp = w->profile.firstOp, endOp = w->profile.endOp;
        thread_local std::vector<int> widest;
        widest.assign(std::size_t(endOp - firstOp), -1);
        for (std::size_t vi = 0; vi < w->placed.size(); ++vi) {
            const auto& v = w->placed[vi];
            if (v.op < firstOp || v.op >= endOp || v.kind == VariableKind::Optimizer ||
                v.kind == VariableKind::Accumulator || v.kind == VariableKind::Master)
                continue;
            int& wide = widest[std::size_t(v.op - firstOp)];
            if (wide < 0 || v.tileCount > w->placed[std::size_t(wide)].tileCount)
                wide = int(vi);
        }
        for (int vi : widest) {
            if (vi < 0)
                continue;
            const auto& v = w->placed[std::size_t(vi)];
            const auto& op = x.g.ops[std::size_t(v.op)];
            add(x.kinds.contraction[std::size_t(v.op)] ? contractionTouch : otherTouch, v.firstTile,
                v.tileCount, 1);
            // One vertex per compute set on each tile: PopLibs' codelets are MultiVertex (one
            // vertex runs on all the tile's worker threads), not one per thread.
            const std::int64_t vertices =
                std::int64_t(x.o.training.inference ? 1 : k.computeSetsPerOp) *
                k.verticesPerComputeSet;
            add(category(MemoryCategory::VertexState), v.firstTile, v.tileCount,
                vertices * k.vertexStateBytes);
            const double received = x.passes * double(op.inputBytes) * x.microBatch / v.tileCount;
            add(category(MemoryCategory::ExchangeCode), v.firstTile, v.tileCount,
                k.exchangeCodePerOp + std::int64_t(received * k.exchangeCodePerByte));
        }
    }
    // Control code: every compute tile runs the whole program of its IPU's stages.
    add(category(MemoryCategory::ControlCode), base, computeTiles,
        k.controlBytesBase + k.controlBytesPerStep * steps);
    if (full) {
        sweepCategories(x, diff, contractionTouch, otherTouch, out);
    } else {
        sweepTotals(x, diff[0], contractionTouch, otherTouch, touched, out);
        clear = true;
    }
    return out;
}

void PhaseCache::keepLatest()
{
    // The latest two: a compile's declared-split simulation (compile.h) may share the context
    // of the user's split, and must not push out the stages the next split edit reuses.
    const auto old = [&](const auto& e) {
        return generation - e.second.generation > 1;
    };
    std::erase_if(stages, old);
    std::erase_if(ipus, old);
}

} // namespace portolan::sim::ipu
