#include "core/port/caller_view.h"
#include "core/port/generate.h"
#include "core/port/plan_internal.h"
#include "core/port/run_values.h"

#include <algorithm>

namespace portolan::port {

namespace planning {

bool Planner::chooseEntry()
{
    int best = -1;
    int bestScore = -1;
    for (std::size_t i = 0; i < m_a.python.size(); ++i) {
        const auto& f = m_a.python[i];
        if (!m_o.entry.empty()) {
            if (f.path == m_o.entry) {
                best = static_cast<int>(i);
                break;
            }
            continue;
        }
        int score = 0;
        for (const auto& c : f.index.calls) {
            if (c.callee.ends_with(".backward"))
                score += 10;
            if (c.callee.ends_with(".step"))
                score += 3;
            if (c.callee.ends_with("parse_args"))
                score += 2;
        }
        if (f.path.find('/') != std::string::npos)
            score -= 1;
        if (score > bestScore && score >= 10) {
            bestScore = score;
            best = static_cast<int>(i);
        }
    }
    if (best < 0)
        return false;
    m_file = best;
    m_p.entry = m_a.python[static_cast<std::size_t>(best)].path;
    return true;
}

FunctionId Planner::functionAt(std::uint32_t byte) const
{
    FunctionId found = ModuleLevel;
    std::uint32_t size = UINT32_MAX;
    for (std::size_t i = 0; i < idx().functions.size(); ++i) {
        const auto& s = idx().functions[i].span;
        if (s.startByte <= byte && byte < s.endByte && s.endByte - s.startByte < size) {
            size = s.endByte - s.startByte;
            found = static_cast<FunctionId>(i);
        }
    }
    return found;
}

const Call* Planner::innerCall(const Assignment& a) const
{
    if (a.call < 0)
        return nullptr;
    const Call* c = &idx().calls[static_cast<std::size_t>(a.call)];
    // `Net().to(device)`: the construction is the call inside the device move.
    for (int guard = 0; guard < 4; ++guard) {
        const std::string m = lastPart(c->callee.empty() ? std::string() : c->callee);
        const bool move =
            c->callee.empty() || m == "to" || m == "cuda" || m == "double" || m == "float";
        if (!move)
            return c;
        const Call* inner = nullptr;
        for (const auto& d : idx().calls)
            if (d.span.startByte == c->span.startByte && d.span.endByte < c->span.endByte &&
                (!inner || d.span.endByte > inner->span.endByte))
                inner = &d;
        if (!inner)
            return c;
        c = inner;
    }
    return c;
}

// `param`, given a call written inline by call `c` (`fit(Net(), …)`), as the assignment
// `param = Net()` in the caller's scope, where the port binds it (Slicer::bindConfigDicts).
const Assignment* Planner::inlineArgument(const std::string& param, const Call& c,
                                          const python::Argument* argument) const
{
    if (!argument)
        return nullptr;
    const auto& calls = idx().calls;
    const auto inner = std::find_if(calls.begin(), calls.end(), [&](const Call& d) {
        return d.span.startByte == argument->valueSpan.startByte &&
               d.span.endByte == argument->valueSpan.endByte;
    });
    if (inner == calls.end())
        return nullptr;
    for (const auto& a : m_inlineArguments)
        if (a.span.startByte == argument->valueSpan.startByte && a.target == param)
            return &a;
    Assignment a;
    a.target = param;
    a.value = argument->text;
    a.span = argument->valueSpan;
    a.function = c.function;
    a.kind = python::ValueKind::Call;
    a.call = static_cast<int>(inner - calls.begin());
    return &m_inlineArguments.emplace_back(std::move(a));
}

// The assignment that gives `name` its value as seen from `fn`: in fn, else through the
// parameter it is (the argument of fn's call sites in this file), else at module level.
const Assignment* Planner::assignmentOf(const std::string& name, FunctionId fn, int depth) const
{
    if (depth > 4)
        return nullptr;
    if (fn == m_loopFunction)
        if (const Assignment* a = selfBuiltAssignment(name))
            return a;
    for (const auto& a : idx().assignments)
        if (a.function == fn && a.target == name && !a.augmented)
            return &a;
    if (fn != ModuleLevel) {
        const auto* def = idx().function(fn);
        const bool parameter = def && std::any_of(def->parameters.begin(), def->parameters.end(),
                                                  [&](const auto& p) { return p.name == name; });
        if (parameter) {
            // The argument each caller or launcher of fn gives it, followed to its binding in
            // the caller's scope.
            for (const auto& c : idx().calls) {
                const auto given = boundArguments(c, *def);
                if (!given || !given->given.count(name))
                    continue;
                const auto& handed = given->given.at(name);
                const std::string& arg = handed.text;
                if (!arg.empty() && arg.find_first_of("().[] ") == std::string::npos)
                    if (const auto* a = assignmentOf(arg, c.function, depth + 1))
                        return a;
                if (const auto* a = inlineArgument(name, c, handed.argument))
                    return a;
            }
            return nullptr;
        }
        if (const auto* parentDef = idx().function(fn))
            return assignmentOf(name, parentDef->parent, depth + 1);
    }
    return nullptr;
}

Result<bool> Planner::run()
{
    m_p.commandLine = m_o.values;
    for (const auto& f : m_a.python)
        m_p.sources[f.path] = std::make_shared<SourceFile>(f.path, f.text);
    if (!chooseEntry()) {
        Diagnostic d;
        d.code = "port.no-training";
        d.message = m_o.entry.empty()
                        ? "no training loop to port: no file calls backward()"
                        : "the entry " + m_o.entry + " is not a Python file of the project";
        d.location.file = m_a.root.string();
        return Result<bool>::fail(d);
    }
    // The flags of the entry script and its namespace.
    std::map<std::string, int> namespaces;
    for (const auto& f : m_a.facts().flags)
        if (f.file == m_file)
            m_p.flags.push_back(f);
    for (const auto& u : m_a.facts().cliUses)
        if (u.file == m_file)
            ++namespaces[u.namespaceName];
    int most = 0;
    for (const auto& [n, count] : namespaces)
        if (count > most) {
            most = count;
            m_p.argsName = n;
        }
    // Flags read only as a whole (`fit(**vars(opts))`): the namespace is the name the parsed
    // command line is bound to. Bound as a dict (`args = vars(parser.parse_args())`), the
    // namespace's flags are read as its entries, whichever way the namespace was found.
    for (const auto& a : idx().assignments) {
        const bool plain = std::all_of(a.target.begin(), a.target.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
        const bool dict = a.value.starts_with("vars(") && a.value.ends_with(".parse_args())");
        if (!plain || m_p.flags.empty() || !(dict || a.value.ends_with(".parse_args()")))
            continue;
        if (m_p.argsName.empty())
            m_p.argsName = a.target;
        if (a.target == m_p.argsName)
            m_p.argsDict = dict;
    }
    m_p.paramsDetermined = guides::planParamsFromArgparse(m_a, guides::ParamsTarget::Determined);
    m_p.paramsCerebras = guides::planParamsFromArgparse(m_a, guides::ParamsTarget::Cerebras);
    findOptimizers();
    findDevices();
    if (!findLoop()) {
        Diagnostic d;
        d.code = "port.no-loop";
        d.message =
            "no training loop to port: backward() is not called inside a loop in " + m_p.entry;
        d.location.file = m_p.entry;
        // At the first backward(): the spot the user looks at to write the loop by hand.
        for (const auto& c : idx().calls)
            if ((c.callee.ends_with(".backward") || c.callee == "backward") &&
                d.location.line == 0) {
                d.location.line = c.span.line;
                d.location.column = c.span.column;
            }
        return Result<bool>::fail(d);
    }
    bindCallerArguments();
    keepLiveOptimizers();
    bindLaunch();
    findModel();
    findLoss();
    findData(m_p.loop->iterable, m_loopFunction, m_p.train);
    // Batches that do not come from a DataLoader are the generators' to place (Determined
    // hands out the loop's values: nonLoaderManual in generate_common.cpp).
    // Optimizers never stepped in the loop are not the training's.
    for (auto& o : m_p.optimizers)
        if (!o.synthesized && m_p.loop)
            for (const auto& s : m_p.loop->steps)
                if (s.text.find(o.variable + ".step(") != std::string::npos &&
                    s.text.find(o.variable + ".step()") == std::string::npos)
                    o.closure = true;
    for (auto& s : m_p.schedulers) {
        s.perBatch = m_p.loop && m_loopStmt &&
                     containsMethodCall(src(), m_loopStmt->node, "step", s.variable);
    }
    findEval();
    findLeftovers();
    findLrChanges();
    return Result<bool>::ok(true);
}

} // namespace planning

const SourceFile* PortPlan::source(const std::string& path) const
{
    const auto it = sources.find(path);
    return it == sources.end() ? nullptr : it->second.get();
}

const analysis::CliFlag* PortPlan::flag(const std::string& dest) const
{
    for (const auto& f : flags)
        if (f.dest == dest)
            return &f;
    return nullptr;
}

guides::Finding manualFinding(const std::string& message, const CodeRef& at,
                              const std::string& hint)
{
    guides::Finding f;
    f.checkId = "port.manual";
    f.stepId = "port";
    f.severity = Severity::Warning;
    f.message = message;
    f.location.file = at.file;
    f.location.line = at.line;
    f.location.column = at.column + 1;
    f.hint = hint;
    return f;
}

std::optional<PortResult> portWithoutPlan(const Diagnostic& planError, const std::string& target,
                                          const std::string& api)
{
    // A readable project whose training loop the plan cannot find: nothing can be generated,
    // and that is the one thing left (exit 1), not a bad argument (exit 2).
    if (planError.code != "port.no-loop")
        return std::nullopt;
    PortResult r;
    r.target = target;
    r.api = api;
    CodeRef at;
    at.file = planError.location.file;
    at.line = planError.location.line;
    at.column = std::max(0, planError.location.column - 1);
    r.manual.push_back(manualFinding(planError.message + ": nothing was generated", at,
                                     "write the loop over batches that calls backward() and "
                                     "the optimizer step, or name the script with --entry"));
    return r;
}

Result<PortPlan> planPort(const analysis::ProjectAnalysis& analysis, const PortOptions& options)
{
    // The training started from another module: planned on the script the two make together
    // (caller_view.cpp), of the project's root and data files.
    if (options.entry.empty())
        if (const auto view = detail::callerView(analysis))
            if (const auto root = detail::writeCallerView(analysis, *view)) {
                auto viewed = analysis::analyzeProject(*root);
                std::error_code ec;
                if (viewed && !viewed.value->python.empty()) {
                    PortOptions o = options;
                    o.entry = view->entry;
                    auto plan = planPort(*viewed.value, o);
                    std::filesystem::remove_all(*root, ec);
                    if (plan) {
                        // The entry holds the module's code: the port does not carry a second
                        // copy, whose batch loop the target's check would read as the port's.
                        if (!view->importedElsewhere)
                            plan.value->sources.erase(view->module);
                        plan.value->root = analysis.root;
                        plan.value->launcher = view->entry;
                        plan.value->dataFiles = dataFilesRead(analysis);
                        plan.value->notes.push_back(
                            "the training of " + view->module + " is started by " + view->entry +
                            ", which imports it: the port reads " + view->entry +
                            " with the code of " + view->module +
                            " in place of its import (the lines of " + view->entry +
                            " named here are counted so)");
                    }
                    return plan;
                }
                std::filesystem::remove_all(*root, ec);
            }
    PortPlan plan;
    plan.root = analysis.root;
    planning::Planner planner(analysis, options, plan);
    auto r = planner.run();
    if (!r)
        return Result<PortPlan>::fail(r.error);
    // Found as the configuration's epoch count finds it, so the plan and the config agree.
    if (plan.loop)
        plan.loop->epochLoop = detail::epochLoopOf(plan);
    plan.dataFiles = dataFilesRead(analysis);
    return Result<PortPlan>::ok(std::move(plan));
}

} // namespace portolan::port
