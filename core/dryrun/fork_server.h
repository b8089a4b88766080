// The prestarted interpreter for dry runs (resources/python/portolan_dryrun/forkserver.py):
// one Python process per interpreter and start-up environment, which has imported torch once
// and forks each `python3 -m portolan_dryrun ...` child from there. Internal to core/dryrun:
// runChild uses it when ChildLimits::prestarted asks for it.
#pragma once

#include "core/dryrun/dry_run.h"

#include <array>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace portolan::dryrun::detail {

// Strings as execve wants them, built before fork (allocation is not safe in the child).
struct ExecStrings
{
    std::vector<std::string> storage;
    std::vector<char*> pointers;

    explicit ExecStrings(std::vector<std::string> strings);
};

// In a forked child: its own process group, default signals, the memory limit, fds 1, 2, 3 :=
// writeEnds[1], [2], [0] (each above fd 3), stdin from `input` (above fd 3; /dev/null when it
// is -1), the rest closed, the working directory, then exec. Only async-signal-safe calls.
[[noreturn]] void execChild(char* const* argv, char* const* envp, const ChildLimits& limits,
                            const std::array<int, 3>& writeEnds, int input = -1);

// A run forked by the server: its pid (the leader of its own process group, which the caller
// may signal) and the socket on which its wait status arrives.
struct ServerChild
{
    pid_t pid = -1;
    int statusFd = -1;
};

// Forks `argv` (python, "-m", "portolan_dryrun", ...) from the server for argv[0] and the
// environment's start-up variables, starting that server first if needed. `writeEnds` are the
// run's event, stdout and stderr pipes; `input` its stdin (-1: /dev/null). nullopt when the command
// is not a dry run or no server can serve it (it could not start, or it died): the caller starts
// the child itself.
std::optional<ServerChild> forkFromServer(const std::vector<std::string>& argv,
                                          const std::vector<std::string>& environment,
                                          const ChildLimits& limits,
                                          const std::array<int, 3>& writeEnds, int input = -1);

// Reads the run's wait status from its status socket: true with `status` set once it has
// ended. `block` waits for it. A socket that closes without a status reads as SIGKILL.
bool readServerStatus(int statusFd, bool block, int& status);

} // namespace portolan::dryrun::detail
