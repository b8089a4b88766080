#pragma once
// A training / evaluation run of a sample model with LibTorch: optimizer and learning-rate
// schedule from the params file, gradient clipping and accumulation, periodic evaluation,
// checkpoints with exact resume, and a seed that makes the run deterministic. Progress goes out
// as JSON events (core/runtime/EVENTS.md) through an EventSink.
#include "core/common/diagnostic.h"
#include "core/runtime/distributed.h"
#include "core/runtime/run_config.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace portolan::runtime {

using EventSink = std::function<void(const nlohmann::json& event)>;

struct TrainOptions
{
    RunMode mode = RunMode::Train;
    std::optional<int64_t> steps;     // overrides max_steps / epochs
    std::optional<int64_t> seed;      // overrides runconfig.seed
    std::optional<int64_t> evalEvery; // overrides eval_frequency
    std::optional<int64_t> logSteps;  // overrides log_steps
    std::optional<int64_t> checkpointSteps;
    std::filesystem::path checkpointDir; // empty: PROJECT/.portolan/checkpoints
    std::filesystem::path resumeFrom;    // a checkpoint file
    int threads = 0;                     // 0: LibTorch's default
    // Polled after every optimizer step; when set, the run stops gracefully (with several ranks,
    // every rank stops at the first step at which any of them was asked to).
    const std::atomic<bool>* stopRequested = nullptr;
    // Data parallel when env.worldSize > 1: the params file's batch sizes are global, each rank
    // takes its share; rank 0 alone writes events and checkpoints (other ranks only report their
    // own failure).
    DistributedOptions distributed;
};

struct EvalResult
{
    double loss = 0;
    double accuracy = 0;
    int64_t samples = 0;
};

struct RunOutcome
{
    std::string reason;         // "completed" or "stopped"
    int64_t step = 0;           // optimizer steps done (including those before a resume)
    std::vector<double> losses; // training loss of every step of this process, in order
    std::vector<EvalResult> evals;
    std::filesystem::path lastCheckpoint;
    RankWeights rankWeights; // with several ranks: each rank's final weights compared
};

// Sets LibTorch's intra-op threads and, when the BLAS is OpenBLAS (Debian's
// libopenblas0-pthread), its own thread pool too: OpenBLAS does not follow torch's setting, and
// an oversubscribed OpenBLAS pool spins and slows small matrix products by several times.
void setComputeThreads(int threads);

// Runs the configured model. Errors (bad params, unreadable data, a corrupt checkpoint) come
// back as a Diagnostic; the sink has then received a "failed" event too.
Result<RunOutcome> runTraining(const RunConfig& config, const TrainOptions& options,
                               const EventSink& sink);

} // namespace portolan::runtime
