#include "core/sim/ipu_memory.h"

#include "core/sim/ipu_plan.h"
#include "core/sim/ipu_sim.h"
#include "core/sim/memory_model.h"

#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>

namespace portolan::sim {

bool isContraction(const std::string& kind)
{
    // Asked for every op of every stage of every simulation, of a handful of distinct kinds:
    // the substring search is remembered per kind (per thread: simulations run on workers).
    thread_local std::unordered_map<std::string, bool> known;
    if (auto it = known.find(kind); it != known.end())
        return it->second;
    bool found = false;
    for (const char* k : {"Linear", "Conv", "matmul", "linear", "conv", "mm", "bmm", "addmm",
                          "Bilinear", "convolution", "baddbmm"})
        found = found || kind.find(k) != std::string::npos;
    if (known.size() > 1024) // kinds come from the model: bounded anyway, but never unbounded
        known.clear();
    known.emplace(kind, found);
    return found;
}

namespace {

std::vector<bool> contractionOps(const graph::OpGraph& g)
{
    std::vector<bool> out(g.ops.size(), false);
    for (std::size_t i = 0; i < g.ops.size(); ++i)
        out[i] = isContraction(g.ops[i].kind);
    return out;
}

std::vector<bool> vocabularyOps(const graph::OpGraph& g, std::int64_t minRows,
                                const std::vector<bool>& contraction)
{
    std::vector<bool> out(g.ops.size(), false);
    std::vector<std::int64_t> vocabRows;
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        const auto& op = g.ops[i];
        const bool embedding = op.kind == "aten::embedding" || op.kind == "Embedding";
        if (!embedding || op.paramCount <= 0 || op.outputShape.empty() ||
            op.outputShape.back() <= 0)
            continue;
        const std::int64_t rows = op.paramCount / op.outputShape.back(); // the table's rows
        if (rows >= minRows) {
            out[i] = true;
            vocabRows.push_back(rows);
        }
    }
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        const auto& op = g.ops[i];
        if (op.tiedTo >= 0 && std::size_t(op.tiedTo) < out.size() && out[std::size_t(op.tiedTo)])
            out[i] = true;
        if (contraction[i] && !op.outputShape.empty())
            for (std::int64_t rows : vocabRows)
                if (op.outputShape.back() == rows)
                    out[i] = true;
    }
    return out;
}

} // namespace

std::vector<bool> vocabularyOps(const graph::OpGraph& g, std::int64_t minRows)
{
    return vocabularyOps(g, minRows, contractionOps(g));
}

namespace {

bool sameContent(const graph::Op& p, const graph::Op& q)
{
    return p.kind == q.kind && p.dtype == q.dtype && p.paramCount == q.paramCount &&
           p.paramBytes == q.paramBytes && p.forwardFlops == q.forwardFlops &&
           p.backwardFlops == q.backwardFlops && p.activationBytes == q.activationBytes &&
           p.inputBytes == q.inputBytes && p.savesInputs == q.savesInputs &&
           p.savesOutput == q.savesOutput && p.aliasesInput == q.aliasesInput &&
           p.extraSavedBytes == q.extraSavedBytes && p.extraSavedScales == q.extraSavedScales &&
           p.inputOps.size() == q.inputOps.size() && (p.tiedTo < 0) == (q.tiedTo < 0) &&
           p.outputShape == q.outputShape && p.inputShapes == q.inputShapes;
}

std::uint64_t contentHash(const graph::Op& op, bool contraction, bool vocabulary)
{
    std::uint64_t h = std::hash<std::string>{}(op.kind);
    const auto mix = [&h](std::uint64_t v) {
        h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    };
    mix(std::uint64_t(op.paramCount));
    mix(std::uint64_t(op.activationBytes));
    mix(std::uint64_t(op.inputBytes));
    mix(std::uint64_t(op.extraSavedBytes));
    mix(op.inputOps.size());
    mix(std::uint64_t(op.dtype));
    mix((op.savesInputs ? 1u : 0u) | (op.savesOutput ? 2u : 0u) | (op.aliasesInput ? 4u : 0u) |
        (op.extraSavedScales ? 8u : 0u) | (op.tiedTo >= 0 ? 16u : 0u) | (contraction ? 32u : 0u) |
        (vocabulary ? 64u : 0u));
    for (const auto d : op.outputShape)
        mix(std::uint64_t(d));
    return h;
}

std::vector<std::uint32_t> contentNumbers(const graph::OpGraph& g, const OpKinds& k)
{
    std::vector<std::uint32_t> out(g.ops.size(), 0);
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> byHash; // representatives
    std::uint32_t next = 0;
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        const graph::Op& op = g.ops[i];
        auto& reps = byHash[contentHash(op, k.contraction[i], k.vocabulary[i])];
        const auto same = std::find_if(reps.begin(), reps.end(), [&](std::size_t r) {
            return k.contraction[r] == k.contraction[i] && k.vocabulary[r] == k.vocabulary[i] &&
                   sameContent(g.ops[r], op);
        });
        if (same != reps.end()) {
            out[i] = out[*same];
        } else {
            reps.push_back(i);
            out[i] = next++;
        }
    }
    return out;
}

} // namespace

OpKinds opKinds(const graph::OpGraph& g, std::int64_t vocabularyMinRows)
{
    OpKinds k;
    k.contraction = contractionOps(g);
    k.vocabulary = vocabularyOps(g, vocabularyMinRows, k.contraction);
    k.content = contentNumbers(g, k);
    return k;
}

// Longer than the other phases (about 150 lines) on purpose: it is one table of an op's memory
// terms (weights, accumulators, state, masters, stash, temporaries, update) written top to
// bottom with each term's source beside it, which reads better whole than cut into helpers
// that would share a dozen locals.
std::vector<IpuOpMemory> ipuOpMemory(const graph::OpGraph& g, const TrainingConfig& c,
                                     const IpuModelConstants& k, std::int64_t tileBytes, int tiles,
                                     int first, int end, const OpKinds* kinds, OpMemoryTerms terms)
{
    const int n = int(g.ops.size());
    if (end < 0 || end > n)
        end = n;
    first = std::clamp(first, 0, end);
    std::vector<IpuOpMemory> out(std::size_t(end - first));
    if (out.empty())
        return out;
    const auto base = perOpMemory(g, c, first, end);
    const bool temporaries = terms == OpMemoryTerms::All;
    // With recomputation the stash holds layer outputs only; a layer's full stash is rebuilt
    // for its backward. The full one comes from the same model without recomputation.
    std::vector<OpMemory> full;
    if (c.recompute && !c.inference && temporaries) {
        TrainingConfig noRecompute = c;
        noRecompute.recompute = false;
        full = perOpMemory(g, noRecompute, first, end);
    }
    OpKinds own;
    if (!kinds) {
        own = opKinds(g, k.vocabularyMinRows);
        kinds = &own;
    }
    const std::vector<bool>& vocab = kinds->vocabulary;
    const std::vector<bool>& contraction = kinds->contraction;
    const std::int64_t cb = computeBytes(c.precision);
    const std::int64_t mb = std::max(1, c.microBatch);
    const int slots = optimizerSlots(c.optimizer);
    const std::int64_t shards =
        c.replicatedTensorSharding ? std::max(1, c.replicas) : 1; // RTS splits the state
    const std::int64_t partials = c.halfPartials ? 2 : k.partialsBytes;
    tiles = std::max(1, tiles);
    // The planner's bound, per tile (PopLibs ConvPlan.cpp).
    const std::int64_t tileCap =
        std::int64_t(c.availableMemoryProportion * double(std::max<std::int64_t>(tileBytes, 1)));
    const std::int64_t serial = std::max(1, c.serializationFactor);
    const int operandBytes = computeBytes(c.precision);
    // The temporaries of one pass of a contraction: its tile plan's operand slices and partials,
    // at most the planner's bound per tile, on the tiles the plan uses.
    const auto planned = [&](const ContractionShape& s) -> std::int64_t {
        const TilePlan p = planContraction(s, operandBytes, int(partials), tiles);
        return std::min(tileCap, p.bytesPerTile) * p.tiles;
    };
    // Without the op's shapes: its input and partial sums, at most the bound on every tile.
    const auto unplanned = [&](const graph::Op& op, std::int64_t div) -> std::int64_t {
        const std::int64_t elems = op.activationBytes / std::max(1, graph::dtypeBytes(op.dtype));
        return std::min(tileCap * tiles, (atComputePrecision(op.inputBytes, op.dtype, c.precision) +
                                          elems * partials) *
                                             mb / div);
    };

    // Parameters each op updates: its own, or for a tied op none (the owner updates them), and
    // the gradient it produces: its own or the tied weight's.
    for (int i = first; i < end; ++i) {
        const auto& op = g.ops[std::size_t(i)];
        const auto& m = base[std::size_t(i - first)];
        IpuOpMemory& o = out[std::size_t(i - first)];
        const bool v = vocab[std::size_t(i)];
        o.vocabulary = v;
        const std::int64_t div = v ? serial : 1;
        const std::int64_t params = op.paramCount;
        const std::int64_t gradParams =
            op.tiedTo >= 0 ? g.ops[std::size_t(op.tiedTo)].paramCount : params;
        o.weights = params * cb;
        if (c.inference && !temporaries)
            continue;
        if (c.inference) {
            // Forward only: the output, its inputs and the plan's temporaries.
            const std::int64_t act =
                atComputePrecision(op.activationBytes, op.dtype, c.precision) * mb;
            std::int64_t temp = act;
            if (contraction[std::size_t(i)]) {
                const auto shape = contractionShape(op);
                temp += shape ? planned(atMicroBatch(*shape, c.microBatch, int(div)))
                              : unplanned(op, div);
            }
            o.forwardTemp = temp;
            continue;
        }
        if (c.gradAccum > 1)
            o.accumulators = params * cb;
        // fp16 first-order momentum: one of the slots in half precision (PopTorch
        // first_order_momentum_accum_type / velocity_accum_type).
        const std::int64_t stateBytesPerParam =
            slots * k.optimizerStateBytes - (c.halfFirstOrderMomentum && slots > 0
                                                 ? k.optimizerStateBytes - k.halfMomentumBytes
                                                 : 0);
        const std::int64_t state = params * stateBytesPerParam / shards;
        const std::int64_t masters = c.precision == Precision::Mixed ? params * 4 / shards : 0;
        if (!c.optimizerOffChip) {
            o.optimizerState = state;
            o.masterWeights = masters;
        } else {
            // Streamed in for the update, one (serialized) weight at a time.
            o.updateTemp = (state + masters) / div;
        }
        o.stash = m.stash;
        if (!temporaries)
            continue;
        const std::int64_t act = m.activation * mb;
        std::int64_t fwd = act, bwd = m.temporary * mb;
        // The weight gradient before it is accumulated (or applied).
        const std::int64_t weightGradient = gradParams * cb / div;
        const auto shape = contraction[std::size_t(i)] ? contractionShape(op) : std::nullopt;
        if (shape) {
            const ContractionShape s = atMicroBatch(*shape, c.microBatch, int(div));
            fwd += planned(s);
            // The input gradient and the weight gradient run one after the other; the weight
            // gradient is the weight-update pass's result, held in its partials (or made from
            // them), so it is not added to that pass's plan.
            bwd += std::max(planned(inputGradientPass(s)),
                            std::max(planned(weightGradientPass(s)), weightGradient));
        } else {
            bwd += weightGradient;
            if (contraction[std::size_t(i)]) {
                fwd += unplanned(op, div);
                bwd += unplanned(op, div);
            }
        }
        o.outputGradient = act;
        if (v && serial > 1) {
            // A serialized vocabulary op keeps one chunk of its output and gradients at a time.
            fwd = fwd - act + act / serial;
            bwd = bwd - m.temporary * mb + m.temporary * mb / serial;
            o.outputGradient = act / serial;
        }
        o.forwardTemp = fwd;
        o.backwardTemp = bwd;
        if (!full.empty())
            o.recomputeStash = full[std::size_t(i - first)].stash * mb;
    }
    // Recomputation rebuilds a whole layer before its backward: the layer's full stash is live
    // during the backward of each of its ops (PopTorch user guide, "Recomputation": activations
    // between checkpoints are recomputed; the checkpoints themselves are stored).
    if (!full.empty()) {
        int start = 0;
        for (int j = 0; j <= int(out.size()); ++j) {
            const bool boundary =
                j == int(out.size()) ||
                (j > 0 && g.ops[std::size_t(first) + std::size_t(j)].layer !=
                              g.ops[std::size_t(first) + std::size_t(j) - 1].layer);
            if (!boundary)
                continue;
            // The checkpoint (the layer's output, stashed) stays live anyway and is not rebuilt.
            std::int64_t sum = 0;
            for (int q = start; q < j; ++q)
                sum += out[std::size_t(q)].recomputeStash - out[std::size_t(q)].stash * mb;
            for (int q = start; q < j; ++q)
                out[std::size_t(q)].recomputeStash = std::max<std::int64_t>(0, sum);
            start = j;
        }
    }
    return out;
}

} // namespace portolan::sim
