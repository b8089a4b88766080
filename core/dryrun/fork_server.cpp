// The client side of the prestarted interpreter (fork_server.h; the protocol is described in
// resources/python/portolan_dryrun/forkserver.py). One server per interpreter and start-up
// environment, started on first use and kept until the process exits or the server ends after
// its idle time; an ended server is replaced at the next run. A server that cannot start is not
// tried again: its runs are exec'd as before.
#include "core/dryrun/fork_server.h"

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace portolan::dryrun::detail {

namespace {

constexpr int kReadySeconds = 120; // importing torch on a loaded machine
constexpr int kPidSeconds = 60;

struct Server
{
    pid_t pid = -1;
    int control = -1;
    bool failed = false;
};

std::mutex& serversMutex()
{
    static std::mutex m;
    return m;
}

std::map<std::string, Server>& servers()
{
    static std::map<std::string, Server> s;
    return s;
}

bool startsWith(const std::string& s, const char* prefix)
{
    return s.rfind(prefix, 0) == 0;
}

// The variables that Python and the libraries the server imports read when they start: runs
// that differ in one of them cannot share a server (PYTHONHASHSEED fixes set order, PYTHONPATH
// the driver found). The others are set in each run.
std::string serverKey(const std::string& python, const std::vector<std::string>& environment)
{
    std::string key = python;
    for (const auto& kv : environment)
        for (const char* prefix : {"PYTHON", "OMP_", "MKL_", "OPENBLAS_", "TORCH", "LD_"})
            if (startsWith(kv, prefix)) {
                key += '\n' + kv;
                break;
            }
    return key;
}

template <typename Int> bool number(const std::string& text, Int& out)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

// Waits up to `seconds` for `fd` to be readable; false on a timeout or an error.
bool readable(int fd, int seconds)
{
    pollfd p{fd, POLLIN, 0};
    for (;;) {
        const int rc = ::poll(&p, 1, seconds < 0 ? -1 : seconds * 1000);
        if (rc < 0 && errno == EINTR)
            continue;
        return rc > 0;
    }
}

// One line from a socket, a byte at a time, so that nothing after it is consumed.
std::optional<std::string> readLine(int fd, int seconds)
{
    std::string line;
    for (;;) {
        if (!readable(fd, seconds))
            return std::nullopt;
        char c = 0;
        const ssize_t got = ::read(fd, &c, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return std::nullopt;
        if (c == '\n')
            return line;
        line += c;
    }
}

void stop(Server& s)
{
    if (s.control >= 0)
        ::close(s.control);
    s.control = -1;
    if (s.pid > 0) {
        ::kill(-s.pid, SIGKILL);
        ::waitpid(s.pid, nullptr, 0);
    }
    s.pid = -1;
}

// fd moved above 10 with close-on-exec, so that execChild's dup2 onto 1, 2, 3 cannot clobber it.
int high(int fd)
{
    if (fd < 0)
        return -1;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
    ::close(fd);
    return moved;
}

// `python -m portolan_dryrun.forkserver` with its control socket at fd 3, then its "ready".
Server start(const std::string& python, const std::vector<std::string>& environment)
{
    Server s;
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        s.failed = true;
        return s;
    }
    const int theirs = high(sv[1]);
    const int devnull = high(::open("/dev/null", O_WRONLY | O_CLOEXEC));
    if (theirs < 0 || devnull < 0) {
        for (int fd : {sv[0], theirs, devnull})
            if (fd >= 0)
                ::close(fd);
        s.failed = true;
        return s;
    }
    ExecStrings args({python, "-m", "portolan_dryrun.forkserver"});
    ExecStrings envp(environment);
    ChildLimits limits;
    limits.workingDirectory = "/";
    const pid_t pid = ::fork();
    if (pid == 0)
        execChild(args.pointers.data(), envp.pointers.data(), limits, {theirs, devnull, devnull});
    ::close(theirs);
    ::close(devnull);
    s.control = sv[0];
    s.pid = pid;
    if (pid < 0) {
        stop(s);
        s.failed = true;
        return s;
    }
    ::setpgid(pid, pid);
    char ready[8] = {};
    if (!readable(s.control, kReadySeconds) || ::recv(s.control, ready, sizeof ready, 0) != 5 ||
        std::memcmp(ready, "ready", 5) != 0) {
        stop(s);
        s.failed = true;
    }
    return s;
}

// The request and its descriptors (events, stdout, stderr, status, and stdin when there is
// one), as one message.
bool send(int control, const std::string& payload, const std::vector<int>& fds)
{
    iovec iov{const_cast<char*>(payload.data()), payload.size()};
    alignas(cmsghdr) char space[CMSG_SPACE(sizeof(int) * 5)] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    for (;;) {
        const ssize_t sent = ::sendmsg(control, &msg, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR)
            continue;
        return sent == ssize_t(payload.size());
    }
}

} // namespace

std::optional<ServerChild> forkFromServer(const std::vector<std::string>& argv,
                                          const std::vector<std::string>& environment,
                                          const ChildLimits& limits,
                                          const std::array<int, 3>& writeEnds, int input)
{
    if (argv.size() < 3 || argv[1] != "-m" || argv[2] != "portolan_dryrun")
        return std::nullopt;
    // The user's way out (a project that must start in a fresh interpreter), and a
    // benchmark's "before".
    if (const char* off = std::getenv("PORTOLAN_NO_FORK_SERVER"); off && *off && *off != '0')
        return std::nullopt;
    nlohmann::json request;
    request["args"] = std::vector<std::string>(argv.begin() + 3, argv.end());
    request["env"] = environment;
    request["cwd"] = limits.workingDirectory.string();
    request["memory_bytes"] = limits.memoryLimitMb * 1024 * 1024;
    const std::string payload = request.dump();

    int status[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, status) != 0)
        return std::nullopt;
    bool sent = false;
    {
        const std::lock_guard lock(serversMutex());
        const std::string key = serverKey(argv[0], environment);
        auto& all = servers();
        // A server that ended (idle, killed, out of memory) is replaced once.
        for (int attempt = 0; attempt < 2 && !sent; ++attempt) {
            auto it = all.find(key);
            if (it == all.end())
                it = all.emplace(key, start(argv[0], environment)).first;
            Server& s = it->second;
            if (s.failed)
                break;
            std::vector<int> fds{writeEnds[0], writeEnds[1], writeEnds[2], status[1]};
            if (input >= 0)
                fds.push_back(input);
            sent = send(s.control, payload, fds);
            if (!sent) {
                stop(s);
                all.erase(it);
            }
        }
    }
    ::close(status[1]);
    const auto pidLine = sent ? readLine(status[0], kPidSeconds) : std::nullopt;
    if (!pidLine || !startsWith(*pidLine, "pid ")) {
        ::close(status[0]);
        return std::nullopt;
    }
    ServerChild child;
    child.statusFd = status[0];
    if (!number(pidLine->substr(4), child.pid) || child.pid <= 0) {
        ::close(status[0]);
        return std::nullopt;
    }
    return child;
}

bool readServerStatus(int statusFd, bool block, int& status)
{
    if (!readable(statusFd, block ? -1 : 0))
        return false;
    const auto line = readLine(statusFd, block ? -1 : 5);
    if (line && startsWith(*line, "status ") && number(line->substr(7), status))
        return true;
    status = SIGKILL; // the monitor ended without saying how the run ended
    return true;
}

} // namespace portolan::dryrun::detail
