// The PopTorch module rules: which modules a project trains (resolved through assignments,
// factories, caller arguments and submodules from the vendor call that receives them), whether
// their forward computes the loss, and whether each is wrapped as the vendor asks.
#include "core/analysis/analysis.h"
#include "core/analysis/facts.h"
#include "core/common/text.h"
#include "core/guides/rules.h"
#include "core/python/resolve.h"

#include <algorithm>
#include <set>

namespace portolan::guides {

using analysis::ProjectAnalysis;
using analysis::PythonFile;
using python::Call;
using python::FunctionId;

// Module subclasses the project builds outside other modules: the models that are trained. A
// class call is resolved to the project class it builds; one assigned to an attribute of an
// attribute (self.model.head = Head()) is a submodule of a model, not a model.
std::vector<std::pair<const PythonFile*, const Call*>>
modelInstantiations(const ProjectAnalysis& a, const std::vector<std::string>& bases)
{
    std::vector<std::pair<const PythonFile*, const Call*>> out;
    for (const auto& f : a.python) {
        const int file = a.indexOf(&f);
        for (std::size_t i = 0; i < f.index.calls.size(); ++i) {
            const Call& c = f.index.calls[i];
            if (c.callee.empty())
                continue;
            const python::Symbol s = a.resolver->callee(file, static_cast<int>(i));
            if (s.kind != python::SymbolKind::Class || !s.rest.empty())
                continue;
            const PythonFile& df = a.python[static_cast<std::size_t>(s.file)];
            if (!classIndexHasBase(a, df, s.index, bases))
                continue;
            // A layer built inside another module; a class deriving from a torch.nn class
            // (`class TransformerModel(nn.Transformer)`) is a module too.
            std::vector<std::string> owners = bases;
            owners.push_back("torch.nn.*");
            if (classHasBase(a, f, className(f, c.function), owners))
                continue;
            if (std::count(c.assignedTo.begin(), c.assignedTo.end(), '.') >= 2)
                continue;
            out.emplace_back(&f, &c);
        }
    }
    return out;
}

namespace {

// The project classes a training hand-over (poptorch.trainingModel) receives, resolved through
// locals, factories and wrappers' construction; `handOvers` counts the calls, `unresolved` the
// ones whose module could not be told.
struct TrainedModules
{
    std::vector<python::Symbol> classes;
    int handOvers = 0;
    std::vector<std::pair<const PythonFile*, const Call*>> unresolved;
};

TrainedModules trainedModules(const ProjectAnalysis& a, const std::vector<std::string>& handOver)
{
    TrainedModules out;
    const auto& facts = a.facts();
    for (int file = 0; file < static_cast<int>(a.python.size()); ++file) {
        const PythonFile& f = a.python[static_cast<std::size_t>(file)];
        for (std::size_t i = 0; i < f.index.calls.size(); ++i) {
            const Call& c = f.index.calls[i];
            const std::string& q = facts.calleeQualified[static_cast<std::size_t>(file)][i];
            if (q.empty() || !anyGlob(handOver, q))
                continue;
            ++out.handOvers;
            const python::Argument* arg = c.keyword("model");
            if (!arg && !c.arguments.empty() && c.arguments.front().keyword.empty())
                arg = &c.arguments.front();
            bool found = false;
            if (arg) {
                std::vector<python::Value> values = a.resolver->argumentValues(file, c, *arg);
                // A factory: what the project function returns.
                for (std::size_t k = 0; k < values.size() && k < 64; ++k) {
                    const python::Value v = values[k];
                    if (v.kind != python::ValueKind::Call &&
                        !(v.symbol.kind == python::SymbolKind::Parameter))
                        continue;
                    if (v.symbol.kind == python::SymbolKind::Class && v.symbol.rest.empty()) {
                        found = true;
                        out.classes.push_back(v.symbol);
                    } else if (v.symbol.kind == python::SymbolKind::Function &&
                               v.symbol.rest.empty()) {
                        for (const auto& r :
                             a.resolver->returnValues(v.symbol.file, v.symbol.index))
                            values.push_back(r);
                    } else if (v.symbol.kind == python::SymbolKind::Parameter &&
                               v.symbol.rest.empty() && v.symbol.function >= 0) {
                        // A parameter (train(model, opts)): what the callers pass for it.
                        python::Symbol fnSym;
                        fnSym.kind = python::SymbolKind::Function;
                        fnSym.file = v.symbol.file;
                        fnSym.index = v.symbol.function;
                        const PythonFile& pf = a.python[static_cast<std::size_t>(v.symbol.file)];
                        const auto& fd =
                            pf.index.functions[static_cast<std::size_t>(v.symbol.function)];
                        for (const auto& site : a.resolver->callSites(fnSym)) {
                            const PythonFile& sf = a.python[static_cast<std::size_t>(site.file)];
                            const Call& sc = sf.index.calls[static_cast<std::size_t>(site.call)];
                            for (std::size_t ai = 0; ai < sc.arguments.size(); ++ai)
                                if (python::Resolver::parameterFor(
                                        fd, sc, ai, !fd.className.empty()) == v.symbol.index)
                                    for (const auto& w : a.resolver->argumentValues(
                                             site.file, sc, sc.arguments[ai]))
                                        values.push_back(w);
                        }
                    } else if (v.symbol.kind == python::SymbolKind::Instance &&
                               (v.symbol.rest == "train" || v.symbol.rest == "half" ||
                                v.symbol.rest == "float")) {
                        // model.train() / model.half() return the module itself.
                        python::Symbol cls = v.symbol;
                        cls.kind = python::SymbolKind::Class;
                        cls.rest.clear();
                        found = true;
                        out.classes.push_back(cls);
                    }
                }
            }
            if (!found)
                out.unresolved.emplace_back(&f, &c);
        }
    }
    return out;
}

bool functionComputesLoss(const PythonFile& f, FunctionId id, const std::vector<std::string>& loss)
{
    for (const auto& c : f.index.calls)
        if (c.function == id && calleeOk(loss, c))
            return true;
    return false;
}

enum class LossVerdict : std::uint8_t
{
    Computes,
    DoesNot,
    Unknown
};

// Whether a module class's method (forward, or the loss method a wrapper calls) computes a loss,
// itself or in the submodules it hands its input to (`self.net(x)` where __init__ assigned
// `self.net = Net(...)`, or `self.net.cost(x, y)`: the loss a model computes in a method of its
// own). A submodule whose class cannot be told (assigned from a parameter, a factory) makes the
// answer Unknown.
LossVerdict methodLoss(const ProjectAnalysis& a, int file, int cls, const std::string& method,
                       const std::vector<std::string>& loss, int depth)
{
    const python::Symbol fwd = a.resolver->method(file, cls, method);
    if (fwd.kind != python::SymbolKind::Function)
        return LossVerdict::Unknown;
    const PythonFile& ff = a.python[static_cast<std::size_t>(fwd.file)];
    if (functionComputesLoss(ff, fwd.index, loss))
        return LossVerdict::Computes;
    LossVerdict out = LossVerdict::DoesNot;
    const std::string& className =
        a.python[static_cast<std::size_t>(file)].index.classes[static_cast<std::size_t>(cls)].name;
    for (const auto& c : ff.index.calls) {
        if (c.function != fwd.index || !c.callee.starts_with("self."))
            continue;
        std::string attr = c.callee.substr(5);
        // self.net.forward(x) calls the submodule as self.net(x) does (a wrapper delegating to
        // the module it wraps).
        for (const std::string_view direct : {".forward", ".__call__"})
            if (attr.ends_with(direct))
                attr.resize(attr.size() - direct.size());
        // self.net.cost(x, y): a method of the submodule other than forward.
        std::string member = "forward";
        if (const auto dot = attr.find('.'); dot != std::string::npos) {
            member = attr.substr(dot + 1);
            attr.resize(dot);
            if (member.find('.') != std::string::npos)
                continue;
        }
        const bool viaMember = member != "forward";
        // A method of the module itself (self.compute(x)): its own calls count too.
        if (const python::FunctionDef* m = ff.index.findFunction(className + "." + attr);
            m && !viaMember) {
            if (functionComputesLoss(ff, static_cast<FunctionId>(m - ff.index.functions.data()),
                                     loss))
                return LossVerdict::Computes;
            continue;
        }
        // A submodule: the class __init__ built it from, when it says.
        bool resolved = false;
        bool assigned = false;
        for (const auto& as : ff.index.assignments) {
            if (as.target != "self." + attr)
                continue;
            const python::FunctionDef* in = ff.index.function(as.function);
            if (!in || in->className != className)
                continue;
            assigned = true;
            if (as.call < 0) {
                // `self.model = model`: the module a wrapper is given cannot be told here. A
                // member call on any other attribute (self.hidden.detach()) is not a submodule's.
                const bool fromParameter =
                    std::any_of(in->parameters.begin(), in->parameters.end(),
                                [&](const python::Parameter& prm) { return prm.name == as.value; });
                if (viaMember && !fromParameter)
                    resolved = true;
                continue;
            }
            const python::Symbol built = a.resolver->callee(fwd.file, as.call);
            // A torch.nn layer computes no loss unless it is one (its call would have matched);
            // a library's object (self.h = torch.zeros(...)) has no loss method of the project's.
            if (built.kind == python::SymbolKind::External &&
                (viaMember ||
                 (built.qualified.starts_with("torch.nn.") && !anyGlob(loss, built.qualified)))) {
                resolved = true;
                continue;
            }
            if (built.kind != python::SymbolKind::Class || !built.rest.empty() || depth > 3)
                continue;
            resolved = true;
            const LossVerdict inner =
                methodLoss(a, built.file, built.index, member, loss, depth + 1);
            if (inner == LossVerdict::Computes)
                return LossVerdict::Computes;
            if (inner == LossVerdict::Unknown)
                out = LossVerdict::Unknown;
        }
        if (!resolved && (assigned || !viaMember))
            out = LossVerdict::Unknown;
    }
    return out;
}

} // namespace

void ruleForwardComputesLoss(RuleContext& ctx)
{
    if (exemptedByProjectCall(ctx))
        return;
    const RuleParams& p = ctx.check.params;
    const auto bases = p.has("base") ? p.list("base") : std::vector<std::string>{"*Module"};
    const auto& loss = p.list("loss");
    // A project that hands a module to the training API: exactly those modules are checked.
    if (p.has("hand-over")) {
        const TrainedModules trained = trainedModules(ctx.analysis, p.list("hand-over"));
        if (trained.handOvers > 0) {
            for (const auto& [f, call] : trained.unresolved)
                ctx.note(*f, call->nameSpan,
                         "could not verify that the module given to " + call->callee +
                             "() computes its loss in forward: the analysis cannot tell which "
                             "module it is");
            std::set<std::pair<int, int>> done;
            for (const auto& cls : trained.classes) {
                if (!done.insert({cls.file, cls.index}).second)
                    continue;
                const PythonFile& cf = ctx.analysis.python[static_cast<std::size_t>(cls.file)];
                const auto& cd = cf.index.classes[static_cast<std::size_t>(cls.index)];
                const python::Symbol fwd =
                    ctx.analysis.resolver->method(cls.file, cls.index, "forward");
                if (fwd.kind != python::SymbolKind::Function) {
                    ctx.note(cf, cd.nameSpan,
                             "could not verify that " + cd.name +
                                 " computes its loss: its forward is not in the project");
                    continue;
                }
                const PythonFile& ff = ctx.analysis.python[static_cast<std::size_t>(fwd.file)];
                const LossVerdict verdict =
                    methodLoss(ctx.analysis, cls.file, cls.index, "forward", loss, 0);
                if (verdict == LossVerdict::Computes)
                    continue;
                const auto& fn = ff.index.functions[static_cast<std::size_t>(fwd.index)];
                if (verdict == LossVerdict::Unknown)
                    ctx.note(ff, fn.nameSpan,
                             "could not verify that " + cd.name +
                                 ".forward computes the loss: it hands its input to a submodule, "
                                 "which may");
                else
                    ctx.emit(ff, fn.nameSpan, {{"name", cd.name}, {"detail", "computes no loss"}});
            }
            return;
        }
    }
    // An original: the models it builds are what will be handed over.
    const auto uses = modelInstantiations(ctx.analysis, bases);
    std::set<std::string> done;
    for (const auto& [file, call] : uses) {
        const std::string cls = lastPart(call->callee);
        if (!done.insert(cls).second)
            continue;
        for (const auto& f : ctx.analysis.python) {
            const python::ClassDef* c = f.index.findClass(cls);
            if (!c)
                continue;
            const python::FunctionDef* fwd = f.index.findFunction(cls + ".forward");
            if (!fwd) {
                ctx.emit(f, c->nameSpan, {{"name", cls}, {"detail", cls + " has no forward"}});
                break;
            }
            const FunctionId id = static_cast<FunctionId>(fwd - f.index.functions.data());
            bool training = false;
            for (const auto& u : f.index.attributes)
                training = training || (u.function == id && u.chain == "self.training");
            const bool computes = functionComputesLoss(f, id, loss);
            if (!training || !computes)
                ctx.emit(
                    f, fwd->nameSpan,
                    {{"name", cls},
                     {"detail", !computes ? "computes no loss" : "does not check self.training"}});
            break;
        }
    }
    if (uses.empty())
        ctx.applicable = false;
}

void ruleModuleMustBeWrapped(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    const auto bases = p.has("base") ? p.list("base") : std::vector<std::string>{"*Module"};
    const auto uses = modelInstantiations(ctx.analysis, bases);
    for (const auto& [file, call] : uses)
        if (ctx.inScope(*file, call->function) &&
            !isWrapped(ctx.analysis, *file, *call, p.list("wrapper")))
            ctx.emit(*file, call->nameSpan, {{"name", call->callee}});
    if (uses.empty())
        ctx.applicable = false;
}

} // namespace portolan::guides
