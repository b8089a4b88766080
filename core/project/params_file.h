#pragma once

// Which params file a project uses. One rule for every tab and subcommand (runs, profile, params,
// checks, flow), so that they never disagree about the file they read:
//   1. an explicit choice for this call (the CLI's --params),
//   2. else the choice the user saved with the project (PROJECT/.portolan/params-file),
//   3. else the default: a Model Zoo Trainer YAML (`trainer:` at the top level, the current
//      layout, which a release runs in place of a legacy params.yaml beside it), then for a
//      CPU dry run a Determined experiment config (`entrypoint:` at the top level; const.yaml
//      first, else the first by name: the code it runs may read YAML files of its own, which
//      cannot start a run), then the YAML
//      file the project's own top-level code names in a string literal (`config_file =
//      "./configs.yml"`: what its entry point reads), then configs/params.yaml,
//      params.yaml, const.yaml, then the first YAML file under configs/ by name, then the first
//      at the top level by name. Tool configuration (a benchmark runner's benchmarks.yml, CI,
//      documentation, environments) is offered but never the default.
// For a CPU dry run (ParamsUse::CpuDryRun) the last step differs: among several YAML files it
// takes one a run can start, the first Determined experiment config (entrypoint: at the top
// level), else the smallest Model Zoo model (model: with train_input: or runconfig:, by hidden
// size squared times layers), because the first by name may be too large to run on a CPU.
// The default never depends on directory order. Many real projects have several configs (the
// Model Zoo's BERT has 15 and no params.yaml), so the default is only a starting point: the user
// picks one and the pick is saved.

#include "core/common/diagnostic.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace portolan {

enum class ParamsSource : std::uint8_t
{
    None,     // the project has no YAML file to use
    Override, // given for this call (--params)
    Saved,    // the user's choice, saved in PROJECT/.portolan/params-file
    Default,  // the rule above
};
std::string_view paramsSourceName(ParamsSource s); // "none", "override", "saved", "default"

// What the file is for: read (the tabs, params, compile) or run on a CPU (the dry run).
enum class ParamsUse : std::uint8_t
{
    Read,
    CpuDryRun,
};

struct ParamsFileChoice
{
    // Relative to the project root with '/' separators; absolute only for an override that lies
    // outside the project. Empty when there is none.
    std::string path;
    ParamsSource source = ParamsSource::None;
    std::string reason; // one sentence for a person: "the first of 6 YAML files in configs/"
    // The files a user can choose from (configs/*.yaml and top-level *.yaml, by name).
    std::vector<std::string> candidates;

    bool empty() const { return path.empty(); }
    std::filesystem::path absolute(const std::filesystem::path& projectRoot) const;
};

// The YAML files a project's params could be in: configs/*.yaml|yml then *.yaml|yml at the top
// level, each group sorted by name.
std::vector<std::string> paramsFileCandidates(const std::filesystem::path& projectRoot);

// The params file of a project (see the rule at the top). `overridePath` may be relative to the
// project root, relative to the working folder, or absolute. A saved choice whose file is gone is
// ignored (the reason says so).
ParamsFileChoice paramsFileFor(const std::filesystem::path& projectRoot,
                               const std::string& overridePath = {},
                               ParamsUse use = ParamsUse::Read);

// The saved choice, as written; nothing when none is saved.
std::optional<std::string> savedParamsFile(const std::filesystem::path& projectRoot);

// Saves the user's choice (relative to the project root) atomically in
// PROJECT/.portolan/params-file; an empty path forgets it. Fails with a message naming the file.
std::optional<Diagnostic> saveParamsFile(const std::filesystem::path& projectRoot,
                                         const std::string& relativePath);

} // namespace portolan
