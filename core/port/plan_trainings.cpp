// Several trainings run one after another (a tutorial that trains a model, then builds a better
// one and trains again on the same data): which one the port ports. A training whose model is
// built anew before anything reads its trained weights is superseded: the original discards its
// result itself. The port ports the first training that is not superseded, which is the one the
// script ends with when each earlier one is replaced; a later training that goes on training the
// same model is a second phase, named for the user.
#include "core/port/plan_internal.h"

#include <algorithm>
#include <functional>
#include <set>

namespace portolan::port::planning {

namespace {

// `print(...)` alone: a training's own reporting, which reads its model without keeping what it
// learned.
bool reportsOnly(const SourceFile& src, const Stmt& s)
{
    return s.type == "expression_statement" && s.defines.empty() &&
           src.text(s.start, s.end).starts_with("print(");
}

// The statement of `scope`'s body (nullptr: the module) that holds [start, end).
const Stmt* statementIn(const SourceFile& src, const Stmt* scope, std::uint32_t start,
                        std::uint32_t end)
{
    const auto& body = scope ? scope->body : src.statements();
    for (const auto& s : body)
        if (s.start <= start && end <= s.end)
            return &s;
    return nullptr;
}

// `name = <an expression that does not read name>` (a plain or tuple assignment): the name is
// bound to a new object, not the trained one moved or wrapped (`model = model.to(dev)`).
bool buildsAnew(const SourceFile& src, const Stmt& s, const std::string& name)
{
    const TSNode a = ts_node_named_child(s.node, 0);
    if (s.type != "expression_statement" || nodeType(a) != "assignment" || !s.defines.count(name))
        return false;
    const auto targets = targetNames(src, fieldOf(a, "left"));
    return std::find(targets.begin(), targets.end(), name) != targets.end() &&
           !usedNames(src, fieldOf(a, "right")).count(name);
}

} // namespace

// Where a batch loop runs, from its own scope outwards: the statement of each scope that runs it
// (the loop's own, then the call of its function in the one place that calls it), with the name
// each scope knows its model by ("" once that scope does not see it: a local of the function).
std::vector<Planner::TrainingAnchor> Planner::anchorsOf(const Stmt& loop,
                                                        const std::string& model) const
{
    std::vector<TrainingAnchor> out;
    FunctionId fn = functionAt(loop.start);
    std::uint32_t start = loop.start, end = loop.end;
    std::string name = model;
    for (int depth = 0; depth < 4; ++depth) {
        const auto* def = idx().function(fn);
        const Stmt* scope = nullptr;
        if (def)
            for (const Stmt* s : src().chainAt(def->span.startByte, def->span.endByte))
                if (s->type == "function_definition" && s->start <= def->span.startByte)
                    scope = s;
        const Stmt* holder = statementIn(src(), scope, start, end);
        if (!holder)
            break;
        out.push_back({fn, scope, holder, name});
        if (!def)
            break;
        // The function's one call: a function called from several places is several trainings
        // of one loop, which the plan does not tell apart.
        const Call* only = nullptr;
        int calls = 0;
        for (const auto& c : idx().calls)
            if (c.callee == def->name && !within(c.span, def->span.startByte, def->span.endByte)) {
                only = &c;
                ++calls;
            }
        if (calls != 1)
            break;
        // The model seen by the caller: the argument given for the parameter; a name the
        // function binds itself is its own, gone when it returns; a global is the same name.
        const bool parameter = std::any_of(def->parameters.begin(), def->parameters.end(),
                                           [&](const auto& p) { return p.name == name; });
        const bool local =
            std::any_of(idx().assignments.begin(), idx().assignments.end(),
                        [&](const Assignment& a) { return a.function == fn && a.target == name; });
        if (parameter) {
            const auto given = boundArguments(*only, *def);
            const auto it = given ? given->given.find(name) : decltype(given->given.end()){};
            name = given && it != given->given.end() &&
                           it->second.text.find_first_of("().[] ,") == std::string::npos
                       ? it->second.text
                       : std::string();
        } else if (local) {
            name.clear();
        }
        fn = only->function;
        start = only->span.startByte;
        end = only->span.endByte;
    }
    return out;
}

// The model a batch loop trains: the one whose parameters the optimizer it steps was built on,
// or whose parameters a hand-written update changes; "" when neither is written.
std::string Planner::modelTrainedBy(const Stmt& loop) const
{
    const FunctionId fn = functionAt(loop.start);
    const OptimizerPlan* stepped = nullptr;
    for (const auto& o : m_p.optimizers)
        if (containsMethodCall(src(), loop.node, "step", o.variable) &&
            (!stepped ||
             (functionAt(o.construction.start) == fn && o.construction.start < loop.start)))
            stepped = &o;
    if (stepped)
        for (const auto& c : idx().calls)
            if (c.span.startByte == stepped->construction.start && !c.arguments.empty()) {
                if (const auto p = c.arguments[0].text.find(".parameters()");
                    p != std::string::npos)
                    return c.arguments[0].text.substr(0, p);
                if (std::string owner = parametersOwner(c); !owner.empty())
                    return owner;
            }
    std::string found;
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& body) {
        for (const auto& s : body) {
            if (found.empty() && s.type == "for_statement") {
                const std::string it = src().text(s.forIter);
                if (it.ends_with(".parameters()"))
                    found = it.substr(0, it.size() - std::string(".parameters()").size());
            }
            walk(s.body);
        }
    };
    walk(loop.body);
    if (!found.empty())
        return found;
    // Tensors updated by hand (`weights -= weights.grad * lr`): each, in order.
    for (const auto& a : idx().assignments)
        if (a.augmented && within(a.span, loop.start, loop.end) &&
            a.value.find(a.target + ".grad") != std::string::npos &&
            a.target.find_first_of(".[(, ") == std::string::npos &&
            (", " + found + ", ").find(", " + a.target + ", ") == std::string::npos)
            found += (found.empty() ? "" : ", ") + a.target;
    return found;
}

// Whether training `a` is superseded before `b` runs: seen from the scope the two share, the
// model `a` trains is bound again before anything but `a`'s own reporting reads it; or it is a
// local of `a`'s function, which returns nothing anyone keeps.
Planner::Succession Planner::succession(const Training& a, const Training& b) const
{
    for (std::size_t i = 0; i < a.anchors.size(); ++i)
        for (std::size_t j = 0; j < b.anchors.size(); ++j) {
            const auto& x = a.anchors[i];
            const auto& y = b.anchors[j];
            if (x.function != y.function)
                continue;
            if (x.holder == y.holder || x.holder->start > y.holder->start)
                return Succession::Unrelated;
            if (x.model.empty()) {
                // A function's own model, dropped when it returns: superseded when the call's
                // value is not kept (a bare call statement).
                const bool dropped =
                    x.holder->type == "expression_statement" && x.holder->defines.empty() && i > 0;
                return dropped ? Succession::Superseded : Succession::Unrelated;
            }
            // Several names: tensors updated by hand (`w -= w.grad * lr`), each its own model.
            std::vector<std::string> names;
            for (std::size_t from = 0; from <= x.model.size();) {
                const auto comma = std::min(x.model.find(", ", from), x.model.size());
                names.push_back(x.model.substr(from, comma - from));
                from = comma + 2;
            }
            bool read = false;
            const auto& body = x.scope ? x.scope->body : src().statements();
            for (const auto& s : body) {
                if (s.start < x.holder->end || s.isComment() || s.type == "function_definition" ||
                    s.type == "class_definition" || s.type == "decorated_definition")
                    continue;
                if (s.start >= y.holder->start)
                    break;
                if (!read && names.size() == 1 && buildsAnew(src(), s, x.model))
                    return Succession::Superseded;
                for (const auto& n : names)
                    read = read || (s.uses.count(n) && !reportsOnly(src(), s));
            }
            // The next training trains the same model, or a part of it (`model[2]`, `model.head`).
            if (y.model == x.model || y.model.starts_with(x.model + "[") ||
                y.model.starts_with(x.model + "."))
                return Succession::Continued;
            // Tensors trained by hand that nothing reads before another model is trained.
            return names.size() > 1 && !read ? Succession::Superseded : Succession::Unrelated;
        }
    return Succession::Unrelated;
}

// The training to port among the batch loops with a backward (`loops`, in source order): the
// user's choice (PortOptions::training, the loop's line), else the first one that is not
// superseded. Notes each superseded one, names a second phase as a manual item, and keeps where
// the chosen one's part of the original's run begins (PortPlan::trainingFrom).
std::size_t Planner::chooseTraining(const std::vector<const Stmt*>& loops)
{
    if (loops.size() < 2)
        return 0;
    std::vector<Training> all;
    for (const Stmt* l : loops)
        all.push_back({l, anchorsOf(*l, modelTrainedBy(*l))});
    // In run order: each next training runs after the last in a scope they share.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < all.size(); ++i)
        order.push_back(i);
    const auto runsBefore = [&](const Training& a, const Training& b) {
        for (const auto& x : a.anchors)
            for (const auto& y : b.anchors)
                if (x.function == y.function)
                    return x.holder != y.holder && x.holder->start < y.holder->start;
        return false;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t i, std::size_t j) { return runsBefore(all[i], all[j]); });
    for (std::size_t k = 0; k + 1 < order.size(); ++k)
        if (!runsBefore(all[order[k]], all[order[k + 1]]))
            return 0; // not one after another: the first, as a plan of one training
    std::size_t chosen = order.size();
    std::vector<bool> superseded(order.size(), false);
    for (std::size_t k = 0; k < order.size(); ++k) {
        superseded[k] = k + 1 < order.size() &&
                        succession(all[order[k]], all[order[k + 1]]) == Succession::Superseded;
        if (chosen == order.size() && !superseded[k])
            chosen = k;
    }
    if (!m_o.training.empty())
        for (std::size_t k = 0; k < order.size(); ++k)
            if (std::to_string(all[order[k]].loop->line) == m_o.training ||
                m_p.entry + ":" + std::to_string(all[order[k]].loop->line) == m_o.training)
                chosen = k;
    if (chosen == order.size())
        chosen = order.size() - 1;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto& t = all[order[k]];
        TrainingPlan tp;
        tp.loop = refOf(m_p.entry, src(), *t.loop);
        tp.model = t.anchors.empty() ? std::string() : t.anchors.front().model;
        tp.superseded = superseded[k];
        tp.chosen = k == chosen;
        m_p.trainings.push_back(tp);
        if (k == chosen)
            continue;
        if (superseded[k])
            m_p.notes.push_back("the training at " + tp.loop.where() + " is superseded: `" +
                                tp.model + "` is built anew before anything reads what it " +
                                "learned, so the original discards it and the port trains " +
                                "the one at " +
                                refOf(m_p.entry, src(), *all[order[chosen]].loop).where());
        else if (k > chosen && succession(all[order[k - 1]], t) == Succession::Continued)
            m_p.manual.push_back(manualFinding(
                "a second phase of training: the loop at " + tp.loop.where() +
                    " goes on training `" + tp.model + "` after the loop at " +
                    refOf(m_p.entry, src(), *all[order[k - 1]].loop).where() +
                    " (another optimizer, or frozen layers); the port trains one phase",
                tp.loop,
                "port the phases as two experiments, the second from the first's "
                "checkpoint, or choose the phase to port"));
    }
    // The optimizers of the other trainings are not the port's: those built in a superseded
    // training's own function, or before the chosen one in the scope it shares with the one
    // before it (a name bound again for the chosen training).
    const Stmt* mineLoop = all[order[chosen]].loop;
    const FunctionId mineFunction = functionAt(mineLoop->start);
    std::erase_if(m_p.optimizers, [&](const OptimizerPlan& o) {
        if (o.synthesized)
            return false;
        const FunctionId at = functionAt(o.construction.start);
        for (std::size_t k = 0; k < order.size(); ++k) {
            const Stmt* loop = all[order[k]].loop;
            const FunctionId fn = functionAt(loop->start);
            if (k != chosen && fn != ModuleLevel && fn != mineFunction && at == fn)
                return true;
        }
        return false;
    });
    // Those built after the chosen one, in the scope it shares with the next: the later
    // trainings' (the user chose an earlier training).
    if (chosen + 1 < order.size())
        for (const auto& x : all[order[chosen]].anchors)
            for (const auto& y : all[order[chosen + 1]].anchors)
                if (x.function == y.function && x.holder != y.holder)
                    std::erase_if(m_p.optimizers, [&](const OptimizerPlan& o) {
                        return !o.synthesized && functionAt(o.construction.start) == x.function &&
                               o.construction.start >= x.holder->end;
                    });
    // The original's dry run compares the chosen training's steps: they begin after the
    // training before it, at the next statement of the scope the two share.
    if (chosen > 0) {
        const auto& before = all[order[chosen - 1]];
        const auto& mine = all[order[chosen]];
        for (const auto& x : before.anchors)
            for (const auto& y : mine.anchors)
                if (x.function == y.function && !m_p.trainingFrom.valid()) {
                    const auto& body = x.scope ? x.scope->body : src().statements();
                    for (const auto& s : body)
                        if (s.start >= x.holder->end && !s.isComment() && !m_p.trainingFrom.valid())
                            m_p.trainingFrom = refOf(m_p.entry, src(), s);
                }
        // Bound before that point in that scope: the earlier trainings' (the chosen one binds
        // its optimizer again after them, which is the one it steps).
        const FunctionId from = functionAt(m_p.trainingFrom.start);
        std::set<std::string> rebound;
        for (const auto& o : m_p.optimizers)
            if (!o.synthesized && functionAt(o.construction.start) == from &&
                o.construction.start >= m_p.trainingFrom.start)
                rebound.insert(o.variable);
        std::erase_if(m_p.optimizers, [&](const OptimizerPlan& o) {
            return m_p.trainingFrom.valid() && !o.synthesized && rebound.count(o.variable) &&
                   functionAt(o.construction.start) == from &&
                   o.construction.start < m_p.trainingFrom.start;
        });
    }
    return order[chosen];
}

} // namespace portolan::port::planning
