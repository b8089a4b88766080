// bench_train [threads] [rounds]: training throughput of the LibTorch runtime against the same
// model in PyTorch for Python (Debian's python3-torch, the same 1.13.1 build), side by side in
// one run, same batch, same thread count. Prints samples/s and the ratios.
//
// LibTorch side: the real runtime (runTraining on the sample project's params, steps timed from
// the step events after a warm-up). Python side: bench_train_pytorch.py, which trains the
// samples' own Python models ("tight" loop: batches cut from tensors like the runtime does;
// "sample" loop: the samples' DataLoader). Best of `rounds` interleaved rounds on each side,
// since the machine is shared.
#include "core/runtime/run_config.h"
#include "core/runtime/trainer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

namespace fs = std::filesystem;
using namespace portolan::runtime;

namespace {

const fs::path kBenchDir = fs::path(__FILE__).parent_path();
const fs::path kSamples = kBenchDir / ".." / ".." / "sample_projects";

struct Case
{
    const char* label;
    const char* project;
    const char* pyModel;
    int64_t batch;
    int64_t steps;
};

double libtorchSamplesPerSec(const Case& c, int threads, int64_t warmup)
{
    const fs::path dir = kSamples / c.project;
    auto config = loadRunConfig(dir, dir / "configs" / "params.yaml");
    if (!config) {
        std::cerr << config.error.toString() << "\n";
        return 0;
    }
    config.value->train.batchSize = c.batch;
    TrainOptions o;
    o.steps = warmup + c.steps;
    o.logSteps = 1;
    o.threads = threads;
    o.checkpointSteps = 0;
    o.checkpointDir = fs::temp_directory_path() / "portolan-bench-train";
    using Clock = std::chrono::steady_clock;
    Clock::time_point warm{}, end{};
    auto sink = [&](const nlohmann::json& e) {
        if (e.value("event", "") != "step")
            return;
        const int64_t step = e.value("step", int64_t(0));
        if (step == warmup)
            warm = Clock::now();
        if (step == warmup + c.steps)
            end = Clock::now();
    };
    if (!runTraining(*config.value, o, sink))
        return 0;
    fs::remove_all(o.checkpointDir);
    const double seconds = std::chrono::duration<double>(end - warm).count();
    return seconds > 0 ? double(c.steps * c.batch) / seconds : 0;
}

double pytorchSamplesPerSec(const Case& c, int threads, int64_t warmup, const char* loop)
{
    const std::string cmd = "/usr/bin/python3 " + (kBenchDir / "bench_train_pytorch.py").string() +
                            " --model " + c.pyModel + " --batch " + std::to_string(c.batch) +
                            " --steps " + std::to_string(c.steps) + " --warmup " +
                            std::to_string(warmup) + " --threads " + std::to_string(threads) +
                            " --loop " + loop;
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe)
        return 0;
    std::string out;
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe))
        out += buffer;
    if (pclose(pipe) != 0)
        return 0;
    try {
        return nlohmann::json::parse(out).value("samples_per_sec", 0.0);
    } catch (const nlohmann::json::exception&) {
        std::cerr << "unexpected output from the PyTorch side: " << out << "\n";
        return 0;
    }
}

} // namespace

int main(int argc, char** argv)
{
    const int threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    // Same BLAS and OpenMP thread count for the Python child as for this process.
    setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
    setenv("OPENBLAS_NUM_THREADS", std::to_string(threads).c_str(), 1);
    setComputeThreads(threads);

    const Case cases[] = {
        {"MNIST MLP (784-128-128-10, SGD momentum, clip 1.0)", "mnist-mlp-cerebras-pytorch", "mlp",
         64, 400},
        {"alphabet transformer (2 layers, d 64, seq 32, Adam)",
         "alphabet-transformer-cerebras-layers", "transformer", 32, 60},
    };
    std::printf("bench_train: %d thread(s), best of %d rounds, warm-up 20 steps\n", threads,
                rounds);
    for (const Case& c : cases) {
        double lt = 0, pyTight = 0, pySample = 0;
        for (int r = 0; r < rounds; ++r) {
            lt = std::max(lt, libtorchSamplesPerSec(c, threads, 20));
            pyTight = std::max(pyTight, pytorchSamplesPerSec(c, threads, 20, "tight"));
            pySample = std::max(pySample, pytorchSamplesPerSec(c, threads, 20, "sample"));
        }
        std::printf("\n%s, batch %lld, %lld timed steps\n", c.label,
                    static_cast<long long>(c.batch), static_cast<long long>(c.steps));
        std::printf("  LibTorch runtime           %10.0f samples/s\n", lt);
        std::printf("  PyTorch, tight loop        %10.0f samples/s   ratio %.2fx\n", pyTight,
                    pyTight > 0 ? lt / pyTight : 0.0);
        std::printf("  PyTorch, sample DataLoader %10.0f samples/s   ratio %.2fx\n", pySample,
                    pySample > 0 ? lt / pySample : 0.0);
    }
    return 0;
}
