// portolan-torch train PROJECT (what `portolan-cli train` runs): trains / evaluates the project's
// model with the LibTorch runtime. With --events jsonl it writes one JSON event per line on
// stdout (core/runtime/EVENTS.md); the GUI runs it as a child process and parses that stream.
#include "app/cli/cli_common.h"
#include "app/torch/train_command.h"
#include "core/cluster/cluster.h"
#include "core/common/json.h"
#include "core/common/number_format.h"
#include "core/runtime/run_config.h"
#include "core/runtime/trainer.h"

#include <atomic>
#include <csignal>
#include <iomanip>
#include <iostream>
#include <memory>

namespace portolan::cli {

namespace {

std::atomic<bool> g_stopRequested{false};

extern "C" void onStopSignal(int)
{
    // Only an atomic store: the run finishes its step, checkpoints and reports "stopped".
    g_stopRequested.store(true);
}

void printText(const nlohmann::json& e)
{
    const std::string type = e.value("event", "");
    std::ostringstream line;
    line << std::fixed;
    if (type == "started") {
        line << "Training " << e.value("model", "") << " ("
             << format::parameters(e.value("parameters", 0.0)) << "), mode " << e.value("mode", "")
             << ", " << e.value("max_steps", 0) << " steps, " << e.value("threads", 0)
             << " threads, seed " << e.value("seed", 0);
        if (e.contains("resumed_from"))
            line << "\nResumed from " << e["resumed_from"].value("path", "") << " (step "
                 << e["resumed_from"].value("step", 0) << ")";
        for (const char* split : {"train", "eval"})
            if (e.contains("data") && e["data"].contains(split))
                line << "\n  " << split << " data: " << e["data"][split].value("source", "");
        if (e.contains("distributed")) {
            const auto& d = e["distributed"];
            line << "\n  data parallel: " << d.value("world_size", 0) << " ranks over Gloo at "
                 << d.value("rendezvous", "") << ", " << d.value("rank_batch", 0)
                 << " samples per rank and step, " << d.value("buckets", 0) << " gradient buckets";
        }
    } else if (type == "step") {
        line << "step " << std::setw(6) << e.value("step", 0) << "  loss " << std::setprecision(4)
             << e.value("loss", 0.0) << "  lr " << std::setprecision(6) << e.value("lr", 0.0)
             << "  " << format::samplesPerSecond(e.value("samples_per_sec", 0.0));
    } else if (type == "eval") {
        line << "eval at step " << e.value("step", 0) << ": loss " << std::setprecision(4)
             << e.value("loss", 0.0) << ", accuracy " << std::setprecision(3)
             << e.value("accuracy", 0.0) << " (" << e.value("samples", 0) << " samples)";
    } else if (type == "checkpoint") {
        line << "checkpoint at step " << e.value("step", 0) << ": " << e.value("path", "");
    } else if (type == "warning") {
        line << "warning: " << e.value("message", "");
    } else if (type == "finished") {
        line << "finished (" << e.value("reason", "") << ") at step " << e.value("step", 0)
             << " after " << format::seconds(e.value("elapsed_s", 0.0));
        if (e.contains("ranks"))
            line << "; final weights "
                 << (e.value("rank_weights_identical", false) ? "identical" : "DIFFER")
                 << " on the " << e.value("ranks", 0) << " ranks (largest difference "
                 << std::setprecision(3) << std::scientific << e.value("rank_weight_max_diff", 0.0)
                 << ")";
    } else if (type == "failed") {
        std::cerr << "portolan-cli: " << e.value("diagnostic", e.value("message", "")) << "\n";
        return;
    }
    std::cout << line.str() << std::endl;
}

int runTrain(const TrainCliOptions& o)
{
    namespace fs = std::filesystem;
    const bool jsonl = o.events == "jsonl";
    const runtime::EventSink sink = [jsonl](const nlohmann::json& e) {
        if (jsonl)
            std::cout << e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                      << std::endl; // flushed per event: the GUI draws live
        else
            printText(e);
    };
    const auto failEarly = [&](const Diagnostic& d) {
        if (jsonl)
            sink(nlohmann::json{{"event", "failed"},
                                {"message", d.message},
                                {"code", d.code},
                                {"diagnostic", d.toString()},
                                {"location", toJson(d.location)}});
        else
            printDiagnostic(std::cerr, d);
        return ExitUsage;
    };

    const fs::path project = fs::absolute(o.project).lexically_normal();
    std::error_code ec;
    if (!fs::is_directory(project, ec)) {
        Diagnostic d;
        d.code = "runtime.no-project";
        d.message = "not a project folder";
        d.location.file = project.string();
        return failEarly(d);
    }
    fs::path params;
    if (!o.params.empty()) {
        params = fs::path(o.params).is_absolute() ? fs::path(o.params) : project / o.params;
        if (!fs::exists(params, ec) && fs::exists(fs::absolute(o.params), ec))
            params = fs::absolute(o.params);
    } else if (auto found = runtime::findParamsFile(project)) {
        params = *found;
    } else {
        Diagnostic d;
        d.code = "runtime.no-params";
        d.message =
            "no params file (configs/params.yaml, params.yaml or const.yaml); give --params";
        d.location.file = project.string();
        return failEarly(d);
    }
    auto config = runtime::loadRunConfig(project, params.lexically_normal());
    if (!config)
        return failEarly(config.error);

    runtime::TrainOptions options;
    options.mode = *runtime::runModeFromName(o.mode);
    if (o.steps > 0)
        options.steps = o.steps;
    if (o.seed >= 0)
        options.seed = o.seed;
    if (o.evalEvery >= 0)
        options.evalEvery = o.evalEvery;
    if (o.logSteps > 0)
        options.logSteps = o.logSteps;
    if (o.checkpointSteps >= 0)
        options.checkpointSteps = o.checkpointSteps;
    if (!o.checkpointDir.empty())
        options.checkpointDir = fs::absolute(o.checkpointDir);
    if (!o.resume.empty())
        options.resumeFrom = fs::absolute(o.resume);
    options.threads = o.threads;
    options.stopRequested = &g_stopRequested;
    auto ranks = cluster::rankEnvFromProcess();
    if (!ranks)
        return failEarly(ranks.error);
    if (o.ranks > 1 && ranks.value->worldSize != o.ranks) {
        Diagnostic d;
        d.code = "runtime.ranks";
        d.message = "portolan-torch is one rank; portolan-cli train --ranks " +
                    std::to_string(o.ranks) + " starts the " + std::to_string(o.ranks) +
                    " processes (or RANK/WORLD_SIZE, or srun, name this one's place)";
        d.location.file = project.string();
        return failEarly(d);
    }
    options.distributed.env = *ranks.value;
    options.distributed.timeout =
        std::chrono::milliseconds(static_cast<long long>(o.distTimeout * 1000));
    options.distributed.bucketMb = o.bucketMb;

    std::signal(SIGTERM, onStopSignal);
    std::signal(SIGINT, onStopSignal);
    auto outcome = runtime::runTraining(*config.value, options, sink);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    if (!outcome) {
        const std::string& code = outcome.error.code;
        const bool input =
            code.rfind("runtime.params", 0) == 0 || code.rfind("runtime.data", 0) == 0 ||
            code.rfind("runtime.checkpoint", 0) == 0 || code == "runtime.unknown-model";
        return input ? ExitUsage : ExitFindings;
    }
    return ExitOk;
}

Subcommand registerTrain(CLI::App& root)
{
    auto o = std::make_shared<TrainCliOptions>();
    CLI::App* cmd = addTrainCommand(root, *o);
    return {cmd, [o] {
                return runTrain(*o);
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"train", 40, &registerTrain};

} // namespace

} // namespace portolan::cli
