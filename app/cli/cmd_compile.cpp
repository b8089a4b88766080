// portolan-cli compile (PROJECT | MODEL.pt --input-shape ...) --target ...: simulated compilation
// for Graphcore IPUs and Cerebras CS systems. Exits 1 when the model does not fit. The model's
// op graph is recorded by portolan-torch (the Torch child); the simulation runs here.
#include "app/cli/cli_common.h"
#include "core/common/atomic_file.h"
#include "core/common/text.h"
#include "core/graph/graph_source.h"
#include "core/graph/torch_child.h"
#include "core/report/report.h"
#include "core/report/trace.h"
#include "core/sim/compile.h"
#include "core/sim/partition.h"
#include "core/targets/target.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace portolan::cli {

namespace {

struct CompileCliOptions
{
    std::string input;
    std::string inputShape;
    std::string inputDtype = "float32";
    std::string target;
    int ipus = 1;
    int microBatch = 1;
    int gradAccum = 1;
    int replicas = 1;
    std::string precision = "fp32";
    bool recompute = false;
    bool offChip = false;
    std::string split;
    std::string optimizer = "sgd";
    std::string schedule = "1f1b";
    std::string mode;
    std::string reportPath;
    std::string tracePath;
    std::string synthetic; // hidden: "LAYERSxHIDDEN"
    int syntheticHeads = 25;
    int syntheticSequence = 1024;
    int syntheticVocab = 50257;
    int recordBatch = 2;
};

std::string fmt(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

Result<graph::OpGraph> loadGraph(const CompileCliOptions& o)
{
    if (!o.synthetic.empty())
        return graph::runTorchChild(
            {"synthetic", o.synthetic, "--heads", std::to_string(o.syntheticHeads), "--sequence",
             std::to_string(o.syntheticSequence), "--vocab", std::to_string(o.syntheticVocab)});
    std::filesystem::path in = o.input;
    if (in.extension() == ".pt" || in.extension() == ".pth" || in.extension() == ".ptl") {
        if (o.inputShape.empty())
            return Result<graph::OpGraph>::fail(
                {Severity::Error,
                 "cli.input-shape",
                 "a TorchScript model needs --input-shape, like 1,3,32,32",
                 {o.input}});
        if (auto shape = graph::parseShape(o.inputShape); !shape)
            return Result<graph::OpGraph>::fail(shape.error);
        return graph::runTorchChild(
            {"torchscript", o.input, "--input-shape", o.inputShape, "--input-dtype", o.inputDtype});
    }
    const graph::GraphSource source = graph::chooseGraphSource(in);
    const auto args = graph::torchChildArguments(source, o.recordBatch);
    if (args.empty())
        return Result<graph::OpGraph>::fail(source.message);
    if (!source.message.message.empty())
        std::cerr << "portolan-cli: " << source.message.message << "\n";
    return graph::runTorchChild(args);
}

void printSummary(const sim::CompileResult& r)
{
    const auto& g = r.graph;
    const auto& t = r.options.training;
    std::cout << "Model: " << g.name << " (" << g.origin << ")\n";
    std::cout << "  " << g.ops.size() << " ops in " << g.layerNames.size() << " layers, "
              << fmt("%.4g", double(g.totalParams()) / 1e6) << " M parameters, "
              << fmt("%.4g", g.totalForwardFlops() / 1e9) << " GFLOP forward per sample\n";
    std::cout << "Target: " << r.targetName;
    if (r.ipu)
        std::cout << ", " << r.ipu->systemName << " per replica x " << t.replicas << " replica(s)";
    std::cout << "\n  precision " << sim::precisionName(t.precision) << ", optimizer "
              << sim::optimizerName(t.optimizer) << ", micro-batch " << t.microBatch
              << ", gradient accumulation " << t.gradAccum << (t.recompute ? ", recomputation" : "")
              << (t.optimizerOffChip ? ", optimizer state off chip" : "") << "\n";
    std::cout << "Memory (model, one replica): " << humanBytes(double(r.memory.total()))
              << " = weights " << humanBytes(double(r.memory.weights)) << " + gradients "
              << humanBytes(double(r.memory.gradients)) << " + optimizer "
              << humanBytes(double(r.memory.optimizerState + r.memory.masterWeights))
              << " + activations " << humanBytes(double(r.memory.stashedActivations))
              << " + temporaries " << humanBytes(double(r.memory.temporaries)) << "\n";
    if (r.ipu) {
        const auto& p = *r.ipu;
        std::cout << "Pipeline (" << p.splitSource << " split, " << sim::scheduleName(t.schedule)
                  << "):\n";
        std::printf("  %-5s %-9s %-11s %12s %12s %8s %10s\n", "stage", "ops", "layers", "max tile",
                    "IPU used", "OOM", "time ms");
        for (const auto& s : p.stages)
            std::printf(
                "  %-5d %-9s %-11s %12s %12s %8d %10.3f\n", s.index,
                (std::to_string(s.firstOp) + "-" + std::to_string(s.endOp - 1)).c_str(),
                (std::to_string(s.firstLayer) + "-" + std::to_string(s.endLayer - 1)).c_str(),
                humanBytes(double(s.maxTileBytes)).c_str(), humanBytes(double(s.usedBytes)).c_str(),
                s.oomTiles, (s.forwardSeconds + s.backwardSeconds) * 1e3);
        std::cout.flush();
        std::cout << "  tile memory: fullest " << humanBytes(double(p.maxTileBytes)) << " of "
                  << humanBytes(double(p.tileCapacity)) << ", " << p.oomTiles
                  << " tile(s) out of memory\n";
        std::cout << "  bubble " << fmt("%.1f", 100 * p.bubble) << "%, balance "
                  << fmt("%.2f", p.balance) << ", step " << fmt("%.3f", p.stepSeconds * 1e3)
                  << " ms, " << fmt("%.1f", p.samplesPerSecond) << " samples/s\n";
    }
    if (const auto& ps = r.projectSplit) {
        std::string stages, ipus;
        for (std::size_t i = 0; i < ps->layersPerStage.size(); ++i) {
            stages += (i ? "," : "") + std::to_string(ps->layersPerStage[i]);
            ipus += (i ? "," : "") + std::to_string(i < ps->ipus.size() ? ps->ipus[i] : int(i));
        }
        std::cout << "The project's split (" << ps->source << "): layers per stage " << stages
                  << " on IPUs " << ipus << ": ";
        if (!ps->error.empty())
            std::cout << "cannot be simulated: " << ps->error << "\n";
        else
            std::cout << (ps->fits ? "fits" : "does not fit") << ", fullest tile "
                      << humanBytes(double(ps->maxTileBytes)) << ", " << ps->oomTiles
                      << " tile(s) out of memory, balance " << fmt("%.2f", ps->balance) << ", step "
                      << fmt("%.3f", ps->stepSeconds * 1e3) << " ms, "
                      << fmt("%.1f", ps->samplesPerSecond) << " samples/s\n";
    }
    if (r.cs) {
        const auto& c = *r.cs;
        std::cout << "Mode: " << c.mode << " (" << c.modeReason << ")\n";
        std::printf("  %-24s %9s %10s %12s %12s %12s %6s\n", "kernel", "PEs", "memory", "samples/s",
                    "compute", "transmit", "util");
        std::size_t shown = 0;
        for (const auto& k : c.kernels) {
            if (++shown > 40) {
                std::printf("  ... %zu more kernels in the report\n", c.kernels.size() - 40);
                break;
            }
            std::printf("  %-24.24s %9lld %10s %12.4g %12.4g %12.4g %5.1f%%\n", k.name.c_str(),
                        (long long)k.activePes, humanBytes(double(k.memoryBytes)).c_str(),
                        k.samplesPerSecond, k.computeSamplesPerSecond,
                        k.transmissionSamplesPerSecond, 100 * k.utilisation);
        }
        std::cout.flush();
        std::cout << "  on wafer " << humanBytes(double(c.onWaferBytes)) << " of "
                  << humanBytes(double(c.sramBytes)) << ", " << fmt("%.1f", r.samplesPerSecond)
                  << " samples/s (bottleneck: " << c.bottleneck << ")\n";
    }
    std::cout << (r.fits ? "FITS" : "DOES NOT FIT") << ": peak " << humanBytes(double(r.peakBytes))
              << " of " << humanBytes(double(r.capacityBytes))
              << (r.ipu ? " per tile" : " of wafer SRAM") << "\n";
    if (!r.advice.empty()) {
        std::cout << "Advice (each remedy re-simulated):\n";
        for (const auto& a : r.advice)
            std::cout << "  " << (a.fitsAfter ? "fits   " : "no     ") << a.id << ": "
                      << a.description << "; saves " << humanBytes(double(a.bytesSaved))
                      << " on the fullest " << (r.ipu ? "tile" : "wafer") << "\n";
    }
    for (const auto& d : r.diagnostics)
        std::cout << d.toString() << "\n";
    std::cout << "Compiled in " << fmt("%.1f", r.compileMilliseconds) << " ms\n";
}

int runCompile(const CompileCliOptions& o)
{
    if (o.input.empty() && o.synthetic.empty()) {
        std::cerr << "portolan-cli compile: give a PROJECT or a MODEL.pt\n";
        return ExitUsage;
    }
    sim::CompileOptions c;
    c.target = o.target;
    c.ipus = o.ipus;
    c.csMode = o.mode;
    auto& t = c.training;
    t.microBatch = o.microBatch;
    t.gradAccum = o.gradAccum;
    t.replicas = o.replicas;
    t.precision = *sim::precisionFromName(o.precision);
    t.optimizer = *sim::optimizerFromName(o.optimizer);
    t.schedule = *sim::scheduleFromName(o.schedule);
    t.recompute = o.recompute;
    t.optimizerOffChip = o.offChip;
    if (!o.split.empty()) {
        auto s = sim::parseSplit(o.split);
        if (!s.error.empty()) {
            std::cerr << "portolan-cli: " << s.error << "\n";
            return ExitUsage;
        }
        c.split = s.starts;
        if (o.ipus == 1)
            c.ipus = int(c.split.size());
    }
    auto target = targets::loadTarget(o.target);
    if (!target) {
        printDiagnostic(std::cerr, target.error);
        return ExitUsage;
    }
    auto graph = loadGraph(o);
    if (!graph) {
        printDiagnostic(std::cerr, graph.error);
        return ExitUsage;
    }
    auto result = sim::compileGraph(*graph.value, *target.value, c);
    if (!result) {
        printDiagnostic(std::cerr, result.error);
        return ExitUsage;
    }
    if (result.value->ipu)
        if (auto systems = targets::loadIpuSystems())
            result.value->ipu->systemName = targets::ipuSystemName(*systems.value, c.ipus);
    printSummary(*result.value);
    if (!o.reportPath.empty()) {
        if (auto err = report::saveReport(o.reportPath, *result.value)) {
            printDiagnostic(std::cerr, *err);
            return ExitUsage;
        }
        std::cout << "Report: " << o.reportPath << "\n";
    }
    if (!o.tracePath.empty()) {
        if (auto err = writeFileAtomically(o.tracePath, report::chromeTrace(*result.value))) {
            printDiagnostic(std::cerr, *err);
            return ExitUsage;
        }
        std::cout << "Trace: " << o.tracePath << " (open in https://ui.perfetto.dev)\n";
    }
    return result.value->fits ? ExitOk : ExitFindings;
}

Subcommand registerCompile(CLI::App& root)
{
    auto o = std::make_shared<CompileCliOptions>();
    CLI::App* cmd = root.add_subcommand(
        "compile", "Simulate compiling a model for Graphcore IPUs or a Cerebras CS system: does "
                   "it fit, how does it split, how fast");
    cmd->add_option("INPUT", o->input, "Project folder, params file, or TorchScript MODEL.pt");
    cmd->add_option("--input-shape", o->inputShape,
                    "Input shape with batch for a .pt, e.g. 1,3,32,32");
    cmd->add_option("--input-dtype", o->inputDtype, "Input dtype for a .pt")
        ->check(CLI::IsMember({"float32", "float16", "int64", "int32"}));
    cmd->add_option("--target", o->target, "ipu-mk1, ipu-mk2, ipu-bow, cs-2 or cs-3")->required();
    cmd->add_option("--ipus", o->ipus, "IPUs per replica (pipeline stages)")
        ->check(CLI::Range(1, 1024));
    cmd->add_option("--micro-batch", o->microBatch, "Samples per micro-batch")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--grad-accum", o->gradAccum, "Micro-batches per weight update")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--replicas", o->replicas, "Data-parallel replicas")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--precision", o->precision, "fp32, fp16 or mixed")
        ->check(CLI::IsMember({"fp32", "fp16", "mixed"}));
    cmd->add_flag("--recompute", o->recompute, "Recompute activations from layer checkpoints");
    cmd->add_flag("--optimizer-off-chip", o->offChip, "Keep optimizer state in streaming memory");
    cmd->add_option("--split", o->split, "Layers per stage, e.g. 3,7,7,7 (default: automatic)");
    cmd->add_option("--optimizer", o->optimizer, "sgd, sgd-momentum, adam or adamw")
        ->check(CLI::IsMember({"sgd", "sgd-momentum", "adam", "adamw"}));
    cmd->add_option("--schedule", o->schedule, "Pipeline schedule: 1f1b or gpipe")
        ->check(CLI::IsMember({"1f1b", "gpipe"}));
    cmd->add_option("--mode", o->mode, "CS mode (default: chosen by model size)")
        ->check(CLI::IsMember({"layer-pipelined", "weight-streaming"}));
    cmd->add_option("--report", o->reportPath, "Write the report JSON here");
    cmd->add_option("--trace", o->tracePath, "Write the schedule as Chrome trace JSON here");
    cmd->add_option("--record-batch", o->recordBatch, "Batch of the recording forward pass")
        ->check(CLI::PositiveNumber);
    // Developer options (hidden): a GPT-style graph of any size, for benchmarks.
    cmd->add_option("--synthetic", o->synthetic, "LAYERSxHIDDEN transformer")->group("");
    cmd->add_option("--synthetic-heads", o->syntheticHeads)->group("");
    cmd->add_option("--synthetic-sequence", o->syntheticSequence)->group("");
    cmd->add_option("--synthetic-vocab", o->syntheticVocab)->group("");
    return {cmd, [o] {
                return runCompile(*o);
            }};
}
const CommandRegistration registration{"compile", 50, &registerCompile};

} // namespace

} // namespace portolan::cli
