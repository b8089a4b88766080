#pragma once

// Timing a child process as a user starts it (the CLI benchmarks): spawned with its output
// discarded, its wall time, the CPU time it used (user + system) and its minor page faults,
// from wait4.

#include <chrono>
#include <fcntl.h>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace portolan::bench {

struct ProcessTime
{
    double wallMs = -1; // negative: the process could not start
    double cpuMs = 0;
    long minorFaults = 0; // pages first touched (or touched again after being given back)
    int exitCode = 0;
};

inline ProcessTime runProcess(const std::vector<std::string>& argv)
{
    std::vector<char*> v;
    for (const auto& a : argv)
        v.push_back(const_cast<char*>(a.c_str()));
    v.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, v[0], &actions, nullptr, v.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ProcessTime t;
    if (rc != 0)
        return t;
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    const auto end = std::chrono::steady_clock::now();
    t.wallMs = std::chrono::duration<double, std::milli>(end - start).count();
    const auto ms = [](const timeval& tv) {
        return double(tv.tv_sec) * 1e3 + double(tv.tv_usec) / 1e3;
    };
    t.cpuMs = ms(usage.ru_utime) + ms(usage.ru_stime);
    t.minorFaults = usage.ru_minflt;
    t.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return t;
}

} // namespace portolan::bench
