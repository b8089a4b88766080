#pragma once

#include "core/common/diagnostic.h"
#include "core/guides/finding.h"

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace portolan::analysis {
struct ProjectAnalysis;
}

namespace portolan::guides {

// The parameters of a rule, straight from the guide's YAML: scalars and lists of strings.
struct RuleParams
{
    std::map<std::string, std::vector<std::string>> values;

    bool has(const std::string& key) const { return values.count(key) > 0; }
    std::string get(const std::string& key, const std::string& fallback = {}) const;
    const std::vector<std::string>& list(const std::string& key) const;
    bool flag(const std::string& key, bool fallback = false) const;
};

// A check as written in a guide: what it looks for is a rule "kind" implemented in C++ (see
// rules.h) with parameters from the YAML, so that a new workflow is mostly data.
struct Check
{
    std::string id; // unique across guides, e.g. "cerebras-pytorch.no-manual-backward"
    Severity severity = Severity::Warning;
    std::string title;   // short description (SARIF shortDescription)
    std::string message; // the finding's message; {name}, {key}, {detail} are filled in
    std::string hint;    // how to fix it
    std::string kind;    // rule kind
    RuleParams params;
    std::string fixKind; // mechanical fix offered ("" = none), see fixes in rules.cpp
    RuleParams fixParams;
    SourceLocation definedAt; // where in the guide YAML, for errors in guides
};

// What really verifies a step when reading the code cannot (issue 26: "Fits in memory" read
// "passed" with only a deviceIterations note behind it). Such a step is "not verified" until
// its findings say otherwise, and the GUI offers the action that verifies it.
enum class VerifyAction : std::uint8_t
{
    None,    // the step's checks verify it
    Compile, // a compilation (the Profile tab, portolan-cli compile): memory fit, precision
    Run,     // a run (the Runs tab's dry run, portolan-cli run --dry-run): the loop, the data
};
std::string_view verifyActionName(VerifyAction a); // "", "compile", "run"

struct Step
{
    std::string id;
    std::string title;
    std::string explanation;
    std::vector<std::string> files; // files this step is about ("model.py"), may be empty
    std::vector<Check> checks;
    // From the step's `verified-by: {action: compile, reason: ...}` in the guide YAML.
    VerifyAction verifiedBy = VerifyAction::None;
    std::string verifiedByReason; // one line: why reading the code cannot verify the step
};

struct Guide
{
    std::string id; // "cerebras-pytorch"
    std::string title;
    std::string summary;
    // The hardware the guide ports to, as a resources/targets id ("cs-2", "ipu-mk2"): the
    // Profile tab compiles for it until the user picks a target. Empty: no preference (a
    // Determined trial runs on whatever the cluster has).
    std::string target;
    std::vector<Step> steps; // in the suggested order
    std::string sourcePath;

    std::size_t checkCount() const;
    const Check* findCheck(std::string_view id) const;
};

struct GuideSet
{
    std::vector<Guide> guides;
    std::vector<Diagnostic> diagnostics; // malformed guide files, unknown rule kinds, duplicates

    const Guide* find(std::string_view id) const;
};

// Loads every *.yaml guide in `dir` (resources/guides). A malformed guide is skipped with a
// diagnostic at its line:column; the others still load.
GuideSet loadGuides(const std::filesystem::path& dir);
// Loads one guide from text (used by tests and by loadGuides).
Result<Guide> parseGuide(std::string_view yamlText, const std::string& path);

enum class StepStatus : std::uint8_t
{
    Passed,   // its checks ran and nothing in them provably fails (it may list notes)
    Findings, // errors or warnings
    NotApplicable,
    NotVerified, // no finding, but only a compile or a run can verify it (Step::verifiedBy)
};
std::string_view stepStatusName(StepStatus s);

struct StepResult
{
    std::string stepId;
    StepStatus status = StepStatus::Passed;
    // NotVerified: why, and what would verify it (copied from the Step so reports need no guide).
    VerifyAction verifyAction = VerifyAction::None;
    std::string notVerifiedReason;
    std::vector<Finding> findings;
    int errors = 0;
    int warnings = 0;
    int infos = 0;
};

struct GuideResult
{
    std::string guideId;
    std::vector<StepResult> steps; // same order as Guide::steps
    int errors = 0;
    int warnings = 0;
    int infos = 0;

    std::vector<Finding> allFindings() const;
    int stepsPassed() const; // Passed or NotApplicable: the wizard's "done" count
};

// Runs every check of a guide on an analysed project. Never throws; a check that cannot run
// (bad parameters) gives a finding with severity Error and check id "guide.bad-check".
GuideResult runGuide(const Guide& guide, const analysis::ProjectAnalysis& analysis);

} // namespace portolan::guides
