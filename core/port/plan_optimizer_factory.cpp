// An optimizer that a function or a method of the script builds and returns: the factory's
// caller binds it, and that binding is the optimizer the loop steps.
#include "core/port/plan_internal.h"

#include <algorithm>

namespace portolan::port::planning {

namespace {

bool isIdentifier(const std::string& v)
{
    return !v.empty() && !std::isdigit(static_cast<unsigned char>(v[0])) &&
           std::all_of(v.begin(), v.end(), [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
           });
}

// The argument `call` gives parameter `name` of `def` (a method's receiver parameter is not
// one of the call's); "" when it gives none.
std::string argumentFor(const Call& call, const python::FunctionDef& def, const std::string& name)
{
    std::size_t index = 0;
    const bool method =
        !def.className.empty() && !def.parameters.empty() && def.parameters[0].name == "self";
    for (std::size_t k = method ? 1 : 0; k < def.parameters.size(); ++k, ++index)
        if (def.parameters[k].name == name)
            break;
    std::size_t positional = 0;
    for (const auto& a : call.arguments) {
        if (a.text.starts_with("*"))
            return {};
        if (a.keyword == name || (a.keyword.empty() && positional++ == index))
            return a.text;
    }
    return {};
}

} // namespace

// `net` of `net.parameters()` given as an optimizer's first argument, or of a name bound to it
// before, in the same function (`weights = net.parameters()`, then `Adam(weights, ...)`); "" for
// another first argument (parameter groups, a filter).
std::string Planner::parametersOwner(const Call& construction) const
{
    if (construction.arguments.empty() || !construction.arguments[0].keyword.empty())
        return {};
    const auto ownerOf = [](const std::string& t) {
        const auto p = t.find(".parameters()");
        return p != std::string::npos && p + 13 == t.size() ? t.substr(0, p) : std::string();
    };
    const std::string& t = construction.arguments[0].text;
    if (std::string owner = ownerOf(t); !owner.empty())
        return owner;
    std::string bound;
    for (const auto& a : idx().assignments)
        if (a.target == t && a.function == construction.function && !a.augmented &&
            a.span.startByte < construction.span.startByte)
            bound = ownerOf(a.value);
    return bound;
}

// A factory (`def make_tuner(net, rate): return SGD(net.parameters(), lr=rate)`, or a model's
// `configure_optimizers` in minGPT's form) is called by the script, which binds what it returns:
// each such binding is an optimizer, bound where the caller binds it and training the model the
// caller hands over (the receiver, for a method's `self.parameters()`). Without this, the name
// the loop steps has no optimizer, and a model's method building on `self.parameters()` looks
// like a layer training itself. False when the construction is not returned by its function or
// no call of that function binds it: the optimizer is then planned where it is built.
bool Planner::factoryOptimizer(const Call& construction, const std::string& qualified)
{
    const auto* def = idx().function(construction.function);
    if (!def || def->name == "__init__")
        return false;
    const int at = static_cast<int>(&construction - idx().calls.data());
    bool returned = false;
    for (const auto& r : idx().returns) {
        if (r.function != construction.function || r.text.empty())
            continue;
        const bool it =
            r.call == at || (!construction.assignedTo.empty() && r.text == construction.assignedTo);
        if (!it)
            return false; // it returns something else too: not a factory of this optimizer
        returned = true;
    }
    if (!returned)
        return false;
    std::vector<OptimizerPlan> made;
    for (const auto& c : idx().calls) {
        // A trainer's own `self.opt = self.make()` is the trainer class's (trainer_class.cpp).
        if (!callsFunction(c, *def) || receiverOf(c.callee) == "self" ||
            !isIdentifier(c.assignedTo))
            continue;
        const Stmt* st = scopeStatement(src().chainAt(c.span.startByte, c.span.endByte));
        if (!st)
            continue;
        OptimizerPlan o;
        o.variable = c.assignedTo;
        o.qualified = qualified;
        o.construction = refOf(m_p.entry, src(), construction.span);
        o.madeBy = refOf(m_p.entry, src(), c.span);
        o.statement = refOf(m_p.entry, src(), *st);
        const std::string owner = parametersOwner(construction);
        if (owner == "self" && !def->className.empty())
            o.trains = receiverOf(c.callee);
        else if (!owner.empty() && std::any_of(def->parameters.begin(), def->parameters.end(),
                                               [&](const auto& p) { return p.name == owner; }))
            o.trains = argumentFor(c, *def, owner);
        if (!isIdentifier(o.trains))
            o.trains.clear();
        made.push_back(std::move(o));
    }
    if (made.empty())
        return false;
    m_p.optimizers.insert(m_p.optimizers.end(), made.begin(), made.end());
    return true;
}

} // namespace portolan::port::planning
