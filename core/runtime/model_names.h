#pragma once
// Which models Portolan's LibTorch runtime can rebuild, told from a params file alone, without
// LibTorch: the graph source of a project (core/workflow/graph_source.h) is chosen from this in the
// Torch-free processes, and models.cpp builds what it names.
#include "core/runtime/params_access.h"

#include <optional>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace portolan::runtime {

// The model names buildModel knows, for messages and the GUI.
const std::vector<std::string>& knownModelNames();

// A Determined `hyperparameters:` section has no model name; the CIFAR trial's keys identify it.
bool looksLikeDeterminedCifar(const ParamsSection& m);

// The runtime model a params file's model section (top-level `model:` or the Trainer's
// `trainer.init.model`, params::modelSectionOf) or Determined `hyperparameters:` asks for, when
// the runtime knows it; nullopt otherwise (or when the file does not load).
std::optional<std::string> knownModelIn(const YAML::Node& root);

} // namespace portolan::runtime
