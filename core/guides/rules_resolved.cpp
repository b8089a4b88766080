// Rule kinds written against resolved facts (core/analysis/facts.h): vendor calls checked against
// their contracts' signatures, the callables a runner receives, what they return, the classes a
// vendor instantiates, command-line flags, and metrics kept on the host.
#include "core/analysis/analysis.h"
#include "core/analysis/facts.h"
#include "core/analysis/port_scope.h"
#include "core/common/text.h"
#include "core/guides/fixes/params_from_argparse.h"
#include "core/guides/rules.h"
#include "core/python/resolve.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

namespace portolan::guides {

using analysis::Entry;
using analysis::ProjectAnalysis;
using analysis::PythonFile;
using python::FunctionId;
using python::Symbol;
using python::SymbolKind;
using python::Value;
using python::ValueKind;

namespace {

const PythonFile& fileAt(const ProjectAnalysis& a, int index)
{
    return a.python[static_cast<std::size_t>(index)];
}

std::string signaturesText(const analysis::VendorCall& vc, const std::string& name)
{
    std::string out;
    for (const auto& sig : vc.signatures()) {
        if (!out.empty())
            out += " or ";
        out += sig.toString(name);
        if (!sig.releases.empty())
            out += " (" + sig.releases + ")";
    }
    return out;
}

// The parameters of a project callable as the vendor sees them (self dropped for methods and
// for a class's __init__).
struct Callable
{
    const PythonFile* file = nullptr;
    const python::FunctionDef* def = nullptr;
    bool dropSelf = false;
};

Callable callableOf(const ProjectAnalysis& a, const Symbol& s)
{
    Callable c;
    if (s.kind == SymbolKind::Function && s.rest.empty()) {
        c.file = &fileAt(a, s.file);
        c.def = &c.file->index.functions[static_cast<std::size_t>(s.index)];
        c.dropSelf = a.resolver->classOf(s.file, s.index) >= 0 &&
                     std::none_of(c.def->decorators.begin(), c.def->decorators.end(),
                                  [](const std::string& d) {
                                      return d.find("staticmethod") != std::string::npos;
                                  });
    } else if (s.kind == SymbolKind::Class && s.rest.empty()) {
        const Symbol init = a.resolver->method(s.file, s.index, "__init__");
        if (init.kind == SymbolKind::Function) {
            c.file = &fileAt(a, init.file);
            c.def = &c.file->index.functions[static_cast<std::size_t>(init.index)];
            c.dropSelf = true;
        }
    }
    return c;
}

// Can the callable be called with `positional` positional arguments and nothing else?
bool acceptsPositional(const Callable& c, std::size_t positional, std::string& why)
{
    std::size_t required = 0, capacity = 0;
    bool varArgs = false;
    for (std::size_t i = c.dropSelf ? 1 : 0; i < c.def->parameters.size(); ++i) {
        const auto& p = c.def->parameters[i];
        if (p.star == 1)
            varArgs = true;
        if (p.star || p.keywordOnly) {
            if (p.keywordOnly && p.star == 0 && !p.hasDefault()) {
                why = "its keyword-only parameter " + p.name + " has no default";
                return false;
            }
            continue;
        }
        ++capacity;
        if (!p.hasDefault())
            ++required;
    }
    if (required > positional) {
        why = "it needs " + std::to_string(required) + " arguments";
        return false;
    }
    if (!varArgs && capacity < positional) {
        why = "it takes " + std::to_string(capacity) + " argument" + (capacity == 1 ? "" : "s");
        return false;
    }
    return true;
}

std::string parameterList(const Callable& c)
{
    std::string out;
    for (const auto& p : c.def->parameters)
        out += (out.empty() ? "" : ", ") + std::string(std::size_t(p.star), '*') + p.name;
    return out;
}

} // namespace

// A call of a vendor API with arguments that fit none of its signatures: TypeError at run time.
void ruleVendorSignature(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    const auto& facts = ctx.analysis.facts();
    bool any = false;
    for (const auto& vc : facts.vendorCalls) {
        if (p.has("contract") && !anyGlob(p.list("contract"), vc.contract))
            continue;
        const PythonFile& f = fileAt(ctx.analysis, vc.file);
        const python::Call& call = f.index.calls[static_cast<std::size_t>(vc.call)];
        if (!ctx.inScope(f, call.function) || vc.signatures().empty())
            continue;
        any = true;
        const auto why = analysis::signatureMismatch(vc.signatures(), call);
        if (!why)
            continue;
        const std::string name = lastPart(vc.qualified);
        // At the argument at fault (the wrong keyword), else at the call.
        const python::Span at = why->argument >= 0
                                    ? call.arguments[static_cast<std::size_t>(why->argument)].span
                                    : call.nameSpan;
        ctx.emit(f, at,
                 {{"name", call.callee},
                  {"callee", call.callee},
                  {"detail", why->message + "; " + signaturesText(vc, name)}});
    }
    if (!any)
        ctx.applicable = false;
}

namespace {

// ruleEntryRole without a runner call yet (an original): the conventional name is the porting
// goal, with the parameters the rule names.
void entryRoleByName(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    bool found = false;
    for (const auto& f : ctx.analysis.python)
        for (const auto& fn : f.index.functions) {
            if (!anyGlob(p.list("fallback-name"), fn.name))
                continue;
            found = true;
            std::vector<std::string> got;
            for (const auto& prm : fn.parameters)
                got.push_back(prm.name);
            if (!p.has("fallback-params") || got == p.list("fallback-params"))
                continue;
            std::string have, want;
            for (const auto& s : got)
                have += (have.empty() ? "" : ", ") + s;
            for (const auto& s : p.list("fallback-params"))
                want += (want.empty() ? "" : ", ") + s;
            ctx.emit(
                f, fn.nameSpan,
                {{"name", fn.name},
                 {"detail", concat(fn.name, "(", have, ") should be ", fn.name, "(", want, ")")}});
        }
    if (!found) {
        SourceLocation loc;
        if (!findAnchor(ctx.analysis, p.list("anchor"), loc))
            loc = projectLocation(ctx.analysis);
        ctx.emitMissing(loc, {{"name", p.get("fallback-name")},
                              {"detail", "no function " + p.get("fallback-name")}});
    }
}

// One callable a runner call passes for a role: called by keyword (the estimator's model_fn),
// its parameters against the ones the vendor knows and needs; else with the params dict alone.
void checkPassedCallable(RuleContext& ctx, const analysis::VendorCall& vc, const PythonFile& cf,
                         const python::Call& call, const Entry& e)
{
    const RuleParams& p = ctx.check.params;
    if (!e.definition.isDefinition()) {
        ctx.note(cf, call.nameSpan,
                 "could not verify " + e.parameter + ": " + e.text +
                     " is not a function or class of this project");
        return;
    }
    const Callable c = callableOf(ctx.analysis, e.definition);
    if (!c.def)
        return; // a class without __init__ takes no arguments; nothing to say
    if (p.has("allowed-params") || p.has("required-params")) {
        std::vector<std::string> names;
        for (std::size_t i = c.dropSelf ? 1 : 0; i < c.def->parameters.size(); ++i)
            if (c.def->parameters[i].star == 0)
                names.push_back(c.def->parameters[i].name);
        std::string problem;
        for (std::size_t i = c.dropSelf ? 1 : 0; i < c.def->parameters.size(); ++i) {
            const auto& prm = c.def->parameters[i];
            if (prm.star == 0 && !prm.hasDefault() && p.has("allowed-params") &&
                !anyGlob(p.list("allowed-params"), prm.name))
                problem = "the vendor does not pass '" + prm.name + "'";
        }
        for (const auto& need : p.list("required-params"))
            if (std::find(names.begin(), names.end(), need) == names.end())
                problem = "it has no parameter '" + need + "'";
        if (!problem.empty())
            ctx.emit(*c.file, c.def->nameSpan,
                     {{"name", c.def->name},
                      {"detail", c.def->name + "(" + parameterList(c) + "): " + problem}});
        return;
    }
    // The runner calls it with the params dict as its only argument.
    std::string why;
    if (e.paramsParameter < 0 && p.flag("takes-params")) {
        ctx.emit(*c.file, c.def->nameSpan,
                 {{"name", c.def->name},
                  {"detail", c.def->name + "(" + parameterList(c) +
                                 ") has no parameter for the params dict " + vc.api->name +
                                 "(...) passes to it"}});
    } else if (p.flag("takes-params") && !acceptsPositional(c, 1, why)) {
        ctx.emit(*c.file, c.def->nameSpan,
                 {{"name", c.def->name},
                  {"detail", c.def->name + "(" + parameterList(c) +
                                 ") cannot be called with the params dict alone: " + why}});
    }
}

} // namespace

// What a runner receives for one role (run()'s train_data_fn, the estimator's model_fn): it must
// be passed, and it must take the params dict the runner calls it with.
void ruleEntryRole(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    const auto& facts = ctx.analysis.facts();
    const auto& apis = p.list("api");
    std::vector<int> calls;
    for (int v = 0; v < static_cast<int>(facts.vendorCalls.size()); ++v) {
        const auto& vc = facts.vendorCalls[static_cast<std::size_t>(v)];
        if (vc.api && anyGlob(apis, vc.api->name))
            calls.push_back(v);
    }
    if (calls.empty()) {
        if (!p.has("fallback-name") || facts.hasEntries())
            ctx.applicable = false;
        else
            entryRoleByName(ctx);
        return;
    }
    for (int v : calls) {
        const auto& vc = facts.vendorCalls[static_cast<std::size_t>(v)];
        const PythonFile& cf = fileAt(ctx.analysis, vc.file);
        const python::Call& call = cf.index.calls[static_cast<std::size_t>(vc.call)];
        for (const auto& roleName : p.list("role")) {
            std::vector<const Entry*> passed;
            std::string parameter;
            for (const auto& r : vc.api->roles)
                if (r.role == roleName)
                    parameter = r.parameter;
            for (const auto& e : facts.entries)
                if (e.vendorCall == v && e.role == roleName)
                    passed.push_back(&e);
            if (passed.empty()) {
                const std::string detail =
                    vc.api->name + "(...) passes no " + (parameter.empty() ? roleName : parameter);
                if (p.get("if-missing") == "note")
                    ctx.note(cf, call.nameSpan, detail);
                else if (p.get("if-missing") != "ignore")
                    ctx.emit(cf, call.nameSpan, {{"name", parameter}, {"detail", detail}});
                continue;
            }
            for (const Entry* e : passed)
                checkPassedCallable(ctx, vc, cf, call, *e);
        }
    }
}

namespace {

enum class Verdict
{
    Fits,
    Misfit,
    Unknown
};

// Does one returned value fit the accepted types?
Verdict judge(const ProjectAnalysis& a, const Value& v, const std::vector<std::string>& accept,
              std::string& what)
{
    what = v.text.empty() ? std::string(python::valueKindName(v.kind)) : oneLine(v.text);
    switch (v.kind) {
    case ValueKind::Call:
        if (!v.symbol.rest.empty())
            return Verdict::Unknown;
        if (v.symbol.kind == SymbolKind::External) {
            if (anyGlob(accept, v.symbol.qualified))
                return Verdict::Fits;
            // A class of a library (CamelCase) builds an instance of itself; a function of a
            // library may return anything.
            const std::string last = lastPart(v.symbol.qualified);
            return !last.empty() && std::isupper(static_cast<unsigned char>(last[0]))
                       ? Verdict::Misfit
                       : Verdict::Unknown;
        }
        if (v.symbol.kind == SymbolKind::Builtin)
            return Verdict::Misfit;
        if (v.symbol.kind == SymbolKind::Class) {
            bool unknownBase = false;
            const auto bases = a.resolver->ancestors(v.symbol.file, v.symbol.index, &unknownBase);
            for (const auto& b : bases)
                if (anyGlob(accept, b))
                    return Verdict::Fits;
            return unknownBase ? Verdict::Unknown : Verdict::Misfit;
        }
        return Verdict::Unknown;
    case ValueKind::List:
    case ValueKind::Tuple:
    case ValueKind::Dict:
    case ValueKind::Set:
    case ValueKind::Comprehension:
    case ValueKind::String:
    case ValueKind::Number:
    case ValueKind::Bool:
    case ValueKind::None:
        what = std::string(python::valueKindName(v.kind)) +
               (v.text.empty() ? std::string() : " (" + oneLine(v.text, 40) + ")");
        return Verdict::Misfit;
    default:
        // A function handed back (a runner may accept a callable), a parameter, an attribute.
        return Verdict::Unknown;
    }
}

// Judges every value a function returns: it fits when one value fits; it provably does not when
// every value is known and none fits.
void judgeReturns(RuleContext& ctx, int file, FunctionId fn, const std::vector<std::string>& accept,
                  const std::string& role)
{
    const PythonFile& f = fileAt(ctx.analysis, file);
    const auto& def = f.index.functions[static_cast<std::size_t>(fn)];
    const auto values = ctx.analysis.resolver->returnValues(file, fn);
    bool fits = false;
    const Value* unknown = nullptr;
    const Value* misfit = nullptr;
    std::string misfitWhat, unknownWhat;
    // `dataset.batch(...).prefetch(...)`: with follow-method-chains, a method called on a
    // value that fits fits too (tf.data's transformations return datasets).
    const bool chains = ctx.check.params.flag("follow-method-chains");
    std::function<Verdict(const Value&, std::string&, int)> verdictOf =
        [&](const Value& v, std::string& what, int depth) {
            const Verdict verdict = judge(ctx.analysis, v, accept, what);
            if (verdict != Verdict::Unknown || !chains || depth > 4 || v.kind != ValueKind::Call ||
                v.call < 0)
                return verdict;
            const PythonFile& vf = fileAt(ctx.analysis, v.file);
            const python::Call& c = vf.index.calls[static_cast<std::size_t>(v.call)];
            const auto dot = c.callee.rfind('.');
            if (dot == std::string::npos)
                return verdict;
            const std::string receiver = c.callee.substr(0, dot);
            if (receiver.find('.') != std::string::npos || receiver.empty())
                return verdict;
            for (const auto& r : ctx.analysis.resolver->nameValues(v.file, c.function, receiver)) {
                std::string inner;
                if (verdictOf(r, inner, depth + 1) == Verdict::Fits)
                    return Verdict::Fits;
            }
            return verdict;
        };
    for (const auto& v : values) {
        std::string what;
        switch (verdictOf(v, what, 0)) {
        case Verdict::Fits:
            fits = true;
            break;
        case Verdict::Misfit:
            if (!misfit) {
                misfit = &v;
                misfitWhat = what;
            }
            break;
        case Verdict::Unknown:
            if (!unknown) {
                unknown = &v;
                unknownWhat = what;
            }
            break;
        }
    }
    if (fits)
        return;
    if (unknown) {
        const PythonFile& uf = fileAt(ctx.analysis, unknown->file);
        ctx.note(
            f, def.nameSpan,
            "could not verify that " + def.qualifiedName + "() returns " +
                (ctx.check.params.has("returns-what") ? ctx.check.params.get("returns-what")
                                                      : std::string("a data loader")) +
                ": the value " +
                (unknownWhat.empty() ? std::string("is not known") : "comes from " + unknownWhat) +
                " (" + uf.path + ":" + std::to_string(unknown->span.line) + ")");
        return;
    }
    if (misfit) {
        // At the value returned (what is wrong), with the function's definition as related.
        const PythonFile& mf = fileAt(ctx.analysis, misfit->file);
        const python::Span at = misfit->span.line > 0 ? misfit->span : def.nameSpan;
        ctx.emit(mf, at,
                 {{"name", def.qualifiedName + "()"},
                  {"detail", "it returns " + misfitWhat},
                  {"role", role}});
        if (Finding* last = ctx.last())
            last->related.push_back({f.path, def.nameSpan.line, def.nameSpan.column});
    }
}

} // namespace

// What the runner's data callables (or a trial's data-loader methods) return.
void ruleEntryReturns(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    const auto& facts = ctx.analysis.facts();
    bool any = false;
    std::set<std::pair<int, int>> done;
    auto check = [&](int file, FunctionId fn, const std::vector<std::string>& accept,
                     const std::string& role) {
        if (!done.insert({file, fn}).second)
            return;
        any = true;
        judgeReturns(ctx, file, fn, accept, role);
    };
    for (const auto& e : facts.entries) {
        if (e.classContract && p.flag("trial-data-loaders")) {
            std::vector<std::string> accept = e.classContract->dataLoaderReturns;
            for (const auto& also : e.classContract->dataLoaderAlsoAccepted)
                accept.push_back(also);
            for (const auto& m : e.classContract->dataLoaderMethods) {
                const Symbol s =
                    ctx.analysis.resolver->method(e.definition.file, e.definition.index, m);
                if (s.kind == SymbolKind::Function)
                    check(s.file, s.index, accept, m);
            }
            continue;
        }
        if (!anyGlob(p.list("roles"), e.role) || e.definition.kind != SymbolKind::Function)
            continue;
        check(e.definition.file, e.definition.index, p.list("accept"), e.role);
    }
    if (!any && !facts.hasEntries() && p.has("fallback-name")) {
        for (std::size_t fi = 0; fi < ctx.analysis.python.size(); ++fi) {
            const auto& fns = ctx.analysis.python[fi].index.functions;
            for (std::size_t fn = 0; fn < fns.size(); ++fn)
                if (anyGlob(p.list("fallback-name"), fns[fn].name))
                    check(static_cast<int>(fi), static_cast<FunctionId>(fn), p.list("accept"),
                          fns[fn].name);
        }
    }
    if (!any)
        ctx.applicable = false;
}

// A class that a vendor instantiates and calls (PyTorchTrial): the methods it must have, and
// signatures that take what the vendor passes.
void ruleClassContract(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    const auto& facts = ctx.analysis.facts();
    bool found = false;
    for (const auto& e : facts.entries) {
        if (!e.classContract ||
            (p.has("class") && !anyGlob(p.list("class"), e.classContract->name)))
            continue;
        found = true;
        const auto& cc = *e.classContract;
        const PythonFile& f = fileAt(ctx.analysis, e.definition.file);
        const auto& cls = f.index.classes[static_cast<std::size_t>(e.definition.index)];
        for (const auto& group : cc.requiredMethods) {
            bool has = false;
            for (const auto& m : group)
                has =
                    has ||
                    ctx.analysis.resolver->method(e.definition.file, e.definition.index, m).kind ==
                        SymbolKind::Function;
            if (has)
                continue;
            std::string names;
            for (const auto& m : group)
                names += (names.empty() ? "" : " or ") + m;
            ctx.emit(f, cls.nameSpan,
                     {{"name", cls.name}, {"detail", cls.name + " has no method " + names}});
        }
        // A class the project constructs itself (the Trainer API: MyTrial(context, hparams=...)
        // handed to pytorch.Trainer) gets its constructor arguments from the project, so the
        // vendor's __init__ signature does not bind it; the methods the vendor calls still do.
        const bool constructedByProject = e.definition.kind == SymbolKind::Class &&
                                          !ctx.analysis.resolver->callSites(e.definition).empty();
        for (const auto& [method, sig] : cc.methodSignatures) {
            if (method == "__init__" && constructedByProject)
                continue;
            const Symbol s =
                ctx.analysis.resolver->method(e.definition.file, e.definition.index, method);
            if (s.kind != SymbolKind::Function)
                continue;
            Callable c;
            c.file = &fileAt(ctx.analysis, s.file);
            c.def = &c.file->index.functions[static_cast<std::size_t>(s.index)];
            c.dropSelf = true;
            // The vendor passes the required parameters, and may pass the optional ones.
            std::size_t required = 0, all = 0;
            for (const auto& sp : sig.params) {
                if (sp.name == "self" || sp.star)
                    continue;
                ++all;
                if (!sp.optional)
                    ++required;
            }
            std::string why;
            if (!acceptsPositional(c, required, why) && !acceptsPositional(c, all, why))
                ctx.emit(*c.file, c.def->nameSpan,
                         {{"name", cls.name},
                          {"detail", concat(method, "(", parameterList(c),
                                            ") cannot take what the vendor passes: ",
                                            sig.toString(method), " (", why, ")")}});
        }
    }
    if (!found && !p.has("anchor")) {
        ctx.applicable = false;
        return;
    }
    if (!found) {
        SourceLocation loc;
        if (!findAnchor(ctx.analysis, p.list("anchor"), loc))
            loc = projectLocation(ctx.analysis);
        ctx.emitMissing(
            loc, {{"name", p.get("class")},
                  {"detail", "no class derived from " + p.get("class", "the vendor's class")}});
    }
}

// Values from the command line: one finding per flag, with every place it is used.
void ruleCliFlags(RuleContext& ctx)
{
    const auto& facts = ctx.analysis.facts();
    std::map<std::string, std::vector<const analysis::CliUse*>> byFlag;
    std::vector<std::string> order;
    // A script that drives the vendor API itself (a cstorch training loop) keeps the flags a
    // runner would read (the params file, the mode, the model folder, the device): those stay
    // flags on every generation, as the runner's own command line shows.
    std::set<std::string> allowed;
    for (const auto& f : ctx.check.params.list("allowed-flags"))
        allowed.insert(f);
    if (ctx.check.params.flag("allow-runner-flags") && ctx.analysis.contracts)
        for (const auto& rf : ctx.analysis.contracts->runconfigFlags)
            allowed.insert(rf.flags.begin(), rf.flags.end());
    for (const auto& u : facts.cliUses) {
        const PythonFile& f = fileAt(ctx.analysis, u.file);
        if (!ctx.inScope(f, u.function) || allowed.count(u.dest))
            continue;
        // Uses in a script off the training path are grouped on their own, so that a flag the
        // training script also reads is reported there, not as a note on the other script.
        const std::string key =
            (analysis::outsidePortReason(ctx.analysis, f.path).empty() ? "" : "~") + u.dest;
        auto& uses = byFlag[key];
        if (uses.empty())
            order.push_back(key);
        uses.push_back(&u);
    }
    // One fix writes the params file for every flag; each flag's finding offers it.
    const std::optional<Fix> fix =
        order.empty() ? std::nullopt : paramsFixOfCheck(ctx.check, ctx.analysis);
    for (const auto& key : order) {
        const auto& uses = byFlag[key];
        const analysis::CliUse* first = uses.front();
        const std::string& dest = first->dest;
        const PythonFile& f = fileAt(ctx.analysis, first->file);
        // The definition in the file of the use if there is one (two scripts may each define
        // the flag), else the first.
        const analysis::CliFlag* def = nullptr;
        for (const auto& flag : facts.flags)
            if (flag.dest == dest &&
                (!def || (def->file != first->file && flag.file == first->file)))
                def = &flag;
        std::string defined;
        if (def)
            defined = "; defined as " + (def->options.empty() ? dest : def->options.front()) +
                      " at " + fileAt(ctx.analysis, def->file).path + ":" +
                      std::to_string(def->span.line);
        const std::string count =
            uses.size() == 1 ? "used once" : "used " + std::to_string(uses.size()) + " times";
        ctx.emit(f, first->span,
                 {{"name", first->namespaceName + "." + dest},
                  {"flag", dest},
                  {"detail", count + defined}},
                 fix);
        if (Finding* last = ctx.last())
            for (std::size_t i = 1; i < uses.size(); ++i)
                last->related.push_back({fileAt(ctx.analysis, uses[i]->file).path,
                                         uses[i]->span.line, uses[i]->span.column});
    }
}

// Metric ops (tf.metrics) are fine in functions whose results reach the host: passed as
// host_call or eval_metric_ops of an EstimatorSpec, or called from such a function.
void ruleHostSideMetrics(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    const ProjectAnalysis& a = ctx.analysis;
    // Names that the host_call / eval_metric_ops values mention, through local assignments.
    std::set<std::string> hostNames;
    for (std::size_t fi = 0; fi < a.python.size(); ++fi) {
        const auto& idx = a.python[fi].index;
        for (const auto& c : idx.calls)
            for (const auto& arg : c.arguments) {
                if (arg.keyword != "host_call" && arg.keyword != "eval_metric_ops")
                    continue;
                std::vector<std::string> texts{arg.text};
                for (const auto& as : idx.assignments)
                    if (as.function == c.function && as.target == arg.text)
                        texts.push_back(as.value);
                for (const auto& t : texts) {
                    std::string word;
                    for (char ch : t + " ") {
                        if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
                            word += ch;
                        } else {
                            if (!word.empty())
                                hostNames.insert(word);
                            word.clear();
                        }
                    }
                }
            }
    }
    // Host-side functions: named there, and what they call in the project.
    std::set<std::pair<int, int>> host;
    std::vector<std::pair<int, int>> todo;
    for (std::size_t fi = 0; fi < a.python.size(); ++fi) {
        const auto& fns = a.python[fi].index.functions;
        for (std::size_t fn = 0; fn < fns.size(); ++fn)
            if (hostNames.count(fns[fn].name) && host.insert({int(fi), int(fn)}).second)
                todo.emplace_back(int(fi), int(fn));
    }
    while (!todo.empty()) {
        const auto [fi, fn] = todo.back();
        todo.pop_back();
        const auto& idx = a.python[std::size_t(fi)].index;
        for (std::size_t c = 0; c < idx.calls.size(); ++c) {
            if (idx.calls[c].function != fn || idx.calls[c].callee.empty())
                continue;
            const Symbol s = a.resolver->callee(fi, int(c));
            if (s.kind == SymbolKind::Function && s.rest.empty() &&
                host.insert({s.file, s.index}).second)
                todo.emplace_back(s.file, s.index);
        }
    }
    auto onHost = [&](int fi, FunctionId fn) {
        const auto& idx = a.python[std::size_t(fi)].index;
        for (FunctionId f = fn; f >= 0; f = idx.functions[std::size_t(f)].parent)
            if (host.count({fi, f}))
                return true;
        return false;
    };
    const GlobSet metrics(p.list("callee"));
    for (std::size_t fi = 0; fi < a.python.size(); ++fi) {
        const PythonFile& f = a.python[fi];
        for (std::size_t c = 0; c < f.index.calls.size(); ++c) {
            const python::Call& call = f.index.calls[c];
            if (!calleeMatches(a, f, int(c), metrics, p.flag("resolved-only")))
                continue;
            if (!ctx.inScope(f, call.function) || onHost(int(fi), call.function))
                continue;
            ctx.emit(f, call.nameSpan, {{"callee", call.callee}, {"name", call.callee}});
        }
    }
}

} // namespace portolan::guides
