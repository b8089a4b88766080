// Start-up time of the Torch-free portolan-cli subcommands (docs/ARCHITECTURE.md, Processes: under
// 50 ms), measured like hyperfine: warm-up runs, then the median, mean, min and max wall time of N
// runs of each command, output discarded. A figure, not a pass/fail test.
//
//   bench_cli_startup [PORTOLAN_CLI] [RUNS]
//
// PORTOLAN_CLI defaults to this build's portolan-cli; give another build's to compare (the
// figures before and after the link-boundary split came from the same bench on both).
#include "process_timing.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

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
            const auto run = portolan::bench::runProcess(c);
            const double ms = run.wallMs;
            exitCode = run.exitCode;
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
