// The Slicer: which statements of the original a piece of generated code needs, traced from
// the batch loop's function into its callers and the module (generate_internal.h).
#include "core/port/generate_internal.h"
#include "core/python/index.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>

namespace portolan::port::detail {

bool isBuiltin(const std::string& name)
{
    return python::isBuiltinName(name) || name == "self" || name == "__name__" ||
           name == "__file__";
}

namespace {

// Can the block run and leave `name` bound as it was before it: a loop that may not run, a
// `try` that may fail before binding it, an `if` whose branches do not all bind it.
bool mayLeaveUnbound(const Stmt& s, const std::string& name)
{
    if (s.type == "for_statement" || s.type == "while_statement" || s.type == "try_statement")
        return true;
    if (s.type != "if_statement")
        return false;
    const auto binds = [&](const std::vector<Stmt>& block) {
        return std::any_of(block.begin(), block.end(),
                           [&](const Stmt& b) { return b.defines.count(name) > 0; });
    };
    bool otherwise = false;
    for (const auto& o : s.other) {
        otherwise = otherwise || o.type == "else_clause";
        if (!o.defines.count(name) && !binds(o.body))
            return true;
    }
    return !otherwise || !binds(s.body);
}

} // namespace

Slicer::Slicer(const PortPlan& plan) : m_plan(plan)
{
    m_src = plan.source(plan.entry);
    if (m_src)
        m_branches = std::make_shared<StaticBranches>(plan, *m_src);
    if (plan.loop)
        m_loopStart = plan.loop->loop.start;
    if (m_src && plan.loop && plan.loop->spreadCall.valid())
        if (const Stmt* call = statementAt(plan.loop->spreadCall)) {
            // The call itself, not a statement assigning its result (`spent = fit(*draw())`):
            // what the binding reads is the spread value, nothing the assignment reads or binds.
            m_spread = std::make_shared<Stmt>(*call);
            TSNode e = ts_node_named_child(call->node, 0);
            if (std::string_view(ts_node_type(e)) == "assignment")
                e = ts_node_child_by_field_name(e, "right", 5);
            m_spread->node = e;
            m_spread->start = ts_node_start_byte(e);
            m_spread->end = ts_node_end_byte(e);
            const CodeRef& v = plan.loop->spreadValue;
            m_spread->uses = usedNames(*m_src, m_src->nodeAt(v.start, v.end));
            m_spread->defines = {plan.loop->spreadInto.begin(), plan.loop->spreadInto.end()};
        }
    if (m_src && plan.loop) {
        const auto chain = m_src->chainAt(plan.loop->loop.start, plan.loop->loop.end);
        for (const Stmt* s : chain)
            if (s->type == "function_definition" || s->type == "decorated_definition")
                m_function = s;
        // A script whose code runs under `if __name__ == "__main__":` at module level: the
        // block is the loop's scope, as a main() function's body would be.
        for (const Stmt* s : chain)
            if (!m_function && !m_mainBlock && s->type == "if_statement" &&
                m_src->text(s->condition).find("__name__") != std::string::npos)
                m_mainBlock = s;
    }
    if (m_src)
        for (const auto& s : m_src->statements())
            if (!m_guard && isMainBlock(s))
                m_guard = &s;
    if (m_guard) {
        const python::PyIndex idx = python::indexSource(m_src->text(), plan.entry);
        std::vector<std::set<std::string>> local(idx.functions.size());
        for (std::size_t s = 1; s < idx.scopes.size(); ++s)
            for (const auto& d : idx.scopes[s].defined)
                local[static_cast<std::size_t>(idx.scopes[s].function)].insert(d.name);
        for (std::size_t s = 1; s < idx.scopes.size(); ++s)
            for (const auto& use : idx.scopes[s].used) {
                bool bound = false;
                for (python::FunctionId p = idx.scopes[s].function; p >= 0 && !bound;
                     p = idx.functions[static_cast<std::size_t>(p)].parent)
                    bound = local[static_cast<std::size_t>(p)].count(use.name) > 0;
                if (!bound)
                    m_globalReads.emplace_back(use.span.startByte, use.name);
            }
    }
    findCallers();
    findRebound();
    if (m_src)
        m_trainingStart = moduleTrainingStart(*m_src, m_function);
    // The module's code after the statement that runs the ported training is the script's
    // leftovers; before it, trainings that ran earlier.
    if (m_src && m_function && m_plan.trainingFrom.valid())
        for (const auto& s : m_src->statements())
            if (s.start <= moduleRunsAt() && moduleRunsAt() < s.end && s.name.empty())
                m_trainingStart = s.start;
    // The parser: what `args` is parsed from.
    if (m_src)
        for (const auto& f : plan.flags) {
            (void)f;
            std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& v) {
                for (const auto& s : v) {
                    const std::string t = m_src->text(s.start, s.end);
                    if (m_parser.empty() && t.find("ArgumentParser(") != std::string::npos &&
                        s.defines.size() == 1 && s.type == "expression_statement")
                        m_parser = *s.defines.begin();
                    walk(s.body);
                }
            };
            walk(m_src->statements());
            break;
        }
}

// Builtin names the script binds itself (`input = torch.from_numpy(...)` in a script): they are
// the script's values, to be moved like any other, not Python's builtins.
void Slicer::findRebound()
{
    if (!m_src)
        return;
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& v) {
        for (const auto& s : v) {
            for (const auto& d : s.defines)
                if (isBuiltin(d))
                    m_rebound.insert(d);
            if (s.type != "function_definition" && s.type != "decorated_definition" &&
                s.type != "class_definition") {
                walk(s.body);
                walk(s.other);
            }
        }
    };
    walk(m_src->statements());
    if (m_function)
        walk(m_function->body);
}

bool Slicer::isMainBlock(const Stmt& s) const
{
    return s.type == "if_statement" &&
           m_src->text(s.condition).find("__name__") != std::string::npos;
}

bool Slicer::excluded(const Stmt& s) const
{
    if (s.isComment())
        return true;
    if (isDeviceBranch(s))
        return true;
    if (holdsLoop(s) && s.type != "function_definition" && s.type != "decorated_definition")
        return true;
    if (m_function && &s == m_function)
        return true;
    if (!m_plan.argsName.empty() && s.defines.count(m_plan.argsName))
        return true;
    if (!m_parser.empty() && (s.defines.count(m_parser) || s.uses.count(m_parser)))
        return true;
    if (isMainBlock(s))
        return true;
    if (s.type != "function_definition" && s.type != "decorated_definition" &&
        containsMethodCall(*m_src, s.node, "backward"))
        return true;
    return false;
}

const Stmt* Slicer::definer(const std::vector<Stmt>& scope, const std::string& name,
                            std::uint32_t before) const
{
    // The statement of this scope that runs the training (the loop, the call of its function,
    // the `if __name__` block), when it is not a definition: what the scope binds after it runs
    // once the training is over (a prediction with the trained model that reuses the step's
    // names) and is never a value the training reads.
    std::uint32_t after = std::numeric_limits<std::uint32_t>::max();
    for (const auto& s : scope)
        if (s.start <= before && before < s.end && s.name.empty() &&
            s.type != "decorated_definition")
            after = s.end;
    // Module-level code after the statement that runs the training is the script's leftovers.
    if (m_trainingStart && &scope == &m_src->statements())
        after = std::min(after, m_trainingStart);
    const Stmt* last = nullptr;
    const Stmt* first = nullptr;
    for (const auto& s : scope) {
        if (!s.defines.count(name) || excluded(s) || s.start >= after)
            continue;
        const Stmt* d = branchDefiner(s, name);
        if (!d)
            continue;
        if (s.start < before)
            last = d;
        if (!first)
            first = d;
    }
    if (last || first)
        return last ? last : first;
    // A value set up in a loop around the batch loop, before it (a hidden state reset at the
    // start of each epoch): the batch loop reads it, so it is looked up in that loop's body.
    for (const auto& s : scope)
        if (s.start < m_loopStart && m_loopStart < s.end &&
            (s.type == "for_statement" || s.type == "while_statement" ||
             s.type == "with_statement"))
            if (const Stmt* inner = definer(s.body, name, m_loopStart))
                return inner;
    return nullptr;
}

// Module-level script statements that read the flags or a local value run in the generated
// function too; definitions stay at module level.
void Slicer::moveReaders(std::set<const Stmt*>& local, std::set<const Stmt*>& module,
                         const std::set<std::string>& forceLocal) const
{
    bool moved = true;
    while (moved) {
        moved = false;
        std::set<std::string> localNames;
        for (const Stmt* s : local)
            localNames.insert(s->defines.begin(), s->defines.end());
        for (auto it = module.begin(); it != module.end();) {
            const Stmt* s = *it;
            const bool definition = !s->name.empty() || s->type == "import_statement" ||
                                    s->type == "import_from_statement";
            bool reads = !definition && !argsGlobal && !m_plan.argsName.empty() &&
                         s->uses.count(m_plan.argsName);
            for (const auto& d : s->defines)
                reads = reads || (!definition && forceLocal.count(d));
            for (const auto& u : s->uses)
                reads = reads || (!definition && localNames.count(u) && !s->defines.count(u));
            // A name the generated function also binds is local in all of it (Python's rule):
            // its module-level value must be bound in the function too, before its first use.
            for (const auto& d : s->defines)
                reads = reads || (!definition && localNames.count(d));
            if (reads) {
                local.insert(s);
                it = module.erase(it);
                moved = true;
            } else {
                ++it;
            }
        }
    }
}

// The statements of a lookup scope of slice(): 0 the batch loop's function (or the `__main__`
// block), -1 the module, k > 0 the k-th caller's function.
const std::vector<Stmt>* Slicer::scopeBody(int scope) const
{
    return scope > 0                ? &m_callers[static_cast<std::size_t>(scope - 1)].function->body
           : scope == kModuleGlobal ? &m_guard->body
           : scope < 0              ? &m_src->statements()
           : m_function             ? &m_function->body
           : m_mainBlock            ? &m_mainBlock->body
                                    : nullptr;
}

// Where the training runs, seen from a lookup scope: the loop, the caller's call, or (from the
// module, for a loop in a function) the function's definition.
std::uint32_t Slicer::runsAt(int scope) const
{
    if (scope > 0)
        return m_callers[static_cast<std::size_t>(scope - 1)].call;
    if (scope == kModuleGlobal)
        return m_guard->end;
    return scope < 0 && m_function ? moduleRunsAt() : m_loopStart;
}

// Where the module runs the loop's function: its definition; of several trainings run one after
// another (PortPlan::trainingFrom), the module's call that runs the ported one, so the names it
// reads are the ones bound for it, not for a training before.
std::uint32_t Slicer::moduleRunsAt() const
{
    if (m_plan.trainingFrom.valid())
        for (const auto& c : m_callers)
            if (!c.function && c.call >= m_plan.trainingFrom.start)
                return c.call;
    return m_function->start;
}

// Where `name`, read in `scope`, is bound: the loop's function (0), a caller of it (k > 0) or
// the module (-1). A parameter of the loop's function is looked up in the callers that pass it.
Slicer::Found Slicer::findDefiner(const std::string& name, int scope,
                                  const std::set<std::string>& forceLocal) const
{
    Found f;
    if (scope == kModuleGlobal) {
        // A module-level definition reads a global: the module's, else the `__main__` block's
        // (the loop's own scope when the loop runs in it: the value it has when training starts).
        f = {definer(m_src->statements(), name, m_function ? m_function->start : m_loopStart),
             false, -1};
        if (!f.stmt && m_guard)
            f = m_guard == m_mainBlock
                    ? Found{definer(m_guard->body, name, m_loopStart), true, 0}
                    : Found{definer(m_guard->body, name, m_guard->end), true, kModuleGlobal};
        f.isLocal = f.isLocal && f.stmt;
        f.global = f.isLocal;
        return f;
    }
    if (scope == 0 && m_function) {
        f = {definer(m_function->body, name, m_loopStart), true, 0};
        // A parameter of the loop's function: its definition is in the caller.
        for (std::size_t k = 0; !f.stmt && k < m_callers.size(); ++k) {
            const auto& c = m_callers[k];
            // The model, the optimizers and the schedulers the plan names are the training's
            // even when the caller does not pass them (a scheduler stepped per epoch).
            if ((!c.passed.count(name) && !forceLocal.count(name)) || !c.function || c.of > 0 ||
                (static_cast<int>(k) + 1 == m_constructorScope && !c.passed.count(name)))
                continue;
            f = {definer(c.function->body, name, c.call), true, static_cast<int>(k) + 1};
        }
        // A configuration dict the call gives under another name or inline: bound where the
        // call was (bindingRules).
        for (std::size_t k = 0; !f.stmt && k < m_calls; ++k)
            if (m_callers[k].bound.count(name))
                f = {m_callers[k].statement, true, static_cast<int>(k) + 1};
    } else if (scope == 0 && m_mainBlock) {
        f = {definer(m_mainBlock->body, name, m_loopStart), true, 0};
    } else if (scope > 0) {
        const auto& c = m_callers[static_cast<std::size_t>(scope - 1)];
        f = {definer(c.function->body, name, c.call), true, scope};
    }
    // A parameter of a caller, looked up in the caller's own caller that passes it (the launch
    // of a worker that calls the loop's function).
    for (int k = f.stmt ? 0 : f.scope, guard = 0; k > 0 && !f.stmt && guard < 4; ++guard) {
        int next = 0;
        for (std::size_t j = 0; j < m_callers.size(); ++j)
            if (m_callers[j].of == k && m_callers[j].passed.count(name) && m_callers[j].function)
                next = static_cast<int>(j) + 1;
        // A configuration dict the caller's caller gives it: bound where that call was.
        for (std::size_t j = 0; !next && j < m_calls; ++j)
            if (m_callers[j].of == k && m_callers[j].bound.count(name)) {
                f = {m_callers[j].statement, true, static_cast<int>(j) + 1};
                break;
            }
        if (next)
            f = {definer(m_callers[std::size_t(next - 1)].function->body, name,
                         m_callers[std::size_t(next - 1)].call),
                 true, next};
        k = next;
    }
    // A name the constructor reads for a value its caller hands over (`self.model` stored from
    // the parameter `model`): the caller's, where it makes the instance.
    if (!f.stmt && scope == m_constructorScope && scope > 0 && m_instanceScope > 0 &&
        m_callers[std::size_t(m_instanceScope - 1)].passed.count(name)) {
        const auto& c = m_callers[std::size_t(m_instanceScope - 1)];
        f = {definer(c.function->body, name, c.call), true, m_instanceScope};
    }
    if (!f.stmt)
        f = {definer(m_src->statements(), name, m_function ? moduleRunsAt() : m_loopStart), false,
             -1};
    f.isLocal = f.isLocal && f.stmt;
    return f;
}

std::set<std::string> Slicer::globalReads(const Stmt& def) const
{
    std::set<std::string> out;
    for (const auto& [at, name] : m_globalReads)
        if (def.start <= at && at < def.end)
            out.insert(name);
    return out;
}

// Takes the definer of `name` into the slice, with what runs with it: the statements that fill
// it in place, its mutators (for the names built locally by force) and the plain assignments it
// is built over. What they read is queued for lookup.
void Slicer::take(const Found& f, const std::string& name, const std::set<std::string>& forceLocal,
                  SliceWork& w) const
{
    const Stmt* s = f.stmt;
    auto& into = f.isLocal ? w.local : w.module;
    const int readScope = f.isLocal ? f.scope : -1;
    const auto queue = [&](const Stmt* st, bool all) {
        for (const auto& u : st->uses)
            if (all || !st->defines.count(u))
                w.work.emplace_back(u, readScope);
    };
    if (const Caller* c = binder(*s)) {
        // The call's statement, written as the bindings of the dicts it gives: it reads what
        // the arguments read, not the call.
        if (into.insert(s).second)
            for (const auto& [param, span] : c->bound)
                for (const auto& n : usedNames(*m_src, m_src->nodeAt(span.first, span.second)))
                    w.work.emplace_back(n, readScope);
        return;
    }
    const bool definition = s->type == "function_definition" || s->type == "decorated_definition" ||
                            s->type == "class_definition" || s->type == "import_statement" ||
                            s->type == "import_from_statement";
    if (definition && !f.isLocal) {
        // What a copied class or function reads and does not bind itself is a module global
        // when it runs.
        const std::set<std::string> globals = globalReads(*s);
        if (w.module.insert(s).second)
            for (const auto& u : s->uses)
                if (!s->defines.count(u))
                    w.work.emplace_back(u, globals.count(u) ? kModuleGlobal : -1);
        return;
    }
    into.insert(s);
    queue(s, false);
    const std::vector<Stmt>* scopeOf = scopeBody(f.scope);
    if (scopeOf)
        for (const Stmt* x : fillers(*scopeOf, *s, name, runsAt(f.scope)))
            if (into.insert(x).second)
                queue(x, false);
    if (forceLocal.count(name))
        for (const Stmt* m : mutators(*s, name))
            if (into.insert(m).second)
                queue(m, false);
    // A value built over several assignments (`x = load(); x = f(x); x = x.repeat(n)`):
    // each reads the one before it, which runs too. Only plain assignment statements chain
    // (a block that reassigns the name, a device branch or the epoch loop, is not pulled in).
    std::vector<const Stmt*> chain{s};
    while (scopeOf && !chain.empty()) {
        const Stmt* c = chain.back();
        chain.pop_back();
        if (c->type != "expression_statement")
            continue;
        // The names its value reads: a name bound anew (`x = Net()` after an earlier `x = ...`)
        // does not read the earlier binding, which is another value (a training before).
        const TSNode a = ts_node_named_child(c->node, 0);
        const auto reads = std::string_view(ts_node_type(a)) == "assignment"
                               ? usedNames(*m_src, ts_node_child_by_field_name(a, "right", 5))
                               : c->uses;
        for (const auto& u : c->uses) {
            if (!c->defines.count(u) || !reads.count(u))
                continue;
            const Stmt* d = definer(*scopeOf, u, c->start);
            if (!d || d->start >= c->start || d->type != "expression_statement" ||
                !into.insert(d).second)
                continue;
            chain.push_back(d);
            queue(d, false);
        }
    }
    // A block that may leave the name as it was (an `if` without an `else` that binds it, a
    // loop that may not run, a `try`): the binding before it reaches the reads too
    // (`wide = False`, then `if not os.path.exists(p): wide = True`).
    if (scopeOf && mayLeaveUnbound(*s, name))
        if (const Stmt* d = definer(*scopeOf, name, s->start); d && d->start < s->start)
            take(Found{d, f.isLocal, f.scope}, name, forceLocal, w);
}

Slice Slicer::slice(std::set<std::string> names, const std::set<std::string>& exclude,
                    const std::set<std::string>& forceLocal, std::uint32_t at) const
{
    Slice out;
    if (!m_src)
        return out;
    SliceWork w;
    // A name is looked up in a scope: 0 the batch loop's function, -1 the module only, k > 0
    // the k-th caller of the loop's function (for the parameters it passes under their name).
    std::set<std::pair<std::string, int>> seen;
    int first = 0;
    for (std::size_t k = 0; at > 0 && k < m_callers.size(); ++k) {
        const Stmt* f = m_callers[k].function;
        if (f && f->start <= at && at < f->end)
            first = static_cast<int>(k) + 1;
    }
    for (const auto& n : names)
        w.work.emplace_back(n, first);
    while (!w.work.empty()) {
        const auto [name, scope] = w.work.back();
        w.work.pop_back();
        if (!seen.insert({name, scope}).second)
            continue;
        if (exclude.count(name) || (isBuiltin(name) && !m_rebound.count(name)) ||
            name == m_plan.argsName || m_plan.deviceNames.count(name) ||
            constructorValue(name, scope))
            continue;
        // A parameter of the loop's function, or of a function above it, that its callers give
        // under their name, or leave at its default (LoopPlan::callerArguments,
        // outerArguments): what that reads, where it is read.
        if (const auto* aliases = aliasesOf(scope))
            if (const auto it = aliases->find(name); it != aliases->end()) {
                const std::string& value = it->second;
                if (value.empty() ||
                    !(std::isalpha(static_cast<unsigned char>(value[0])) || value[0] == '_') ||
                    (!m_plan.argsName.empty() && (value.starts_with(m_plan.argsName + ".") ||
                                                  value.starts_with(m_plan.argsName + "["))))
                    continue;
                // Bound in a caller (of any level) before its call, else in the module.
                const Stmt* from =
                    scope > 0 ? m_callers[std::size_t(scope - 1)].function : m_function;
                int in = 0;
                for (std::size_t k = 0; k < m_callers.size() && !in; ++k)
                    if (const Caller& c = m_callers[k]; c.function && c.function != m_function &&
                                                        c.function != from &&
                                                        definer(c.function->body, value, c.call))
                        in = static_cast<int>(k) + 1;
                w.work.emplace_back(value, in);
                continue;
            }
        const Found f = findDefiner(name, scope, forceLocal);
        if (!f.stmt) {
            out.unresolved.insert(name);
            continue;
        }
        take(f, name, forceLocal, w);
        if (f.global)
            out.globals.insert(name);
    }
    moveReaders(w.local, w.module, forceLocal);
    auto byPosition = [](const Stmt* a, const Stmt* b) {
        return a->start < b->start;
    };
    out.module.assign(w.module.begin(), w.module.end());
    std::sort(out.module.begin(), out.module.end(), byPosition);
    out.local.assign(w.local.begin(), w.local.end());
    inRunOrder(out.local);
    for (const Stmt* s : out.local) {
        const auto binds = bindsOf(*s);
        out.localDefines.insert(binds.begin(), binds.end());
    }
    for (const Stmt* s : out.module)
        if (!m_plan.argsName.empty() && s->uses.count(m_plan.argsName))
            out.argsUsers.push_back(s);
    return out;
}

// Statements of the loop's scopes in the order they run: the code that launches the loop's
// function or instantiates its trainer class (values it builds and hands over, perhaps after the
// function's or the class's definition), then the class's constructor, then the rest by
// position.
void Slicer::inRunOrder(std::vector<const Stmt*>& stmts) const
{
    std::vector<std::pair<std::uint32_t, std::uint32_t>> outer; // spans, outermost first
    if (m_plan.loop)
        for (const CodeRef* at : {&m_plan.loop->launch, &m_plan.loop->instance})
            if (at->valid())
                for (const Stmt* s : m_src->chainAt(at->start, at->end))
                    if (s->type == "function_definition" || isMainBlock(*s))
                        outer.assign(1, {s->start, s->end});
    // The callers of the loop's function run before it, a caller's caller before the caller.
    for (std::size_t k = m_calls; k-- > 0;)
        if (const Stmt* f = m_callers[k].function; f && f != m_function)
            outer.emplace_back(f->start, f->end);
    if (m_plan.loop && m_plan.loop->selfInit.valid())
        outer.emplace_back(m_plan.loop->selfInit.start, m_plan.loop->selfInit.end);
    // A call at module level that binds the function's parameters (Caller::bound) runs before
    // the function's code, which reads them.
    for (std::size_t k = 0; k < m_calls; ++k)
        if (const Caller& c = m_callers[k]; !c.function && c.statement && !c.bound.empty())
            outer.insert(outer.begin(), {c.statement->start, c.statement->end});
    // The `__main__` block that calls the loop's function sets the globals the function's code
    // reads (kModuleGlobal) before it calls it.
    if (m_guard && m_guard != m_mainBlock &&
        (outer.empty() || outer.front() != std::make_pair(m_guard->start, m_guard->end)))
        outer.insert(outer.begin(), {m_guard->start, m_guard->end});
    // The loop's function called at module level with the module's values (`model = Net()`,
    // then `fit(model, 60)`): those module statements, built here as the function's, run before
    // its code.
    std::uint32_t moduleCall = 0;
    for (std::size_t k = 0; k < m_calls && m_function; ++k)
        if (!m_callers[k].function && m_callers[k].of == 0)
            moduleCall = std::max(moduleCall, m_callers[k].call);
    const auto rank = [&](const Stmt* s) {
        for (std::size_t i = 0; i < outer.size(); ++i)
            if (outer[i].first <= s->start && s->end <= outer[i].second)
                return 2 * i;
        const bool inFunction =
            m_function && m_function->start <= s->start && s->end <= m_function->end;
        return 2 * outer.size() + (moduleCall && !inFunction && s->start < moduleCall ? 0 : 1);
    };
    std::stable_sort(stmts.begin(), stmts.end(), [&](const Stmt* a, const Stmt* b) {
        const auto ra = rank(a), rb = rank(b);
        return ra != rb ? ra < rb : a->start < b->start;
    });
}

std::string Slicer::moduleText(const std::vector<const Stmt*>& extra, const RenderRules& rules,
                               bool keepArgparse) const
{
    std::string out;
    if (!m_src)
        return out;
    std::set<const Stmt*> done;
    for (const auto& s : m_src->statements()) {
        if (s.type != "import_statement" && s.type != "import_from_statement" &&
            s.type != "future_import_statement")
            continue;
        const std::string t = m_src->text(s.start, s.end);
        if (!keepArgparse && t.find("argparse") != std::string::npos)
            continue;
        out += t + "\n";
        done.insert(&s);
    }
    out += "\n";
    for (const Stmt* s : extra) {
        if (done.count(s))
            continue;
        RenderRules r = rules;
        out += "\n" + renderStatements(*m_src, {s}, r, "", &m_src->statements());
        if (!s->name.empty())
            out += "\n";
    }
    return out;
}

std::vector<const Stmt*> Slicer::seedStatements() const
{
    std::vector<const Stmt*> out;
    if (!m_src)
        return out;
    const std::vector<Stmt>& scope = m_function    ? m_function->body
                                     : m_mainBlock ? m_mainBlock->body
                                                   : m_src->statements();
    const auto seeds = [&](const std::vector<Stmt>& in, std::uint32_t before) {
        for (const auto& s : in) {
            if (s.start >= before || s.type != "expression_statement" || !s.defines.empty())
                continue;
            const std::string t = m_src->text(s.start, s.end);
            if (t.find("manual_seed(") != std::string::npos ||
                t.find("random.seed(") != std::string::npos)
                out.push_back(&s);
        }
    };
    seeds(scope, m_loopStart);
    // The loop's function seeded by its callers before they call it, or by the module before
    // the call that runs the training (`torch.manual_seed(0)` at the top of the script, data
    // drawn at module level, then `fit(model, 60)`).
    if (m_function) {
        // The module statement that runs the training (`for epoch in range(3): one_epoch()`),
        // whether or not its call hands the function anything.
        std::uint32_t moduleCall = m_trainingStart;
        for (std::size_t k = 0; k < m_calls; ++k) {
            const Caller& c = m_callers[k];
            if (c.of != 0)
                continue;
            if (c.function && c.function != m_function)
                seeds(c.function->body, c.call);
            else if (!c.function)
                moduleCall = std::max(moduleCall, c.call);
        }
        if (moduleCall)
            seeds(m_src->statements(), moduleCall);
    }
    constructorSeeds(out);
    return out;
}

std::vector<const Stmt*> Slicer::statements(const std::vector<CodeRef>& refs) const
{
    std::vector<const Stmt*> out;
    for (const auto& r : refs)
        if (const Stmt* s = statementAt(r))
            out.push_back(s);
    return out;
}

const Stmt* Slicer::statementAt(const CodeRef& ref) const
{
    if (!m_src || !ref.valid())
        return nullptr;
    const auto chain = m_src->chainAt(ref.start, ref.end);
    for (const Stmt* s : chain)
        if (s->start == ref.start && s->end == ref.end)
            return s;
    return nullptr;
}

std::set<std::string> Slicer::freeNames(const std::vector<const Stmt*>& stmts) const
{
    std::set<std::string> defined, out;
    for (const Stmt* s : stmts) {
        for (const auto& u : s->uses)
            if (!defined.count(u))
                out.insert(u);
        defined.insert(s->defines.begin(), s->defines.end());
    }
    return out;
}

} // namespace portolan::port::detail
