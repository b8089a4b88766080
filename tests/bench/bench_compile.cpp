// Simulated compilation time (docs/ARCHITECTURE.md, Performance figures): a GPT-2-XL-size graph (48
// layers, hidden 1600, ~1.5 B parameters) for 64 IPUs with automatic split, target under 100 ms;
// and how compile time grows from 1 k to 100 k ops. The graphs are recorded with LibTorch: one real
// block runs a forward pass, its ops are replicated (core/graph/synthetic.h). Usage: bench_compile
// [sequence]   (default 1024, GPT-2's context)
#include "core/graph/synthetic.h"
#include "core/sim/compile.h"
#include "core/targets/target.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace portolan;

namespace {

double ms(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double medianCompile(const graph::OpGraph& g, const targets::Target& t,
                     const sim::CompileOptions& o, int reps, sim::CompileResult* out = nullptr)
{
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto r = sim::compileGraph(g, t, o);
        times.push_back(ms(t0));
        if (!r) {
            std::printf("compile failed: %s\n", r.error.toString().c_str());
            std::exit(1);
        }
        if (out)
            *out = std::move(*r.value);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    const int sequence = argc > 1 ? std::atoi(argv[1]) : 1024;
    auto mk2 = targets::loadTarget("ipu-mk2");
    if (!mk2) {
        std::printf("%s\n", mk2.error.toString().c_str());
        return 1;
    }
    graph::SyntheticTransformer spec; // GPT-2-XL: 48 x 1600, 25 heads, vocab 50257
    spec.sequence = sequence;
    auto t0 = std::chrono::steady_clock::now();
    auto g = graph::recordSyntheticTransformer(spec);
    if (!g) {
        std::printf("%s\n", g.error.toString().c_str());
        return 1;
    }
    std::printf("GPT-2-XL-size graph: %zu ops, %.3f B parameters, %.1f GFLOP forward per sample "
                "(recorded in %.0f ms: %s)\n",
                g.value->ops.size(), double(g.value->totalParams()) / 1e9,
                g.value->totalForwardFlops() / 1e9, ms(t0), g.value->origin.c_str());
    sim::CompileOptions o;
    o.target = "ipu-mk2";
    o.ipus = 64;
    o.training.precision = sim::Precision::Fp16;
    o.training.optimizer = sim::Optimizer::Adam;
    o.training.optimizerOffChip = true;
    o.training.recompute = true;
    o.training.microBatch = 1;
    o.training.gradAccum = 128;
    o.advice = false;
    sim::CompileResult r;
    double t = medianCompile(*g.value, *mk2.value, o, 7, &r);
    std::printf("compile for 64 x IPU Mk2, automatic split (fp16, Adam state off chip, "
                "recompute, m=128): median %.1f ms; %zu variables on %zu tiles, fits=%d, "
                "fullest tile %lld B, %.1f samples/s, bubble %.3f\n",
                t, r.ipu->variables.size(), r.ipu->tileBytes[0].size(), int(r.fits),
                (long long)r.ipu->maxTileBytes, r.samplesPerSecond, r.ipu->bubble);
    o.advice = true;
    o.training.optimizerOffChip = false;
    o.training.precision = sim::Precision::Mixed;
    t = medianCompile(*g.value, *mk2.value, o, 3, &r);
    std::printf("same, mixed precision with Adam state on chip: median %.1f ms including %zu "
                "advice re-simulations; fits=%d\n",
                t, r.advice.size(), int(r.fits));

    std::printf("\ncompile time growth (hidden 128, sequence 128, 16 x IPU Mk2, automatic "
                "split, no advice):\n");
    for (int layers : {25, 250, 2500}) {
        graph::SyntheticTransformer s{layers, 128, 4, 128, 1000, true};
        auto gs = graph::recordSyntheticTransformer(s);
        sim::CompileOptions so;
        so.ipus = 16;
        so.training.gradAccum = 32;
        so.advice = false;
        const double tt = medianCompile(*gs.value, *mk2.value, so, 5, &r);
        std::printf("  %7zu ops: %8.2f ms (%zu variables)\n", gs.value->ops.size(), tt,
                    r.ipu->variables.size());
    }
    return 0;
}
