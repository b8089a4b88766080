#include "core/sim/memory_model.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace portolan::sim {

namespace {

using graph::Op;
using graph::OpGraph;

bool isFloat(graph::DType t)
{
    return t == graph::DType::Float32 || t == graph::DType::Float16 ||
           t == graph::DType::BFloat16 || t == graph::DType::Float64;
}

std::int64_t scaled(std::int64_t bytes, graph::DType t, Precision p)
{
    return atComputePrecision(bytes, t, p);
}

// Calls f with each op whose output op i reads: its recorded inputs, or the op before it. No
// copy: this runs for every op of every stage of every simulation.
template <typename F> void forEachProducer(const OpGraph& g, int i, F&& f)
{
    const Op& op = g.ops[std::size_t(i)];
    if (op.inputOps.empty()) {
        f(i - 1);
        return;
    }
    for (int p : op.inputOps)
        f(p);
}

// The op whose output op i's output lives in (views share their producer's storage), or -1 for
// the model's input. Followed on demand, so that a stage's memory costs its own ops, not the
// whole graph's.
int storageOf(const OpGraph& g, int i)
{
    while (i >= 0 && g.ops[std::size_t(i)].aliasesInput) {
        const Op& op = g.ops[std::size_t(i)];
        i = op.inputOps.empty() ? i - 1 : op.inputOps.front();
    }
    return i;
}

// What perOpMemory reads of the training settings, with the range: the memo's key.
using MemoKey = std::tuple<int, int, Precision, Optimizer, bool, bool, bool, bool, bool>;

MemoKey memoKey(const TrainingConfig& c, int first, int end)
{
    return {first,
            end,
            c.precision,
            c.optimizer,
            c.inference,
            c.gradAccum > 1,
            c.optimizerOffChip,
            c.halfFirstOrderMomentum,
            c.recompute};
}

struct Memo
{
    const OpGraph* graph = nullptr;
    std::map<MemoKey, std::vector<OpMemory>> figures;
};
thread_local Memo* activeMemo = nullptr;

std::vector<OpMemory> computePerOpMemory(const OpGraph& g, const TrainingConfig& c, int first,
                                         int end);

} // namespace

PerOpMemoryScope::PerOpMemoryScope(const graph::OpGraph& g)
{
    if (activeMemo)
        return;
    activeMemo = new Memo{&g, {}};
    m_owner = true;
}

PerOpMemoryScope::~PerOpMemoryScope()
{
    if (!m_owner)
        return;
    delete activeMemo;
    activeMemo = nullptr;
}

std::vector<OpMemory> perOpMemory(const OpGraph& g, const TrainingConfig& c, int first, int end)
{
    const int n = int(g.ops.size());
    if (end < 0 || end > n)
        end = n;
    first = std::clamp(first, 0, end);
    if (!activeMemo || activeMemo->graph != &g)
        return computePerOpMemory(g, c, first, end);
    const auto [it, added] = activeMemo->figures.try_emplace(memoKey(c, first, end));
    if (added)
        it->second = computePerOpMemory(g, c, first, end);
    return it->second;
}

std::int64_t atComputePrecision(std::int64_t bytes, graph::DType t, Precision p)
{
    return isFloat(t) ? bytes * computeBytes(p) / graph::dtypeBytes(t) : bytes;
}

namespace {

std::vector<OpMemory> computePerOpMemory(const OpGraph& g, const TrainingConfig& c, int first,
                                         int end)
{
    const int n = int(g.ops.size());
    std::vector<OpMemory> out(std::size_t(end - first));
    if (out.empty())
        return out;
    const int cb = computeBytes(c.precision);
    const int slots = optimizerSlots(c.optimizer);

    const auto storageBytes = [&](int s) -> std::int64_t {
        if (s < 0)
            return graph::elementCount(g.inputShape) * graph::dtypeBytes(g.inputDtype);
        const Op& op = g.ops[std::size_t(s)];
        return scaled(op.activationBytes, op.dtype, c.precision);
    };
    // Layer boundaries: with recomputation only their outputs stay stashed.
    const auto layerLast = [&](int i) {
        return i + 1 >= n || g.ops[std::size_t(i) + 1].layer != g.ops[std::size_t(i)].layer;
    };

    // Which storages backward needs, and which op in range pays for each (the producer, or the
    // first consumer in range when it comes from an earlier stage). One slot per storage (s + 1:
    // the model's input is -1), kept per thread and reset on the way out: a map per call cost
    // more than a stage's own work when a simulation places hundreds of stages.
    constexpr int kNotKept = -2;
    thread_local std::vector<int> payerOf;
    thread_local std::vector<int> kept;
    if (payerOf.size() < std::size_t(n) + 1)
        payerOf.assign(std::size_t(n) + 1, kNotKept);
    kept.clear();
    const auto keep = [&](int s, int payer) {
        int& slot = payerOf[std::size_t(s + 1)];
        if (slot == kNotKept) {
            slot = s >= first && s < end ? s : payer;
            kept.push_back(s);
        }
    };
    std::int64_t maxParam = 0;
    for (int i = first; i < end; ++i) {
        const Op& op = g.ops[std::size_t(i)];
        OpMemory& m = out[std::size_t(i - first)];
        const std::int64_t params = op.paramCount;
        maxParam = std::max(maxParam, params);
        m.weights = params * cb;
        if (c.inference) {
            // Forward only: the output and what it reads, nothing kept for a backward.
            m.activation = scaled(op.activationBytes, op.dtype, c.precision);
            std::int64_t in = 0;
            forEachProducer(g, i, [&](int p) { in += storageBytes(storageOf(g, p)); });
            m.temporary = m.activation + in;
            continue;
        }
        m.gradients = params * cb;
        if (c.gradAccum > 1)
            m.gradAccumulators = params * stateBytes(c.precision);
        if (!c.optimizerOffChip) {
            m.optimizerState = params * slots * stateBytes(c.precision);
            if (c.halfFirstOrderMomentum && slots > 0 && stateBytes(c.precision) > 2)
                m.optimizerState -= params * (stateBytes(c.precision) - 2); // fp16 first moment
            if (c.precision == Precision::Mixed)
                m.masterWeights = params * 4;
        }
        m.activation = scaled(op.activationBytes, op.dtype, c.precision);
        std::int64_t in = 0;
        forEachProducer(g, i, [&](int p) { in += storageBytes(storageOf(g, p)); });
        // Backward of this op holds the gradient of its output and of its input, plus the new
        // weight gradient before it is added to the accumulated one.
        m.temporary = m.activation + in;
        if (op.savesOutput)
            keep(storageOf(g, i), i);
        if (op.savesInputs)
            forEachProducer(g, i, [&](int p) { keep(storageOf(g, p), i); });
        // Dropout noise follows the precision; max-pool indices keep their own type.
        m.stash += op.extraSavedScales ? scaled(op.extraSavedBytes, op.dtype, c.precision)
                                       : op.extraSavedBytes;
    }
    for (int s : kept) {
        const int payer = std::exchange(payerOf[std::size_t(s + 1)], kNotKept);
        if (payer < first || payer >= end)
            continue;
        out[std::size_t(payer - first)].stash += storageBytes(s);
    }
    // The loss keeps one logits-sized tensor (log-softmax output) for its backward.
    if (end == n && !c.inference)
        out.back().stash += out.back().activation;

    if (c.recompute && !c.inference) {
        // Keep each layer's output; a layer's own stash is rebuilt during its backward, so one
        // layer's worth (the largest) is live on top.
        std::int64_t layerStash = 0, maxLayerStash = 0;
        for (int i = first; i < end; ++i) {
            OpMemory& m = out[std::size_t(i - first)];
            layerStash += m.stash;
            m.stash = 0;
            if (layerLast(i) || i + 1 == end) {
                maxLayerStash = std::max(maxLayerStash, layerStash);
                layerStash = 0;
                m.stash = storageBytes(storageOf(g, i));
            }
        }
        out.front().temporary += maxLayerStash;
    }
    (void)maxParam;
    return out;
}

} // namespace

MemoryBreakdown estimateTrainingMemory(const OpGraph& g, const TrainingConfig& c, int first,
                                       int end, int inFlight)
{
    const auto ops = perOpMemory(g, c, first, end);
    MemoryBreakdown b;
    const std::int64_t mb = std::max(1, c.microBatch);
    const std::int64_t flight = std::max(1, inFlight);
    std::int64_t stash = 0, maxParam = 0;
    for (const auto& m : ops) {
        b.weights += m.weights;
        b.gradients += m.gradients;
        b.gradAccumulators += m.gradAccumulators;
        b.optimizerState += m.optimizerState;
        b.masterWeights += m.masterWeights;
        stash += m.stash * mb;
        maxParam = std::max(maxParam, m.weights);
    }
    b.stashedActivations = stash * flight;
    // Backward runs last op first and frees each op's stash once it is done, so the dynamic peak
    // is the largest "stash still held + gradient buffers of the op running now" (plus the other
    // micro-batches' whole stash). At the turn from forward to backward everything is held along
    // with the gradient of the output.
    std::int64_t held = stash;
    std::int64_t dynamicPeak = stash + (ops.empty() ? 0 : ops.back().activation * mb);
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
        dynamicPeak = std::max(dynamicPeak, held + it->temporary * mb + it->gradients);
        held -= it->stash * mb;
    }
    // The optimizer step runs after backward has freed the stash; Adam makes two parameter-sized
    // temporaries (the square root and the denominator) for the largest tensor.
    const std::int64_t tempOptimizer = optimizerSlots(c.optimizer) >= 2 ? 2 * maxParam : 0;
    b.temporaries =
        std::max({dynamicPeak - stash, tempOptimizer - b.stashedActivations, std::int64_t(0)});
    return b;
}

} // namespace portolan::sim
