// The loop's function called with the caller's names for its parameters (`train(model,
// trainloader, optimizer)` for `def train(net, loader, opt)`): each parameter reads the
// caller's value, which the port builds under the caller's name (LoopPlan::callerArguments).
#include "core/port/plan_internal.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>

namespace portolan::port::planning {

namespace {

bool isIdentifier(const std::string& t)
{
    return !t.empty() && !std::isdigit(static_cast<unsigned char>(t[0])) &&
           std::all_of(t.begin(), t.end(), [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
           });
}

// A default the port can write in the parameter's place: a number, a plain string, a constant
// or a module-level name.
bool isPlainDefault(const std::string& t)
{
    if (isIdentifier(t))
        return true;
    if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front())
        return t.find('{') == std::string::npos;
    char* end = nullptr;
    std::strtod(t.c_str(), &end);
    return !t.empty() && end == t.c_str() + t.size();
}

} // namespace

// `args.lr`: a flag of the entry's command line, read off its namespace.
bool Planner::isFlagRead(const std::string& text) const
{
    return !m_p.argsName.empty() &&
           std::any_of(m_p.flags.begin(), m_p.flags.end(),
                       [&](const auto& f) { return text == m_p.flagRead(f.dest); });
}

// What every call of `fn` gives each of its parameters: the caller's name, a flag
// (`fit(lr=args.lr)`, `fit(**vars(args))`), or the default it leaves; "" once two calls differ or
// one gives something else. A name that is a parameter of
// the calling function is followed to what that function's calls give it (`fit(net=model)`
// calling `epoch_pass(net=net, batches=train_batches)`).
std::map<std::string, std::string> Planner::callerNames(FunctionId fn, int depth) const
{
    std::map<std::string, std::string> given;
    const auto* def = idx().function(fn);
    if (!def || !def->className.empty() || depth > 3)
        return given;
    int calls = 0;
    for (const auto& c : idx().calls) {
        if (c.callee != def->name || c.function == fn)
            continue;
        const auto bound = boundArguments(c, *def);
        if (!bound || bound->splat)
            return {};
        ++calls;
        // The calling function's own parameters, as its callers give them.
        std::map<std::string, std::string> outer;
        bool outerKnown = false;
        for (const auto& p : def->parameters) {
            if (p.star)
                continue;
            std::string text;
            if (const auto it = bound->given.find(p.name); it != bound->given.end())
                text = isIdentifier(it->second.text) || isFlagRead(it->second.text)
                           ? it->second.text
                           : std::string();
            else if (const auto d = bound->defaults.find(p.name); d != bound->defaults.end())
                text = isPlainDefault(d->second) ? d->second : std::string();
            const auto* caller = idx().function(c.function);
            if (!text.empty() && caller && isIdentifier(text) &&
                std::any_of(caller->parameters.begin(), caller->parameters.end(),
                            [&](const auto& q) { return q.name == text; })) {
                if (!outerKnown) {
                    outer = callerNames(c.function, depth + 1);
                    outerKnown = true;
                }
                // Given something else than a name, or differently by two calls: not known.
                if (const auto o = outer.find(text); o != outer.end())
                    text = o->second;
            }
            const auto [at, first] = given.emplace(p.name, text);
            if (!first && at->second != text)
                at->second.clear();
        }
    }
    if (calls == 0)
        given.clear();
    return given;
}

// What every call of `fn` gives its parameters that its code reads as the caller's value:
// callerNames less what the function binds itself (a parameter it rebinds is not only the
// caller's value, and an argument named like one of its own names would be read as that) and
// configuration dicts bound where the call was.
std::map<std::string, std::string> Planner::callerAliases(FunctionId fn) const
{
    std::map<std::string, std::string> out;
    const auto* def = idx().function(fn);
    if (!def || !def->className.empty())
        return out;
    const Stmt* body = nullptr;
    for (const Stmt* s : src().chainAt(def->span.startByte, def->span.endByte))
        if (s->type == "function_definition")
            body = s;
    if (!body)
        return out;
    std::set<std::string> own;
    std::function<void(const std::vector<Stmt>&)> collect = [&](const std::vector<Stmt>& b) {
        for (const auto& s : b) {
            own.insert(s.defines.begin(), s.defines.end());
            collect(s.body);
            collect(s.other);
        }
    };
    collect(body->body);
    std::set<std::string> params;
    for (const auto& p : def->parameters)
        params.insert(p.name);
    // A name bound only to a configuration dict or a literal (`DIALS = {...}`, then
    // `fit(LAYOUT, DIALS)`) is bound where the call was instead (Slicer::bindConfigDicts): the
    // function's code keeps reading its parameter.
    const auto configuration = [&](const std::string& name) {
        bool any = false;
        for (const auto& a : idx().assignments) {
            if (a.target != name)
                continue;
            if (a.kind != python::ValueKind::Dict && a.kind != python::ValueKind::String &&
                a.kind != python::ValueKind::Number && a.kind != python::ValueKind::Tuple &&
                a.kind != python::ValueKind::Bool && a.kind != python::ValueKind::None &&
                !(a.kind == python::ValueKind::Call && a.value.starts_with("dict(")))
                return false;
            any = true;
        }
        return any;
    };
    for (const auto& [param, text] : callerNames(fn, 0)) {
        if (text.empty() || text == param || own.count(param) || own.count(text) ||
            params.count(text) || text == m_p.argsName || configuration(text))
            continue;
        out[param] = text;
    }
    return out;
}

void Planner::bindCallerArguments()
{
    if (!m_p.loop)
        return;
    auto& lp = *m_p.loop;
    lp.callerArguments = callerAliases(m_loopFunction);
    // The functions above it, up to the depth callerNames follows.
    std::vector<std::pair<FunctionId, int>> work{{m_loopFunction, 0}};
    std::set<std::string> seen;
    while (!work.empty()) {
        const auto [fn, depth] = work.back();
        work.pop_back();
        const auto* def = idx().function(fn);
        if (!def || depth > 3)
            continue;
        for (const auto& c : idx().calls) {
            const auto* caller = idx().function(c.function);
            if (c.callee != def->name || c.function == fn || !caller ||
                !seen.insert(caller->name).second)
                continue;
            if (auto aliases = callerAliases(c.function); !aliases.empty())
                lp.outerArguments[caller->name] = std::move(aliases);
            work.emplace_back(c.function, depth + 1);
        }
    }
    // The step's code reads them as the caller's values, as a step function's parameters are
    // read (bindStepNames); a step function's parameter given one of them reads it so too.
    for (auto& [param, arg] : lp.stepArguments)
        if (const auto it = lp.callerArguments.find(arg); it != lp.callerArguments.end())
            arg = it->second;
    for (const auto& [param, text] : lp.callerArguments)
        lp.stepArguments.emplace(param, text);
}

} // namespace portolan::port::planning
