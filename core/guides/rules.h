#pragma once

#include "core/guides/guide.h"
#include "core/python/index.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace portolan::analysis {
struct ProjectAnalysis;
struct PythonFile;
} // namespace portolan::analysis

namespace portolan::guides {

// Rule kinds are the C++ half of a check; a guide names one and gives its parameters.
//   forbidden-call, required-call, missing-keyword, keyword-present, forbidden-import,
//   required-class, required-function, returns-call, attribute-use, forbidden-assignment,
//   forward-computes-loss, module-must-be-wrapped, config-file, config-sections,
//   config-keys-exist, config-keys-unused, determined-entrypoint, undefined-name
bool isKnownRuleKind(std::string_view kind);
// Fix kinds: replace-call, replace-callee-prefix, set-keyword, swap-args, remove-statement.
bool isKnownFixKind(std::string_view kind);

// What a rule sees while it runs, and how it reports.
struct RuleContext
{
    const Check& check;
    const std::string& stepId;
    const analysis::ProjectAnalysis& analysis;
    std::vector<Finding>& out;
    bool applicable = true; // false: the check had nothing to look at (step "not applicable")

    void emit(const std::string& file, int line, int column,
              const std::map<std::string, std::string>& vars,
              std::optional<Fix> fix = std::nullopt);
    void emit(const analysis::PythonFile& f, const python::Span& at,
              const std::map<std::string, std::string>& vars,
              std::optional<Fix> fix = std::nullopt);
};

void evaluateCheck(RuleContext& ctx);

// Glob with '*' (any run of characters) and '?' (one character).
bool globMatch(std::string_view pattern, std::string_view text);
bool anyGlob(const std::vector<std::string>& patterns, std::string_view text);

// The mechanical fix of a check for one call, or nothing when the call's shape does not allow it.
std::optional<Fix> callFix(const Check& check, const analysis::PythonFile& file,
                           const python::Call& call);

// Rules that live in their own files.
void ruleConfigFile(RuleContext& ctx);
void ruleConfigSections(RuleContext& ctx);
void ruleConfigKeysExist(RuleContext& ctx);
void ruleConfigKeysUnused(RuleContext& ctx);
void ruleDeterminedEntrypoint(RuleContext& ctx);
void ruleUndefinedName(RuleContext& ctx);
// The location an anchor list points at ("call:argparse.ArgumentParser", "class-base:*Module",
// "function-param:args", "function-returns:*DataLoader", "function:main",
// "function-calls:*.backward", "file:run.py"), used when a check reports something missing.
bool findAnchor(const analysis::ProjectAnalysis& a, const std::vector<std::string>& anchors,
                SourceLocation& out);

} // namespace portolan::guides
