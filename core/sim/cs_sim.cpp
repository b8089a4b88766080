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
    const int n = int(g.ops.size());
    if (n == 0)
        return Result<CompileResult>::fail(
            {Severity::Error, "compile.empty", "the model has no ops to compile", {}});
    const auto& c = o.training;
    const double mb = std::max(1, c.microBatch);
    const auto ops = perOpMemory(g, c);
    r.memory = estimateTrainingMemory(g, c);
    r.opStage.assign(std::size_t(n), 0);

    // One kernel per layer (top-level child). Pipelined kernels hold a few samples' activations
    // as samples stream through; weight streaming keeps each layer's output for the micro-batch
    // (and rebuilds a layer's inner activations for its backward).
    const double inFlight = std::max(1, k.pipelinedSamplesInFlight);
    TrainingConfig checkpointed = c;
    checkpointed.recompute = true;
    const auto layerOutputs = perOpMemory(g, checkpointed);
    std::vector<Group> groups;
    std::vector<std::int64_t> groupFull, groupCheckpoint; // per sample
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
            groupFull.push_back(0);
            groupCheckpoint.push_back(0);
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
        groupFull.back() += m.stash + m.temporary;
        groupCheckpoint.back() += layerOutputs[std::size_t(i)].stash;
        r.opStage[std::size_t(i)] = int(groups.size()) - 1;
    }
    for (auto& gr : groups)
        gr.boundaryBytes += g.ops[std::size_t(gr.end - 1)].activationBytes;

    CsProfile prof;
    prof.gridWidth = t.cs.gridWidth;
    prof.gridHeight = t.cs.gridHeight;
    prof.sramBytes = std::int64_t(t.cs.sramBytes);
    const std::int64_t pes = std::int64_t(t.cs.gridWidth) * t.cs.gridHeight;
    const double sramPerPe = t.cs.sramBytes / double(t.cs.cores);
    const double flopsPerPe = t.cs.fp16Flops / double(t.cs.cores);
    const double fabricPerPe = t.cs.fabricBitsPerSec / 8.0 / double(t.cs.cores); // bytes/s
    std::int64_t need = 0;
    for (const auto& gr : groups)
        need += gr.memory;
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

    if (mode == "layer-pipelined") {
        // PEs: what each kernel's memory needs, the rest shared in proportion to compute.
        std::vector<std::int64_t> minPes;
        std::int64_t minTotal = 0;
        double flopsTotal = 0;
        for (const auto& gr : groups) {
            minPes.push_back(
                std::max<std::int64_t>(1, std::int64_t(std::ceil(double(gr.memory) / sramPerPe))));
            minTotal += minPes.back();
            flopsTotal += gr.flops;
        }
        const bool fitsWafer = minTotal <= pes;
        std::vector<double> wantPes;
        for (std::size_t i = 0; i < groups.size(); ++i) {
            const double share =
                flopsTotal > 0 ? groups[i].flops / flopsTotal : 1.0 / double(groups.size());
            wantPes.push_back(fitsWafer ? double(minPes[i]) + double(pes - minTotal) * share
                                        : double(pes) * double(minPes[i]) / double(minTotal));
        }
        // Slicing floorplan: shelves of full-width rows, each shelf split into columns.
        const int w = t.cs.gridWidth, h = t.cs.gridHeight;
        const int perShelf = std::max(1, w / 4); // keep kernels at least 4 columns wide
        const int shelves =
            int((groups.size() + std::size_t(perShelf) - 1) / std::size_t(perShelf));
        std::vector<double> shelfShare;
        for (int s = 0; s < shelves; ++s) {
            double sum = 0;
            for (std::size_t i = std::size_t(s) * std::size_t(perShelf);
                 i < std::min(groups.size(), (std::size_t(s) + 1) * std::size_t(perShelf)); ++i)
                sum += wantPes[i];
            shelfShare.push_back(sum / double(pes));
        }
        const double shareSum = std::accumulate(shelfShare.begin(), shelfShare.end(), 0.0);
        for (auto& x : shelfShare)
            x /= shareSum;
        const auto heights = apportion(shelfShare, h);
        int y = 0;
        double overall = 1e300;
        for (int s = 0; s < shelves; ++s) {
            const std::size_t a = std::size_t(s) * std::size_t(perShelf);
            const std::size_t b =
                std::min(groups.size(), (std::size_t(s) + 1) * std::size_t(perShelf));
            double sum = 0;
            for (std::size_t i = a; i < b; ++i)
                sum += wantPes[i];
            std::vector<double> shares;
            for (std::size_t i = a; i < b; ++i)
                shares.push_back(wantPes[i] / sum);
            auto widths = apportion(shares, w);
            // Rounding must not leave a kernel fewer columns than its memory needs: take them
            // from the widest kernels (which have room above their own minimum).
            const int shelfHeight = std::max(1, heights[std::size_t(s)]);
            for (std::size_t i = a; i < b; ++i) {
                const int need = int((minPes[i] + shelfHeight - 1) / shelfHeight);
                while (widths[i - a] < need) {
                    std::size_t donor = i - a;
                    for (std::size_t j = 0; j < widths.size(); ++j) {
                        const int jNeed = int((minPes[a + j] + shelfHeight - 1) / shelfHeight);
                        if (widths[j] - jNeed >
                            widths[donor] -
                                int((minPes[a + donor] + shelfHeight - 1) / shelfHeight))
                            donor = j;
                    }
                    if (donor == i - a)
                        break; // no kernel can spare a column: the wafer is full
                    --widths[donor];
                    ++widths[i - a];
                }
            }
            int x = 0;
            for (std::size_t i = a; i < b; ++i) {
                const auto& gr = groups[i];
                CsKernel kn;
                kn.name = gr.name;
                kn.firstOp = gr.first;
                kn.endOp = gr.end;
                kn.x = x;
                kn.y = y;
                kn.width = widths[i - a];
                kn.height = heights[std::size_t(s)];
                kn.activePes = std::int64_t(kn.width) * kn.height;
                kn.memoryBytes = gr.memory;
                kn.capacityBytes = std::int64_t(double(kn.activePes) * sramPerPe);
                kn.fits = kn.memoryBytes <= kn.capacityBytes;
                kn.flopsPerSample = gr.flops;
                kn.computeSamplesPerSecond = gr.flops > 0 ? double(kn.activePes) * flopsPerPe *
                                                                k.computeEfficiency / gr.flops
                                                          : 1e300;
                // Activations enter on the west edge and gradients return through it.
                const double edgeBytesPerSec = double(kn.height) * fabricPerPe;
                kn.transmissionSamplesPerSecond =
                    gr.boundaryBytes > 0 ? edgeBytesPerSec / (2.0 * double(gr.boundaryBytes))
                                         : 1e300;
                kn.samplesPerSecond =
                    std::min(kn.computeSamplesPerSecond, kn.transmissionSamplesPerSecond);
                kn.utilisation = kn.activePes > 0 ? kn.samplesPerSecond * gr.flops /
                                                        (double(kn.activePes) * flopsPerPe)
                                                  : 0;
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
        prof.onWaferBytes = need;
        r.fits = fitsWafer && std::all_of(prof.kernels.begin(), prof.kernels.end(),
                                          [](const CsKernel& kn) { return kn.fits; });
        r.peakBytes = need;
    } else {
        // Weight streaming: each layer's weights come in for forward and again for backward,
        // its gradients go out; compute uses the whole wafer. The batch runs in micro-batches:
        // the largest that keeps every layer's output, one layer's rebuilt activations and one
        // layer's weights and gradients on the wafer.
        const std::int64_t batch = std::int64_t(mb) * std::max(1, c.gradAccum);
        std::int64_t checkpointTotal = 0, fullMax = 0, weightMax = 0;
        for (std::size_t i = 0; i < groups.size(); ++i) {
            checkpointTotal += groupCheckpoint[i];
            fullMax = std::max(fullMax, groupFull[i]);
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
            // Weights stream in once per micro-batch for forward and once for backward,
            // gradients out once per micro-batch.
            const double bytes = 3.0 * double(gr.weights) * double(steps);
            const double ts = bytes / (t.cs.externalBytesPerSec * k.streamingEfficiency);
            const double tc = gr.flops * double(batch) / wafer;
            CsKernel kn;
            kn.name = gr.name;
            kn.firstOp = gr.first;
            kn.endOp = gr.end;
            kn.width = t.cs.gridWidth;
            kn.height = t.cs.gridHeight;
            kn.activePes = pes;
            kn.memoryBytes = groupCheckpoint[i] * run + gr.weights;
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
