// Runs the dry-run child: its own process group (so that its DataLoader workers and anything
// else it starts end with it), an address-space limit, three pipes read with poll(), a deadline.
#include "core/common/environment.h"
#include "core/dryrun/dry_run.h"
#include "core/dryrun/fork_server.h"
#include "core/dryrun/terminal.h"

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <optional>
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

} // namespace

namespace detail {

ExecStrings::ExecStrings(std::vector<std::string> strings) : storage(std::move(strings))
{
    pointers.reserve(storage.size() + 1);
    for (auto& s : storage)
        pointers.push_back(s.data());
    pointers.push_back(nullptr);
}

[[noreturn]] void execChild(char* const* argv, char* const* envp, const ChildLimits& limits,
                            const std::array<int, 3>& writeEnds, int input)
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
    const int from = input >= 0 ? input : ::open("/dev/null", O_RDONLY);
    if (from >= 0)
        ::dup2(from, 0);
    for (int fd = kEventsFd + 1; fd < 1024; ++fd)
        ::close(fd);
    if (!limits.workingDirectory.empty() && ::chdir(limits.workingDirectory.c_str()) != 0)
        ::_exit(126);
    ::execve(argv[0], argv, envp);
    const char msg[] = "portolan: cannot start the dry-run interpreter\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
}

} // namespace detail

namespace {

using Pipes = std::array<std::array<int, 2>, 3>; // {read, write}: events, stdout, stderr

// The three pipes. Their write ends are moved above fd 3 so that the dup2 calls in the child
// cannot overwrite one another. An error message when one cannot be made.
std::optional<std::string> openPipes(Pipes& pipes)
{
    for (auto& p : pipes) {
        if (::pipe2(p.data(), O_CLOEXEC) != 0)
            return std::string("pipe: ") + std::strerror(errno);
        const int high = ::fcntl(p[1], F_DUPFD_CLOEXEC, 10);
        ::close(p[1]);
        p[1] = high;
    }
    return std::nullopt;
}

// The parent's side of a started child: its three pipes read into lines with poll(), and the
// child ended on its deadline, on a stop, or when it has exited but left something holding its
// pipes.
class Supervisor
{
public:
    using Clock = std::chrono::steady_clock;

    // `statusFd`: the fork server's status socket when the server forked the child (it is
    // not ours to wait for), else -1.
    Supervisor(pid_t pid, int statusFd, Pipes& pipes, const ChildLimits& limits,
               const std::function<void(Stream, const std::string&)>& onLine,
               const std::atomic<bool>* stop, ChildOutcome& out)
        : m_pid(pid), m_statusFd(statusFd), m_pipes(pipes), m_onLine(onLine), m_stop(stop),
          m_out(out)
    {
        if (limits.timeoutSeconds > 0)
            m_deadline = Clock::now() + std::chrono::seconds(limits.timeoutSeconds);
    }

    // Until every pipe is closed and the child reaped; returns its wait status.
    int run()
    {
        while (m_open > 0 || !m_reaped) {
            if (!readReady())
                break;
            if (!m_reaped && ended(false))
                m_reaped = true;
            const auto now = Clock::now();
            enforceLimits(now);
            if (m_reaped && m_open > 0)
                drainAfterExit(now);
        }
        if (!m_reaped)
            ended(true);
        ::kill(-m_pid, SIGKILL); // anything the child left behind in its group
        return m_status;
    }

private:
    // Whether the child has ended, its wait status then in m_status; `block` waits for it.
    bool ended(bool block)
    {
        if (m_statusFd >= 0)
            return detail::readServerStatus(m_statusFd, block, m_status);
        return ::waitpid(m_pid, &m_status, block ? 0 : WNOHANG) == m_pid;
    }

    void lineOf(int i, const std::string& line) { m_onLine(kStreams[std::size_t(i)], line); }

    void closePipe(int i)
    {
        m_buffers[std::size_t(i)].flush([&](const std::string& line) { lineOf(i, line); });
        closeQuietly(m_pipes[std::size_t(i)][0]);
    }

    // One poll of the open pipes and a read of each that is ready; false on a poll error.
    bool readReady()
    {
        std::array<pollfd, 3> fds{};
        nfds_t n = 0;
        std::array<int, 3> which{};
        for (int i = 0; i < 3; ++i)
            if (m_pipes[std::size_t(i)][0] >= 0) {
                fds[n] = pollfd{m_pipes[std::size_t(i)][0], POLLIN, 0};
                which[n++] = i;
            }
        const int rc = ::poll(fds.data(), n, n > 0 ? 100 : 20);
        if (rc < 0 && errno != EINTR)
            return false;
        for (nfds_t k = 0; rc > 0 && k < n; ++k) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const int i = which[k];
            const ssize_t got = ::read(m_pipes[std::size_t(i)][0], m_chunk.data(), m_chunk.size());
            if (got > 0) {
                m_buffers[std::size_t(i)].feed(m_chunk.data(), std::size_t(got),
                                               [&](const std::string& line) { lineOf(i, line); });
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                closePipe(i);
                --m_open;
            }
        }
        return true;
    }

    void terminate(bool timedOut)
    {
        if (m_termSent)
            return;
        m_termSent = true;
        m_out.timedOut = m_out.timedOut || timedOut;
        m_out.stopped = m_out.stopped || !timedOut;
        // A stop lets the run finish its step and report; a timeout ends it at once (it would
        // otherwise report "stopped", and a hung child may not answer at all).
        ::kill(-m_pid, timedOut ? SIGKILL : SIGTERM);
        m_killAt = Clock::now() + std::chrono::seconds(5);
    }

    // The deadline, a stop, and SIGKILL for a group that did not end within 5 s of its signal.
    void enforceLimits(Clock::time_point now)
    {
        if (!m_termSent && now >= m_deadline)
            terminate(true);
        if (!m_termSent && m_stop && m_stop->load())
            terminate(false);
        if (m_termSent && now >= m_killAt) {
            ::kill(-m_pid, SIGKILL);
            m_killAt = Clock::time_point::max();
        }
    }

    // The child has exited but its pipes are still open.
    void drainAfterExit(Clock::time_point now)
    {
        ::kill(-m_pid, SIGKILL); // workers the child left holding its pipes open
        if (m_reapedAt == Clock::time_point::max())
            m_reapedAt = now;
        // Something outside the group (it left with setsid) still holds a pipe: stop reading
        // after a grace period rather than wait for it.
        if (now - m_reapedAt > std::chrono::seconds(2)) {
            for (int i = 0; i < 3; ++i)
                if (m_pipes[std::size_t(i)][0] >= 0)
                    closePipe(i);
            m_open = 0;
        }
    }

    static constexpr std::array<Stream, 3> kStreams{Stream::Events, Stream::Stdout, Stream::Stderr};
    pid_t m_pid;
    int m_statusFd;
    Pipes& m_pipes;
    const std::function<void(Stream, const std::string&)>& m_onLine;
    const std::atomic<bool>* m_stop;
    ChildOutcome& m_out;
    Clock::time_point m_deadline = Clock::time_point::max();
    Clock::time_point m_killAt = Clock::time_point::max();
    Clock::time_point m_reapedAt = Clock::time_point::max();
    bool m_termSent = false;
    std::array<LineSplitter, 3> m_buffers;
    int m_open = 3;
    int m_status = 0;
    bool m_reaped = false;
    std::array<char, 65536> m_chunk{};
};

ChildOutcome& withStatus(ChildOutcome& out, int status)
{
    if (WIFEXITED(status))
        out.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        out.signal = WTERMSIG(status);
    return out;
}

} // namespace

// The phases: check the command, open the pipes, fork and exec, supervise (Supervisor), and
// read the exit status.
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
    Pipes pipes{};
    if (auto error = openPipes(pipes)) {
        out.startError = *error;
        return out;
    }
    detail::ExecStrings envp(environmentWith(limits.environment));
    detail::ExecStrings args(argv);

    // Its stdin (terminal.h); held until the child has ended.
    detail::Terminal terminal;
    if (limits.prestarted) {
        if (const auto served = detail::forkFromServer(argv, envp.storage, limits,
                                                       {pipes[0][1], pipes[1][1], pipes[2][1]},
                                                       terminal.follower())) {
            out.started = true;
            for (auto& p : pipes)
                closeQuietly(p[1]);
            terminal.closeFollower();
            const int status =
                Supervisor(served->pid, served->statusFd, pipes, limits, onLine, stop, out).run();
            ::close(served->statusFd);
            return withStatus(out, status);
        }
    }
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
        detail::execChild(args.pointers.data(), envp.pointers.data(), limits,
                          {pipes[0][1], pipes[1][1], pipes[2][1]}, terminal.follower());
    ::setpgid(pid, pid); // also done in the child; whichever runs first wins
    out.started = true;
    for (auto& p : pipes)
        closeQuietly(p[1]);
    terminal.closeFollower();

    return withStatus(out, Supervisor(pid, -1, pipes, limits, onLine, stop, out).run());
}

} // namespace portolan::dryrun
