#include "core/sim/cs_sim.h"

#include "core/common/number_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace portolan::sim {

namespace {

struct Group
{
    std::string name;
    int first = 0, end = 0;
    double flops = 0;               // forward + backward per sample
    std::int64_t memory = 0;        // bytes it must hold
    std::int64_t weights = 0;       // bytes streamed in weight-streaming mode
    std::int64_t stash = 0;         // activation bytes per micro-batch
    std::int64_t boundaryBytes = 0; // activation in + out per sample
    std::int64_t maxTemporary = 0;  // the largest op's gradient buffers
};

// Largest-remainder rounding of `shares` (summing to ~1) into integers summing to `total`,
// each at least 1.
std::vector<int> apportion(const std::vector<double>& shares, int total)
{
    const int n = int(shares.size());
    std::vector<int> out(static_cast<std::size_t>(n), 1);
    int left = total - n;
    if (left <= 0)
        return out;
    std::vector<std::pair<double, int>> rest;
    int used = 0;
    for (int i = 0; i < n; ++i) {
        const double want = shares[std::size_t(i)] * left;
        const int whole = int(std::floor(want));
        out[std::size_t(i)] += whole;
        used += whole;
        rest.push_back({want - whole, i});
    }
    std::sort(rest.begin(), rest.end(), std::greater<>());
    for (int j = 0; j < left - used && j < n; ++j)
        ++out[std::size_t(rest[std::size_t(j)].second)];
    return out;
}

// Plan: one kernel per layer (top-level child), with what it computes and holds. Pipelined
// kernels hold a few samples' activations as samples stream through; weight streaming keeps
// each layer's output for the micro-batch (and rebuilds a layer's inner activations for its
// backward), counted per sample in `full` and `checkpoint`.
struct LayerPlan
{
    std::vector<Group> groups;
    std::vector<std::int64_t> full, checkpoint; // per group, per sample
    std::vector<int> opGroup;
};

LayerPlan planLayers(const graph::OpGraph& g, const TrainingConfig& c, const CsModelConstants& k)
{
    const int n = int(g.ops.size());
    const auto ops = perOpMemory(g, c);
    const double inFlight = std::max(1, k.pipelinedSamplesInFlight);
    TrainingConfig checkpointed = c;
    checkpointed.recompute = true;
    const auto layerOutputs = perOpMemory(g, checkpointed);
    LayerPlan plan;
    plan.opGroup.assign(std::size_t(n), 0);
    auto& groups = plan.groups;
    for (int i = 0; i < n; ++i) {
        const auto& op = g.ops[std::size_t(i)];
        if (groups.empty() || g.ops[std::size_t(groups.back().first)].layer != op.layer) {
            Group gr;
            gr.first = i;
            gr.name = std::size_t(op.layer) < g.layerNames.size()
                          ? g.layerNames[std::size_t(op.layer)]
                          : op.name;
            gr.boundaryBytes = op.inputBytes;
            groups.push_back(gr);
            plan.full.push_back(0);
            plan.checkpoint.push_back(0);
        }
        Group& gr = groups.back();
        gr.end = i + 1;
        gr.flops += op.forwardFlops + op.backwardFlops;
        const auto& m = ops[std::size_t(i)];
        gr.weights += m.weights;
        gr.stash += std::int64_t(double(m.stash) * inFlight);
        // A kernel runs its layer's ops one after another, so its gradient buffers are the
        // largest of them, not their sum.
        gr.memory += m.weights + m.gradients + m.gradAccumulators + m.optimizerState +
                     m.masterWeights + std::int64_t(double(m.stash) * inFlight);
        const std::int64_t temp = std::int64_t(double(m.temporary) * inFlight);
        if (temp > gr.maxTemporary) {
            gr.memory += temp - gr.maxTemporary;
            gr.maxTemporary = temp;
        }
        plan.full.back() += m.stash + m.temporary;
        plan.checkpoint.back() += layerOutputs[std::size_t(i)].stash;
        plan.opGroup[std::size_t(i)] = int(groups.size()) - 1;
    }
    for (auto& gr : groups)
        gr.boundaryBytes += g.ops[std::size_t(gr.end - 1)].activationBytes;
    return plan;
}

// The wafer's figures per PE.
struct Wafer
{
    std::int64_t pes = 0;
    double sramPerPe = 0, flopsPerPe = 0, fabricPerPe = 0; // bytes, FLOP/s, bytes/s
};

// Mode: the user's, or by the Model Zoo's rule (layer-pipelined under ~1 B parameters when the
// layers fit the wafer). False when the user's mode cannot run this model (with the diagnostic).
bool chooseMode(const graph::OpGraph& g, const targets::Target& t, const CompileOptions& o,
                const CsModelConstants& k, std::int64_t need, CsProfile& prof, CompileResult& r)
{
    const double params = double(g.totalParams());
    // The published limit of layer-pipelined execution: the target's (cs-2.yaml), else the
    // built-in figure (the same README).
    const double pipelinedMax =
        t.cs.layerPipelinedMaxParams > 0 ? t.cs.layerPipelinedMaxParams : k.layerPipelinedMaxParams;
    const std::string pipelinedSource = !t.cs.layerPipelinedSource.empty()
                                            ? t.cs.layerPipelinedSource
                                            : std::string("Cerebras Model Zoo README (R_1.6.0)");
    bool supported = true;
    std::string mode = o.csMode;
    if (mode.empty()) {
        const bool small = params < pipelinedMax;
        const bool holds = double(need) < t.cs.sramBytes;
        mode = small && holds ? "layer-pipelined" : "weight-streaming";
        const std::string size = format::parameters(params);
        prof.modeReason =
            small ? (holds ? "under 1 B parameters (" + size +
                                 ") and the layers fit the wafer: layer-pipelined"
                           : "under 1 B parameters (" + size +
                                 ") but the layers need more than the wafer's SRAM: weight "
                                 "streaming")
                  : size + ": over the ~1 B that layer-pipelined execution holds (" +
                        pipelinedSource + "): weight streaming";
    } else {
        prof.modeReason = "chosen by the user";
        if (mode == "layer-pipelined" && params >= pipelinedMax) {
            // Cerebras runs models of this size in weight streaming only: not a memory question.
            supported = false;
            const std::string why = "layer-pipelined execution is not supported for " +
                                    format::parameters(params) + ": it holds models under " +
                                    format::parameters(pipelinedMax) + " (" + pipelinedSource +
                                    "); run it in weight-streaming mode";
            prof.modeReason += "; " + why;
            r.diagnostics.push_back(
                {Severity::Error, "compile.cs-mode-unsupported", why, {t.file.string()}});
        }
    }
    prof.mode = mode;
    return supported;
}

// Rounding must not leave a kernel of a shelf fewer columns than its memory needs: take them
// from the kernels with the most room above their own minimum.
void widenToMemory(std::vector<int>& widths, const std::int64_t* minPes, int shelfHeight)
{
    const auto need = [&](std::size_t j) {
        return int((minPes[j] + shelfHeight - 1) / shelfHeight);
    };
    for (std::size_t i = 0; i < widths.size(); ++i) {
        while (widths[i] < need(i)) {
            std::size_t donor = i;
            for (std::size_t j = 0; j < widths.size(); ++j)
                if (widths[j] - need(j) > widths[donor] - need(donor))
                    donor = j;
            if (donor == i)
                break; // no kernel can spare a column: the wafer is full
            --widths[donor];
            ++widths[i];
        }
    }
}

// A layer-pipelined kernel on its rectangle: its capacity, and its rate as the slower of its
// compute and of the activations through its west edge.
CsKernel pipelinedKernel(const Group& gr, int x, int y, int width, int height, const Wafer& w,
                         const CsModelConstants& k)
{
    CsKernel kn;
    kn.name = gr.name;
    kn.firstOp = gr.first;
    kn.endOp = gr.end;
    kn.x = x;
    kn.y = y;
    kn.width = width;
    kn.height = height;
    kn.activePes = std::int64_t(kn.width) * kn.height;
    kn.memoryBytes = gr.memory;
    kn.capacityBytes = std::int64_t(double(kn.activePes) * w.sramPerPe);
    kn.fits = kn.memoryBytes <= kn.capacityBytes;
    kn.flopsPerSample = gr.flops;
    kn.computeSamplesPerSecond =
        gr.flops > 0 ? double(kn.activePes) * w.flopsPerPe * k.computeEfficiency / gr.flops : 1e300;
    // Activations enter on the west edge and gradients return through it.
    const double edgeBytesPerSec = double(kn.height) * w.fabricPerPe;
    kn.transmissionSamplesPerSecond =
        gr.boundaryBytes > 0 ? edgeBytesPerSec / (2.0 * double(gr.boundaryBytes)) : 1e300;
    kn.samplesPerSecond = std::min(kn.computeSamplesPerSecond, kn.transmissionSamplesPerSecond);
    kn.utilisation = kn.activePes > 0
                         ? kn.samplesPerSecond * gr.flops / (double(kn.activePes) * w.flopsPerPe)
                         : 0;
    return kn;
}

// Place, layer-pipelined: PEs for what each kernel's memory needs, the rest shared in
// proportion to compute, on a slicing floorplan (shelves of full-width rows, each split into
// columns). Returns whether the kernels' minimums fit the wafer.
bool placePipelined(const targets::Target& t, const CsModelConstants& k,
                    const std::vector<Group>& groups, const Wafer& w, CsProfile& prof)
{
    std::vector<std::int64_t> minPes;
    std::int64_t minTotal = 0;
    double flopsTotal = 0;
    for (const auto& gr : groups) {
        minPes.push_back(
            std::max<std::int64_t>(1, std::int64_t(std::ceil(double(gr.memory) / w.sramPerPe))));
        minTotal += minPes.back();
        flopsTotal += gr.flops;
    }
    const std::int64_t pes = w.pes;
    const bool fitsWafer = minTotal <= pes;
    std::vector<double> wantPes;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const double share =
            flopsTotal > 0 ? groups[i].flops / flopsTotal : 1.0 / double(groups.size());
        wantPes.push_back(fitsWafer ? double(minPes[i]) + double(pes - minTotal) * share
                                    : double(pes) * double(minPes[i]) / double(minTotal));
    }
    const int width = t.cs.gridWidth, height = t.cs.gridHeight;
    const std::size_t perShelf = std::size_t(std::max(1, width / 4)); // kernels >= 4 columns
    const int shelves = int((groups.size() + perShelf - 1) / perShelf);
    const auto shelfEnd = [&](int s) {
        return std::min(groups.size(), (std::size_t(s) + 1) * perShelf);
    };
    std::vector<double> shelfShare;
    for (int s = 0; s < shelves; ++s) {
        double sum = 0;
        for (std::size_t i = std::size_t(s) * perShelf; i < shelfEnd(s); ++i)
            sum += wantPes[i];
        shelfShare.push_back(sum / double(pes));
    }
    const double shareSum = std::accumulate(shelfShare.begin(), shelfShare.end(), 0.0);
    for (auto& x : shelfShare)
        x /= shareSum;
    const auto heights = apportion(shelfShare, height);
    int y = 0;
    double overall = 1e300;
    for (int s = 0; s < shelves; ++s) {
        const std::size_t a = std::size_t(s) * perShelf, b = shelfEnd(s);
        double sum = 0;
        for (std::size_t i = a; i < b; ++i)
            sum += wantPes[i];
        std::vector<double> shares;
        for (std::size_t i = a; i < b; ++i)
            shares.push_back(wantPes[i] / sum);
        auto widths = apportion(shares, width);
        widenToMemory(widths, minPes.data() + a, std::max(1, heights[std::size_t(s)]));
        int x = 0;
        for (std::size_t i = a; i < b; ++i) {
            CsKernel kn =
                pipelinedKernel(groups[i], x, y, widths[i - a], heights[std::size_t(s)], w, k);
            if (kn.samplesPerSecond < overall) {
                overall = kn.samplesPerSecond;
                prof.bottleneck = kn.name;
            }
            x += kn.width;
            prof.kernels.push_back(std::move(kn));
        }
        y += heights[std::size_t(s)];
    }
    prof.samplesPerSecond = overall;
    return fitsWafer;
}

// Place, weight streaming: each layer's weights come in for forward and again for backward, its
// gradients go out; compute uses the whole wafer. The batch runs in micro-batches: the largest
// that keeps every layer's output, one layer's rebuilt activations and one layer's weights and
// gradients on the wafer. Returns the micro-batch (0 when not even one sample fits).
std::int64_t streamWeights(const targets::Target& t, const CompileOptions& o,
                           const CsModelConstants& k, const LayerPlan& plan, const Wafer& w,
                           CsProfile& prof)
{
    const auto& c = o.training;
    const auto& groups = plan.groups;
    const std::int64_t batch = std::int64_t(std::max(1, c.microBatch)) * std::max(1, c.gradAccum);
    std::int64_t checkpointTotal = 0, fullMax = 0, weightMax = 0;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        checkpointTotal += plan.checkpoint[i];
        fullMax = std::max(fullMax, plan.full[i]);
        weightMax = std::max(weightMax, groups[i].weights);
    }
    const std::int64_t perSample = std::max<std::int64_t>(1, checkpointTotal + fullMax);
    const double room = t.cs.sramBytes - 2.0 * double(weightMax);
    std::int64_t micro = room > 0 ? std::int64_t(room / double(perSample)) : 0;
    micro = std::min(micro, batch);
    const std::int64_t run = std::max<std::int64_t>(1, micro);
    const std::int64_t steps = (batch + run - 1) / run;
    double seconds = 0, streamSec = 0;
    std::int64_t streamed = 0;
    const double wafer = t.cs.fp16Flops * k.computeEfficiency;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const auto& gr = groups[i];
        // Weights stream in once per micro-batch for forward and once for backward, gradients
        // out once per micro-batch.
        const double bytes = 3.0 * double(gr.weights) * double(steps);
        const double ts = bytes / (t.cs.externalBytesPerSec * k.streamingEfficiency);
        const double tc = gr.flops * double(batch) / wafer;
        CsKernel kn;
        kn.name = gr.name;
        kn.firstOp = gr.first;
        kn.endOp = gr.end;
        kn.width = t.cs.gridWidth;
        kn.height = t.cs.gridHeight;
        kn.activePes = w.pes;
        kn.memoryBytes = plan.checkpoint[i] * run + gr.weights;
        kn.capacityBytes = prof.sramBytes;
        kn.flopsPerSample = gr.flops;
        kn.computeSamplesPerSecond = tc > 0 ? double(batch) / tc : 1e300;
        kn.transmissionSamplesPerSecond = ts > 0 ? double(batch) / ts : 1e300;
        kn.samplesPerSecond = double(batch) / std::max(tc, ts);
        kn.utilisation = std::max(tc, ts) > 0 ? tc / std::max(tc, ts) * k.computeEfficiency : 0;
        kn.fits = micro >= 1;
        seconds += std::max(tc, ts);
        streamSec += ts;
        streamed += std::int64_t(bytes);
        prof.kernels.push_back(std::move(kn));
    }
    prof.samplesPerSecond = seconds > 0 ? double(batch) / seconds : 0;
    prof.streamedBytes = streamed;
    prof.microBatch = micro;
    prof.bottleneck = streamSec > seconds / 2 ? "weight streaming bandwidth" : "wafer compute";
    prof.onWaferBytes = perSample * run + 2 * weightMax;
    prof.modeReason += "; micro-batch " + std::to_string(std::max<std::int64_t>(micro, 0)) +
                       " of " + std::to_string(batch) + " (the largest the wafer holds)";
    return micro;
}

} // namespace

Result<CompileResult> simulateCs(const graph::OpGraph& g, const targets::Target& t,
                                 const CompileOptions& o, const CsModelConstants& k)
{
    CompileResult r;
    r.options = o;
    r.targetName = t.name;
    r.targetKind = "cs";
    r.graph = g;
    r.diagnostics = g.diagnostics;
    if (g.ops.empty())
        return Result<CompileResult>::fail(
            {Severity::Error, "compile.empty", "the model has no ops to compile", {}});
    const auto& c = o.training;
    r.memory = estimateTrainingMemory(g, c);

    // Plan, mode, place (pipelined or streamed), summary.
    LayerPlan plan = planLayers(g, c, k);
    r.opStage = std::move(plan.opGroup);
    CsProfile prof;
    prof.gridWidth = t.cs.gridWidth;
    prof.gridHeight = t.cs.gridHeight;
    prof.sramBytes = std::int64_t(t.cs.sramBytes);
    Wafer w;
    w.pes = std::int64_t(t.cs.gridWidth) * t.cs.gridHeight;
    w.sramPerPe = t.cs.sramBytes / double(t.cs.cores);
    w.flopsPerPe = t.cs.fp16Flops / double(t.cs.cores);
    w.fabricPerPe = t.cs.fabricBitsPerSec / 8.0 / double(t.cs.cores);
    std::int64_t need = 0;
    for (const auto& gr : plan.groups)
        need += gr.memory;
    const bool supported = chooseMode(g, t, o, k, need, prof, r);

    if (prof.mode == "layer-pipelined") {
        const bool fitsWafer = placePipelined(t, k, plan.groups, w, prof);
        prof.onWaferBytes = need;
        r.fits = fitsWafer && std::all_of(prof.kernels.begin(), prof.kernels.end(),
                                          [](const CsKernel& kn) { return kn.fits; });
        r.peakBytes = need;
    } else {
        const std::int64_t micro = streamWeights(t, o, k, plan, w, prof);
        const std::int64_t offWafer = r.memory.weights + r.memory.optimizerState +
                                      r.memory.masterWeights + r.memory.gradients;
        r.fits = micro >= 1 && double(offWafer) <= t.cs.externalMemoryBytes;
        r.peakBytes = prof.onWaferBytes;
    }
    r.fits = r.fits && supported;
    r.capacityBytes = prof.sramBytes;
    r.samplesPerSecond = prof.samplesPerSecond * std::max(1, c.replicas);
    r.cs = std::move(prof);
    return Result<CompileResult>::ok(std::move(r));
}

} // namespace portolan::sim
