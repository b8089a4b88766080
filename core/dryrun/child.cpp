// Runs the dry-run child: its own process group (so that its DataLoader workers and anything
// else it starts end with it), an address-space limit, three pipes read with poll(), a deadline.
#include "core/common/environment.h"
#include "core/dryrun/dry_run.h"

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace portolan::dryrun {

namespace {

constexpr int kEventsFd = 3;

void closeQuietly(int& fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

[[noreturn]] void execChild(char* const* argv, char* const* envp, const ChildLimits& limits,
                            const std::array<int, 3>& writeEnds)
{
    // In the child: only async-signal-safe work until exec.
    ::setpgid(0, 0);
    ::signal(SIGPIPE, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    if (limits.memoryLimitMb > 0) {
        const rlim_t bytes = static_cast<rlim_t>(limits.memoryLimitMb) * 1024 * 1024;
        const rlimit lim{bytes, bytes};
        ::setrlimit(RLIMIT_AS, &lim);
    }
    // fds 1, 2, 3 := stdout, stderr, events. The write ends are above 3 (see runChild).
    ::dup2(writeEnds[1], 1);
    ::dup2(writeEnds[2], 2);
    ::dup2(writeEnds[0], kEventsFd);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0)
        ::dup2(devnull, 0);
    for (int fd = kEventsFd + 1; fd < 1024; ++fd)
        ::close(fd);
    if (!limits.workingDirectory.empty() && ::chdir(limits.workingDirectory.c_str()) != 0)
        ::_exit(126);
    ::execve(argv[0], argv, envp);
    const char msg[] = "portolan: cannot start the dry-run interpreter\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
}

} // namespace

ChildOutcome runChild(const std::vector<std::string>& argv, const ChildLimits& limits,
                      const std::function<void(Stream, const std::string&)>& onLine,
                      const std::atomic<bool>* stop)
{
    ChildOutcome out;
    if (argv.empty()) {
        out.startError = "no command";
        return out;
    }
    if (::access(argv[0].c_str(), X_OK) != 0) {
        out.startError = argv[0] + ": " + std::strerror(errno);
        return out;
    }

    // pipes[i] = {read, write}; index 0 events, 1 stdout, 2 stderr. Their write ends are moved
    // above fd 3 so that the dup2 calls in the child cannot overwrite one another.
    std::array<std::array<int, 2>, 3> pipes{};
    for (auto& p : pipes) {
        if (::pipe2(p.data(), O_CLOEXEC) != 0) {
            out.startError = std::string("pipe: ") + std::strerror(errno);
            return out;
        }
        const int high = ::fcntl(p[1], F_DUPFD_CLOEXEC, 10);
        ::close(p[1]);
        p[1] = high;
    }

    // The environment is built before fork (allocation is not safe in the child).
    std::vector<std::string> envStorage = environmentWith(limits.environment);
    std::vector<char*> envp;
    envp.reserve(envStorage.size() + 1);
    for (auto& kv : envStorage)
        envp.push_back(kv.data());
    envp.push_back(nullptr);
    std::vector<std::string> argStorage = argv;
    std::vector<char*> args;
    args.reserve(argStorage.size() + 1);
    for (auto& a : argStorage)
        args.push_back(a.data());
    args.push_back(nullptr);

    const pid_t pid = ::fork();
    if (pid < 0) {
        out.startError = std::string("fork: ") + std::strerror(errno);
        for (auto& p : pipes) {
            closeQuietly(p[0]);
            closeQuietly(p[1]);
        }
        return out;
    }
    if (pid == 0)
        execChild(args.data(), envp.data(), limits, {pipes[0][1], pipes[1][1], pipes[2][1]});
    ::setpgid(pid, pid); // also done in the child; whichever runs first wins
    out.started = true;
    for (auto& p : pipes)
        closeQuietly(p[1]);

    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto deadline = limits.timeoutSeconds > 0
                              ? start + std::chrono::seconds(limits.timeoutSeconds)
                              : Clock::time_point::max();
    Clock::time_point killAt = Clock::time_point::max();
    Clock::time_point reapedAt = Clock::time_point::max();
    bool termSent = false;
    std::array<LineSplitter, 3> buffers;
    const std::array<Stream, 3> streams{Stream::Events, Stream::Stdout, Stream::Stderr};
    int open = 3;
    int status = 0;
    bool reaped = false;
    std::array<char, 65536> chunk{};

    auto terminate = [&](bool timedOut) {
        if (termSent)
            return;
        termSent = true;
        out.timedOut = out.timedOut || timedOut;
        out.stopped = out.stopped || !timedOut;
        // A stop lets the run finish its step and report; a timeout ends it at once (it would
        // otherwise report "stopped", and a hung child may not answer at all).
        ::kill(-pid, timedOut ? SIGKILL : SIGTERM);
        killAt = Clock::now() + std::chrono::seconds(5);
    };

    while (open > 0 || !reaped) {
        std::array<pollfd, 3> fds{};
        nfds_t n = 0;
        std::array<int, 3> which{};
        for (int i = 0; i < 3; ++i)
            if (pipes[i][0] >= 0) {
                fds[n] = pollfd{pipes[i][0], POLLIN, 0};
                which[n++] = i;
            }
        const int rc = ::poll(fds.data(), n, n > 0 ? 100 : 20);
        if (rc < 0 && errno != EINTR)
            break;
        for (nfds_t k = 0; rc > 0 && k < n; ++k) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const int i = which[k];
            const ssize_t got = ::read(pipes[i][0], chunk.data(), chunk.size());
            if (got > 0) {
                buffers[i].feed(chunk.data(), std::size_t(got),
                                [&](const std::string& line) { onLine(streams[i], line); });
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                buffers[i].flush([&](const std::string& line) { onLine(streams[i], line); });
                closeQuietly(pipes[i][0]);
                --open;
            }
        }
        if (!reaped) {
            const pid_t r = ::waitpid(pid, &status, WNOHANG);
            if (r == pid)
                reaped = true;
        }
        const auto now = Clock::now();
        if (!termSent && now >= deadline)
            terminate(true);
        if (!termSent && stop && stop->load())
            terminate(false);
        if (termSent && now >= killAt) {
            ::kill(-pid, SIGKILL);
            killAt = Clock::time_point::max();
        }
        if (reaped && open > 0) {
            ::kill(-pid, SIGKILL); // workers the child left holding its pipes open
            if (reapedAt == Clock::time_point::max())
                reapedAt = now;
            // Something outside the group (it left with setsid) still holds a pipe: stop
            // reading after a grace period rather than wait for it.
            if (now - reapedAt > std::chrono::seconds(2)) {
                for (int i = 0; i < 3; ++i)
                    if (pipes[i][0] >= 0) {
                        buffers[i].flush(
                            [&](const std::string& line) { onLine(streams[i], line); });
                        closeQuietly(pipes[i][0]);
                    }
                open = 0;
            }
        }
    }
    if (!reaped)
        ::waitpid(pid, &status, 0);
    ::kill(-pid, SIGKILL); // anything the child left behind in its group
    if (WIFEXITED(status))
        out.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        out.signal = WTERMSIG(status);
    return out;
}

} // namespace portolan::dryrun
