// Benchmark (prints figures, not a test): params.yaml loading, validation and lossless edits.
// A generated Model Zoo classic config of about 1 MB (comments, nested mappings, flow and block
// lists, learning-rate schedules) is parsed, validated, and edited value by value.
// Usage: bench_params [MEGABYTES]   (default 1); with PORTOLAN_CORPUS set, the corpus too.
#include "core/params/params_document.h"
#include "core/params/validate.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace portolan::params;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::string generate(std::size_t targetBytes, int& blocks)
{
    std::string y = "# Generated for bench_params: a classic Model Zoo layout, made large.\n"
                    "train_input:\n  data_processor: GptHDF5DataProcessor\n"
                    "  data_dir: \"./data/train\"\n  batch_size: 256\n  shuffle: True\n"
                    "eval_input:\n  data_processor: GptHDF5DataProcessor\n  batch_size: 256\n"
                    "optimizer:\n  optimizer_type: AdamW\n  betas: [0.9, 0.95]\n"
                    "  eps: 1.0e-8\n  learning_rate:\n";
    for (int i = 0; i < 50; ++i)
        y += "    - scheduler: Linear   # phase " + std::to_string(i) +
             "\n      initial_learning_rate: 1.0e-5\n      end_learning_rate: 2.0e-4\n"
             "      total_iters: " +
             std::to_string(100 + i) + "\n";
    y += "runconfig:\n  max_steps: 100000\n  log_steps: 100\n  seed: 1\nmodel:\n"
         "  hidden_size: 4096\n  num_heads: 32\n  nonlinearity: gelu\n";
    blocks = 0;
    while (y.size() < targetBytes) {
        const std::string n = std::to_string(blocks++);
        y += "  # block " + n +
             ": a comment line that must survive every edit\n"
             "  layer_" +
             n +
             ":\n"
             "    size: " +
             std::to_string(64 + blocks % 512) +
             "\n"
             "    dropout: 0.1   # trailing comment\n"
             "    name: 'layer " +
             n +
             "'\n"
             "    shape: [1, 2, 3, 4]\n"
             "    note: \"quoted \\\"text\\\" here\"\n"
             "    flags:\n      - alpha\n      - beta\n";
    }
    return y;
}

} // namespace

int main(int argc, char** argv)
{
    const double mb = argc > 1 ? std::atof(argv[1]) : 1.0;
    int blocks = 0;
    const std::string text = generate(std::size_t(mb * 1024 * 1024), blocks);
    std::printf("generated config: %.2f MB, %d model blocks\n", double(text.size()) / 1048576.0,
                blocks);

    auto t = Clock::now();
    ParamsDocument doc = ParamsDocument::fromText(text, "generated.yaml");
    const double loadMs = msSince(t);
    if (!doc.isParsed()) {
        std::printf("parse failed: %s\n", doc.syntaxError()->toString().c_str());
        return 1;
    }
    std::printf("load (parse + byte ranges): %.1f ms, %zu nodes, %.1f MB/s\n", loadMs,
                doc.tree().nodes.size(), double(text.size()) / 1048576.0 / (loadMs / 1000.0));

    const SchemaSet schemas = loadBuiltinSchemas();
    t = Clock::now();
    const ValidationReport report = validateDetected(doc.tree(), schemas, "generated.yaml");
    std::printf("validate against %s: %.1f ms (%d errors, %d warnings, %d notes)\n",
                report.schema.c_str(), msSince(t), report.errors(),
                report.count(portolan::Severity::Warning), report.count(portolan::Severity::Info));

    // Edits: each one replaces bytes and re-parses the whole file (positions stay exact).
    const std::vector<std::string> paths = {"optimizer.learning_rate[7].total_iters",
                                            "model.layer_10.size", "model.layer_500.name",
                                            "model.layer_900.shape[2]", "runconfig.seed"};
    const int edits = 10;
    t = Clock::now();
    for (int i = 0; i < edits; ++i) {
        if (auto err =
                doc.setScalar(paths[std::size_t(i) % paths.size()], std::to_string(1000 + i)))
            std::printf("edit failed: %s\n", err->toString().c_str());
    }
    std::printf("set one value (in a %.1f MB file): %.1f ms per edit (mean of %d)\n",
                double(text.size()) / 1048576.0, msSince(t) / edits, edits);
    t = Clock::now();
    while (doc.undo()) {
    }
    std::printf("undo all %d edits: %.1f ms; text identical to the original: %s\n", edits,
                msSince(t), doc.text() == text ? "yes" : "NO");

    // A typical config: the sample project's params.yaml size class (a few KB).
    const std::string small = generate(4096, blocks);
    ParamsDocument smallDoc = ParamsDocument::fromText(small, "small.yaml");
    t = Clock::now();
    for (int i = 0; i < 200; ++i)
        smallDoc.setScalar("runconfig.seed", std::to_string(i));
    std::printf("set one value (in a %.1f KB file): %.3f ms per edit (mean of 200)\n",
                double(small.size()) / 1024.0, msSince(t) / 200);

    if (const char* corpus = std::getenv("PORTOLAN_CORPUS")) {
        std::size_t files = 0, bytes = 0, errors = 0;
        t = Clock::now();
        for (const char* sub : {"cerebras-modelzoo-configs", "determined-experiment-configs"}) {
            for (const auto& e :
                 std::filesystem::directory_iterator(std::filesystem::path(corpus) / sub)) {
                auto opened = ParamsDocument::open(e.path());
                if (!opened)
                    continue;
                ++files;
                bytes += opened.value->text().size();
                errors += std::size_t(
                    validateDetected(opened.value->tree(), schemas, e.path().string()).errors());
            }
        }
        std::printf("corpus: %zu files (%.1f MB) loaded and validated in %.0f ms (%zu errors)\n",
                    files, double(bytes) / 1048576.0, msSince(t), errors);
    }
    return 0;
}
