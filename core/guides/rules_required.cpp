// The rules that require something of a project: a call, a class, a function, or a function
// that returns what a vendor call needs. When it is missing, the finding sits at the check's
// anchor (findAnchor), and `only-if` / `unless-project-calls` say when the requirement applies.
#include "core/analysis/analysis.h"
#include "core/analysis/facts.h"
#include "core/common/text.h"
#include "core/guides/rules.h"
#include "core/python/resolve.h"

#include <set>

namespace portolan::guides {

using analysis::ProjectAnalysis;
using analysis::PythonFile;
using python::Call;
using python::FunctionId;

namespace {

void emitMissing(RuleContext& ctx, const std::string& detail)
{
    SourceLocation loc;
    if (!findAnchor(ctx.analysis, ctx.check.params.list("anchor"), loc))
        loc = projectLocation(ctx.analysis);
    ctx.emitMissing(loc, {{"detail", detail}, {"name", detail}});
}

} // namespace

// Whether the check runs. When it does not, the check is "not applicable" (the step shows so)
// unless the port's entries cover it: then it stays applicable and, with nothing to report, the
// step reads as passed, which is what the user has done.
bool onlyIfOk(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    // Porting advice for code that does not hand over to a vendor yet; once it does, the
    // vendor's contract for the entries (the trial class, the runner's functions) checks the
    // same thing, in the step that names the entries.
    if (p.flag("only-without-entries") && ctx.analysis.facts().hasEntries())
        return false;
    ctx.applicable = false;
    if (p.has("only-if-class-base")) {
        bool any = false;
        for (const auto& f : ctx.analysis.python)
            for (std::size_t c = 0; c < f.index.classes.size(); ++c)
                any = any || classIndexHasBase(ctx.analysis, f, static_cast<int>(c),
                                               p.list("only-if-class-base"));
        if (!any)
            return false;
    }
    if (p.has("only-if-function")) {
        bool any = false;
        for (const auto& f : ctx.analysis.python)
            for (std::size_t i = 0; i < f.index.functions.size(); ++i)
                any = any ||
                      functionNameOk(p.list("only-if-function"), f, static_cast<FunctionId>(i));
        if (!any)
            return false;
    }
    if (p.has("only-if-call")) {
        bool any = false;
        for (const auto& f : ctx.analysis.python)
            for (std::size_t c = 0; c < f.index.calls.size(); ++c)
                any = any || calleeMatches(ctx.analysis, f, static_cast<int>(c),
                                           p.list("only-if-call"), p.flag("resolved-only"));
        if (!any)
            return false;
    }
    ctx.applicable = true;
    return true;
}

void ruleRequiredCall(RuleContext& ctx)
{
    if (exemptedByProjectCall(ctx) || !onlyIfOk(ctx))
        return;
    const auto& keywords = ctx.check.params.list("keywords");
    const PythonFile* partialFile = nullptr;
    const Call* partial = nullptr;
    bool found = false;
    forCalls(ctx, [&](const PythonFile& f, const Call& c) {
        bool all = true;
        for (const auto& k : keywords)
            all = all && c.keyword(k) != nullptr;
        if (all)
            found = true;
        else if (!partial) {
            partial = &c;
            partialFile = &f;
        }
    });
    if (found)
        return;
    if (partial) {
        std::string missing;
        for (const auto& k : keywords)
            if (!partial->keyword(k))
                missing += (missing.empty() ? "" : ", ") + k;
        ctx.emit(*partialFile, partial->nameSpan,
                 {{"detail", "missing " + missing}, {"name", partial->callee}});
        return;
    }
    emitMissing(ctx, "no call to " + ctx.check.params.get("callee"));
}

void ruleRequiredClass(RuleContext& ctx)
{
    if (!onlyIfOk(ctx))
        return;
    const RuleParams& p = ctx.check.params;
    bool found = false;
    for (const auto& f : ctx.analysis.python) {
        if (!fileOk(p, f))
            continue;
        for (std::size_t ci = 0; ci < f.index.classes.size(); ++ci) {
            const auto& cls = f.index.classes[ci];
            if (!classIndexHasBase(ctx.analysis, f, static_cast<int>(ci), p.list("base")))
                continue;
            found = true;
            for (const auto& m : p.list("methods"))
                if (std::find(cls.methods.begin(), cls.methods.end(), m) == cls.methods.end())
                    ctx.emit(f, cls.nameSpan,
                             {{"name", cls.name}, {"detail", cls.name + " has no method " + m}});
            for (const auto& spec : p.list("method-params")) {
                const std::string method = spec.substr(0, spec.find(':'));
                const std::string want = spec.substr(spec.find(':') + 1);
                const python::FunctionDef* fn = f.index.findFunction(cls.name + "." + method);
                if (!fn)
                    continue;
                std::string got;
                for (const auto& prm : fn->parameters)
                    got += (got.empty() ? "" : ",") + prm.name;
                if (got != want)
                    ctx.emit(f, fn->nameSpan,
                             {{"name", cls.name},
                              {"detail",
                               concat(method, "(", got, ") should be ", method, "(", want, ")")}});
            }
        }
    }
    if (!found)
        emitMissing(ctx, "no class derived from " + p.get("base"));
}

void ruleRequiredFunction(RuleContext& ctx)
{
    if (!onlyIfOk(ctx))
        return;
    const RuleParams& p = ctx.check.params;
    bool found = false;
    for (const auto& f : ctx.analysis.python) {
        if (!fileOk(p, f))
            continue;
        for (std::size_t i = 0; i < f.index.functions.size(); ++i) {
            if (!functionNameOk(p.list("name"), f, static_cast<FunctionId>(i)))
                continue;
            found = true;
            const auto& fn = f.index.functions[i];
            if (!p.has("params"))
                continue;
            std::vector<std::string> got;
            for (const auto& prm : fn.parameters)
                got.push_back(prm.name);
            if (got != p.list("params")) {
                std::string want, have;
                for (const auto& s : p.list("params"))
                    want += (want.empty() ? "" : ", ") + s;
                for (const auto& s : got)
                    have += (have.empty() ? "" : ", ") + s;
                ctx.emit(f, fn.nameSpan,
                         {{"name", fn.name},
                          {"detail",
                           concat(fn.name, "(", have, ") should be ", fn.name, "(", want, ")")}});
            }
        }
    }
    if (!found)
        emitMissing(ctx, "no function " + p.get("name"));
}

// What a function returns, over every return path (locals followed to their assignments, project
// calls to what they return): an error only when every value is known and none fits; a note when
// some value cannot be told.
void ruleReturnsCall(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    bool any = false;
    for (const auto& f : ctx.analysis.python) {
        if (!fileOk(p, f))
            continue;
        const int file = ctx.fileIndex(f);
        for (std::size_t i = 0; i < f.index.functions.size(); ++i) {
            const FunctionId id = static_cast<FunctionId>(i);
            if (!functionNameOk(p.list("function"), f, id) || !placeOk(ctx, f, id))
                continue;
            any = true;
            bool ok = false, unknown = false;
            std::string unknownText;
            const auto values = ctx.analysis.resolver->returnValues(file, id);
            for (const auto& v : values) {
                if (!p.has("callee")) {
                    // Anything but None is a value returned.
                    ok = ok || v.kind != python::ValueKind::None;
                    continue;
                }
                if (v.kind == python::ValueKind::Call && v.call >= 0) {
                    const PythonFile& vf = ctx.analysis.python[static_cast<std::size_t>(v.file)];
                    const Call& c = vf.index.calls[static_cast<std::size_t>(v.call)];
                    const bool match = anyGlob(p.list("callee"), c.callee) ||
                                       anyGlob(p.list("callee"), v.symbol.qualified);
                    if (match) {
                        bool all = true;
                        for (const auto& k : p.list("keywords"))
                            all = all && c.keyword(k) != nullptr;
                        ok = ok || all;
                        continue;
                    }
                }
                if (!v.known() && !unknown) {
                    unknown = true;
                    unknownText = v.text;
                }
            }
            const auto& fn = f.index.functions[i];
            if (ok)
                continue;
            if (unknown)
                ctx.note(f, fn.nameSpan,
                         "could not verify what " + fn.qualifiedName + "() returns: the value " +
                             (unknownText.empty() ? std::string("is not known")
                                                  : "comes from " + oneLine(unknownText)));
            else
                ctx.emit(f, fn.nameSpan, {{"name", fn.qualifiedName}});
        }
    }
    if (!any)
        ctx.applicable = false;
}

} // namespace portolan::guides
