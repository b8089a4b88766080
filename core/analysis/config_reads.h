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
    // Other paths the read may be of (a mapping bound in branches); the key is missing only
    // when no path finds it.
    std::vector<std::string> alternatives;
    python::Span span;
    python::FunctionId function = python::ModuleLevel;
    bool isDefault = false; // .get("k", default) / .setdefault: absence is handled by the code
    // The mapping provably is the params dict (or one of its sections): it comes from the vendor
    // runner, or from loading the project's params file. Unverified reads are of a mapping whose
    // origin the analysis cannot tell (a dynamic call, a parameter nobody visibly passes); their
    // path is only the keys written at the read.
    bool verified = true;
    std::string origin; // for unverified reads: where the mapping comes from, for a note
    // Under a condition, loop or try: the read may not happen (the key may be optional).
    bool conditional = false;
    // The folder of the run script whose runner hands this params dict over ("" for the
    // project root); a sub-project with its own configs/ is checked against its own params file.
    std::string scope;
};

// Every config read in the project (computed once with the project's facts).
const std::vector<ConfigRead>& configReads(const ProjectAnalysis& analysis);

} // namespace portolan::analysis
