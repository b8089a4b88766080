// portolan-cli run PROJECT --dry-run: runs the project's own entry point for a few optimizer
// steps on the CPU, in a /usr/bin/python3 child with the SDK stand-ins (resources/python), and
// writes the capture for the simulated compilers. Torch-free: this process only supervises.
// With --events jsonl it writes the JSON-lines events of core/runtime/EVENTS.md on stdout.
#include "app/cli/cli_common.h"
#include "core/common/resources.h"
#include "core/dryrun/dry_run.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

namespace portolan::cli {

namespace {

std::atomic<bool> g_stop{false};

extern "C" void onRunStop(int)
{
    g_stop.store(true);
}

struct RunCliOptions
{
    std::string project;
    bool dryRun = false;
    bool trust = false;
    int steps = 3;
    int batch = 2;
    std::string sdkPath;
    int timeout = 1800;
    std::int64_t memoryLimit = -1;
    std::string events;
    std::string entry;
    std::string params;
    std::string flavour;
    int threads = 0;
    std::vector<std::string> args;
};

double now()
{
    using namespace std::chrono;
    return double(duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count()) /
           1000.0;
}

// What a dry run prints: its events as JSON lines (--events jsonl) or as text.
struct DryRunOutput
{
    bool jsonl = false;

    void emit(const nlohmann::json& e) const
    {
        if (jsonl)
            std::cout << e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                      << std::endl;
        else if (const auto t = dryrun::describeEvent(e); !t.text.empty())
            (t.toStderr ? std::cerr : std::cout) << t.text << std::flush;
    }

    // A "failed" event with its diagnostic; returns `exitCode`.
    int fail(const std::string& code, const std::string& message, int exitCode,
             const std::string& file) const
    {
        Diagnostic d;
        d.code = code;
        d.message = message;
        d.location.file = file;
        emit(nlohmann::json{{"event", "failed"},
                            {"time", now()},
                            {"message", message},
                            {"code", code},
                            {"diagnostic", d.toString()}});
        return exitCode;
    }
};

// The request refused before anything runs: no project, no --dry-run, or an untrusted project.
std::optional<int> refuseRequest(const RunCliOptions& o, const std::filesystem::path& project,
                                 const DryRunOutput& out)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(project, ec))
        return out.fail("dryrun.no-project", "not a project folder", ExitUsage, project.string());
    if (!o.dryRun)
        return out.fail("run.kind",
                        "give --dry-run: a CPU dry run of the project's own code is the only kind "
                        "of run so far (portolan-cli train runs the built-in LibTorch runtime)",
                        ExitUsage, project.string());
    dryrun::TrustStore trust;
    if (!o.trust && !trust.isTrusted(project))
        return out.fail("dryrun.untrusted",
                        "the project is not trusted: a dry run runs its own Python code. Give "
                        "--trust to run it this time only, or trust it for good with "
                        "`portolan-cli trust " +
                            o.project + "` or in the GUI's Runs tab (kept in " +
                            trust.file().string() + ")",
                        ExitUsage, project.string());
    return std::nullopt;
}

dryrun::DryRunOptions dryRunOptions(const RunCliOptions& o, const std::filesystem::path& project)
{
    namespace fs = std::filesystem;
    dryrun::DryRunOptions options;
    options.project = project;
    options.flavour = o.flavour.empty() ? dryrun::detectFlavour(project) : o.flavour;
    options.entry = o.entry;
    // --params for this run; without it the one rule chooses (dryrun::dryRunParams: the saved
    // choice, else core's default for a CPU dry run), as for the Runs tab and a port's verify.
    if (!o.params.empty())
        options.params = fs::absolute(o.params).string();
    options.steps = o.steps;
    options.batch = o.batch;
    options.sdkPath = o.sdkPath.empty() ? fs::path() : fs::absolute(o.sdkPath);
    options.threads = o.threads;
    options.memoryLimitMb = o.memoryLimit;
    options.args = o.args;
    if (const char* python = std::getenv("PORTOLAN_PYTHON"); python && *python)
        options.python = python;
    return options;
}

// The child's run as this process saw it: whether a final event came, and the exit code it
// asks for; the end of its standard error.
struct ChildRun
{
    dryrun::ChildOutcome outcome;
    bool terminal = false;
    int terminalExit = ExitOk;
    std::string stderrTail;
};

// Runs the child, passing its events and output on as they come; SIGTERM and SIGINT stop it.
ChildRun superviseChild(const dryrun::DryRunOptions& options,
                        const std::filesystem::path& pythonDir, const dryrun::ChildLimits& limits,
                        const DryRunOutput& out)
{
    ChildRun run;
    std::signal(SIGTERM, onRunStop);
    std::signal(SIGINT, onRunStop);
    run.outcome = dryrun::runChild(
        dryrun::childCommand(options, pythonDir), limits,
        [&](dryrun::Stream stream, const std::string& line) {
            if (stream == dryrun::Stream::Events) {
                auto e = dryrun::readEventLine(line, now());
                if (e.terminal) {
                    run.terminal = true;
                    run.terminalExit = e.event["event"] == "finished"
                                           ? ExitOk
                                           : (e.usageError ? ExitUsage : ExitFindings);
                }
                out.emit(e.event);
                return;
            }
            const bool err = stream == dryrun::Stream::Stderr;
            if (err) {
                run.stderrTail += line + "\n";
                if (run.stderrTail.size() > 4000)
                    run.stderrTail.erase(0, run.stderrTail.size() - 4000);
            }
            if (out.jsonl)
                out.emit(nlohmann::json{{"event", "output"},
                                        {"time", now()},
                                        {"stream", err ? "stderr" : "stdout"},
                                        {"text", line}});
            else
                (err ? std::cerr : std::cout) << line << std::endl;
        },
        &g_stop);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    return run;
}

// The child ended without its final event: killed, crashed, stopped or timed out.
int endWithoutFinalEvent(const RunCliOptions& o, const ChildRun& run,
                         const dryrun::ChildLimits& limits, const std::filesystem::path& project,
                         const DryRunOutput& out)
{
    const auto& outcome = run.outcome;
    std::string lastLine;
    if (!run.stderrTail.empty()) {
        auto trimmed = run.stderrTail.substr(0, run.stderrTail.find_last_not_of('\n') + 1);
        lastLine = trimmed.substr(trimmed.find_last_of('\n') + 1);
    }
    if (outcome.timedOut)
        return out.fail("dryrun.timeout",
                        "the dry run did not finish within " + std::to_string(o.timeout) +
                            " s (--timeout); the events received so far are kept",
                        ExitFindings, project.string());
    if (outcome.stopped) {
        out.emit(nlohmann::json{{"event", "finished"}, {"time", now()}, {"reason", "stopped"}});
        return ExitOk;
    }
    if (outcome.signal != 0) {
        std::string why = "the project's process was killed by signal " +
                          std::to_string(outcome.signal) + " (" + strsignal(outcome.signal) + ")";
        if (outcome.signal == SIGKILL || outcome.signal == SIGSEGV || outcome.signal == SIGABRT)
            why += "; with a memory limit of " + std::to_string(limits.memoryLimitMb) +
                   " MB this is often an allocation that failed (--memory-limit, --batch)";
        return out.fail("dryrun.crashed", why + (lastLine.empty() ? "" : ": " + lastLine),
                        ExitFindings, project.string());
    }
    return out.fail("dryrun.crashed",
                    "the dry-run process exited with status " + std::to_string(outcome.exitCode) +
                        " without a final event" + (lastLine.empty() ? "" : ": " + lastLine),
                    ExitFindings, project.string());
}

// The phases: refuse what cannot run, the options by the one params rule, the supervised child,
// and the reason when it ends without its final event.
int runDry(const RunCliOptions& o)
{
    namespace fs = std::filesystem;
    const DryRunOutput out{o.events == "jsonl"};
    const fs::path project = fs::absolute(o.project).lexically_normal();
    if (const auto refused = refuseRequest(o, project, out))
        return *refused;
    const dryrun::DryRunOptions options = dryRunOptions(o, project);
    std::error_code ec;
    const fs::path pythonDir = resourcesDir() / "python";
    if (!fs::is_directory(pythonDir / "portolan_dryrun", ec))
        return out.fail("dryrun.no-driver",
                        "the dry-run driver is missing from " + pythonDir.string(), ExitUsage,
                        pythonDir.string());

    dryrun::ChildLimits limits;
    limits.timeoutSeconds = o.timeout;
    limits.memoryLimitMb =
        o.memoryLimit < 0 ? dryrun::defaultMemoryLimitMb() : std::int64_t(o.memoryLimit);
    limits.workingDirectory = project;
    limits.environment = dryrun::childEnvironment(pythonDir);
    const ChildRun run = superviseChild(options, pythonDir, limits, out);
    if (!run.outcome.started)
        return out.fail("dryrun.no-python",
                        "cannot start " + options.python.string() + ": " + run.outcome.startError,
                        ExitUsage, project.string());
    if (run.terminal)
        return run.terminalExit;
    return endWithoutFinalEvent(o, run, limits, project, out);
}

Subcommand registerRun(CLI::App& root)
{
    auto o = std::make_shared<RunCliOptions>();
    CLI::App* cmd = root.add_subcommand(
        "run", "Run the project's own code: --dry-run trains a few steps on the CPU with the "
               "vendor SDK stand-ins and captures the model for the compilers");
    cmd->add_option("PROJECT", o->project, "Project folder")->required();
    cmd->add_flag("--dry-run", o->dryRun, "A CPU dry run of the project's entry point");
    cmd->add_flag("--trust", o->trust,
                  "Run the project's code this time only, even if it is not trusted (nothing "
                  "is recorded; `portolan-cli trust PROJECT` remembers)");
    cmd->add_option("--steps", o->steps, "Optimizer steps (default 3)")->check(CLI::PositiveNumber);
    cmd->add_option("--batch", o->batch, "Micro-batch of the dry run (default 2)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--sdk-path", o->sdkPath,
                    "A Cerebras Model Zoo checkout, for ports that import shared Model Zoo code")
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--timeout", o->timeout, "Wall-clock limit in seconds (default 1800)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--memory-limit", o->memoryLimit,
                    "Address-space limit of the child in MB (default: 3/4 of the memory; 0: "
                    "none)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--events", o->events, "Write JSON events, one per line, on stdout")
        ->check(CLI::IsMember({"jsonl"}));
    cmd->add_option("--entry", o->entry, "The script to run, relative to the project");
    cmd->add_option("--params", o->params,
                    "Model Zoo params file or Determined experiment config to use");
    cmd->add_option("--flavour", o->flavour,
                    "Override the detected flavour (cerebras-pytorch, cerebras-layers, "
                    "determined-pytorchtrial, graphcore-poptorch, plain-pytorch)");
    cmd->add_option("--threads", o->threads, "Torch threads in the child")
        ->check(CLI::PositiveNumber);
    cmd->add_option("args", o->args, "Arguments for the project's entry point (after --)");
    return {cmd, [o] {
                return runDry(*o);
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"run", 45, &registerRun};

} // namespace

} // namespace portolan::cli
