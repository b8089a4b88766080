#pragma once
// The CPU dry run of a project's own code (issue 12): which projects the user trusts, the
// command line of the Python child (resources/python/portolan_dryrun), and running that child
// with a wall-clock timeout and a memory limit, line by line. Torch-free and Qt-free: the CLI
// (`portolan-cli run --dry-run`) uses it, and the GUI starts that CLI as a child.
#include "core/common/diagnostic.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace portolan::dryrun {

// ------------------------------------------------------------------------------ trust
// Projects whose code the user has agreed to run. Kept outside every project (a project must not
// be able to trust itself): $PORTOLAN_CONFIG_DIR/trusted-projects.json, else
// $XDG_CONFIG_HOME/portolan/..., else ~/.config/portolan/....
class TrustStore
{
public:
    TrustStore();                                    // the user's store
    explicit TrustStore(std::filesystem::path file); // a given file (tests)
    static std::filesystem::path defaultFile();

    const std::filesystem::path& file() const { return m_file; }
    bool isTrusted(const std::filesystem::path& project) const;
    // Adds or removes a project (by canonical path); the file is written atomically.
    std::optional<Diagnostic> setTrusted(const std::filesystem::path& project, bool trusted);
    std::vector<std::string> projects() const;

private:
    std::filesystem::path m_file;
};

// ------------------------------------------------------------------------------ command
struct DryRunOptions
{
    std::filesystem::path project;
    std::string flavour;      // empty: detected from the project's code (core/analysis)
    std::string entry;        // relative to the project; empty: chosen by the driver
    std::string params;       // given for this run; empty: the one rule's (dryRunParams)
    std::string paramsReason; // why that file, for the started event (empty: "given with --params")
    int steps = 3;
    int batch = 2;
    std::filesystem::path sdkPath; // a Cerebras Model Zoo checkout
    int threads = 0;
    std::int64_t memoryLimitMb = -1; // -1: defaultMemoryLimitMb(); 0: no limit
    std::vector<std::string> args;   // given to the project's entry (after --)
    std::filesystem::path python = "/usr/bin/python3";
};

// Three quarters of the machine's memory, in MiB: enough for a real model at a small batch, and
// a runaway project fails with a memory message instead of taking the machine down.
std::int64_t defaultMemoryLimitMb();

// The flavour id (core/analysis flavourId) of a project, from its code; "unknown" when unclear.
std::string detectFlavour(const std::filesystem::path& project);

// The params file the run reads, absolute, and why. The given one (options.params), else, for the
// flavours whose run reads one (a Model Zoo params file, a Determined experiment config), the
// one rule's choice for a CPU dry run (core/project/params_file.h: the saved choice, else the
// default). Empty when the flavour reads none or the project has none: the driver then refuses
// with what is missing. The driver never chooses one itself.
struct DryRunParams
{
    std::string path;
    std::string reason;
};
DryRunParams dryRunParams(const DryRunOptions& options);

// `python3 -m portolan_dryrun ...` for the options, the driver reading events on fd 3.
std::vector<std::string> childCommand(const DryRunOptions& options,
                                      const std::filesystem::path& pythonDir);

// The environment additions of the child: the driver's package on PYTHONPATH, no bytecode
// written into the project, a headless matplotlib.
std::vector<std::pair<std::string, std::string>>
childEnvironment(const std::filesystem::path& pythonDir);

// ------------------------------------------------------------------------------ child
enum class Stream
{
    Events,
    Stdout,
    Stderr
};

struct ChildLimits
{
    int timeoutSeconds = 0;         // 0: none
    std::int64_t memoryLimitMb = 0; // RLIMIT_AS; 0: none
    std::filesystem::path workingDirectory;
    std::vector<std::pair<std::string, std::string>> environment; // added to the parent's
    // For `python3 -m portolan_dryrun ...`: fork the child from a prestarted interpreter that
    // has imported torch already (resources/python/portolan_dryrun/forkserver.py), which saves
    // about a second per run to a caller that runs several (verification, tests). The child
    // is the same process it would be otherwise; runChild starts it itself when no server can.
    bool prestarted = false;
};

struct ChildOutcome
{
    bool started = false;
    std::string startError; // why it could not start
    int exitCode = -1;      // when it exited
    int signal = 0;         // when a signal ended it
    bool timedOut = false;
    bool stopped = false; // ended after a stop request
};

// Runs `argv` in its own process group with the limits, and calls `onLine` for every line of
// its event pipe (fd 3), stdout and stderr as they arrive (a line longer than 64 KiB is cut).
// When `stop` becomes true the group gets SIGTERM, then SIGKILL after 5 s; at the timeout it gets
// SIGKILL at once. The child's crash ends only the child.
ChildOutcome runChild(const std::vector<std::string>& argv, const ChildLimits& limits,
                      const std::function<void(Stream, const std::string&)>& onLine,
                      const std::atomic<bool>* stop = nullptr);

// ------------------------------------------------------------------------------ events
// The child's pipes are cut into lines: '\n' and '\r' end one (progress bars redraw with '\r'),
// empty lines are dropped, and so are terminal control sequences (cursor moves, colours); a line
// longer than 64 KiB is cut there.
class LineSplitter
{
public:
    using Emit = std::function<void(const std::string&)>;
    void feed(const char* data, std::size_t size, const Emit& emit);
    void flush(const Emit& emit); // the last line, when the pipe closes without a line end

private:
    std::string m_pending;
    int m_escape = 0; // 1 after ESC, 2 inside "ESC [ ..." until its final byte
};

// One line of the event pipe, read. The driver writes JSON objects with an "event" member
// (core/runtime/EVENTS.md), but anything may reach the pipe, with any member of any type: a line
// that is not such an object is kept as an "output" event, and nothing here throws.
// Read by the typed reader (core/runtime/run_event.h). A line that is not an event becomes an
// "output" event with stream "events"; one shaped like an event with a field of the wrong type
// becomes a "warning" of kind "refused-event" naming the field, with the reader's diagnostic in
// `refusal`.
struct EventLine
{
    nlohmann::json event;
    std::optional<Diagnostic> refusal;
    bool terminal = false;   // "finished" or "failed": the run's last event
    bool usageError = false; // a "failed" whose code means the user's input, not the project
};
EventLine readEventLine(const std::string& line, double time);

// The readable line of an event (portolan-cli run without --events jsonl); empty for events
// that print nothing. A failure goes to stderr.
struct EventText
{
    std::string text;
    bool toStderr = false;
};
EventText describeEvent(const nlohmann::json& event);

} // namespace portolan::dryrun
