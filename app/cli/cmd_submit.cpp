// portolan-cli submit PROJECT --slurm: a training run (or a dry run) as a Slurm batch job. The
// job script goes into PROJECT/.portolan/jobs/ first (the GUI shows it, a user may edit it and
// submit the edited file with --script); then sbatch, then the job followed with squeue/sacct
// while its output file is read as it grows, so that task 0's JSON events come out on stdout as
// if the run were local. SIGTERM/SIGINT cancel the job with scancel; the events received before
// are kept and the run ends "stopped".
#include "app/cli/cli_common.h"
#include "core/cluster/cluster.h"
#include "core/common/atomic_file.h"
#include "core/common/json.h"
#include "core/common/number_format.h"
#include "core/graph/torch_child.h"
#include "core/runtime/run_event.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <thread>
#include <unistd.h>

namespace portolan::cli {

namespace {

namespace fs = std::filesystem;

struct SubmitOptions
{
    std::string project;
    bool slurm = false;
    bool dryRun = false;
    int nodes = 1;
    int tasksPerNode = 2;
    int cpusPerTask = 1;
    std::string partition;
    std::string timeLimit;
    std::string params;
    int64_t steps = 0;
    std::string events; // "jsonl" or empty (text)
    std::string script; // an existing (edited) script to submit instead of writing one
    bool scriptOnly = false;
    bool noFollow = false;
    double distTimeout = 60;
};

std::atomic<bool> g_cancel{false};

extern "C" void onSubmitStop(int)
{
    g_cancel.store(true);
}

double unixNow()
{
    using namespace std::chrono;
    return double(duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count()) /
           1000.0;
}

class Reporter
{
public:
    explicit Reporter(bool jsonl) : m_jsonl(jsonl) {}
    bool jsonl() const { return m_jsonl; }
    void event(nlohmann::json e, const std::string& text) const
    {
        if (m_jsonl) {
            e["time"] = unixNow();
            // Written by the typed writer; what it refuses is a bug here, written as it is.
            const auto typed = runtime::runEventFromJson(e);
            std::cout << (typed ? runtime::toJsonLine(*typed.value)
                                : e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
                      << std::endl;
        } else if (!text.empty()) {
            std::cout << text << std::endl;
        }
    }
    int fail(const Diagnostic& d, int exitCode) const
    {
        if (m_jsonl)
            event({{"event", "failed"},
                   {"message", d.message},
                   {"code", d.code},
                   {"diagnostic", d.toString()},
                   {"location", toJson(d.location)}},
                  {});
        else
            printDiagnostic(std::cerr, d);
        return exitCode;
    }

private:
    bool m_jsonl;
};

Diagnostic error(const std::string& code, const std::string& message, const std::string& file = {})
{
    Diagnostic d;
    d.code = code;
    d.message = message;
    d.location.file = file;
    return d;
}

fs::path selfPath()
{
    std::error_code ec;
    const fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : p;
}

std::string timestamp()
{
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&t));
    return buf;
}

// Follows the job to its end: task 0's events pass through, the others' failures become
// warnings, lines that are not events go to stderr with their task.
int follow(const Reporter& rep, std::int64_t jobId, const fs::path& output)
{
    using Clock = std::chrono::steady_clock;
    cluster::OutputFollower follower(output);
    bool terminal = false;
    bool failed = false;
    bool cancelSent = false;
    std::string lastState;
    auto nextQuery = Clock::now();
    cluster::JobStatus status;
    cluster::TaskLineJoiner joiner;
    const auto handleLine = [&](const cluster::OutputLine& line) {
        // The typed reader: a field of the wrong type refuses the line instead of throwing
        // out of nlohmann's value().
        const auto read = runtime::parseRunEvent(line.text);
        const bool isEvent = bool(read);
        if (isEvent && line.task <= 0) {
            const runtime::RunEvent& e = *read.value;
            terminal = terminal || e.isTerminal();
            failed = failed || e.kind == runtime::RunEventKind::Failed;
            if (rep.jsonl())
                std::cout << line.text << std::endl;
            else if (e.kind == runtime::RunEventKind::Step)
                std::cout << "step " << e.step << "  loss " << e.loss.value_or(0.0) << "  "
                          << format::samplesPerSecond(e.samplesPerSec.value_or(0.0)) << std::endl;
            else if (e.kind == runtime::RunEventKind::Failed)
                std::cerr << "portolan-cli: " << e.diagnostic << std::endl;
            else if (e.kind == runtime::RunEventKind::Finished)
                std::cout << "finished (" << e.reason << ") at step " << e.step << std::endl;
            return;
        }
        if (isEvent && read.value->kind == runtime::RunEventKind::Failed)
            rep.event({{"event", "warning"},
                       {"kind", "rank-failed"},
                       {"rank", line.task},
                       {"message", "rank " + std::to_string(line.task) + ": " +
                                       (read.value->diagnostic.empty() ? read.value->message
                                                                       : read.value->diagnostic)}},
                      {});
        else if (!isEvent && read.error.code == "events.field-type")
            std::cerr << "portolan-cli: task " << line.task
                      << ": event refused: " << read.error.message << ": " << line.text
                      << std::endl;
        else if (!isEvent)
            std::cerr << (line.task >= 0 ? "task " + std::to_string(line.task) + ": " : "")
                      << line.text << std::endl;
    };
    const auto handle = [&](const std::string& raw) {
        for (const auto& line : joiner.push(raw))
            handleLine(line);
    };
    while (true) {
        for (const auto& l : follower.poll())
            handle(l);
        if (g_cancel.load() && !cancelSent) {
            cancelSent = true;
            if (auto d = cluster::cancelJob(jobId))
                rep.event({{"event", "warning"}, {"message", d->message}}, d->message);
        }
        if (Clock::now() >= nextQuery) {
            status = cluster::queryJob(jobId);
            nextQuery = Clock::now() + std::chrono::seconds(1);
            const std::string state = cluster::jobStateName(status.state);
            if (state != lastState) {
                lastState = state;
                rep.event({{"event", "job"},
                           {"job_id", jobId},
                           {"state", state},
                           {"reason", status.reason},
                           {"nodes", status.nodes}},
                          "job " + std::to_string(jobId) + ": " + state +
                              (status.reason.empty() || status.reason == "None"
                                   ? ""
                                   : " (" + status.reason + ")"));
            }
            if (cluster::isFinal(status.state))
                break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    // The file system may show the last lines a moment after the job ends.
    for (int i = 0; i < 10 && !terminal; ++i) {
        for (const auto& l : follower.flush())
            handle(l);
        if (i == 9)
            for (const auto& line : joiner.flush())
                handleLine(line);
        if (!terminal)
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    if (status.state == cluster::JobState::Cancelled && !terminal) {
        // Cancelled before the run could say so itself: stopped, with what came before kept.
        rep.event({{"event", "finished"}, {"reason", "stopped"}, {"job_id", jobId}},
                  "job " + std::to_string(jobId) + " cancelled");
        return ExitOk;
    }
    if (!terminal) {
        std::string how = "job " + std::to_string(jobId) + " ended " +
                          cluster::jobStateName(status.state) + " (exit code " +
                          std::to_string(status.exitCode) +
                          (status.signal ? ", signal " + std::to_string(status.signal) : "") +
                          ") before the run reported its end; its output is " + output.string();
        return rep.fail(error("cluster.job-ended", how, output.string()), ExitFindings);
    }
    return failed ? ExitFindings : ExitOk;
}

int runSubmit(const SubmitOptions& o)
{
    const Reporter rep(o.events == "jsonl");
    if (!o.slurm)
        return rep.fail(error("cluster.scheduler",
                              "say where to submit: --slurm (the only scheduler supported)"),
                        ExitUsage);
    const fs::path project = fs::absolute(o.project).lexically_normal();
    if (!fs::is_directory(project))
        return rep.fail(error("cluster.project", "not a folder", project.string()), ExitUsage);
    if (!o.timeLimit.empty())
        if (const std::string e = cluster::timeLimitError(o.timeLimit); !e.empty())
            return rep.fail(error("cluster.time", "--time " + e), ExitUsage);

    const fs::path jobs = cluster::jobsFolder(project);
    fs::path scriptFile;
    std::string scriptText;
    if (!o.script.empty()) {
        scriptFile = fs::absolute(o.script);
        auto text = readFile(scriptFile);
        if (!text)
            return rep.fail(text.error, ExitUsage);
        scriptText = *text.value;
    } else {
        const std::string stem = std::string(o.dryRun ? "dryrun-" : "train-") + timestamp();
        cluster::PortolanJob job;
        job.project = project;
        job.dryRun = o.dryRun;
        job.program = o.dryRun ? selfPath() : graph::torchChildPath();
        if (job.program.empty())
            return rep.fail(error("runtime.no-torch-child",
                                  std::string("cannot find ") + graph::kTorchChildName +
                                      " (looked in " + graph::torchChildSearchText() + ")"),
                            ExitUsage);
        job.nodes = o.nodes;
        job.tasksPerNode = o.tasksPerNode;
        job.cpusPerTask = o.cpusPerTask;
        job.partition = o.partition;
        job.timeLimit = o.timeLimit;
        if (!o.params.empty())
            job.params = fs::absolute(o.params);
        job.steps = o.steps;
        job.distTimeoutSeconds = int(o.distTimeout);
        job.stem = stem;
        scriptText = cluster::jobScript(cluster::portolanJobRequest(job));
        scriptFile = jobs / (stem + ".sbatch");
        std::error_code ec;
        fs::create_directories(jobs, ec);
        if (auto d = writeFileAtomically(scriptFile, scriptText))
            return rep.fail(*d, ExitUsage);
    }
    if (o.scriptOnly) {
        rep.event({{"event", "job_script"}, {"script", scriptFile.string()}, {"text", scriptText}},
                  scriptText);
        return ExitOk;
    }
    const auto pattern = cluster::scriptOutputPattern(scriptText);
    if (!pattern)
        return rep.fail(error("cluster.script",
                              "the job script has no #SBATCH --output line: Portolan reads the "
                              "run's events from that file",
                              scriptFile.string()),
                        ExitUsage);

    std::signal(SIGTERM, onSubmitStop);
    std::signal(SIGINT, onSubmitStop);
    const auto id = cluster::submitJob(scriptFile, project);
    if (!id)
        return rep.fail(id.error, ExitUsage);
    std::string name = "portolan-" + project.filename().string();
    fs::path output = cluster::expandOutputPattern(*pattern, *id.value, name);
    if (output.is_relative())
        output = project / output;
    rep.event({{"event", "submitted"},
               {"job_id", *id.value},
               {"script", scriptFile.string()},
               {"output", output.string()},
               {"scheduler", "slurm"}},
              "submitted batch job " + std::to_string(*id.value) + " (" + scriptFile.string() +
                  "); output in " + output.string());
    if (o.noFollow)
        return ExitOk;
    return follow(rep, *id.value, output);
}

Subcommand registerSubmit(CLI::App& root)
{
    auto o = std::make_shared<SubmitOptions>();
    CLI::App* cmd = root.add_subcommand(
        "submit", "Run a project's training (or dry run) as a Slurm batch job and follow it");
    cmd->add_option("PROJECT", o->project, "Project folder")->required();
    cmd->add_flag("--slurm", o->slurm, "Submit to Slurm (sbatch; SLURM_CONF picks the cluster)");
    cmd->add_flag("--dry-run", o->dryRun, "Submit the project's own code's dry run instead");
    cmd->add_option("--nodes", o->nodes, "Nodes")->check(CLI::Range(1, 4096));
    cmd->add_option("--ntasks-per-node", o->tasksPerNode, "Ranks per node (default 2)")
        ->check(CLI::Range(1, 1024));
    cmd->add_option("--cpus-per-task", o->cpusPerTask, "CPUs (compute threads) per rank")
        ->check(CLI::Range(1, 1024));
    cmd->add_option("--partition", o->partition, "Partition (default: the cluster's)");
    cmd->add_option("--time", o->timeLimit, "Time limit (Slurm's formats, e.g. 30 or 1:00:00)");
    cmd->add_option("--params", o->params, "Params file (default: the project's)");
    cmd->add_option("--steps", o->steps, "Optimizer steps (overrides the params file)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--events", o->events, "Write JSON events, one per line, on stdout")
        ->check(CLI::IsMember({"jsonl"}));
    cmd->add_option("--dist-timeout", o->distTimeout,
                    "Seconds a rank waits for the others before the job ends")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--script", o->script, "Submit this job script (an edited one) as it is");
    cmd->add_flag("--script-only", o->scriptOnly,
                  "Write the job script into PROJECT/.portolan/jobs and print it; submit nothing");
    cmd->add_flag("--no-follow", o->noFollow, "Print the job id and return");
    return {cmd, [o] {
                return runSubmit(*o);
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"submit", 41, &registerSubmit};

} // namespace

} // namespace portolan::cli
