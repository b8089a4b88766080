// The generators' side of a trainer class that builds its own state (trainer_class.cpp): its
// constructor as a caller of the loop's method, and its statements rendered as that scope's.
#include "core/port/generate_internal.h"

namespace portolan::port::detail {

void Slicer::addConstructorCaller()
{
    const auto& lp = *m_plan.loop;
    if (!lp.selfInit.valid() || lp.selfBuilt.empty())
        return;
    for (const Stmt* s : m_src->chainAt(lp.selfInit.start, lp.selfInit.end))
        if (s->start == lp.selfInit.start && s->end == lp.selfInit.end &&
            s->type == "function_definition") {
            Caller c;
            c.function = s;
            c.call = s->end; // the attributes as the constructor leaves them
            c.passed = lp.selfBuilt;
            m_callers.push_back(c);
            m_constructorScope = static_cast<int>(m_callers.size());
        }
}

// A parameter of the constructor read in its scope, whose value the plan knows: written in
// its place by constructorRules, not looked up.
bool Slicer::constructorValue(const std::string& name, int scope) const
{
    return m_constructorScope > 0 && scope == m_constructorScope &&
           m_plan.loop->initValues.count(name) > 0;
}

RenderRules constructorRules(const PortPlan& plan, const Stmt& s, const RenderRules& rules)
{
    if (!plan.loop || !plan.loop->selfInit.valid() || s.start < plan.loop->selfInit.start ||
        s.end > plan.loop->selfInit.end)
        return rules;
    const auto& lp = *plan.loop;
    RenderRules r = rules;
    for (const auto& a : lp.selfBuilt) {
        const auto it = rules.rename.find(a);
        r.selfAttributes[a] = it != rules.rename.end() ? it->second : a;
    }
    for (const auto& [param, value] : lp.initValues) {
        std::string text = value;
        if (!plan.argsName.empty() && rules.flag && value.starts_with(plan.argsName + "."))
            text = rules.flag(value.substr(plan.argsName.size() + 1));
        r.rename[param] = text;
    }
    return r;
}

std::string constructorValueText(const PortPlan& plan, const std::string& name, std::uint32_t at)
{
    if (!plan.loop || !plan.loop->selfInit.valid() || at < plan.loop->selfInit.start ||
        at >= plan.loop->selfInit.end)
        return {};
    const auto it = plan.loop->initValues.find(name);
    return it == plan.loop->initValues.end() ? std::string() : it->second;
}

} // namespace portolan::port::detail
