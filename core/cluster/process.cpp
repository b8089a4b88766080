// Child processes of the cluster concern: the Slurm client commands (run to their end, output
// captured) and the ranks of a local data-parallel run (one process group, lines streamed as they
// come, every rank's end reported). posix_spawn keeps the parent's side free of fork-safety
// concerns; poll() reads all pipes without a thread per pipe.
#include "core/cluster/cluster.h"
#include "core/common/environment.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace portolan::cluster {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kMaxLine = 1 << 20;

double secondsSince(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Pipe
{
    int fd = -1;
    std::string pending;

    // Complete lines of the bytes read; false at end of file.
    template <typename F> bool read(F&& emit)
    {
        char buf[65536];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            return true;
        if (n <= 0) {
            if (!pending.empty())
                emit(pending);
            pending.clear();
            ::close(fd);
            fd = -1;
            return false;
        }
        for (ssize_t i = 0; i < n; ++i) {
            if (buf[i] == '\n') {
                if (!pending.empty() && pending.back() == '\r')
                    pending.pop_back();
                emit(pending);
                pending.clear();
            } else if (pending.size() < kMaxLine) {
                pending.push_back(buf[i]);
            }
        }
        return true;
    }
};

struct Spawned
{
    pid_t pid = -1;
    Pipe out;
    Pipe err;
    std::string error;
    bool running = false;
    int exitCode = -1;
    int signal = 0;
};

// Starts argv with stdout and stderr on pipes, stdin from /dev/null, in process group `group`
// (0: a new group led by the child).
Spawned spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
              const fs::path& workDir, pid_t group)
{
    Spawned s;
    const fs::path program = findProgram(argv.empty() ? std::string() : argv[0]);
    if (program.empty()) {
        s.error = (argv.empty() ? std::string("no command") : argv[0]) + ": not found";
        return s;
    }
    int outPipe[2], errPipe[2];
    if (::pipe2(outPipe, O_CLOEXEC) != 0 || ::pipe2(errPipe, O_CLOEXEC) != 0) {
        s.error = std::string("pipe: ") + std::strerror(errno);
        return s;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
    if (!workDir.empty())
        posix_spawn_file_actions_addchdir_np(&actions, workDir.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, group);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                        POSIX_SPAWN_SETSIGMASK);

    std::vector<std::string> args = argv;
    args[0] = program.string();
    std::vector<char*> argp, envp;
    for (auto& a : args)
        argp.push_back(a.data());
    argp.push_back(nullptr);
    std::vector<std::string> envCopy = env;
    for (auto& e : envCopy)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    const int rc =
        ::posix_spawn(&s.pid, args[0].c_str(), &actions, &attr, argp.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    if (rc != 0) {
        ::close(outPipe[0]);
        ::close(errPipe[0]);
        s.error = args[0] + ": " + std::strerror(rc);
        s.pid = -1;
        return s;
    }
    s.out.fd = outPipe[0];
    s.err.fd = errPipe[0];
    s.running = true;
    return s;
}

// Collects the exit of `s` when it has ended; true when it did.
bool reap(Spawned& s, bool block)
{
    if (!s.running)
        return false;
    int status = 0;
    pid_t r;
    do
        r = ::waitpid(s.pid, &status, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r != s.pid)
        return false;
    s.running = false;
    if (WIFEXITED(status))
        s.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        s.signal = WTERMSIG(status);
    return true;
}

} // namespace

fs::path findProgram(const std::string& name)
{
    if (name.empty())
        return {};
    if (name.find('/') != std::string::npos)
        return ::access(name.c_str(), X_OK) == 0 ? fs::path(name) : fs::path();
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
        const std::size_t end = std::min(dirs.find(':', start), dirs.size());
        fs::path candidate = fs::path(end > start ? dirs.substr(start, end - start) : ".") / name;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = end + 1;
    }
    return {};
}

std::string slurmClientProblem()
{
    if (!findProgram("sbatch").empty())
        return {};
    return "no Slurm client on this computer (sbatch is not on PATH): submit from the cluster's "
           "login node, where Portolan needs sbatch, squeue, sacct and scancel, or install "
           "Debian's slurm-client with the cluster's slurm.conf";
}

std::string CommandResult::errorText() const
{
    std::string why;
    if (!started)
        why = startError;
    else if (timedOut)
        why = "did not answer in time";
    else if (signal != 0)
        why = std::string("killed by signal ") + strsignal(signal);
    else if (exitCode != 0)
        why = "exited with status " + std::to_string(exitCode);
    std::string tail = err.empty() ? out : err;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' '))
        tail.pop_back();
    if (const auto nl = tail.find_last_of('\n'); nl != std::string::npos)
        tail = tail.substr(nl + 1);
    if (!tail.empty())
        why += why.empty() ? tail : ": " + tail;
    return why;
}

CommandResult runCommand(const std::vector<std::string>& argv, double timeoutSeconds,
                         const fs::path& workDir)
{
    CommandResult r;
    Spawned s = spawn(argv, environmentWith({}), workDir, 0);
    if (!s.running) {
        r.startError = s.error;
        return r;
    }
    r.started = true;
    const auto start = Clock::now();
    auto append = [](std::string& to) {
        return [&to](const std::string& line) {
            to += line + "\n";
        };
    };
    while (s.out.fd >= 0 || s.err.fd >= 0) {
        const double left = timeoutSeconds - secondsSince(start);
        if (left <= 0) {
            ::kill(-s.pid, SIGKILL);
            r.timedOut = true;
            break;
        }
        pollfd fds[2];
        int n = 0;
        for (Pipe* p : {&s.out, &s.err})
            if (p->fd >= 0)
                fds[n++] = {p->fd, POLLIN, 0};
        ::poll(fds, nfds_t(n), int(std::min(left, 0.25) * 1000) + 1);
        for (int i = 0; i < n; ++i)
            if (fds[i].revents != 0) {
                Pipe& p = fds[i].fd == s.out.fd ? s.out : s.err;
                p.read(append(&p == &s.out ? r.out : r.err));
            }
    }
    for (Pipe* p : {&s.out, &s.err})
        if (p->fd >= 0)
            ::close(p->fd);
    reap(s, true);
    r.exitCode = s.exitCode;
    r.signal = r.timedOut ? 0 : s.signal;
    return r;
}

int freeTcpPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    ::close(fd);
    return port;
}

LaunchOutcome launchRanks(const std::vector<std::string>& argv, const LaunchOptions& options,
                          const std::function<bool(int, Stream, const std::string&)>& onLine,
                          const std::function<void(const RankExit&)>& onExit,
                          const std::atomic<bool>* stop)
{
    LaunchOutcome outcome;
    outcome.masterPort = options.masterPort > 0 ? options.masterPort : freeTcpPort();
    const int n = std::max(options.ranks, 1);
    std::vector<Spawned> ranks(static_cast<std::size_t>(n));
    pid_t group = 0;
    const auto start = Clock::now();
    for (int r = 0; r < n; ++r) {
        const auto env = environmentWith({{"RANK", std::to_string(r)},
                                          {"WORLD_SIZE", std::to_string(n)},
                                          {"LOCAL_RANK", std::to_string(r)},
                                          {"MASTER_ADDR", options.masterAddr},
                                          {"MASTER_PORT", std::to_string(outcome.masterPort)}});
        ranks[std::size_t(r)] = spawn(argv, env, options.workDir, group);
        if (!ranks[std::size_t(r)].running) {
            outcome.startError = ranks[std::size_t(r)].error;
            if (group > 0)
                ::kill(-group, SIGKILL);
            for (auto& s : ranks)
                reap(s, true);
            return outcome;
        }
        if (group == 0)
            group = ranks[0].pid;
    }

    bool stopSent = false;
    bool killed = false;
    std::optional<Clock::time_point> firstFailure;
    auto killAll = [&] {
        if (!killed)
            ::kill(-group, SIGKILL);
        killed = true;
    };
    auto running = [&] {
        return std::any_of(ranks.begin(), ranks.end(), [](const Spawned& s) {
            return s.running || s.out.fd >= 0 || s.err.fd >= 0;
        });
    };
    std::optional<Clock::time_point> allExited;
    while (running()) {
        if (stop && stop->load() && !stopSent) {
            ::kill(-group, SIGTERM);
            stopSent = true;
            outcome.stopped = true;
        }
        if (firstFailure && secondsSince(*firstFailure) > options.graceSeconds)
            killAll();
        std::vector<pollfd> fds;
        std::vector<std::pair<int, Stream>> who;
        for (int r = 0; r < n; ++r)
            for (Stream st : {Stream::Stdout, Stream::Stderr}) {
                Pipe& p =
                    st == Stream::Stdout ? ranks[std::size_t(r)].out : ranks[std::size_t(r)].err;
                if (p.fd >= 0) {
                    fds.push_back({p.fd, POLLIN, 0});
                    who.emplace_back(r, st);
                }
            }
        if (!fds.empty())
            ::poll(fds.data(), nfds_t(fds.size()), 100);
        else
            ::usleep(20000);
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].revents == 0)
                continue;
            const auto [r, st] = who[i];
            Pipe& p = st == Stream::Stdout ? ranks[std::size_t(r)].out : ranks[std::size_t(r)].err;
            p.read([&, r = r, st = st](const std::string& line) {
                if (!onLine(r, st, line))
                    killAll();
            });
        }
        for (int r = 0; r < n; ++r) {
            Spawned& s = ranks[std::size_t(r)];
            if (!reap(s, false))
                continue;
            RankExit e{r, s.exitCode, s.signal, secondsSince(start)};
            outcome.exits.push_back(e);
            if ((e.exitCode != 0 || e.signal != 0) && !firstFailure)
                firstFailure = Clock::now();
            if (onExit)
                onExit(e);
        }
        // A grandchild may hold a pipe open after every rank has ended: stop waiting for it.
        if (std::none_of(ranks.begin(), ranks.end(), [](const Spawned& s) { return s.running; })) {
            if (!allExited)
                allExited = Clock::now();
            else if (secondsSince(*allExited) > 2)
                for (auto& s : ranks)
                    for (Pipe* p : {&s.out, &s.err})
                        if (p->fd >= 0) {
                            ::close(p->fd);
                            p->fd = -1;
                        }
        }
    }
    return outcome;
}

} // namespace portolan::cluster
