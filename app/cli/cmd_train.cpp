// portolan-cli train PROJECT: trains / evaluates the project's model. LibTorch runs in
// portolan-torch only (docs/ARCHITECTURE.md, Processes), so once the options parse this process
// becomes `portolan-torch train` with the same arguments: its JSON events (--events jsonl), its
// handling of SIGTERM (stop after the step, checkpoint) and its exit code are the run's, unchanged.
// With --ranks N it starts N portolan-torch processes instead (core/cluster's launcher), passes
// rank 0's output through and reports the other ranks only when they fail.
#include "app/cli/cli_common.h"
#include "app/torch/train_command.h"
#include "core/cluster/cluster.h"
#include "core/common/json.h"
#include "core/graph/torch_child.h"
#include "core/runtime/run_event.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <iostream>
#include <memory>
#include <thread>

namespace portolan::cli {

namespace {

std::atomic<bool> g_stop{false};

extern "C" void onRanksStop(int)
{
    g_stop.store(true);
}

double unixNow()
{
    using namespace std::chrono;
    return double(duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count()) /
           1000.0;
}

void writeEvent(const runtime::RunEvent& e)
{
    std::cout << runtime::toJsonLine(e) << std::endl;
}

int failWith(const TrainCliOptions& o, const Diagnostic& d)
{
    if (o.events == "jsonl") {
        runtime::RunEvent e = runtime::makeRunEvent("failed", unixNow());
        e.message = d.message;
        e.code = d.code;
        e.diagnostic = d.toString();
        e.fields["location"] = toJson(d.location);
        writeEvent(e);
    } else
        printDiagnostic(std::cerr, d);
    return ExitUsage;
}

std::string howEnded(const cluster::RankExit& e)
{
    if (e.signal != 0)
        return "was killed by signal " + std::to_string(e.signal) + " (" + strsignal(e.signal) +
               ")";
    return "exited with status " + std::to_string(e.exitCode);
}

// Local data parallel: N portolan-torch ranks on this machine, meeting on the loopback.
int runRanks(const TrainCliOptions& o)
{
    const bool jsonl = o.events == "jsonl";
    const auto torch = graph::torchChildPath();
    if (torch.empty()) {
        Diagnostic d;
        d.code = "runtime.no-torch-child";
        d.message = std::string("cannot find ") + graph::kTorchChildName + " (looked in " +
                    graph::torchChildSearchText() + ")";
        return failWith(o, d);
    }
    std::vector<std::string> argv{torch.string(), "train"};
    const auto& typed = subcommandArguments();
    argv.insert(argv.end(), typed.begin(), typed.end());
    if (o.threads <= 0) {
        // The machine's cores shared among the ranks: more threads than cores only spin.
        const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
        argv.insert(argv.end(), {"--threads", std::to_string(std::max(1, cores / o.ranks))});
    }

    cluster::LaunchOptions launch;
    launch.ranks = o.ranks;
    launch.graceSeconds = o.distTimeout + 10;
    std::signal(SIGTERM, onRanksStop);
    std::signal(SIGINT, onRanksStop);
    cluster::LaunchOutcome outcome;
    bool rank0Terminal = false;
    for (int attempt = 0;; ++attempt) {
        bool portInUse = false;
        bool rank0Spoke = false;
        rank0Terminal = false;
        const auto onLine = [&](int rank, cluster::Stream stream, const std::string& line) {
            const bool out = stream == cluster::Stream::Stdout;
            if (rank == 0) {
                // The rendezvous port taken between choosing it and listening on it: start the
                // ranks again on another one, without showing the failure.
                if (!rank0Spoke && line.find("runtime.rendezvous-port") != std::string::npos &&
                    attempt < 3) {
                    portInUse = true;
                    return false;
                }
                rank0Spoke = true;
                if (jsonl && out) {
                    const auto e = runtime::parseRunEvent(line);
                    if (e && e.value->isTerminal())
                        rank0Terminal = true;
                }
                (out ? std::cout : std::cerr) << line << std::endl;
                return true;
            }
            if (jsonl && out) {
                // The other ranks print only their own failure: a warning in rank 0's stream,
                // which ends with rank 0's own account.
                const auto e = runtime::parseRunEvent(line);
                if (e && e.value->kind == runtime::RunEventKind::Failed) {
                    runtime::RunEvent w = runtime::makeRunEvent("warning", unixNow());
                    w.fields["kind"] = "rank-failed";
                    w.fields["rank"] = rank;
                    w.message =
                        "rank " + std::to_string(rank) + ": " +
                        (e.value->diagnostic.empty() ? e.value->message : e.value->diagnostic);
                    writeEvent(w);
                }
                return true;
            }
            std::cerr << "rank " << rank << ": " << line << std::endl;
            return true;
        };
        const auto onExit = [&](const cluster::RankExit& e) {
            if (e.rank == 0 || (e.exitCode == 0 && e.signal == 0) || portInUse)
                return;
            const std::string message = "rank " + std::to_string(e.rank) + " " + howEnded(e) +
                                        " after " + std::to_string(int(e.seconds)) + " s";
            if (jsonl) {
                runtime::RunEvent w = runtime::makeRunEvent("warning", unixNow());
                w.fields["kind"] = "rank-ended";
                w.fields["rank"] = e.rank;
                w.message = message;
                writeEvent(w);
            } else
                std::cerr << "portolan-cli: " << message << std::endl;
        };
        outcome = cluster::launchRanks(argv, launch, onLine, onExit, &g_stop);
        if (!portInUse)
            break;
        if (jsonl) {
            runtime::RunEvent i = runtime::makeRunEvent("info", unixNow());
            i.message = "rendezvous port " + std::to_string(outcome.masterPort) +
                        " was taken; starting the ranks again on another";
            writeEvent(i);
        }
    }
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    if (!outcome.startError.empty()) {
        Diagnostic d;
        d.code = "runtime.ranks-start";
        d.message = "cannot start the ranks: " + outcome.startError;
        return failWith(o, d);
    }
    const auto rank0 = std::find_if(outcome.exits.begin(), outcome.exits.end(),
                                    [](const cluster::RankExit& e) { return e.rank == 0; });
    if (rank0 == outcome.exits.end())
        return ExitFindings;
    if (rank0->signal != 0) {
        // Rank 0 could not say it itself.
        Diagnostic d;
        d.code = "runtime.rank-crashed";
        d.message = "rank 0 " + howEnded(*rank0) + "; the events before it are kept";
        if (!rank0Terminal || !jsonl) {
            failWith(o, d);
        }
        return ExitFindings;
    }
    return rank0->exitCode;
}

int runTrain(const TrainCliOptions& o)
{
    if (o.ranks > 1)
        return runRanks(o);
    std::vector<std::string> args{"train"};
    const auto& typed = subcommandArguments();
    args.insert(args.end(), typed.begin(), typed.end());
    std::cout.flush();
    const Diagnostic d = graph::execTorchChild(args);
    return failWith(o, d);
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
