// The code-level rule kinds: calls, keywords, imports, classes, functions, returns, attribute uses
// and assignments. Each reads its parameters from the check and reports through RuleContext.
#include "core/guides/rules.h"

#include "core/analysis/analysis.h"
#include "core/analysis/facts.h"
#include "core/analysis/port_scope.h"
#include "core/common/glob.h"
#include "core/common/text.h"
#include "core/python/resolve.h"

#include <set>

namespace portolan::guides {

using analysis::ProjectAnalysis;
using analysis::PythonFile;
using python::Call;
using python::FunctionId;

GlobSet::GlobSet(const std::vector<std::string>& patterns)
{
    for (const auto& p : patterns) {
        const std::size_t wild = p.find_first_of("*?");
        if (wild == std::string::npos)
            m_exact.push_back(p);
        else if (wild + 1 == p.size() && p[wild] == '*')
            m_prefix.push_back(p.substr(0, wild));
        else if (wild == 0 && p[0] == '*' && p.find_first_of("*?", 1) == std::string::npos)
            m_suffix.push_back(p.substr(1));
        else
            m_general.push_back(p);
    }
}

bool GlobSet::matches(std::string_view t) const
{
    for (const auto& e : m_exact)
        if (t == e)
            return true;
    for (const auto& pre : m_prefix)
        if (t.starts_with(pre))
            return true;
    for (const auto& suf : m_suffix)
        if (t.ends_with(suf))
            return true;
    for (const auto& g : m_general)
        if (globMatch(g, t))
            return true;
    return false;
}

bool anyGlob(const std::vector<std::string>& patterns, std::string_view text)
{
    for (const auto& p : patterns)
        if (globMatch(p, text))
            return true;
    return false;
}

bool calleeMatches(const ProjectAnalysis& a, const PythonFile& f, int call,
                   const std::vector<std::string>& globs, bool resolvedOnly)
{
    return calleeMatches(a, f, call, GlobSet(globs), resolvedOnly);
}

bool calleeMatches(const ProjectAnalysis& a, const PythonFile& f, int call, const GlobSet& globs,
                   bool resolvedOnly)
{
    const Call& c = f.index.calls[static_cast<std::size_t>(call)];
    if (c.callee.empty() || globs.empty())
        return false;
    if (!resolvedOnly && (globs.matches(c.callee) || globs.matches(c.resolved)))
        return true;
    const int file = a.indexOf(&f);
    if (file < 0 || !a.resolver)
        return resolvedOnly ? globs.matches(c.resolved) : false;
    const std::string& q =
        a.facts().calleeQualified[static_cast<std::size_t>(file)][static_cast<std::size_t>(call)];
    return !q.empty() && globs.matches(q);
}

std::vector<std::string> classAncestry(const ProjectAnalysis& a, const PythonFile& f, int cls)
{
    std::vector<std::string> out;
    const int file = a.indexOf(&f);
    if (file >= 0 && a.resolver)
        out = a.resolver->ancestors(file, cls);
    for (const auto& b : f.index.classes[static_cast<std::size_t>(cls)].bases)
        out.push_back(b);
    return out;
}

bool RuleContext::inScope(const PythonFile& f, FunctionId fn) const
{
    const bool reachable = check.params.flag("in-reachable");
    // in-program: also the scripts that drive the vendor API themselves (a cstorch training
    // loop around cstorch.compile), not only what the vendor calls back.
    const bool program = check.params.flag("in-program");
    if (!reachable && !program)
        return true;
    const auto& facts = analysis.facts();
    if (!facts.hasEntries())
        return true;
    return program ? facts.isInProgram(analysis, analysis.indexOf(&f), fn)
                   : facts.isReachable(analysis, analysis.indexOf(&f), fn);
}

int RuleContext::fileIndex(const PythonFile& f) const
{
    return analysis.indexOf(&f);
}

namespace {

const std::map<std::string_view, void (*)(RuleContext&)>& kinds();

} // namespace

// Helpers shared with the other rule files (declared in rules.h).

std::string lastPart(const std::string& dotted)
{
    const auto dot = dotted.rfind('.');
    return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

std::string receiverOf(const std::string& callee)
{
    const auto dot = callee.rfind('.');
    return dot == std::string::npos ? std::string() : callee.substr(0, dot);
}

bool fileOk(const RuleParams& p, const PythonFile& f)
{
    if (!p.has("in-file"))
        return true;
    const std::string base = f.path.substr(f.path.rfind('/') + 1);
    return anyGlob(p.list("in-file"), f.path) || anyGlob(p.list("in-file"), base);
}

bool calleeOk(const std::vector<std::string>& globs, const Call& c)
{
    return !c.callee.empty() && (anyGlob(globs, c.callee) || anyGlob(globs, c.resolved));
}

const std::string& className(const PythonFile& f, FunctionId id)
{
    static const std::string none;
    for (const python::FunctionDef* fn = f.index.function(id); fn;
         fn = f.index.function(fn->parent))
        if (!fn->className.empty())
            return fn->className;
    return none;
}

// Whether a class derives (directly, or through project classes) from one of the globs, matched
// against resolved qualified names, the bases as written and their last parts.
bool classIndexHasBase(const ProjectAnalysis& a, const PythonFile& f, int cls,
                       const std::vector<std::string>& globs)
{
    for (const auto& b : classAncestry(a, f, cls))
        if (anyGlob(globs, b) || anyGlob(globs, lastPart(b)) || anyGlob(globs, f.index.resolve(b)))
            return true;
    return false;
}

bool classHasBase(const ProjectAnalysis& a, const PythonFile& f, const std::string& cls,
                  const std::vector<std::string>& globs)
{
    if (cls.empty())
        return false;
    for (std::size_t c = 0; c < f.index.classes.size(); ++c)
        if (f.index.classes[c].name == cls)
            return classIndexHasBase(a, f, static_cast<int>(c), globs);
    return false;
}

bool functionNameOk(const std::vector<std::string>& globs, const PythonFile& f, FunctionId id)
{
    const python::FunctionDef* fn = f.index.function(id);
    if (!fn)
        return anyGlob(globs, "<module>");
    return anyGlob(globs, fn->name) || anyGlob(globs, fn->qualifiedName);
}

// Scope filters shared by the call-based rules.
bool placeOk(const RuleContext& ctx, const PythonFile& f, FunctionId id)
{
    const RuleParams& p = ctx.check.params;
    if (p.has("in-function") && !functionNameOk(p.list("in-function"), f, id))
        return false;
    if (p.has("not-in-function") && functionNameOk(p.list("not-in-function"), f, id))
        return false;
    if (p.has("in-class") && !anyGlob(p.list("in-class"), className(f, id)))
        return false;
    if (p.has("in-class-base") &&
        !classHasBase(ctx.analysis, f, className(f, id), p.list("in-class-base")))
        return false;
    return ctx.inScope(f, id);
}

namespace {

std::set<std::string> hostCallTexts(const ProjectAnalysis& a)
{
    std::set<std::string> out;
    for (const auto& f : a.python)
        for (const auto& c : f.index.calls)
            if (const auto* k = c.keyword("host_call"))
                out.insert(k->text);
    return out;
}

// Does a call pass the argument filters of a rule?
bool argsOk(const RuleParams& p, const Call& c)
{
    if (p.has("arg-count") && std::to_string(c.arguments.size()) != p.get("arg-count"))
        return false;
    if (p.has("arg0") && (c.arguments.empty() || !anyGlob(p.list("arg0"), c.arguments[0].text)))
        return false;
    if (p.has("string-arg")) {
        if (c.arguments.empty() || !c.arguments[0].isString)
            return false;
        const std::string v = c.arguments[0].stringValue;
        bool hit = false;
        for (const auto& s : p.list("string-arg"))
            hit = hit || s == v;
        if (!hit)
            return false;
    }
    for (const auto& k : p.list("unless-keyword"))
        if (c.keyword(k))
            return false;
    if (p.has("arg-index")) {
        const std::size_t i = static_cast<std::size_t>(std::stoul(p.get("arg-index")));
        if (i >= c.arguments.size() || !c.arguments[i].keyword.empty() ||
            !anyGlob(p.list("arg-value"), c.arguments[i].text))
            return false;
    }
    return true;
}

} // namespace

void forCalls(RuleContext& ctx,
              const std::function<void(const PythonFile&, const python::Call&)>& fn)
{
    const RuleParams& p = ctx.check.params;
    const GlobSet callees(p.list("callee"));
    const GlobSet excludes(p.list("exclude"));
    const bool resolvedOnly = p.flag("resolved-only");
    for (const auto& f : ctx.analysis.python) {
        if (!fileOk(p, f))
            continue;
        for (std::size_t i = 0; i < f.index.calls.size(); ++i) {
            const Call& c = f.index.calls[i];
            if (c.callee.empty())
                continue;
            if ((!calleeMatches(ctx.analysis, f, static_cast<int>(i), callees, resolvedOnly) &&
                 !methodOfWrapped(p, f, c)) ||
                (!excludes.empty() &&
                 calleeMatches(ctx.analysis, f, static_cast<int>(i), excludes, resolvedOnly)))
                continue;
            if (!argsOk(p, c) || !placeOk(ctx, f, c.function))
                continue;
            fn(f, c);
        }
    }
}

// unless-project-calls + unless-argument: the rule does not apply when the project makes such a
// call (wrap_lr_scheduler(..., step_mode=MANUAL_STEP) makes stepping by hand the right thing).
bool exemptedByProjectCall(const RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    if (!p.has("unless-project-calls"))
        return false;
    for (const auto& f : ctx.analysis.python)
        for (const auto& c : f.index.calls) {
            if (!calleeOk(p.list("unless-project-calls"), c))
                continue;
            // unless-call-keyword: only such a call that passes one of these keywords exempts.
            if (p.has("unless-call-keyword")) {
                bool any = false;
                for (const auto& k : p.list("unless-call-keyword"))
                    any = any || c.keyword(k) != nullptr;
                if (!any)
                    continue;
            }
            if (!p.has("unless-argument"))
                return true;
            for (const auto& a : c.arguments)
                if (anyGlob(p.list("unless-argument"), a.text))
                    return true;
        }
    return false;
}

namespace {

void ruleForbiddenCall(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    if (exemptedByProjectCall(ctx))
        return;
    const auto hostCalls =
        p.flag("except-host-call") ? hostCallTexts(ctx.analysis) : std::set<std::string>();
    forCalls(ctx, [&](const PythonFile& f, const Call& c) {
        if (p.has("unless-wrapped-by") &&
            isWrapped(ctx.analysis, f, c, p.list("unless-wrapped-by")))
            return;
        if (p.has("receiver-not-from") && receiverFrom(f, c, p.list("receiver-not-from")))
            return;
        if (p.flag("except-host-call")) {
            const python::FunctionDef* fn = f.index.function(c.function);
            for (const auto& h : hostCalls)
                if (fn && h.find(fn->name) != std::string::npos)
                    return;
        }
        const std::string detail = c.arguments.empty()       ? std::string()
                                   : c.arguments[0].isString ? c.arguments[0].stringValue
                                                             : c.arguments[0].text;
        // data[0].to(...) has no dotted name; show the callee as written.
        std::string callee = c.callee;
        if (callee.find('?') != std::string::npos && c.calleeSpan.endByte <= f.text.size())
            callee = oneLine(std::string_view(f.text).substr(
                c.calleeSpan.startByte, c.calleeSpan.endByte - c.calleeSpan.startByte));
        ctx.emit(f, c.nameSpan, {{"callee", callee}, {"name", callee}, {"detail", detail}},
                 callFix(ctx.check, f, c));
    });
}

// bs = self.context.get_per_slot_batch_size(); DataLoader(..., batch_size=bs): the argument's
// assignments are looked at too.
bool valueResolvesTo(const RuleContext& ctx, const PythonFile& f, const Call& c,
                     const python::Argument& arg, const std::vector<std::string>& globs)
{
    if (!ctx.analysis.resolver || arg.text.find_first_of("()[] ") != std::string::npos)
        return false;
    const int file = ctx.fileIndex(f);
    for (const auto& v : ctx.analysis.resolver->nameValues(file, c.function, arg.text))
        if (anyGlob(globs, v.text) ||
            (v.kind == python::ValueKind::Call && v.call >= 0 &&
             anyGlob(
                 globs,
                 ctx.analysis.python[std::size_t(v.file)].index.calls[std::size_t(v.call)].callee +
                     "()")))
            return true;
    return false;
}

void ruleMissingKeyword(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    const std::string keyword = p.get("keyword");
    forCalls(ctx, [&](const PythonFile& f, const Call& c) {
        const python::Argument* arg = c.keyword(keyword);
        if (!arg) {
            ctx.emit(
                f, c.nameSpan,
                {{"callee", c.callee}, {"name", c.callee}, {"detail", keyword + " is not set"}},
                callFix(ctx.check, f, c));
        } else if (p.has("value") && !anyGlob(p.list("value"), arg->text) &&
                   !(p.flag("value-resolves") &&
                     valueResolvesTo(ctx, f, c, *arg, p.list("value")))) {
            ctx.emit(
                f, arg->span,
                {{"callee", c.callee}, {"name", c.callee}, {"detail", keyword + "=" + arg->text}},
                callFix(ctx.check, f, c));
        }
    });
}

void ruleKeywordPresent(RuleContext& ctx)
{
    const std::string keyword = ctx.check.params.get("keyword");
    forCalls(ctx, [&](const PythonFile& f, const Call& c) {
        if (const python::Argument* arg = c.keyword(keyword))
            ctx.emit(f, arg->span, {{"callee", c.callee}, {"name", keyword}, {"detail", arg->text}},
                     callFix(ctx.check, f, c));
    });
}

void ruleForbiddenImport(RuleContext& ctx)
{
    const auto& modules = ctx.check.params.list("module");
    for (const auto& f : ctx.analysis.python) {
        if (!fileOk(ctx.check.params, f))
            continue;
        for (const auto& imp : f.index.imports)
            if (anyGlob(modules, imp.target()) ||
                (imp.name.empty() && anyGlob(modules, imp.module)))
                ctx.emit(f, imp.span, {{"name", imp.target()}});
    }
}

void ruleAttributeUse(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    for (const auto& f : ctx.analysis.python) {
        if (!fileOk(p, f))
            continue;
        for (const auto& u : f.index.attributes) {
            if (!anyGlob(p.list("base"), u.base) || !placeOk(ctx, f, u.function))
                continue;
            if (p.has("chain") && !anyGlob(p.list("chain"), u.chain))
                continue;
            const auto second = u.chain.find('.', u.base.size() + 1);
            ctx.emit(f, u.span, {{"name", u.chain.substr(0, second)}});
        }
    }
}

void ruleForbiddenAssignment(RuleContext& ctx)
{
    if (exemptedByProjectCall(ctx) || !onlyIfOk(ctx))
        return;
    const RuleParams& p = ctx.check.params;
    for (const auto& f : ctx.analysis.python) {
        if (!fileOk(p, f))
            continue;
        for (const auto& as : f.index.assignments) {
            if (!anyGlob(p.list("target"), as.target) || !placeOk(ctx, f, as.function))
                continue;
            if (p.flag("value-is-call") && as.value.find('(') == std::string::npos)
                continue;
            // Only a loss function's result is a loss computation; `loss = out.mean().item()`
            // for logging is not.
            // Matched on the function's own name (loss.item() is not a loss function) and on
            // what it resolves to; accumulating (total += ...) is bookkeeping.
            if (p.has("value-callee")) {
                if (as.call < 0 || as.augmented)
                    continue;
                const std::string& callee = f.index.calls[static_cast<std::size_t>(as.call)].callee;
                if (!anyGlob(p.list("value-callee"), lastPart(callee)) &&
                    !calleeMatches(ctx.analysis, f, as.call, p.list("value-callee"), true))
                    continue;
            }
            ctx.emit(f, as.span, {{"name", as.target}, {"detail", as.value}});
        }
    }
}

const std::map<std::string_view, void (*)(RuleContext&)>& kinds()
{
    static const std::map<std::string_view, void (*)(RuleContext&)> k{
        {"forbidden-call", &ruleForbiddenCall},
        {"required-call", &ruleRequiredCall},
        {"missing-keyword", &ruleMissingKeyword},
        {"keyword-present", &ruleKeywordPresent},
        {"forbidden-import", &ruleForbiddenImport},
        {"required-class", &ruleRequiredClass},
        {"required-function", &ruleRequiredFunction},
        {"returns-call", &ruleReturnsCall},
        {"attribute-use", &ruleAttributeUse},
        {"forbidden-assignment", &ruleForbiddenAssignment},
        {"forward-computes-loss", &ruleForwardComputesLoss},
        {"module-must-be-wrapped", &ruleModuleMustBeWrapped},
        {"config-file", &ruleConfigFile},
        {"config-sections", &ruleConfigSections},
        {"config-keys-exist", &ruleConfigKeysExist},
        {"config-keys-unused", &ruleConfigKeysUnused},
        {"determined-entrypoint", &ruleDeterminedEntrypoint},
        {"undefined-name", &ruleUndefinedName},
        {"vendor-signature", &ruleVendorSignature},
        {"entry-role", &ruleEntryRole},
        {"entry-returns", &ruleEntryReturns},
        {"class-contract", &ruleClassContract},
        {"cli-flags", &ruleCliFlags},
        {"host-side-metrics", &ruleHostSideMetrics},
        {"model-returns-loss", &ruleModelReturnsLoss},
        {"trainer-model-keys", &ruleTrainerModelKeys},
    };
    return k;
}

} // namespace

bool isKnownRuleKind(std::string_view kind)
{
    return kinds().count(kind) > 0;
}

void RuleContext::emitMissing(const SourceLocation& at,
                              const std::map<std::string, std::string>& vars,
                              std::optional<Fix> fix)
{
    projectWide = true;
    emit(at.file, at.line, at.column, vars, std::move(fix));
    projectWide = false;
}

void RuleContext::emit(const std::string& file, int line, int column,
                       const std::map<std::string, std::string>& vars, std::optional<Fix> fix)
{
    Finding f;
    f.checkId = check.id;
    f.stepId = stepId;
    f.severity = check.severity;
    std::string msg = check.message;
    for (const auto& [k, v] : vars) {
        const std::string token = "{" + k + "}";
        for (auto pos = msg.find(token); pos != std::string::npos;
             pos = msg.find(token, pos + v.size()))
            msg.replace(pos, token.size(), v);
    }
    // Test and vendored code, and scripts that never train, are not the port: what a check
    // finds there is a note at most (analysis/port_scope.h).
    if (f.severity != Severity::Info)
        if (const std::string why = projectWide ? analysis::outsidePortReason(file)
                                                : analysis::outsidePortReason(analysis, file);
            !why.empty()) {
            f.severity = Severity::Info;
            msg += " (not checked as the port: " + why + ")";
            fix.reset();
        }
    f.message = std::move(msg);
    f.location = {file, line, column};
    f.hint = check.hint;
    f.fix = std::move(fix);
    out.push_back(std::move(f));
}

void RuleContext::emit(const PythonFile& f, const python::Span& at,
                       const std::map<std::string, std::string>& vars, std::optional<Fix> fix)
{
    emit(f.path, at.line, at.column, vars, std::move(fix));
}

void RuleContext::note(const PythonFile& f, const python::Span& at, const std::string& message)
{
    Finding n;
    n.checkId = check.id;
    n.stepId = stepId;
    n.severity = Severity::Info;
    n.message = message;
    n.location = {f.path, at.line, at.column};
    n.hint = check.hint;
    out.push_back(std::move(n));
}

void evaluateCheck(RuleContext& ctx)
{
    const auto it = kinds().find(ctx.check.kind);
    if (it == kinds().end()) {
        ctx.applicable = false;
        return;
    }
    it->second(ctx);
}

} // namespace portolan::guides
