#pragma once

#include "core/analysis/config.h"
#include "core/analysis/flavour.h"
#include "core/common/diagnostic.h"
#include "core/project/params_file.h"
#include "core/project/project_scan.h"
#include "core/python/index.h"

#include <filesystem>
#include <string>
#include <vector>

namespace portolan::analysis {

// One Python file of the project: its text (kept so that fixes can be shown and applied) and its
// index.
struct PythonFile
{
    std::string path; // relative to the project root, '/' separators
    std::string text;
    python::PyIndex index;
};

struct AnalysisOptions
{
    ScanOptions scan;
    std::string paramsOverride; // --params: overrides the saved choice and the default
};

// Everything the guides check, the flow diagram draws and the wizard shows about a project.
struct ProjectAnalysis
{
    std::filesystem::path root;
    ProjectScan scan;
    std::vector<PythonFile> python;
    std::vector<ConfigFile>
        configs; // configs/*.yaml, params*.yaml and Determined experiment configs
    FlavourReport flavour;
    ParamsFileChoice paramsFile; // the params file this project uses (core/project/params_file.h)
    // The walk's diagnostics, syntax errors and YAML errors, each at file:line:column.
    std::vector<Diagnostic> diagnostics;
    bool cancelled = false;

    const PythonFile* findPython(std::string_view path) const;
    const ConfigFile* findConfig(std::string_view path) const;
    // The params file the project uses (paramsFile), unless it is a Determined experiment
    // config, which the checks read as such (experimentConfigs).
    const ConfigFile* paramsConfig() const;
    std::vector<const ConfigFile*> experimentConfigs() const;
    // The experiment config shown by default: the params file when it is one, else the first.
    const ConfigFile* mainExperimentConfig() const;
};

// Walks `root`, indexes every Python file, reads the YAML configs and detects the flavour.
// Fails only when the folder itself cannot be read. progress(done, total) counts files indexed;
// returning false cancels (the result is then marked cancelled).
Result<ProjectAnalysis> analyzeProject(const std::filesystem::path& root,
                                       const AnalysisOptions& options = {},
                                       const ProgressCallback& progress = {});

} // namespace portolan::analysis
