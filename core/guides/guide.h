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

struct Step
{
    std::string id;
    std::string title;
    std::string explanation;
    std::vector<std::string> files; // files this step is about ("model.py"), may be empty
    std::vector<Check> checks;
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
    Passed,   // nothing in it provably fails (it may list notes)
    Findings, // errors or warnings
    NotApplicable
};
std::string_view stepStatusName(StepStatus s);

struct StepResult
{
    std::string stepId;
    StepStatus status = StepStatus::Passed;
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
