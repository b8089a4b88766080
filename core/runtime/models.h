#pragma once
// LibTorch models that match the sample projects' Python models, rebuilt from the same `model:`
// keys (or Determined `hyperparameters:`) that the Python code reads.
//
// Contract (the compiler simulation in core/graph and core/sim depends on it): every model is a
// torch::nn::Sequential whose named children run in order, each child's forward(Tensor) ->
// Tensor. Image models take Float input [batch, C, H, W] (the MLP also accepts [batch, 28, 28]);
// the transformer takes Long token ids [batch, seq_len] and builds its causal mask inside its
// block modules.
#include "core/common/diagnostic.h"
#include "core/runtime/model_names.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <torch/nn/modules/container/sequential.h>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace portolan::runtime {

struct BuiltModel
{
    torch::nn::Sequential net;
    std::vector<int64_t> inputShape; // without the batch dimension
    torch::Dtype inputDtype = torch::kFloat32;
    int64_t numClasses = 0; // logits per sample (per position for the transformer)
    std::string name;       // "fc_mnist", "alphabet_transformer", "small_cnn", "cifar_convnet"
};

// Builds the model from a `model:` section (Model Zoo / PopTorch layouts, with `name:`) or from a
// Determined `hyperparameters:` section (no name; the CIFAR conv net). `paramsFile` is only used
// to position errors. Parameters are initialised from the current torch seed, like Python's.
Result<BuiltModel> buildModel(const YAML::Node& modelSection, const std::string& paramsFile);

// Loads a params file (configs/params.yaml, or Determined's const.yaml) and builds its model.
Result<BuiltModel> buildModelFromParams(const std::filesystem::path& paramsYaml);

} // namespace portolan::runtime
