#pragma once

#include "core/analysis/config.h"
#include "core/analysis/contracts.h"
#include "core/analysis/flavour.h"
#include "core/common/diagnostic.h"
#include "core/project/params_file.h"
#include "core/project/project_scan.h"
#include "core/python/index.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace portolan::python {
class Resolver;
}

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
    std::shared_ptr<const ContractSet> contracts; // default: resources/contracts
};

struct ProjectFacts;

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
    std::shared_ptr<const ContractSet> contracts;
    // Imports, names and values resolved across the project's files (core/python/resolve.h).
    // It points into `python`, which must not change after analysis.
    std::shared_ptr<const python::Resolver> resolver;
    // The walk's diagnostics, syntax errors and YAML errors, each at file:line:column.
    std::vector<Diagnostic> diagnostics;
    bool cancelled = false;

    ProjectAnalysis();
    ~ProjectAnalysis();
    ProjectAnalysis(ProjectAnalysis&&) noexcept;
    ProjectAnalysis& operator=(ProjectAnalysis&&) noexcept;
    ProjectAnalysis(const ProjectAnalysis&) = delete; // the resolver points into `python`
    ProjectAnalysis& operator=(const ProjectAnalysis&) = delete;

    const PythonFile* findPython(std::string_view path) const;
    int indexOf(const PythonFile* file) const; // position in `python`, -1 when not there
    // Resolved facts (entries, reachability, config bindings, flags), computed on first use.
    const ProjectFacts& facts() const;
    const ConfigFile* findConfig(std::string_view path) const;
    // The params file the project uses (paramsFile), unless it is a Determined experiment
    // config, which the checks read as such (experimentConfigs).
    const ConfigFile* paramsConfig() const;
    std::vector<const ConfigFile*> experimentConfigs() const;
    // The experiment config shown by default: the params file when it is one, else the first.
    const ConfigFile* mainExperimentConfig() const;

private:
    // Facts computed on first use; behind a pointer so that the analysis stays movable.
    std::unique_ptr<struct AnalysisCache> m_cache;
};

// Walks `root`, indexes every Python file, reads the YAML configs and detects the flavour.
// Fails only when the folder itself cannot be read. progress(done, total) counts files indexed;
// returning false cancels (the result is then marked cancelled).
Result<ProjectAnalysis> analyzeProject(const std::filesystem::path& root,
                                       const AnalysisOptions& options = {},
                                       const ProgressCallback& progress = {});

} // namespace portolan::analysis
