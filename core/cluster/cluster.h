#pragma once
// Beyond one process (issue 14): where a process stands in a data-parallel job (its rank, the
// world, the rendezvous), Slurm job scripts, the Slurm client commands and their output, and
// supervising child processes (the ranks started on this machine, the Slurm commands). Torch-free
// and Qt-free: portolan-torch reads its rank here, portolan-cli submits and follows jobs, and the
// GUI parses what the Slurm commands it starts print.
#include "core/common/diagnostic.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace portolan::cluster {

// ------------------------------------------------------------------------------ ranks
// The place of this process in a data-parallel job. From RANK / WORLD_SIZE / LOCAL_RANK /
// MASTER_ADDR / MASTER_PORT (torchrun's names, which `portolan-cli train --ranks N` sets), else
// from Slurm's SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID under srun (the rendezvous host is
// then the first node of SLURM_JOB_NODELIST and the port comes from the job id, unless
// MASTER_ADDR / MASTER_PORT are set). Neither: one process.
struct RankEnv
{
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0;
    std::string source = "single"; // "single", "env" or "slurm"
    std::int64_t jobId = 0;        // Slurm's, when known

    bool distributed() const { return worldSize > 1; }
};

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
// Errors name the variable at fault (a rank outside the world, a port that is not a number).
Result<RankEnv> rankEnvFrom(const EnvLookup& lookup);
Result<RankEnv> rankEnvFromProcess(); // from this process's environment

// The first host of a Slurm host list: "node[07-09,12],gpu1" gives "node07".
std::string firstHostOf(const std::string& hostList);
// The rendezvous port of a Slurm job: distinct for concurrent jobs (their ids differ), and below
// Linux's ephemeral range so that it does not collide with outgoing connections.
int rendezvousPortForJob(std::int64_t jobId);

// ------------------------------------------------------------------------------ job scripts
struct JobRequest
{
    std::string jobName = "portolan";
    int nodes = 1;
    int tasksPerNode = 1;
    int cpusPerTask = 1;
    std::string partition; // empty: the cluster's default
    std::string timeLimit; // empty: the partition's default; else Slurm's formats
    std::filesystem::path workDir;
    std::filesystem::path output;      // may hold %j (job id) and %x (job name)
    std::vector<std::string> command;  // what srun starts in every task
    std::vector<std::string> comments; // lines for the reader, written as "# ..."
};

// What a user asks of a Portolan job (the CLI's submit options, the Runs tab's fields).
struct PortolanJob
{
    std::filesystem::path project;
    std::filesystem::path program; // portolan-torch for training, portolan-cli for a dry run
    bool dryRun = false;
    int nodes = 1;
    int tasksPerNode = 2;
    int cpusPerTask = 1;
    std::string partition;
    std::string timeLimit;
    std::filesystem::path params; // empty: the project's own
    std::int64_t steps = 0;       // 0: the params file's
    int distTimeoutSeconds = 60;
    std::string stem; // file names in PROJECT/.portolan/jobs: STEM.sbatch, STEM-JOBID.out
};
// The job of a training run (every task a rank of portolan-torch) or of a dry run (one task,
// portolan-cli run --dry-run), its output beside the script in PROJECT/.portolan/jobs.
JobRequest portolanJobRequest(const PortolanJob& job);
std::filesystem::path jobsFolder(const std::filesystem::path& project);

// The sbatch script: #SBATCH lines, the rendezvous (MASTER_ADDR from the node list, MASTER_PORT
// from the job id), one thread pool per task sized by --cpus-per-task, and `srun --label
// --kill-on-bad-exit=1 COMMAND` so that every output line says which task wrote it and a task
// that fails ends the others. Plain bash: the user may edit it before it is submitted.
std::string jobScript(const JobRequest& request);
// Empty when `text` is a Slurm time limit ("30", "10:00", "1:00:00", "2-0", "2-12:00:00", ...,
// or "UNLIMITED"); else why not.
std::string timeLimitError(const std::string& text);
// "#SBATCH --output=..." (or -o) of a script, when it has one.
std::optional<std::string> scriptOutputPattern(const std::string& scriptText);
// %j, %x and %% of an output pattern expanded (Slurm's own for the other letters are left).
std::string expandOutputPattern(const std::string& pattern, std::int64_t jobId,
                                const std::string& jobName);

// ------------------------------------------------------------------------------ Slurm output
enum class JobState
{
    Pending,
    Running,
    Completing,
    Completed,
    Failed,
    Cancelled,
    Timeout,
    NodeFail,
    OutOfMemory,
    Preempted,
    Suspended,
    Unknown
};
JobState jobStateFromName(const std::string& name); // "CANCELLED by 0" is Cancelled
std::string jobStateName(JobState s);               // "PENDING", ...
bool isFinal(JobState s);

struct JobStatus
{
    JobState state = JobState::Unknown;
    std::string stateText; // as Slurm printed it
    std::string reason;    // squeue's pending reason, "None" when none
    std::string nodes;
    int exitCode = 0; // "ExitCode=2:0": 2; the signal after the colon
    int signal = 0;
    std::string stdoutPath; // scontrol's StdOut, when known
};

// `sbatch --parsable` ("17" or "17;cluster") or plain sbatch ("Submitted batch job 17").
std::optional<std::int64_t> parseSbatchOutput(const std::string& text);
// `squeue -h -j ID -o "%i|%T|%r|%N"`; nullopt when the job is not listed (it has left the queue).
std::optional<JobStatus> parseSqueue(const std::string& text, std::int64_t jobId);
// `sacct -n -P -j ID --format=JobID,State,ExitCode,NodeList`: the job's own line, not its steps'.
std::optional<JobStatus> parseSacct(const std::string& text, std::int64_t jobId);
// `scontrol show job ID` (key=value pairs): JobState, Reason, ExitCode, NodeList, StdOut.
std::optional<JobStatus> parseScontrolJob(const std::string& text);

struct Partition
{
    std::string name;
    bool isDefault = false;
    bool up = true;
    int nodes = 0;
    int idleNodes = 0;
    std::string cpusPerNode; // "2", or "2+" when nodes differ
    std::string timeLimit;   // "infinite", "1:00:00", ...
};
// `sinfo -h -o "%P|%a|%l|%D|%t|%c"`, one line per partition and node state, merged per partition
// in the order sinfo gives.
std::vector<Partition> parsePartitions(const std::string& text);
inline constexpr const char* kSinfoFormat = "%P|%a|%l|%D|%t|%c";

// A line of a job's output file: srun --label writes "TASK: text"; the batch script's own lines
// have no label (task -1).
struct OutputLine
{
    int task = -1;
    std::string text;
};
OutputLine splitTaskLabel(const std::string& line);

// srun cuts a long line into pieces, each with its own label (a run's "started" event is several
// KB): the pieces of a task's JSON object are joined again until the object is complete. Lines
// that do not start an object pass through at once.
class TaskLineJoiner
{
public:
    std::vector<OutputLine> push(const std::string& rawLine);
    std::vector<OutputLine> flush(); // what is still incomplete, as it is

private:
    std::vector<std::pair<int, std::string>> m_pending; // task, text so far
};

// ------------------------------------------------------------------------------ processes
// `name` on PATH (or itself, when it holds a '/' and is executable); empty when absent.
std::filesystem::path findProgram(const std::string& name);
// Why no Slurm client is usable (sbatch missing from PATH), with what to do; empty when one is.
std::string slurmClientProblem();

struct CommandResult
{
    bool started = false;
    std::string startError;
    int exitCode = -1;
    int signal = 0;
    bool timedOut = false;
    std::string out;
    std::string err;

    bool ok() const { return started && !timedOut && signal == 0 && exitCode == 0; }
    std::string errorText() const; // the reason it did not succeed, with stderr's last line
};
// Runs `argv` (argv[0] looked up on PATH) to its end, capturing stdout and stderr; killed at the
// timeout.
CommandResult runCommand(const std::vector<std::string>& argv, double timeoutSeconds = 30,
                         const std::filesystem::path& workDir = {});

// A TCP port that was free on this machine a moment ago (bound to 0, then released).
int freeTcpPort();

enum class Stream
{
    Stdout,
    Stderr
};

struct RankExit
{
    int rank = 0;
    int exitCode = -1;
    int signal = 0;
    double seconds = 0; // since the launch
};

struct LaunchOptions
{
    int ranks = 2;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0; // 0: a free port
    std::filesystem::path workDir;
    // After the first rank ends badly, the others get this long to end on their own (they
    // notice the lost rank at their next collective, or at the process group's timeout) before
    // they are killed.
    double graceSeconds = 70;
};

struct LaunchOutcome
{
    std::string startError;
    std::vector<RankExit> exits; // in the order the ranks ended
    bool stopped = false;        // a stop was requested
    int masterPort = 0;
};

// Starts `argv` once per rank, in one process group, with RANK, WORLD_SIZE, LOCAL_RANK,
// MASTER_ADDR and MASTER_PORT set, and reports every line of every rank as it arrives and every
// rank as it ends. When `stop` becomes true every rank gets SIGTERM (the ranks agree on the step
// to stop at); `onLine` returning false for a line makes the launch kill every rank at once.
LaunchOutcome launchRanks(const std::vector<std::string>& argv, const LaunchOptions& options,
                          const std::function<bool(int rank, Stream, const std::string&)>& onLine,
                          const std::function<void(const RankExit&)>& onExit,
                          const std::atomic<bool>* stop = nullptr);

// ------------------------------------------------------------------------------ Slurm jobs
// sbatch / squeue / sacct / scontrol / scancel for one job, each a child process with a
// timeout. The Slurm commands are found on PATH; SLURM_CONF in the environment picks the cluster.
Result<std::int64_t> submitJob(const std::filesystem::path& script,
                               const std::filesystem::path& workDir);
// squeue while the job is queued or running; then sacct, then scontrol (clusters without
// accounting). Unknown when none knows it.
JobStatus queryJob(std::int64_t jobId);
std::optional<Diagnostic> cancelJob(std::int64_t jobId);
// The partitions sinfo lists, or why it could not be asked.
Result<std::vector<Partition>> listPartitions();

// Follows a file another process appends to (a job's output file, on a shared file system): each
// poll returns the complete lines added since the last one. A file that does not exist yet is not
// an error (the job has not started).
class OutputFollower
{
public:
    explicit OutputFollower(std::filesystem::path file) : m_file(std::move(file)) {}
    void setFile(std::filesystem::path file) { m_file = std::move(file); }
    const std::filesystem::path& file() const { return m_file; }
    std::vector<std::string> poll();
    std::vector<std::string> flush(); // poll, then the last line even without its newline

private:
    std::filesystem::path m_file;
    std::uint64_t m_offset = 0;
    std::string m_partial;
};

} // namespace portolan::cluster
