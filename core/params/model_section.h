#pragma once
// Where a params file describes its model, decided once for every Model Zoo API generation: the
// runner (TF/PyTorch runners) and cstorch generations keep a top-level `model:`, the Trainer
// generation (R2.3 on) nests it under `trainer: init: model:`. The runtime, the model builders
// and the GUI's Start button read the model's name through this rule, so a Trainer
// configuration is not told it "names none of its models".
#include <optional>
#include <string>
#include <yaml-cpp/yaml.h>

namespace portolan::params {

enum class ParamsLayout
{
    Classic, // `model:`, `train_input:`, `optimizer:`, `runconfig:` at the top level
    Trainer, // `trainer: {init: {model, optimizer, loop, ...}, fit: {train_dataloader, ...}}`
};

struct ModelSectionAt
{
    YAML::Node node;  // the model's mapping
    std::string path; // its key path, for messages: "model" or "trainer.init.model"
    ParamsLayout layout = ParamsLayout::Classic;
};

// The model section of a parsed params file, or nullopt when it has none in either layout (a
// data preparation config, a Graphcore file of named configurations, a Determined experiment).
// A top-level `model:` wins when a file has both. `model:` must be a mapping to count.
std::optional<ModelSectionAt> modelSectionOf(const YAML::Node& root);

// The model's `name:` when it is a scalar ("fc_mnist", "gpt2"), else "".
std::string modelNameOf(const YAML::Node& root);

} // namespace portolan::params
