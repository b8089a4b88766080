#pragma once

#include "core/common/glob.h"
#include "core/guides/guide.h"
#include "core/python/index.h"

#include <functional>
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
//   config-keys-exist, config-keys-unused, determined-entrypoint, undefined-name,
//   vendor-signature, entry-role, entry-returns, class-contract, cli-flags, host-side-metrics,
//   model-returns-loss, trainer-model-keys
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
    // "Could not verify": a note (Severity::Info) with its own message, whatever the check's
    // severity, for when the analysis cannot tell whether the contract holds.
    void note(const analysis::PythonFile& f, const python::Span& at, const std::string& message);
    // The last finding emitted, to add related locations to it.
    Finding* last() { return out.empty() ? nullptr : &out.back(); }
    // Something the project as a whole lacks (a config file, a class): shown at an anchor, but
    // not about the code there, so a script off the training path does not make it a note.
    void emitMissing(const SourceLocation& at, const std::map<std::string, std::string>& vars,
                     std::optional<Fix> fix = std::nullopt);

    // Where a rule looks: with `in-reachable: true`, only code the vendor runs when the project
    // (with `in-program: true`, also the scripts that drive the vendor API themselves)
    // hands anything to a vendor, else the whole project (an unported original).
    bool inScope(const analysis::PythonFile& f, python::FunctionId fn) const;
    int fileIndex(const analysis::PythonFile& f) const;

    bool projectWide = false; // set while emitMissing emits
};

void evaluateCheck(RuleContext& ctx);

using portolan::globMatch; // core/common/glob.h: one matcher for guides, contracts and facts
bool anyGlob(const std::vector<std::string>& patterns, std::string_view text);

// Patterns sorted once into plain names, "prefix*", "*suffix" and the rest, for the rules that
// try every call of a project against them.
class GlobSet
{
public:
    explicit GlobSet(const std::vector<std::string>& patterns);
    bool matches(std::string_view text) const;
    bool empty() const
    {
        return m_exact.empty() && m_prefix.empty() && m_suffix.empty() && m_general.empty();
    }

private:
    std::vector<std::string> m_exact, m_prefix, m_suffix, m_general;
};

// The mechanical fix of a check for one call, or nothing when the call's shape does not allow it.
std::optional<Fix> callFix(const Check& check, const analysis::PythonFile& file,
                           const python::Call& call);

// Does a call's callee match one of the globs? The callee as written ("self.model.cuda"), and
// what it resolves to through imports ("torch.utils.data.DataLoader") are both tried; with
// resolvedOnly, only the resolved name (so that a project's or vendor's own class of the same
// name never matches a torch.nn pattern).
bool calleeMatches(const analysis::ProjectAnalysis& a, const analysis::PythonFile& f, int call,
                   const std::vector<std::string>& globs, bool resolvedOnly = false);
bool calleeMatches(const analysis::ProjectAnalysis& a, const analysis::PythonFile& f, int call,
                   const GlobSet& globs, bool resolvedOnly = false);
// The qualified names a project class derives from (resolved through imports and project
// classes), plus the bases as written.
std::vector<std::string> classAncestry(const analysis::ProjectAnalysis& a,
                                       const analysis::PythonFile& f, int cls);

// Small helpers the rule files share (rules.cpp).
std::string lastPart(const std::string& dotted);   // "a.b.c" -> "c"
std::string receiverOf(const std::string& callee); // "self.model.cuda" -> "self.model"
bool fileOk(const RuleParams& p, const analysis::PythonFile& f); // the check's files/exclude
bool calleeOk(const std::vector<std::string>& globs, const python::Call& c);
// The class a function belongs to ("" at module level or for a free function).
const std::string& className(const analysis::PythonFile& f, python::FunctionId id);
bool classIndexHasBase(const analysis::ProjectAnalysis& a, const analysis::PythonFile& f, int cls,
                       const std::vector<std::string>& bases);
bool classHasBase(const analysis::ProjectAnalysis& a, const analysis::PythonFile& f,
                  const std::string& cls, const std::vector<std::string>& bases);
bool functionNameOk(const std::vector<std::string>& globs, const analysis::PythonFile& f,
                    python::FunctionId id);
bool placeOk(const RuleContext& ctx, const analysis::PythonFile& f, python::FunctionId id);
// Is what `call` builds handed to one of `wrappers`: nested in it, assigned to a name passed to
// it, or returned from a helper whose every caller wraps it?
bool isWrapped(const analysis::ProjectAnalysis& a, const analysis::PythonFile& f,
               const python::Call& call, const std::vector<std::string>& wrappers, int depth = 0);

// rules_wrapped.cpp. Was the call's receiver assigned from a call matching `globs`?
bool receiverFrom(const analysis::PythonFile& f, const python::Call& call,
                  const std::vector<std::string>& globs);
// `method-of-wrapped: step` + `wrapped-by: [...]`: a call of that method on whatever the file
// wraps with one of the wrappers (`opt = context.wrap_optimizer(...)`, `self.sgd = opt`), whatever
// its name: forCalls selects it as if its callee matched.
bool methodOfWrapped(const RuleParams& p, const analysis::PythonFile& f, const python::Call& c);

// unless-project-calls (+ unless-argument, unless-call-keyword): the project makes a call that
// exempts it (with such an argument value, or passing such a keyword).
bool exemptedByProjectCall(const RuleContext& ctx);

// Every call that the check's callee/exclude/arguments/place parameters select.
void forCalls(RuleContext& ctx,
              const std::function<void(const analysis::PythonFile&, const python::Call&)>& fn);

// Rules that live in their own files.
void ruleConfigFile(RuleContext& ctx);
void ruleConfigSections(RuleContext& ctx);
void ruleConfigKeysExist(RuleContext& ctx);
void ruleConfigKeysUnused(RuleContext& ctx);
void ruleDeterminedEntrypoint(RuleContext& ctx);
void ruleUndefinedName(RuleContext& ctx);
// rules_attributes.cpp: a vendor class's own attributes read where it never set them.
void ruleAttributeUnset(RuleContext& ctx);
// rules_resolved.cpp: rules over resolved facts (entries, vendor contracts, flags).
void ruleVendorSignature(RuleContext& ctx);
void ruleEntryRole(RuleContext& ctx);
void ruleEntryReturns(RuleContext& ctx);
void ruleClassContract(RuleContext& ctx);
void ruleCliFlags(RuleContext& ctx);
void ruleHostSideMetrics(RuleContext& ctx);
// rules_required.cpp: what a project must have (a call, class, function, returned value), and
// whether a check's `only-if` holds (false: the check does not apply).
bool onlyIfOk(RuleContext& ctx);
void ruleRequiredCall(RuleContext& ctx);
void ruleRequiredClass(RuleContext& ctx);
void ruleRequiredFunction(RuleContext& ctx);
void ruleReturnsCall(RuleContext& ctx);
// rules_modules.cpp: the modules a project trains, their forward loss, their wrapping.
// The calls that build a project class derived from `bases` outside other modules: the models.
std::vector<std::pair<const analysis::PythonFile*, const python::Call*>>
modelInstantiations(const analysis::ProjectAnalysis& a, const std::vector<std::string>& bases);
void ruleForwardComputesLoss(RuleContext& ctx);
void ruleModuleMustBeWrapped(RuleContext& ctx);
// rules_cerebras.cpp: the cstorch and Trainer generations.
void ruleModelReturnsLoss(RuleContext& ctx);
void ruleTrainerModelKeys(RuleContext& ctx);
// The location an anchor list points at ("call:argparse.ArgumentParser", "class-base:*Module",
// "function-param:args", "function-returns:*DataLoader", "function:main",
// "function-calls:*.backward", "file:run.py"), used when a check reports something missing.
bool findAnchor(const analysis::ProjectAnalysis& a, const std::vector<std::string>& anchors,
                SourceLocation& out);
// Where a project-wide finding sits when no anchor matches: line 1 of the first file on the
// training path (analysis/port_scope.h), else of the first file; "." when there is none.
SourceLocation projectLocation(const analysis::ProjectAnalysis& a);

} // namespace portolan::guides
