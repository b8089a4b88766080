// portolan-cli compile (PROJECT | PARAMS.yaml | MODEL.pt --input-shape ...) --target ...:
// simulated compilation for Graphcore IPUs and Cerebras CS systems; --auto searches for a
// configuration that fits. Exits 1 when the model does not fit. The orchestration is
// core/workflow's compileProject, which the Profile tab uses too; this file parses options and
// prints.
#include "app/cli/cli_common.h"
#include "core/common/atomic_file.h"
#include "core/common/text.h"
#include "core/report/report.h"
#include "core/report/trace.h"
#include "core/sim/auto_config.h"
#include "core/sim/layer_split.h"
#include "core/sim/summary.h"
#include "core/workflow/compile_project.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace portolan::cli {

namespace {

struct CompileCliOptions
{
    std::string input;
    std::string inputShape;
    std::string namedConfig;
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
    bool noAdvice = false;
    // Poplar options, inference, and the configuration search.
    bool inference = false;
    double amp = 0.6;
    std::string ampPerStage;       // "0.15,0.18,0.2,0.25"
    std::string recomputePerStage; // "0,1,1,1"
    int serialization = 1;
    bool sharded = false;
    std::string firstOrderMomentum = "fp32";
    bool halfPartials = false;
    int ioTiles = 0;
    std::string autoGoal; // "", fewest-ipus, throughput
    int maxIpus = 0;
    // Set options the params file must not override (CLI11 counts them after parsing).
    CLI::Option* microBatchOption = nullptr;
    CLI::Option* gradAccumOption = nullptr;
    CLI::Option* optimizerOption = nullptr;
    CLI::Option* precisionOption = nullptr;
    const CLI::App* command = nullptr; // counts the other options the project must not override
};

// The settings given on the command line, which the project's own must not override.
sim::TrainingOverrides givenSettings(const CompileCliOptions& o, const sim::CompileOptions& c)
{
    const auto given = [&](const char* name) {
        return o.command && o.command->count(name) > 0;
    };
    sim::TrainingOverrides keep;
    keep.microBatch = o.microBatchOption->count() > 0;
    keep.gradAccum = o.gradAccumOption->count() > 0;
    keep.optimizer = o.optimizerOption->count() > 0;
    keep.precision = o.precisionOption->count() > 0;
    keep.ipus = given("--ipus") || !c.split.empty();
    keep.replicas = given("--replicas");
    keep.availableMemory = given("--available-memory-proportion") || given("--amp-per-ipu");
    keep.halfPartials = given("--half-partials");
    return keep;
}

void printSummary(const sim::CompileResult& r)
{
    const sim::CompileSummary s = sim::summarize(r);
    for (const auto& line : s.lines)
        std::cout << line << "\n";
    if (!s.table.empty()) {
        std::string header = " ";
        for (const auto& h : s.tableHeader)
            header += " " + h;
        // Columns as wide as their widest cell.
        std::vector<std::size_t> width(s.tableHeader.size(), 0);
        for (std::size_t c = 0; c < width.size(); ++c) {
            width[c] = s.tableHeader[c].size();
            for (const auto& row : s.table)
                width[c] = std::max(width[c], c < row.size() ? row[c].size() : 0);
        }
        const auto print = [&](const std::vector<std::string>& row) {
            std::cout << " ";
            for (std::size_t c = 0; c < width.size(); ++c) {
                const std::string cell = c < row.size() ? row[c] : std::string();
                std::cout << " "
                          << (c == 0 ? cell + std::string(width[c] - cell.size(), ' ')
                                     : std::string(width[c] - cell.size(), ' ') + cell);
            }
            std::cout << "\n";
        };
        print(s.tableHeader);
        for (const auto& row : s.table)
            print(row);
        if (s.tableRowsOmitted)
            std::cout << "  ... " << s.tableRowsOmitted << " more in the report\n";
    }
    std::cout << s.headline << "\n";
    if (!s.advice.empty()) {
        std::cout << "Advice (each remedy re-simulated):\n";
        for (const auto& a : s.advice)
            std::cout << "  " << a << "\n";
    }
    for (const auto& d : s.diagnostics)
        std::cout << d << "\n";
    std::cout << s.timing << "\n";
}

// Without --target, the hardware the input is for (sim::defaultTarget, the Profile's rule): a
// Cerebras config compiles for a CS-2, a PopTorch project for an IPU; else the Profile's
// default, an IPU Mk2. The reason is said.
std::string targetOf(const CompileCliOptions& o)
{
    if (!o.target.empty())
        return o.target;
    sim::DefaultTarget d;
    if (!o.input.empty() && o.synthetic.empty())
        d = sim::defaultTarget(workflow::chooseGraphSource(o.input, o.namedConfig));
    if (d.id.empty())
        d = {sim::CompileOptions{}.target, "the input names no vendor's hardware"};
    std::cerr << "portolan-cli: target " << d.id << ": " << d.reason
              << " (--target picks another)\n";
    return d.id;
}

// What the workflow compiles: the input, the options the flags give and which of them the
// project's own settings must not override.
workflow::CompileRequest compileRequest(const CompileCliOptions& o, const sim::CompileOptions& c)
{
    workflow::CompileRequest request;
    request.input.path = o.input;
    request.input.inputShape = o.inputShape;
    request.input.namedConfig = o.namedConfig;
    request.input.inputDtype = o.inputDtype;
    request.input.recordBatch = o.recordBatch;
    if (!o.synthetic.empty())
        request.input.torchArguments = {"synthetic",  o.synthetic,
                                        "--heads",    std::to_string(o.syntheticHeads),
                                        "--sequence", std::to_string(o.syntheticSequence),
                                        "--vocab",    std::to_string(o.syntheticVocab)};
    request.options = c;
    request.keep = givenSettings(o, c);
    // Without a report or a trace to write, the summary is all that is printed (the trace reads
    // the schedule's events, which only the full detail has).
    request.detail = o.reportPath.empty() && o.tracePath.empty() ? sim::SimDetail::Summary
                                                                 : sim::SimDetail::Full;
    if (!o.autoGoal.empty()) {
        sim::AutoRequest search;
        search.goal = o.autoGoal == "throughput" ? sim::AutoRequest::Goal::HighestThroughput
                                                 : sim::AutoRequest::Goal::FewestIpus;
        search.maxIpus = o.maxIpus;
        request.search = search;
    }
    return request;
}

// A compile allocates and frees per-op arrays of a few hundred KiB in every simulation (the
// whole model's memory terms for the automatic split, at 70 B parameters 4,648 ops). glibc
// serves such sizes with mmap and gives them back on free, so each simulation faulted the same
// pages in again: a fifth of a 70 B compile's page faults. This process is short-lived, so its
// allocator keeps what it frees for the next simulation.
void keepFreedMemory()
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int runCompile(const CompileCliOptions& cliOptions)
{
    keepFreedMemory();
    CompileCliOptions o = cliOptions;
    if (o.input.empty() && o.synthetic.empty()) {
        std::cerr << "portolan-cli compile: give a PROJECT, a PARAMS.yaml or a MODEL.pt\n";
        return ExitUsage;
    }
    o.target = targetOf(o);
    sim::CompileOptions c;
    c.target = o.target;
    c.ipus = o.ipus;
    c.csMode = o.mode;
    c.advice = !o.noAdvice;
    auto& t = c.training;
    t.microBatch = o.microBatch;
    t.gradAccum = o.gradAccum;
    t.replicas = o.replicas;
    t.precision = *sim::precisionFromName(o.precision);
    t.optimizer = *sim::optimizerFromName(o.optimizer);
    t.schedule = *sim::scheduleFromName(o.schedule);
    t.recompute = o.recompute;
    t.optimizerOffChip = o.offChip;
    t.inference = o.inference;
    t.availableMemoryProportion = o.amp;
    t.serializationFactor = o.serialization;
    t.replicatedTensorSharding = o.sharded;
    t.halfFirstOrderMomentum = *sim::momentumTypeFromName(o.firstOrderMomentum);
    t.halfPartials = o.halfPartials;
    t.ioTiles = o.ioTiles;
    std::string stageError;
    if (!o.ampPerStage.empty()) {
        auto v = sim::parseStageValues(o.ampPerStage, 0.01, 1.0, &stageError);
        if (!v) {
            std::cerr << "portolan-cli: --amp-per-ipu: " << stageError << "\n";
            return ExitUsage;
        }
        t.availableMemoryProportionPerStage = *v;
    }
    if (!o.recomputePerStage.empty()) {
        // Any number parses, so that a 2 is told "each value is 0 or 1", not a range.
        auto v = sim::parseStageValues(o.recomputePerStage, -1e9, 1e9, &stageError);
        if (!v || std::any_of(v->begin(), v->end(), [](double x) { return x != 0 && x != 1; })) {
            std::cerr << "portolan-cli: --recompute-per-ipu: "
                      << (v ? "each value is 0 or 1" : stageError) << "\n";
            return ExitUsage;
        }
        for (double x : *v)
            t.recomputePerStage.push_back(x != 0 ? 1 : 0);
    }
    if (!o.split.empty()) {
        auto s = sim::LayerSplit::parse(o.split);
        if (!s) {
            std::cerr << "portolan-cli: " << s.error.message << "\n";
            return ExitUsage;
        }
        c.split = s.value->perStage();
        if (o.ipus == 1)
            c.ipus = s.value->stages();
    }
    // The orchestration (model source, the project's training, the simulators) is the
    // workflow's, shared with the Profile tab.
    auto outcome = workflow::compileProject(compileRequest(o, c));
    if (!outcome) {
        printDiagnostic(std::cerr, outcome.error);
        return ExitUsage;
    }
    for (const auto& d : outcome.value->diagnostics)
        std::cerr << "portolan-cli: " << d.message << "\n";
    for (const auto& n : outcome.value->notes)
        std::cout << n << "\n";
    if (const auto& a = outcome.value->search) {
        std::cout << "Search (" << o.autoGoal << "): " << a->simulated
                  << " configurations simulated in " << humanSeconds(a->milliseconds / 1e3) << "\n";
        for (const auto& p : a->pruned)
            std::cout << "  pruned: " << p << "\n";
        if (!a->found) {
            std::cout << "No configuration fits.\n";
            return ExitFindings;
        }
        std::cout << "Best: " << sim::describeOptions(a->best.options) << "\n";
    }
    const sim::CompileResult& result = *outcome.value->result;
    printSummary(result);
    if (!o.reportPath.empty()) {
        if (auto err = report::saveReport(o.reportPath, result)) {
            printDiagnostic(std::cerr, *err);
            return ExitUsage;
        }
        std::cout << "Report: " << o.reportPath << "\n";
    }
    if (!o.tracePath.empty()) {
        if (auto err = writeFileAtomically(o.tracePath, report::chromeTrace(result))) {
            printDiagnostic(std::cerr, *err);
            return ExitUsage;
        }
        std::cout << "Trace: " << o.tracePath << " (open in https://ui.perfetto.dev)\n";
    }
    return result.fits ? ExitOk : ExitFindings;
}

Subcommand registerCompile(CLI::App& root)
{
    auto o = std::make_shared<CompileCliOptions>();
    CLI::App* cmd = root.add_subcommand(
        "compile", "Simulate compiling a model for Graphcore IPUs or a Cerebras CS system: does "
                   "it fit, how does it split, how fast");
    o->command = cmd;
    cmd->add_option("INPUT", o->input,
                    "Project folder, Model Zoo params file (.yaml: the model is built from its "
                    "model: keys), or TorchScript MODEL.pt");
    cmd->add_option("--config", o->namedConfig,
                    "A Graphcore application config's named configuration (default: the first "
                    "that describes a model)");
    cmd->add_option("--input-shape", o->inputShape,
                    "Input shape with batch for a .pt, e.g. 1,3,32,32");
    cmd->add_option("--input-dtype", o->inputDtype, "Input dtype for a .pt")
        ->check(CLI::IsMember({"float32", "float16", "int64", "int32"}));
    cmd->add_option("--target", o->target,
                    "ipu-mk1, ipu-mk2, ipu-bow, cs-2 or cs-3 (default: the input's vendor's: a "
                    "Cerebras config on a CS-2, else an IPU Mk2)");
    cmd->add_option("--ipus", o->ipus, "IPUs per replica (pipeline stages)")
        ->check(CLI::Range(1, 1024));
    o->microBatchOption = cmd->add_option("--micro-batch", o->microBatch, "Samples per micro-batch")
                              ->check(CLI::PositiveNumber);
    o->gradAccumOption =
        cmd->add_option("--grad-accum", o->gradAccum, "Micro-batches per weight update")
            ->check(CLI::PositiveNumber);
    cmd->add_option("--replicas", o->replicas, "Data-parallel replicas")
        ->check(CLI::PositiveNumber);
    o->precisionOption = cmd->add_option("--precision", o->precision, "fp32, fp16 or mixed")
                             ->check(CLI::IsMember({"fp32", "fp16", "mixed"}));
    cmd->add_flag("--recompute", o->recompute, "Recompute activations from layer checkpoints");
    cmd->add_flag("--optimizer-off-chip", o->offChip, "Keep optimizer state in streaming memory");
    cmd->add_option("--split", o->split,
                    "Layers per IPU, e.g. 3,7,7,7 (default: automatic); counted in blocks as "
                    "Graphcore's layers_per_ipu when they add up to the model's blocks, where 0 "
                    "is an IPU with the embeddings or head only");
    o->optimizerOption =
        cmd->add_option("--optimizer", o->optimizer, "sgd, sgd-momentum, adam, adamw or lamb")
            ->check(CLI::IsMember({"sgd", "sgd-momentum", "adam", "adamw", "lamb"}));
    cmd->add_flag("--inference", o->inference, "Forward only: no gradients or optimizer state");
    cmd->add_option("--available-memory-proportion", o->amp,
                    "Share of tile memory matmul plans may use for temporaries (Poplar: 0.6)")
        ->check(CLI::Range(0.01, 1.0));
    cmd->add_option("--amp-per-ipu", o->ampPerStage,
                    "Available memory proportion per IPU of a replica, e.g. 0.15,0.18,0.2,0.25 "
                    "(Graphcore's matmul_proportion list); overrides "
                    "--available-memory-proportion");
    cmd->add_option("--recompute-per-ipu", o->recomputePerStage,
                    "Recomputation per IPU of a replica, e.g. 0,1,1,1; overrides --recompute");
    cmd->add_option("--serialization-factor", o->serialization,
                    "Serialize the vocabulary embedding and tied head into N chunks")
        ->check(CLI::Range(1, 64));
    cmd->add_flag("--replicated-tensor-sharding", o->sharded,
                  "Shard the optimizer state across the replicas");
    cmd->add_option("--first-order-momentum", o->firstOrderMomentum,
                    "Type of the optimizer's first-order momentum (Adam/LAMB first moment, SGD "
                    "velocity): fp32, or fp16 as PopTorch's first_order_momentum_accum_type")
        ->check(CLI::IsMember({"fp32", "fp16"}));
    cmd->add_flag("--half-partials", o->halfPartials, "Matmul partials in fp16");
    cmd->add_option("--io-tiles", o->ioTiles, "Tiles per IPU kept for host I/O")
        ->check(CLI::Range(0, 1024));
    cmd->add_option("--auto", o->autoGoal,
                    "Search for a configuration that fits: fewest-ipus, or throughput on the "
                    "given --ipus")
        ->check(CLI::IsMember({"fewest-ipus", "throughput"}));
    cmd->add_option("--max-ipus", o->maxIpus, "Largest IPU count --auto tries")
        ->check(CLI::Range(1, 1024));
    cmd->add_option("--schedule", o->schedule, "Pipeline schedule: 1f1b or gpipe")
        ->check(CLI::IsMember({"1f1b", "gpipe"}));
    cmd->add_option("--mode", o->mode, "CS mode (default: chosen by model size)")
        ->check(CLI::IsMember({"layer-pipelined", "weight-streaming"}));
    cmd->add_flag("--no-advice", o->noAdvice,
                  "Skip the advice: when the model does not fit, do not re-simulate each remedy "
                  "(faster at scale; the report has no advice)");
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
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"compile", 50, &registerCompile};

} // namespace

} // namespace portolan::cli
