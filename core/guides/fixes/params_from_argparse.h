#pragma once

// The "write the params file from argparse" fix: every command-line flag the code reads becomes
// a key of a params file (a Model Zoo configs/params.yaml, by meaning in sections, or the
// hyperparameters of a Determined const.yaml), the file is loaded right after the flags are
// parsed, and each use of a flag that can see the loaded dictionary is rewritten to read it.
// Uses that cannot (the namespace passed to another function, a flag the code assigns to) are
// left as they are and listed. The plan is data, so that the user can move a key to another
// section, or rename it, before the fix is built and applied.

#include "core/common/diagnostic.h"
#include "core/guides/finding.h"
#include "core/python/index.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace portolan::analysis {
struct ProjectAnalysis;
}

namespace portolan::guides {

enum class ParamsTarget
{
    Cerebras,   // configs/params.yaml with train_input, eval_input, model, optimizer, runconfig
    Determined, // const.yaml with hyperparameters, read with context.get_hparam in a trial
};

// Where a flag belongs in a Model Zoo params file (resources/fixes/flag-sections.yaml).
struct FlagSections
{
    struct Rule
    {
        std::string section;
        std::vector<std::string> flags; // globs over the lower-case dest
        std::map<std::string, std::string> rename;
    };
    std::vector<std::string> sections;
    std::vector<Rule> rules;
    std::string fallback = "model";

    // {section, key} for a flag's dest.
    std::pair<std::string, std::string> place(const std::string& dest) const;
};

Result<FlagSections> loadFlagSections(const std::filesystem::path& file);
// resources/fixes/flag-sections.yaml, loaded once per process (built-in rules if it is missing).
const FlagSections& defaultFlagSections();

// One key the fix writes.
struct ParamsEntry
{
    std::string dest;    // argparse dest ("batchSize")
    std::string option;  // as defined ("--batchSize")
    std::string section; // Cerebras: "train_input", ...; Determined: "hyperparameters"
    std::string key;     // the key in the section ("batch_size")
    std::string value;   // YAML text of the default ("64", "null", "\"cifar10\"")
    std::string comment; // the flag's help, and what could not be translated
    SourceLocation definedAt;
    int uses = 0; // uses the fix rewrites
};

// A use the fix leaves alone, and why.
struct LeftUse
{
    SourceLocation at;
    std::string text; // "args.cuda"
    std::string reason;
};

struct ParamsPlan
{
    ParamsTarget target = ParamsTarget::Cerebras;
    std::string file;       // "configs/params.yaml" or "const.yaml", relative to the project root
    std::string name;       // the project's name (Determined's name:)
    std::string entrypoint; // Determined: module:Class of the project's trial class, if any
    std::vector<std::string> sections; // in the order written
    std::vector<ParamsEntry> entries;
    std::vector<LeftUse> leftAlone;

    // Internal: where the file is loaded and which uses are rewritten.
    struct Load
    {
        int file = -1;
        std::uint32_t at = 0; // start of the line after the namespace's assignment
        std::string indent;
        std::string variable;       // "params"
        std::uint32_t importAt = 0; // where `import yaml` goes; == at when none is needed first
        bool needsImport = false;
    };
    struct Rewrite
    {
        int file = -1;
        python::Span span; // "args.lr"
        std::string text;
        std::string dest;
        int load = -1;         // index in loads; -1 in a trial
        std::string trialSelf; // in a Determined trial: the method's first parameter
    };
    std::vector<Load> loads;
    std::vector<Rewrite> rewrites;

    ParamsEntry* entry(const std::string& dest);
    const ParamsEntry* entry(const std::string& dest) const;
};

// The plan for a project, or nothing when no flag is read anywhere it could be rewritten.
std::optional<ParamsPlan> planParamsFromArgparse(const analysis::ProjectAnalysis& analysis,
                                                 ParamsTarget target,
                                                 const FlagSections& table = defaultFlagSections());

// The uses left alone, one per flag and reason ("opt.manualSeed at main.py:45 (5 uses): ...").
std::string leftAloneSummary(const ParamsPlan& plan);

// The params file's text for a plan.
std::string renderParamsFile(const ParamsPlan& plan);

// The fix for a plan: the Python edits first, then the new params file. Fails when two entries
// end up with the same section and key, or the plan's file exists.
Result<Fix> buildParamsFix(const analysis::ProjectAnalysis& analysis, const ParamsPlan& plan);

struct Check;

// The fix a check of kind params-from-argparse offers (fix param `target`: cerebras or
// determined), when the project has no such params file yet and reads flags it could rewrite.
std::optional<Fix> paramsFixOfCheck(const Check& check, const analysis::ProjectAnalysis& analysis);

// A letter, digit or underscore: where a Python name goes on (params_from_argparse.cpp and
// params_from_argparse_file.cpp both need it to tell `args.lr` from `args.lr_decay`).
bool isIdentifierChar(char c);

} // namespace portolan::guides
