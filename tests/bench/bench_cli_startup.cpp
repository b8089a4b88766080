// Start-up time of the Torch-free portolan-cli subcommands (docs/ARCHITECTURE.md, Processes: under
// 50 ms), measured like hyperfine: warm-up runs, then the median, mean, min and max wall time of N
// runs of each command, output discarded. A figure, not a pass/fail test.
//
//   bench_cli_startup [PORTOLAN_CLI] [RUNS]
//
// PORTOLAN_CLI defaults to this build's portolan-cli; give another build's to compare (the
// figures before and after the link-boundary split came from the same bench on both).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <numeric>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

// Wall time of one run in milliseconds, or a negative number when it could not start.
double runOnce(const std::vector<std::string>& argv, int* exitCode)
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
    if (rc != 0)
        return -1;
    int status = 0;
    waitpid(pid, &status, 0);
    const auto end = std::chrono::steady_clock::now();
    *exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return std::chrono::duration<double, std::milli>(end - start).count();
}

} // namespace

int main(int argc, char** argv)
{
    const std::string cli = argc > 1 && *argv[1] ? argv[1] : PORTOLAN_CLI;
    const int runs = argc > 2 ? std::max(3, std::atoi(argv[2])) : 30;
    const std::string samples = PORTOLAN_SAMPLES;
    const std::string project = samples + "/mnist-mlp-cerebras-pytorch";
    const std::vector<std::vector<std::string>> commands = {
        {cli, "--version"},
        {cli, "params", "get", project + "/configs/params.yaml", "optimizer.learning_rate"},
        {cli, "info", project},
        {cli, "check", project},
    };
    std::printf("%s, %d runs each after 3 warm-up runs (milliseconds of wall time)\n", cli.c_str(),
                runs);
    std::printf("%-28s %8s %8s %8s %8s  %s\n", "command", "median", "mean", "min", "max", "exit");
    for (const auto& c : commands) {
        std::vector<double> times;
        int exitCode = 0;
        bool failed = false;
        for (int i = 0; i < runs + 3 && !failed; ++i) {
            const double ms = runOnce(c, &exitCode);
            failed = ms < 0;
            if (i >= 3)
                times.push_back(ms);
        }
        std::string name;
        for (std::size_t i = 1; i < c.size() && i < 3; ++i)
            if (c[i].front() != '/')
                name += (i > 1 ? " " : "") + c[i];
        if (c.size() > 2)
            name += " SAMPLE";
        if (failed || times.empty()) {
            std::printf("%-28s cannot start %s\n", name.c_str(), cli.c_str());
            continue;
        }
        std::sort(times.begin(), times.end());
        const double median = times.size() % 2
                                  ? times[times.size() / 2]
                                  : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
        const double mean = std::accumulate(times.begin(), times.end(), 0.0) / double(times.size());
        std::printf("%-28s %8.1f %8.1f %8.1f %8.1f  %d\n", name.c_str(), median, mean,
                    times.front(), times.back(), exitCode);
    }
    return 0;
}
