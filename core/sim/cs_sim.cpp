#include "core/sim/cs_sim.h"

#include <algorithm>
#include <cmath>
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

    // One kernel per layer (top-level child).
    std::vector<Group> groups;
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
        }
        Group& gr = groups.back();
        gr.end = i + 1;
        gr.flops += op.forwardFlops + op.backwardFlops;
        const auto& m = ops[std::size_t(i)];
        gr.weights += m.weights;
        gr.stash += std::int64_t(double(m.stash) * mb);
        gr.memory += m.weights + m.gradients + m.gradAccumulators + m.optimizerState +
                     m.masterWeights + std::int64_t(double(m.stash + m.temporary) * mb);
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
    std::string mode = o.csMode;
    if (mode.empty()) {
        const bool small = double(need) < k.layerPipelinedFill * t.cs.sramBytes;
        mode = small ? "layer-pipelined" : "weight-streaming";
        prof.modeReason = std::string("the model needs ") + std::to_string(need) +
                          " bytes on the wafer, " + (small ? "under " : "over ") +
                          std::to_string(int(k.layerPipelinedFill * 100)) + "% of its SRAM";
    } else {
        prof.modeReason = "chosen by the user";
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
                flopsTotal > 0 ? groups[i].flops / flopsTotal : 1.0 / groups.size();
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
            for (std::size_t i = std::size_t(s * perShelf);
                 i < std::min(groups.size(), std::size_t((s + 1) * perShelf)); ++i)
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
            const std::size_t a = std::size_t(s * perShelf);
            const std::size_t b = std::min(groups.size(), std::size_t((s + 1) * perShelf));
            double sum = 0;
            for (std::size_t i = a; i < b; ++i)
                sum += wantPes[i];
            std::vector<double> shares;
            for (std::size_t i = a; i < b; ++i)
                shares.push_back(wantPes[i] / sum);
            const auto widths = apportion(shares, w);
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
        // its gradients go out; compute uses the whole wafer.
        double seconds = 0, streamSec = 0;
        std::int64_t maxStash = 0, stashTotal = 0, streamed = 0;
        const double wafer = t.cs.fp16Flops * k.computeEfficiency;
        for (const auto& gr : groups) {
            const double bytes = 3.0 * double(gr.weights);
            const double ts = bytes / (t.cs.externalBytesPerSec * k.streamingEfficiency);
            const double tc = gr.flops * mb / wafer;
            CsKernel kn;
            kn.name = gr.name;
            kn.firstOp = gr.first;
            kn.endOp = gr.end;
            kn.width = t.cs.gridWidth;
            kn.height = t.cs.gridHeight;
            kn.activePes = pes;
            kn.memoryBytes = gr.stash + gr.weights;
            kn.capacityBytes = prof.sramBytes;
            kn.flopsPerSample = gr.flops;
            kn.computeSamplesPerSecond = tc > 0 ? mb / tc : 1e300;
            kn.transmissionSamplesPerSecond = ts > 0 ? mb / ts : 1e300;
            kn.samplesPerSecond = mb / std::max(tc, ts);
            kn.utilisation = std::max(tc, ts) > 0 ? tc / std::max(tc, ts) * k.computeEfficiency : 0;
            seconds += std::max(tc, ts);
            streamSec += ts;
            streamed += std::int64_t(bytes);
            stashTotal += gr.stash;
            maxStash = std::max(maxStash, gr.weights);
            prof.kernels.push_back(std::move(kn));
        }
        prof.samplesPerSecond = seconds > 0 ? mb / seconds : 0;
        prof.streamedBytes = streamed;
        prof.bottleneck = streamSec > seconds / 2 ? "weight streaming bandwidth" : "wafer compute";
        // On the wafer: every activation of the batch, one layer's weights and its gradients.
        prof.onWaferBytes = stashTotal + 2 * maxStash;
        const std::int64_t offWafer = r.memory.weights + r.memory.optimizerState +
                                      r.memory.masterWeights + r.memory.gradients;
        r.fits = double(prof.onWaferBytes) <= t.cs.sramBytes &&
                 double(offWafer) <= t.cs.externalMemoryBytes;
        r.peakBytes = prof.onWaferBytes;
    }
    r.capacityBytes = prof.sramBytes;
    r.samplesPerSecond = prof.samplesPerSecond * std::max(1, c.replicas);
    r.cs = std::move(prof);
    return Result<CompileResult>::ok(std::move(r));
}

} // namespace portolan::sim
