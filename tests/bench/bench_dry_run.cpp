// Dry run figures: for the corpus projects that run (and the PyTorch samples), the wall-clock
// time from starting `portolan-cli run --dry-run` to its first step event, to its capture event,
// and to the end. Each project runs on a copy in a temporary folder. Prints a table; never
// fails. Usage: bench_dry_run [CORPUS_DIR] (default $PORTOLAN_CORPUS).
#include "core/common/resources.h"
#include "core/dryrun/dry_run.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Case
{
    std::string name;
    fs::path source;
    std::vector<std::string> args;
    std::string prepare; // a project script to run first (as its README says)
};

struct Figures
{
    double firstStep = -1, capture = -1, total = -1;
    int steps = 0;
    std::string outcome;
};

Figures measure(const Case& c, const fs::path& work)
{
    const fs::path copy = work / c.name;
    fs::remove_all(copy);
    fs::create_directories(copy.parent_path());
    fs::copy(c.source, copy, fs::copy_options::recursive);
    if (!c.prepare.empty()) {
        portolan::dryrun::ChildLimits prep;
        prep.workingDirectory = copy;
        portolan::dryrun::runChild({"/usr/bin/python3", c.prepare}, prep,
                                   [](portolan::dryrun::Stream, const std::string&) {});
    }
    std::vector<std::string> argv{PORTOLAN_CLI, "run",      copy.string(), "--dry-run",
                                  "--trust",    "--events", "jsonl"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    Figures f;
    const auto start = std::chrono::steady_clock::now();
    auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    portolan::dryrun::ChildLimits limits;
    limits.timeoutSeconds = 1800;
    portolan::dryrun::runChild(argv, limits,
                               [&](portolan::dryrun::Stream stream, const std::string& line) {
                                   if (stream != portolan::dryrun::Stream::Stdout)
                                       return;
                                   const auto e = nlohmann::json::parse(line, nullptr, false);
                                   if (!e.is_object())
                                       return;
                                   const std::string type = e.value("event", "");
                                   if (type == "step" && ++f.steps == 1)
                                       f.firstStep = seconds();
                                   else if (type == "capture" && f.capture < 0)
                                       f.capture = seconds();
                                   else if (type == "finished")
                                       f.outcome = e.value("reason", "");
                                   else if (type == "failed")
                                       f.outcome = e.value("code", "");
                               });
    f.total = seconds();
    return f;
}

std::string cell(double v)
{
    char buf[32];
    if (v < 0)
        return "-";
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

} // namespace

int main(int argc, char** argv)
{
    portolan::setExecutablePath(argv[0]);
    std::string corpus = argc > 1 ? argv[1] : "";
    if (corpus.empty())
        if (const char* env = std::getenv("PORTOLAN_CORPUS"))
            corpus = env;
    std::vector<Case> cases;
    const fs::path samples = PORTOLAN_SAMPLES;
    for (const char* s : {"mnist-mlp-original", "mnist-mlp-cerebras-pytorch",
                          "alphabet-transformer-cerebras-layers", "image-classifier-determined",
                          "small-cnn-poptorch"})
        cases.push_back({std::string("sample/") + s, samples / s, {}, {}});
    if (!corpus.empty()) {
        const fs::path p = fs::path(corpus) / "projects";
        for (const char* s :
             {"graphcore-mixed-precision", "graphcore-efficient-data-loading",
              "graphcore-observing-tensors", "determined-mnist", "determined-cifar10",
              "determined-gan-mnist", "determined-custom-reducers", "pytorch-regression",
              "pytorch-vae", "determined-word-language-model", "pytorch-word-language-model"})
            cases.push_back({s, p / s, {}, {}});
        // Without their data: synthetic stand-ins, announced (portolan_dryrun/datafiles.py).
        cases.push_back({"pytorch-super-resolution",
                         p / "pytorch-super-resolution",
                         {"--", "--upscale_factor", "3"},
                         {}});
        cases.push_back({"pytorch-dcgan", p / "pytorch-dcgan", {"--", "--dataset", "fake"}, {}});
        cases.push_back({"pytorch-time-sequence-prediction",
                         p / "pytorch-time-sequence-prediction",
                         {},
                         "generate_sine_wave.py"});
    } else {
        std::printf("(no corpus: give its folder or set PORTOLAN_CORPUS; samples only)\n");
    }

    const fs::path work =
        fs::temp_directory_path() / ("portolan-bench-dry-run-" + std::to_string(::getpid()));
    fs::create_directories(work);
    const fs::path config = work / "config";
    fs::create_directories(config);
    ::setenv("PORTOLAN_CONFIG_DIR", config.c_str(), 1);

    std::printf("%-42s %12s %12s %10s %6s  %s\n", "project", "first step s", "capture s", "total s",
                "steps", "outcome");
    for (const Case& c : cases) {
        const Figures f = measure(c, work);
        std::printf("%-42s %12s %12s %10s %6d  %s\n", c.name.c_str(), cell(f.firstStep).c_str(),
                    cell(f.capture).c_str(), cell(f.total).c_str(), f.steps, f.outcome.c_str());
        std::fflush(stdout);
    }
    std::error_code ec;
    fs::remove_all(work, ec);
    return 0;
}
