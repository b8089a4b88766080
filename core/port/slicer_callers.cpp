// The Slicer's callers of the batch loop's function: the functions (and the `__main__` block)
// that call it, and a trainer class's constructor counted as one more, so that a value a caller
// builds and hands over is moved with it (generate_internal.h).
#include "core/port/generate_internal.h"
#include "core/port/run_value_resolver.h"
#include "core/port/syntax.h"

#include <algorithm>
#include <functional>
#include <string_view>

namespace portolan::port::detail {

namespace {

// The parameter aliases of `function`, a function above the loop's (LoopPlan::outerArguments);
// null: none.
const std::map<std::string, std::string>* outerAliases(const PortPlan& plan,
                                                       const std::string& function)
{
    if (!plan.loop)
        return nullptr;
    const auto it = plan.loop->outerArguments.find(function);
    return it == plan.loop->outerArguments.end() ? nullptr : &it->second;
}

} // namespace

void Slicer::findCallers()
{
    if (!m_src || !m_function || m_function->name.empty())
        return;
    // The parameter names, in order (self/cls excluded by position only in methods, which
    // are not batch-loop functions of a script).
    // `callee` is the loop's function (of 0) or the of-th caller's, whose callers hand it
    // configuration dicts (a worker reading `settings["num_epochs"]` for the loop's) and values
    // under the same name (`main` building `net` for `fit(loader, net)`, which hands it on to the
    // loop's function).
    const Stmt* callee = m_function;
    int of = 0;
    std::vector<std::string> params = parameterNames(*m_src, *m_function);
    static const std::map<std::string, std::string> none;
    const auto& aliases = m_plan.loop ? m_plan.loop->callerArguments : none;
    std::set<std::string> aliasTargets;
    for (const auto& [param, value] : aliases)
        aliasTargets.insert(value);
    if (m_plan.loop)
        for (const auto& [fn, outer] : m_plan.loop->outerArguments)
            for (const auto& [param, value] : outer)
                aliasTargets.insert(value);
    std::vector<std::pair<std::string, std::string>> handed; // parameter -> a name given it
    std::function<void(TSNode)> walk = [&](TSNode n) {
        if (std::string_view(ts_node_type(n)) == "call") {
            const TSNode fn = ts_node_child_by_field_name(n, "function", 8);
            if (m_src->text(fn) == callee->name) {
                Caller c;
                c.call = ts_node_start_byte(n);
                const auto chain = m_src->chainAt(ts_node_start_byte(n), ts_node_end_byte(n));
                for (const Stmt* s : chain)
                    if (s->type == "function_definition" || s->type == "decorated_definition" ||
                        (!c.function && isMainBlock(*s)))
                        c.function = s;
                for (std::size_t i = 0; c.function && i + 1 < chain.size(); ++i)
                    if (chain[i] == c.function)
                        c.statement = chain[i + 1];
                if (!c.function && !chain.empty())
                    c.statement = chain.front(); // a call at module level

                const TSNode args = ts_node_child_by_field_name(n, "arguments", 9);
                std::size_t position = 0;
                for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
                    const TSNode a = ts_node_named_child(args, i);
                    const std::string at = ts_node_type(a);
                    if (at == "keyword_argument") {
                        const std::string k =
                            m_src->text(ts_node_child_by_field_name(a, "name", 4));
                        const std::string v =
                            m_src->text(ts_node_child_by_field_name(a, "value", 5));
                        if (v == k)
                            c.passed.insert(k);
                        handed.emplace_back(k, v);
                        continue;
                    }
                    if (at == "identifier" && position < params.size() &&
                        m_src->text(a) == params[position])
                        c.passed.insert(params[position]);
                    if (at == "identifier" && position < params.size())
                        handed.emplace_back(params[position], m_src->text(a));
                    ++position;
                }
                bindConfigDicts(c, args, params, keywordsParameter(*m_src, *callee));
                c.of = of;
                // The loop's function's parameters given the callers' names for them
                // (LoopPlan::callerArguments), perhaps through a caller's own parameters: the
                // caller that binds the name is looked up under it, and a caller in between is
                // followed to its callers.
                bool handsOn = false;
                for (const auto& [param, value] : handed) {
                    if (aliasTargets.count(value))
                        c.passed.insert(value);
                    const auto* outer = of > 0 ? outerAliases(m_plan, callee->name) : nullptr;
                    handsOn = handsOn || (of == 0 && aliases.count(param)) ||
                              (outer && outer->count(param));
                }
                handed.clear();
                if (c.function != m_function && c.function != callee &&
                    (!c.passed.empty() || !c.bound.empty() || handsOn))
                    m_callers.push_back(c);
            }
        }
        for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
            walk(ts_node_named_child(n, i));
    };
    for (const auto& s : m_src->statements())
        walk(s.node);
    for (std::size_t k = 0, direct = m_callers.size(); k < direct; ++k)
        if (const Stmt* f = m_callers[k].function;
            f && f->type == "function_definition" && !f->name.empty()) {
            callee = f;
            of = static_cast<int>(k) + 1;
            params = parameterNames(*m_src, *f);
            for (const auto& s : m_src->statements())
                walk(s.node);
        }
    m_calls = m_callers.size();
    // A trainer class instantiated with the values its method's loop reads (`self.x`): they
    // are looked up where the instance is made, before it.
    const auto& lp = *m_plan.loop;
    addConstructorCaller();
    if (lp.instance.valid()) {
        Caller c;
        c.call = lp.instance.start;
        for (const Stmt* s : m_src->chainAt(lp.instance.start, lp.instance.end))
            if (s->type == "function_definition" || s->type == "decorated_definition")
                c.function = s;
        for (const auto& [attribute, arg] : lp.selfArguments)
            for (const auto& n : identifiersOf(arg))
                c.passed.insert(n);
        if (c.function && c.function != m_function) {
            m_callers.push_back(c);
            m_instanceScope = static_cast<int>(m_callers.size());
        }
    }
    // The loop's function started in other processes by the entry (LoopPlan::launch): the
    // launch hands over its tuple as a call its arguments, looked up in its function or in the
    // `if __name__ == "__main__":` block around it.
    if (lp.launch.valid()) {
        Caller c;
        c.call = lp.launch.start;
        for (const Stmt* s : m_src->chainAt(lp.launch.start, lp.launch.end))
            if (s->type == "function_definition" || s->type == "decorated_definition" ||
                (!c.function && isMainBlock(*s)))
                c.function = s;
        for (const auto& [param, arg] : lp.launchArguments)
            if (arg == param)
                c.passed.insert(param);
        // A launch of a caller of the loop's function calls that caller.
        for (std::size_t k = 0; k < m_callers.size(); ++k)
            if (m_callers[k].function && m_callers[k].function->name == lp.launched &&
                lp.launched != m_function->name)
                c.of = static_cast<int>(k) + 1;
        if (c.function && c.function != m_function && !c.passed.empty() &&
            (c.of > 0 || lp.launched == m_function->name))
            m_callers.push_back(c);
    }
}

namespace {

// A value written out in full: a number, a string without interpolation, True/False/None, and
// tuples, lists and arithmetic of those (`fit(30)`, `run(0.5, (3, 3))`).
bool isLiteral(const SourceFile& src, TSNode value)
{
    const auto type = nodeType(value);
    if (type == "integer" || type == "float" || type == "true" || type == "false" || type == "none")
        return true;
    if (type == "unary_operator")
        return isLiteral(src, fieldOf(value, "argument"));
    if (type == "binary_operator")
        return isLiteral(src, fieldOf(value, "left")) && isLiteral(src, fieldOf(value, "right"));
    const bool string = type == "string";
    if (!string && type != "parenthesized_expression" && type != "tuple" && type != "list")
        return false;
    for (uint32_t i = 0; i < ts_node_named_child_count(value); ++i) {
        const TSNode part = ts_node_named_child(value, i);
        const auto partType = nodeType(part);
        if (string ? partType == "interpolation" : partType != "comment" && !isLiteral(src, part))
            return false;
    }
    return true;
}

// What the port can bind where the call was: a configuration dict as written
// (isDictExpression), a literal, a name the file binds to such values and nothing else, or a
// value built inline by a call (`fit(TinyNet(), loader, nn.CrossEntropyLoss())`), evaluated
// there as the call evaluated it (Planner::inlineArgument).
bool isCarried(const SourceFile& src, TSNode value)
{
    if (nodeType(value) == "call")
        return true;
    const auto carried = [&](TSNode v) {
        return isDictExpression(src, v) || isLiteral(src, v);
    };
    if (nodeType(value) != "identifier")
        return carried(value);
    const auto bound = assignments(src, src.text(value));
    return !bound.empty() && std::all_of(bound.begin(), bound.end(),
                                         [&](const auto& a) { return carried(a.second); });
}

} // namespace

// The configuration dicts and literals a call gives the loop's function's parameters under
// another name or inline, by position or keyword (Caller::bound). A call whose statement is more
// than the call
// (`for` around it, `with`) has no place for the bindings: none.
void Slicer::bindConfigDicts(Caller& c, TSNode args, const std::vector<std::string>& params,
                             const std::string& keywords) const
{
    if (!c.statement || c.statement->type != "expression_statement")
        return;
    std::size_t position = 0;
    for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
        const TSNode a = ts_node_named_child(args, i);
        const auto at = nodeType(a);
        // `fit(net, loader, **fit_kwargs)` for `def fit(net, loader, **kwargs)`: the function's
        // keywords parameter is that dict.
        if (at == "dictionary_splat" && !keywords.empty() && ts_node_named_child_count(a) == 1 &&
            isCarried(*m_src, ts_node_named_child(a, 0))) {
            const TSNode value = ts_node_named_child(a, 0);
            c.bound[keywords] = {ts_node_start_byte(value), ts_node_end_byte(value)};
            continue;
        }
        if (at == "list_splat" || at == "dictionary_splat")
            return; // the parameters after it are unknown
        std::string param;
        TSNode value = a;
        if (at == "keyword_argument") {
            param = m_src->text(fieldOf(a, "name"));
            value = fieldOf(a, "value");
        } else if (at != "comment" && position < params.size()) {
            param = params[position++];
        }
        if (!param.empty() && m_src->text(value) != param && isCarried(*m_src, value))
            c.bound[param] = {ts_node_start_byte(value), ts_node_end_byte(value)};
    }
}

void Slicer::aliasCallerArguments(RenderRules& rules) const
{
    if (!m_function || !m_plan.loop)
        return;
    rules.aliasScopes.push_back({m_function->start, m_function->end, m_plan.loop->callerArguments});
    std::set<const Stmt*> done{m_function};
    for (const Caller& c : m_callers)
        if (c.function && !c.function->name.empty() && done.insert(c.function).second)
            if (const auto* outer = outerAliases(m_plan, c.function->name))
                rules.aliasScopes.push_back({c.function->start, c.function->end, *outer});
}

const std::map<std::string, std::string>* Slicer::aliasesOf(int scope) const
{
    if (!m_plan.loop || !m_function)
        return nullptr;
    if (scope == 0)
        return &m_plan.loop->callerArguments;
    if (scope < 0 || static_cast<std::size_t>(scope) > m_callers.size())
        return nullptr;
    const Stmt* f = m_callers[static_cast<std::size_t>(scope - 1)].function;
    return !f || f == m_function || f->name.empty() ? nullptr : outerAliases(m_plan, f->name);
}

const Slicer::Caller* Slicer::binder(const Stmt& s) const
{
    for (std::size_t k = 0; k < m_calls; ++k)
        if (m_callers[k].statement == &s && !m_callers[k].bound.empty())
            return &m_callers[k];
    return nullptr;
}

std::set<std::string> Slicer::bindsOf(const Stmt& s) const
{
    std::set<std::string> out = s.defines;
    if (const Caller* c = binder(s))
        for (const auto& [param, span] : c->bound)
            out.insert(param);
    return out;
}

RenderRules Slicer::bindingRules(const Stmt& s, RenderRules rules) const
{
    const Caller* c = binder(s);
    if (!c)
        return rules;
    // In the order the call evaluates them: a model built before the batches draw their data
    // keeps the original's initial weights.
    std::vector<std::pair<std::string, std::pair<std::uint32_t, std::uint32_t>>> inOrder(
        c->bound.begin(), c->bound.end());
    std::sort(inOrder.begin(), inOrder.end(),
              [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
    std::string text;
    for (const auto& [param, span] : inOrder)
        text += (text.empty() ? "" : "\n" + std::string(std::size_t(s.column), ' ')) + param +
                " = " + render(*m_src, m_src->nodeAt(span.first, span.second), rules);
    rules.replace[{s.start, s.end}] = text;
    return rules;
}

namespace {

// The parameters node of a function definition (decorated or not).
TSNode parameterList(const Stmt& def)
{
    const TSNode node = def.type == "decorated_definition"
                            ? ts_node_child_by_field_name(def.node, "definition", 10)
                            : def.node;
    return ts_node_child_by_field_name(node, "parameters", 10);
}

} // namespace

std::string keywordsParameter(const SourceFile& src, const Stmt& def)
{
    const TSNode plist = parameterList(def);
    for (uint32_t i = 0; !ts_node_is_null(plist) && i < ts_node_named_child_count(plist); ++i) {
        const TSNode p = ts_node_named_child(plist, i);
        if (std::string_view(ts_node_type(p)) == "dictionary_splat_pattern" &&
            ts_node_named_child_count(p) > 0)
            return src.text(ts_node_named_child(p, 0));
    }
    return {};
}

std::vector<std::string> parameterNames(const SourceFile& src, const Stmt& def)
{
    std::vector<std::string> params;
    const TSNode plist = parameterList(def);
    for (uint32_t i = 0; !ts_node_is_null(plist) && i < ts_node_named_child_count(plist); ++i) {
        const TSNode p = ts_node_named_child(plist, i);
        TSNode nameNode = p;
        if (std::string_view(ts_node_type(p)) != "identifier")
            nameNode = ts_node_child_by_field_name(p, "name", 4);
        if (ts_node_is_null(nameNode) && ts_node_named_child_count(p) > 0)
            nameNode = ts_node_named_child(p, 0);
        params.push_back(ts_node_is_null(nameNode) ? std::string() : src.text(nameNode));
    }
    return params;
}

} // namespace portolan::port::detail
