#pragma once
// The resolved configuration of one run, read from a project's params file: the Model Zoo
// classic layout (configs/params.yaml with train_input, eval_input, model, optimizer,
// runconfig), the Model Zoo Trainer layout (trainer.init: model, optimizer, loop; trainer.fit:
// train_dataloader, val_dataloader; params::modelSectionOf decides which), the PopTorch sample's
// layout (classic sections, epochs instead of steps) or a Determined experiment config
// (const.yaml: hyperparameters, data, searcher).
#include "core/common/diagnostic.h"
#include "core/runtime/lr_schedule.h"

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <yaml-cpp/yaml.h>

namespace portolan::runtime {

enum class RunMode
{
    Train,
    Eval,
    TrainAndEval
};
std::string runModeName(RunMode m);
std::optional<RunMode> runModeFromName(const std::string& name);

struct InputConfig
{
    std::filesystem::path dataDir; // absolute (resolved against the project folder)
    int64_t batchSize = 1;
    bool shuffle = false;
    bool dropLast = false;
    int64_t samples = 0; // num_samples (alphabet) or synthetic_samples (when no real data)
    int64_t seed = 1;    // seed of the generated / synthetic data
};

struct OptimizerConfig
{
    std::string type = "sgd"; // sgd, adam, adamw
    double momentum = 0;
    double weightDecay = 0;
    bool nesterov = false;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double maxGradientNorm = 0; // 0: no clipping
    LrSchedule schedule;
};

struct RunConfig
{
    std::filesystem::path projectDir;
    std::filesystem::path paramsFile;
    std::string layout; // "modelzoo", "poptorch", "determined"
    YAML::Node modelSection;
    std::string modelName;
    InputConfig train;
    InputConfig eval;
    OptimizerConfig optimizer;
    int64_t maxSteps = 0;  // optimizer steps; 0: derived from numEpochs once data is known
    int64_t numEpochs = 0; // PopTorch layout
    int64_t logSteps = 1;
    int64_t checkpointSteps = 0; // 0: only at the end
    int64_t evalEvery = 0;       // train_and_eval: evaluate every N steps (0: at the end)
    int64_t evalSteps = 0;       // eval batches per evaluation (0: the whole eval set)
    int64_t gradAccumSteps = 1;  // micro-batches per optimizer step
    int64_t seed = 1;
    // Determined's STEP_EVERY_EPOCH scheduler: decay every lrStepEpochs epochs.
    int64_t lrStepEpochs = 0;
    double lrGamma = 1.0;
    int64_t recordsPerEpoch = 0;
};

// The params file of a project, by the one rule of core/project/params_file.h (saved choice,
// then configs/params.yaml, params.yaml, const.yaml, then the first YAML in configs/ by name).
std::optional<std::filesystem::path> findParamsFile(const std::filesystem::path& projectDir);

// The params file Portolan builds a project's model from: `projectOrParams` itself when it is a
// file, else findParamsFile's. An error when the project has no YAML file at all.
Result<std::filesystem::path> modelParamsFile(const std::filesystem::path& projectOrParams);

// Reads and checks the run configuration (not the model section, which buildModel checks).
Result<RunConfig> loadRunConfig(const std::filesystem::path& projectDir,
                                const std::filesystem::path& paramsFile);

nlohmann::json toJson(const RunConfig& c);
// A YAML subtree as JSON (numbers and booleans typed), for config snapshots.
nlohmann::json yamlToJson(const YAML::Node& n);

} // namespace portolan::runtime
