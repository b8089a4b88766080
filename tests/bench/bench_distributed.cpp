// Data parallel on this machine (issue 14): training throughput of 1 rank and of 2 ranks with one
// compute thread each (the scaling efficiency on 2 cores), and the gradient all-reduce per step,
// for a model large enough that the all-reduce matters (an MLP of about 0.7 M parameters). Runs
// `portolan-cli train --ranks N` as a user would and reads its step events. Prints figures only.
#include "core/common/json.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Figures
{
    double samplesPerSec = 0;
    double allreduceS = 0;
    double waitS = 0;
    int steps = 0;
    bool identical = false;
};

Figures run(const fs::path& dir, int ranks, double bucketMb)
{
    fs::remove_all(dir / ".portolan");
    const std::string cmd = std::string(PORTOLAN_CLI) + " train " + dir.string() + " --params " +
                            (dir / "bench.yaml").string() + " --events jsonl --threads 1 --ranks " +
                            std::to_string(ranks) + " --bucket-mb " + std::to_string(bucketMb) +
                            " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    Figures f;
    if (!p)
        return f;
    std::vector<nlohmann::json> steps;
    char buf[1 << 16];
    while (std::fgets(buf, sizeof buf, p)) {
        const auto e = nlohmann::json::parse(buf, nullptr, false);
        if (!e.is_object())
            continue;
        if (e.value("event", "") == "step")
            steps.push_back(e);
        if (e.value("event", "") == "finished")
            f.identical = ranks == 1 || e.value("rank_weights_identical", false);
    }
    pclose(p);
    // The first report holds the start-up (the first all-reduces, the caches): left out.
    for (std::size_t i = 1; i < steps.size(); ++i) {
        f.samplesPerSec += steps[i].value("samples_per_sec", 0.0);
        f.allreduceS += steps[i].value("allreduce_s", 0.0);
        f.waitS += steps[i].value("allreduce_wait_s", 0.0);
    }
    const double n = steps.size() > 1 ? double(steps.size() - 1) : 1.0;
    f.samplesPerSec /= n;
    f.allreduceS /= n;
    f.waitS /= n;
    f.steps = int(steps.size()) * 10;
    return f;
}

} // namespace

int main()
{
    const fs::path dir = fs::temp_directory_path() / "portolan-bench-distributed";
    fs::create_directories(dir);
    std::ofstream(dir / "bench.yaml") << R"(train_input:
    data_dir: "./none"
    batch_size: 256
    shuffle: True
    drop_last_batch: True
    synthetic_samples: 8192
model:
    name: "fc_mnist"
    hidden_sizes: [512, 512]
    activation_fn: "relu"
    dropout: 0.0
optimizer:
    optimizer_type: "SGD"
    momentum: 0.9
    learning_rate: 0.01
runconfig:
    max_steps: 80
    log_steps: 10
    checkpoint_steps: 0
    seed: 1
)";
    std::printf("portolan-cli train --ranks N --threads 1, fc_mnist 784-512-512-10 (0.67 M "
                "parameters), global batch 256, 80 steps; means over the step reports after the "
                "first\n\n");
    const Figures one = run(dir, 1, 1.0);
    std::printf("1 rank:                   %8.0f samples/s\n", one.samplesPerSec);
    for (double bucket : {1.0, 0.0}) {
        const Figures two = run(dir, 2, bucket);
        std::printf("2 ranks, %s: %8.0f samples/s, scaling efficiency %.0f %% (speed-up %.2f), "
                    "all-reduce %.2f ms/step of which %.2f ms not hidden by the backward pass, "
                    "final weights %s\n",
                    bucket > 0 ? "1 MB buckets " : "one bucket   ", two.samplesPerSec,
                    100.0 * two.samplesPerSec / (2.0 * one.samplesPerSec),
                    two.samplesPerSec / one.samplesPerSec, two.allreduceS * 1000.0,
                    two.waitS * 1000.0, two.identical ? "identical" : "DIFFER");
    }
    fs::remove_all(dir);
    return 0;
}
