#pragma once

#include "core/python/index.h"

#include <string>
#include <vector>

namespace portolan::analysis {

struct ProjectAnalysis;
struct PythonFile;

enum class ConfigTarget : std::uint8_t
{
    Params,          // the Model Zoo params.yaml: params["model"]["depth"]
    DeterminedData,  // context.get_data_config()["data_dir"] -> data.data_dir
    DeterminedHparam // context.get_hparam("lr") -> hyperparameters.lr
};

// One place where code reads a configuration value, with the key path it reads.
struct ConfigRead
{
    const PythonFile* file = nullptr;
    ConfigTarget target = ConfigTarget::Params;
    std::string path; // "model.depth", "data.data_dir", "hyperparameters.lr"
    python::Span span;
    python::FunctionId function = python::ModuleLevel;
    bool isDefault = false; // .get("k", default) / .setdefault: absence is handled by the code
};

// Every config read in the project. Bases that count as the params mapping: params, config,
// cfg, hparams (also as self.X), and local aliases of their sections.
std::vector<ConfigRead> configReads(const ProjectAnalysis& analysis);

} // namespace portolan::analysis
