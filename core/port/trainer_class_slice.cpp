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
    // A parameter of the launched function that the launch gives a literal (the process index,
    // 0), read in it.
    if (scope >= 0 && m_plan.loop && m_plan.loop->launch.valid()) {
        const Stmt* in = scope == 0 ? m_function : m_callers[std::size_t(scope - 1)].function;
        if (in && !launchValue(m_plan, name, in->start).empty())
            return true;
    }
    // An attribute of the same name as a parameter (`self.rate = rate`) is the attribute.
    return m_constructorScope > 0 && scope == m_constructorScope &&
           m_plan.loop->initValues.count(name) > 0 && !m_plan.loop->selfBuilt.count(name);
}

// The seeding calls of a trainer class's constructor (`torch.manual_seed(0)` before it builds
// the model): the port seeds where it builds them.
void Slicer::constructorSeeds(std::vector<const Stmt*>& out) const
{
    if (m_constructorScope <= 0)
        return;
    for (const auto& s :
         m_callers[static_cast<std::size_t>(m_constructorScope - 1)].function->body) {
        if (s.type != "expression_statement" || !s.defines.empty())
            continue;
        const std::string t = m_src->text(s.start, s.end);
        if (t.find("manual_seed(") != std::string::npos ||
            t.find("random.seed(") != std::string::npos)
            out.push_back(&s);
    }
}

namespace {

// A literal or a flag (`args.lr`): a value the constructor's code can be given as text.
bool valueText(const PortPlan& plan, const std::string& v)
{
    const bool flag = !plan.argsName.empty() && v.starts_with(plan.argsName + ".") &&
                      v.find_first_of("()[] ") == std::string::npos;
    const bool literal =
        !v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '"' ||
                       v[0] == '\'' || v[0] == '-' || v == "True" || v == "False" || v == "None");
    return flag || literal;
}

// A value as the target reads it (a flag through `rules.flag`).
std::string valueAsRead(const PortPlan& plan, const std::string& value, const RenderRules& rules)
{
    if (!plan.argsName.empty() && rules.flag && value.starts_with(plan.argsName + "."))
        return rules.flag(value.substr(plan.argsName.size() + 1));
    return value;
}

// The function a launch starts (LoopPlan::launched), around byte `at`: null when `at` is
// elsewhere.
const Stmt* launchedFunctionAt(const PortPlan& plan, std::uint32_t at)
{
    const SourceFile* src = plan.source(plan.entry);
    if (!src || !plan.loop || plan.loop->launched.empty())
        return nullptr;
    for (const Stmt* s : src->chainAt(at, at + 1))
        if (s->type == "function_definition" && s->name == plan.loop->launched)
            return s;
    return nullptr;
}

} // namespace

// A parameter of the function a launch starts (LoopPlan::launch), read at `at` in it, that the
// launch gives a literal or a flag under another name: that value, else "".
std::string launchValue(const PortPlan& plan, const std::string& name, std::uint32_t at)
{
    if (!plan.loop || !plan.loop->launch.valid() || !launchedFunctionAt(plan, at))
        return {};
    const auto it = plan.loop->launchArguments.find(name);
    return it != plan.loop->launchArguments.end() && it->second != name &&
                   valueText(plan, it->second)
               ? it->second
               : std::string();
}

RenderRules constructorRules(const PortPlan& plan, const Stmt& s, const RenderRules& rules)
{
    if (plan.loop && plan.loop->launch.valid() && launchedFunctionAt(plan, s.start)) {
        RenderRules r = rules;
        for (const auto& [param, value] : plan.loop->launchArguments)
            if (!launchValue(plan, param, s.start).empty())
                r.rename[param] = valueAsRead(plan, value, rules);
        return r;
    }
    if (!plan.loop || !plan.loop->selfInit.valid() || s.start < plan.loop->selfInit.start ||
        s.end > plan.loop->selfInit.end)
        return rules;
    const auto& lp = *plan.loop;
    RenderRules r = rules;
    for (const auto& a : lp.selfBuilt) {
        const auto it = rules.rename.find(a);
        r.selfAttributes[a] = it != rules.rename.end() ? it->second : a;
    }
    for (const auto& [param, value] : lp.initValues)
        r.rename[param] = valueAsRead(plan, value, rules);
    // `self.rate` stored from a parameter the instantiation gives a literal or a flag: that
    // value; `self.model` stored from a value the caller builds: the caller's name, as the port
    // names it.
    for (const auto& [attribute, arg] : lp.selfArguments) {
        if (lp.selfBuilt.count(attribute))
            continue;
        if (valueText(plan, arg))
            r.selfAttributes[attribute] = valueAsRead(plan, arg, rules);
        else if (const auto it = rules.rename.find(arg);
                 arg.find_first_of("().[], ") == std::string::npos)
            r.selfAttributes[attribute] = it != rules.rename.end() ? it->second : arg;
    }
    // `self.configure_optimizers()`: the expression the method returns, read in this scope.
    if (const SourceFile* src = plan.source(plan.entry))
        for (const auto& [call, expression] : lp.initCalls)
            r.replace[{call.start, call.end}] =
                render(*src, src->nodeAt(expression.start, expression.end), r);
    return r;
}

std::string constructorValueText(const PortPlan& plan, const std::string& name, std::uint32_t at)
{
    if (const std::string launched = launchValue(plan, name, at); !launched.empty())
        return launched;
    if (!plan.loop || !plan.loop->selfInit.valid())
        return {};
    const auto& init = plan.loop->selfInit;
    // `self.rate`, which the constructor sets from its parameter (`self.rate = rate`): that
    // parameter's value, wherever the class reads it.
    const SourceFile* src = plan.source(plan.entry);
    if (name.starts_with("self.") && !plan.loop->selfBuilt.count(name.substr(5))) {
        const auto it = plan.loop->selfArguments.find(name.substr(5));
        return it != plan.loop->selfArguments.end() && valueText(plan, it->second) ? it->second
                                                                                   : std::string();
    }
    if (name.starts_with("self.") && src) {
        const auto chain = src->chainAt(init.start, init.end);
        for (const Stmt* def : chain)
            if (def->start == init.start)
                for (const auto& s : def->body) {
                    const std::string text = src->text(s.start, s.end);
                    const auto eq = text.find('=');
                    if (s.type != "expression_statement" || eq == std::string::npos ||
                        text.substr(0, text.find_last_not_of(' ', eq - 1) + 1) != name)
                        continue;
                    std::string value = text.substr(eq + 1);
                    value.erase(0, value.find_first_not_of(' '));
                    return constructorValueText(plan, value, init.start);
                }
        return {};
    }
    if (at < init.start || at >= init.end)
        return {};
    const auto it = plan.loop->initValues.find(name);
    return it == plan.loop->initValues.end() ? std::string() : it->second;
}

} // namespace portolan::port::detail
