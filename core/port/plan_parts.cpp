// The parts of the training the loop uses: optimizers, model, loss, data, evaluation, device
// moves, leftovers.
#include "core/port/plan_internal.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <set>

namespace portolan::port::planning {

namespace {

// The value of key `key` in a dict literal's text (`{'batch_size': args.batch_size, ...}`), as
// written; "" when the text is not a dict literal or has no such key.
std::string dictLiteralValue(const std::string& dict, const std::string& key)
{
    if (dict.empty() || dict.front() != '{')
        return {};
    for (const char q : {'\'', '"'}) {
        const std::string quoted = std::string(1, q) + key + std::string(1, q);
        auto at = dict.find(quoted);
        if (at == std::string::npos)
            continue;
        at = dict.find(':', at + quoted.size());
        if (at == std::string::npos)
            return {};
        int depth = 0;
        std::size_t end = at + 1;
        for (; end < dict.size(); ++end) {
            const char c = dict[end];
            if (c == '(' || c == '[' || c == '{')
                ++depth;
            else if ((c == ')' || c == ']' || c == '}') && depth-- == 0)
                break;
            else if (c == ',' && depth == 0)
                break;
        }
        std::string v = dict.substr(at + 1, end - at - 1);
        v.erase(0, v.find_first_not_of(" \n\t"));
        v.erase(v.find_last_not_of(" \n\t") + 1);
        return v;
    }
    return {};
}

} // namespace

void Planner::findOptimizers()
{
    for (std::size_t i = 0; i < idx().calls.size(); ++i) {
        const auto& c = idx().calls[i];
        std::string q = resolvedName(c);
        if (!q.starts_with("torch.optim."))
            if (std::string named = optimizerByName(c); !named.empty())
                q = std::move(named);
        const bool sched = q.starts_with("torch.optim.lr_scheduler.");
        const bool opt = !sched && q.starts_with("torch.optim.") &&
                         std::isupper(static_cast<unsigned char>(lastPart(q)[0]));
        if (!opt && !sched)
            continue;
        if (opt && factoryOptimizer(c, q))
            continue;
        if (c.assignedTo.empty())
            continue;
        const auto chain = src().chainAt(c.span.startByte, c.span.endByte);
        const Stmt* st = scopeStatement(chain);
        if (opt) {
            OptimizerPlan o;
            o.variable = c.assignedTo;
            o.qualified = q;
            o.construction = refOf(m_p.entry, src(), c.span);
            if (st)
                o.statement = refOf(m_p.entry, src(), *st);
            m_p.optimizers.push_back(o);
        } else {
            SchedulerPlan s;
            s.variable = c.assignedTo;
            s.qualified = q;
            s.construction = refOf(m_p.entry, src(), c.span);
            m_p.schedulers.push_back(s);
        }
    }
}

// An optimizer name bound again in the same scope (a tutorial's recap, a script that builds the
// optimizer anew before it trains) is one optimizer: the binding the training sees replaces the
// earlier one, which never steps. Taken for two, the port would step the same optimizer twice per
// batch (Determined: with momentum or Adam, a second update of its own) or ask for a second one
// where the target trains one (PopTorch, Cerebras). Bindings that are alternatives (the branches
// of one `if`) share their statement and stay.
void Planner::keepLiveOptimizers()
{
    // A training between two bindings (the scope steps the optimizer, or calls a function that
    // calls backward, before binding it again) makes them two trainings, each with its optimizer:
    // not a replaced binding.
    std::set<std::string> training;
    for (const auto& c : idx().calls)
        if (c.callee.ends_with(".backward"))
            if (const auto* def = idx().function(c.function))
                training.insert(def->name);
    const auto trainsBetween = [&](FunctionId scope,
                                   const std::vector<const OptimizerPlan*>& same) {
        for (std::size_t k = 0; k + 1 < same.size(); ++k)
            for (const auto& c : idx().calls)
                if (c.function == scope && c.span.startByte > same[k]->binding().end &&
                    c.span.startByte < same[k + 1]->binding().start &&
                    (c.callee == same[k]->variable + ".step" || training.count(c.callee)))
                    return true;
        return false;
    };
    // Where the training starts, as the bindings' scope sees it: the batch loop when it is in that
    // scope, else the scope's first call of the loop's function; nullopt when neither is known.
    const auto runsAt = [&](FunctionId scope) -> std::optional<std::uint32_t> {
        if (!m_loopStmt)
            return std::nullopt;
        if (scope == m_loopFunction)
            return m_loopStmt->start;
        const auto* def = idx().function(m_loopFunction);
        if (!def)
            return std::nullopt;
        for (const auto& c : idx().calls)
            if (c.function == scope && c.callee == def->name)
                return c.span.startByte;
        return std::nullopt;
    };
    std::set<std::uint32_t> replaced;
    for (std::size_t i = 0; i < m_p.optimizers.size(); ++i) {
        const auto& first = m_p.optimizers[i];
        if (first.synthesized || replaced.count(first.binding().start))
            continue;
        const FunctionId scope = functionAt(first.binding().start);
        std::vector<const OptimizerPlan*> same{&first};
        for (std::size_t j = i + 1; j < m_p.optimizers.size(); ++j) {
            const auto& o = m_p.optimizers[j];
            if (!o.synthesized && o.variable == first.variable &&
                !replaced.count(o.binding().start) && functionAt(o.binding().start) == scope)
                same.push_back(&o);
        }
        std::sort(same.begin(), same.end(), [](const auto* a, const auto* b) {
            return a->binding().start < b->binding().start;
        });
        std::set<std::uint32_t> statements;
        for (const auto* o : same)
            statements.insert(o->statement.start);
        if (same.size() < 2 || statements.size() != same.size() || trainsBetween(scope, same))
            continue;
        // The last binding before the training starts; when none is before it, the first.
        const auto start = runsAt(scope);
        const OptimizerPlan* live = start ? same.front() : same.back();
        for (const auto* o : same)
            if (start && o->binding().start < *start && o->binding().start > live->binding().start)
                live = o;
        for (const auto* o : same)
            if (o != live)
                replaced.insert(o->binding().start);
        m_p.notes.push_back("`" + live->variable + "` is bound " + std::to_string(same.size()) +
                            " times in one scope; the training steps the binding at " +
                            live->binding().where() + ", which the port builds");
    }
    std::erase_if(m_p.optimizers, [&](const OptimizerPlan& o) {
        return !o.synthesized && replaced.count(o.binding().start);
    });
}

void Planner::findModel()
{
    if (!m_o.modelVariable.empty())
        m_p.modelVariable = m_o.modelVariable;
    if (m_p.modelVariable.empty()) {
        for (const auto& o : m_p.optimizers) {
            if (o.synthesized)
                continue;
            if (o.madeBy.valid()) { // built by a factory: the model its caller hands over
                m_p.modelVariable = o.trains;
                if (!m_p.modelVariable.empty())
                    break;
                continue;
            }
            const auto& c = idx().calls;
            for (const auto& call : c) {
                if (call.span.startByte != o.construction.start)
                    continue;
                if (!call.arguments.empty()) {
                    std::string t = call.arguments[0].text;
                    if (auto p = t.find(".parameters()"); p != std::string::npos)
                        m_p.modelVariable = t.substr(0, p);
                    else if (std::string owner = parametersOwner(call); !owner.empty())
                        m_p.modelVariable = owner;
                }
            }
            if (!m_p.modelVariable.empty())
                break;
        }
    }
    if (m_p.modelVariable.empty() && m_p.loop) {
        // The receiver of zero_grad(), or what the forward calls.
        for (const auto& z : m_p.loop->zeroGrads) {
            const auto p = z.text.find(".zero_grad");
            if (p != std::string::npos && z.text.find('(') > p)
                m_p.modelVariable = z.text.substr(0, p);
        }
    }
    if (m_p.modelVariable.empty()) {
        m_p.manual.push_back(manualFinding("the model could not be found (no optimizer is given "
                                           "`model.parameters()`)",
                                           m_p.loop ? m_p.loop->loop : CodeRef{},
                                           "choose the model variable"));
        return;
    }
    // The optimizer is built on `self.parameters()` inside a module's own method: each layer
    // trains itself with its own optimizer (layer-local training, forward-forward style), which
    // the targets' step (one model, its optimizers, one loss) does not express.
    if (m_p.modelVariable == "self" && !m_p.optimizers.empty()) {
        const auto& o = m_p.optimizers.front();
        std::string cls;
        for (const Stmt* s : src().chainAt(o.construction.start, o.construction.end))
            if (s->type == "class_definition")
                cls = s->name;
        m_p.manual.push_back(manualFinding(
            "layer-local optimizers: `" + o.variable + "` is built on the parameters of " +
                (cls.empty() ? std::string("a module") : "class " + cls) +
                " itself, so each layer trains itself inside its own method; the target trains "
                "one model with its optimizers from one loss per step",
            o.construction,
            "write the layer-wise training by hand, or train the layers with one loss"));
        m_p.modelVariable.clear();
        m_p.stepNotPlaced = "layer-local optimizers";
        return;
    }
    // `self.model`, built by a trainer class's constructor: the constructor's `model`.
    if (m_p.modelVariable.starts_with("self.") && selfBuiltAssignment(m_p.modelVariable))
        m_p.modelVariable.erase(0, 5);
    // `self.model`, the constructor's name for the model its caller builds and hands over: the
    // caller's name, built where the instance is made.
    if (m_p.modelVariable.starts_with("self.") && m_p.loop) {
        const auto& given = m_p.loop->selfArguments;
        const auto it = given.find(m_p.modelVariable.substr(5));
        if (it != given.end() && !m_p.loop->selfBuilt.count(it->first) &&
            it->second.find_first_of("().[], ") == std::string::npos)
            m_p.modelVariable = it->second;
    }
    const Assignment* a = assignmentOf(m_p.modelVariable, m_loopFunction);
    // Built where the optimizer that trains it is built (a trainer class's method holds the
    // loop; the script's main() builds the model and the optimizer and hands them over).
    for (const auto& o : m_p.optimizers)
        if (!a && !o.synthesized)
            a = assignmentOf(m_p.modelVariable, functionAt(o.binding().start));
    if (!a && m_p.loop && m_p.loop->instance.valid())
        a = assignmentOf(m_p.modelVariable, m_instanceFunction);
    if (!a && noteLaunch())
        return;
    if (!a) {
        m_p.manual.push_back(
            manualFinding("the construction of `" + m_p.modelVariable + "` was not found",
                          m_p.loop ? m_p.loop->loop : CodeRef{}));
        return;
    }
    m_p.modelBinding = a == selfBuiltAssignment(a->target) ? a->target.substr(5) : a->target;
    noteOneProcess();
    const Call* c = innerCall(*a);
    if (c) {
        m_p.modelConstruction = refOf(m_p.entry, src(), c->span);
        const auto sym = m_a.resolver->callee(m_file, static_cast<int>(c - idx().calls.data()));
        if (sym.kind == python::SymbolKind::Class) {
            m_p.modelClass = lastPart(sym.qualified);
            m_p.modelClassFile = m_a.python[static_cast<std::size_t>(sym.file)].path;
        } else if (sym.kind == python::SymbolKind::Function) {
            m_p.modelClass = lastPart(sym.qualified);
            m_p.modelClassFile = m_a.python[static_cast<std::size_t>(sym.file)].path;
            m_p.modelFromFactory = true;
        } else {
            m_p.modelClass = resolvedName(*c);
        }
    } else {
        m_p.modelConstruction = refOf(m_p.entry, src(), a->span);
    }
    if (!m_o.modelClass.empty())
        m_p.modelClass = m_o.modelClass;
    const auto chain = src().chainAt(a->span.startByte, a->span.endByte);
    if (const Stmt* st = scopeStatement(chain))
        m_p.modelStatement = refOf(m_p.entry, src(), *st);
    // Once each: a statement choosing between two constructions (`if args.model == ...`)
    // reads a flag in both.
    for (const auto& u : m_a.facts().cliUses)
        if (u.file == m_file && u.span.startByte >= m_p.modelStatement.start &&
            u.span.endByte <= m_p.modelStatement.end &&
            std::find(m_p.modelFlags.begin(), m_p.modelFlags.end(), u.dest) == m_p.modelFlags.end())
            m_p.modelFlags.push_back(u.dest);
}

void Planner::findLoss()
{
    if (!m_p.loop)
        return;
    auto& lp = *m_p.loop;
    // The loss is assigned between the loop's start and backward(); when a step function the
    // loop calls holds backward() (`self.run_batch(x, y)`), between that function's start and it.
    std::uint32_t from = lp.loop.start;
    if (lp.backward.start < lp.loop.start || lp.backward.start >= lp.loop.end)
        for (const auto& f : idx().functions)
            if (f.span.startByte <= lp.backward.start && lp.backward.end <= f.span.endByte &&
                (from == lp.loop.start || f.span.startByte > from))
                from = f.span.startByte;
    for (const auto& a : idx().assignments) {
        if (a.target != lp.lossName || a.augmented)
            continue;
        if (a.span.startByte < from || a.span.endByte > lp.backward.start)
            continue;
        // The value: after "target = ".
        const std::string text = src().text(a.span.startByte, a.span.endByte);
        const auto eq = text.find('=');
        if (eq == std::string::npos)
            continue;
        std::uint32_t start = a.span.startByte + static_cast<std::uint32_t>(eq) + 1;
        while (start < a.span.endByte && src().text()[start] == ' ')
            ++start;
        m_p.lossExpression = refOf(m_p.entry, src(), start, a.span.endByte, a.span.line,
                                   a.span.column - 1 + static_cast<int>(start - a.span.startByte));
    }
    if (lp.unnamedLoss.valid())
        m_p.lossExpression = lp.unnamedLoss;
    // `loss = scaler.scale(fit)` then `loss.backward()`: the named loss is the scaled one, which
    // the port does not unscale (noteLossScaling reads the scale where backward is called).
    if (const TSNode v = m_p.lossExpression.valid()
                             ? src().nodeAt(m_p.lossExpression.start, m_p.lossExpression.end)
                             : TSNode{};
        !m_p.lossScaling && nodeType(v) == "call") {
        const TSNode fn = fieldOf(v, "function");
        if (nodeType(fn) == "attribute" && src().text(fieldOf(fn, "attribute")) == "scale")
            if (const Call* c = gradScalerOf(src().text(fieldOf(fn, "object"))))
                m_p.manual.push_back(manualFinding(
                    "mixed precision: the loss `" + lp.lossName + "` is `" + src().text(v) +
                        "`, scaled by torch's GradScaler (" + resolvedName(*c) +
                        "); the port hands a target only a loss scaled where backward is called",
                    m_p.lossExpression, "call backward on `" + src().text(v) + "` itself"));
    }
    if (!m_o.lossExpression.empty())
        m_p.lossExpression.text = m_o.lossExpression;
    if (!m_p.lossExpression.valid() && !lp.lossName.empty() &&
        lp.lossName.find_first_of("().") == std::string::npos)
        m_p.notes.push_back("the loss `" + lp.lossName + "` is not assigned in the loop body");
    // Criterion and helpers: the calls inside the loss expression.
    for (std::size_t i = 0; i < idx().calls.size(); ++i) {
        const auto& c = idx().calls[i];
        if (!m_p.lossExpression.valid() ||
            !within(c.span, m_p.lossExpression.start, m_p.lossExpression.end))
            continue;
        const auto sym = m_a.resolver->callee(m_file, static_cast<int>(i));
        if (sym.kind == python::SymbolKind::Function && sym.rest.empty())
            m_p.lossHelpers.push_back(lastPart(sym.qualified));
        if (c.callee.find('.') == std::string::npos && !c.callee.empty()) {
            if (const auto* a = assignmentOf(c.callee, m_loopFunction); a && a->call >= 0) {
                const auto& cc = idx().calls[static_cast<std::size_t>(a->call)];
                const std::string q = resolvedName(cc);
                // A loss module (`nn.MSELoss()`, a class named *Loss), not the model the loss
                // runs through: `nn.Sequential(...)` is torch.nn too.
                const bool model =
                    c.callee == m_p.modelVariable ||
                    std::any_of(m_p.models.begin(), m_p.models.end(),
                                [&](const auto& m) { return m.variable == c.callee; });
                if (!model && (q.starts_with("torch.nn.") || q.find("Loss") != std::string::npos)) {
                    m_p.criterionVariable = c.callee;
                    m_p.criterion = refOf(m_p.entry, src(), cc.span);
                }
            }
        }
    }
}

void Planner::findData(const std::string& iterable, FunctionId fn, DataPlan& out)
{
    out.variable = iterable;
    // `for batch in tqdm(loader, ...)`: the loop's own call.
    if (m_loopStmt && iterable.find('(') != std::string::npos)
        for (const auto& c : idx().calls)
            if (src().text(c.span.startByte, c.span.endByte) == iterable &&
                c.span.startByte >= m_loopStmt->start && c.span.endByte <= m_loopStmt->end)
                if (findProgressData(c, fn, out))
                    return;
    // A trainer class's `self.loader`: what its constructor builds, or the instantiation's
    // argument.
    if (iterable.starts_with("self.") && selfBuiltAssignment(iterable))
        return findData(iterable.substr(5), m_loopFunction, out);
    if (iterable.starts_with("self.") && m_p.loop && fn == m_loopFunction)
        if (const auto it = m_p.loop->selfArguments.find(iterable.substr(5));
            it != m_p.loop->selfArguments.end() &&
            it->second.find_first_of("()[]. ") == std::string::npos)
            return findData(it->second, m_instanceFunction, out);
    if (iterable.find_first_of("()[]. ") != std::string::npos)
        return;
    const Assignment* a = assignmentOf(iterable, fn);
    if (!a || a->call < 0)
        return;
    const Call& c = idx().calls[static_cast<std::size_t>(a->call)];
    if (findProgressData(c, fn, out) || findHelperData(c, fn, out))
        return;
    const std::string q = resolvedName(c);
    out.construction = refOf(m_p.entry, src(), c.span);
    out.isDataLoader = q.ends_with("DataLoader");
    if (!out.isDataLoader)
        return;
    for (const auto& arg : c.arguments) {
        if (arg.text.starts_with("**")) {
            // `DataLoader(ds, **train_kwargs)` with `train_kwargs = {'batch_size': ...}`: the
            // dict literal's batch size is the loader's (the updates under a device test add
            // only worker and pinning keys, which the targets set themselves).
            if (const Assignment* d = assignmentOf(arg.text.substr(2), a->function);
                d && out.batchSize.empty())
                out.batchSize = dictLiteralValue(d->value, "batch_size");
            continue;
        }
        if (arg.keyword.empty() && !out.dataset.valid())
            out.dataset = refOf(m_p.entry, src(), arg.valueSpan);
        else if (arg.keyword == "dataset")
            out.dataset = refOf(m_p.entry, src(), arg.valueSpan);
        else if (arg.keyword == "batch_size")
            out.batchSize = arg.text.substr(arg.text.find('=') + 1);
        else if (!arg.keyword.empty())
            out.keywords.emplace_back(arg.keyword,
                                      src().text(arg.valueSpan.startByte, arg.valueSpan.endByte));
    }
    constructorValues(out, a->function);
}

// A progress bar around the batches (`tqdm(loader, desc=...)`): the batches are the loader's,
// and the loader is looked up as the loop's iterable would be (a trainer class's `self.x` is
// the instantiation's argument).
bool Planner::findProgressData(const Call& c, FunctionId fn, DataPlan& out)
{
    if (lastPart(resolvedName(c)) != "tqdm" && lastPart(c.callee) != "tqdm")
        return false;
    if (c.arguments.empty() || !c.arguments[0].keyword.empty())
        return false;
    std::string inner = c.arguments[0].text;
    FunctionId where = fn;
    if (inner.starts_with("self.") && selfBuiltAssignment(inner)) {
        inner = inner.substr(5);
        where = m_loopFunction;
    } else if (inner.starts_with("self.") && m_p.loop) {
        const auto it = m_p.loop->selfArguments.find(inner.substr(5));
        if (it == m_p.loop->selfArguments.end())
            return false;
        inner = it->second;
        where = m_instanceFunction;
    }
    if (inner.empty())
        return false;
    // An attribute (`splits.train_loader`): the values are its, as for a loop over it.
    if (where == fn && inner.find_first_of("()[] ") == std::string::npos &&
        inner.find('.') != std::string::npos && !inner.starts_with("self.")) {
        out.variable = inner;
        out.progressOf = refOf(m_p.entry, src(), c.arguments[0].valueSpan);
        return true;
    }
    if (inner.find_first_of("()[]. ") != std::string::npos)
        return false;
    findData(inner, where, out);
    return true;
}

void Planner::findEval()
{
    // The first loop over batches that calls the model and runs no backward.
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& stmts) {
        for (const auto& s : stmts) {
            if (m_p.evaluation)
                return;
            if (s.type == "for_statement" && &s != m_loopStmt &&
                !containsMethodCall(src(), s.node, "backward") &&
                (s.uses.count(m_p.modelVariable) || readsSelfBuilt(s, m_p.modelVariable)) &&
                !m_p.modelVariable.empty()) {
                const std::string iter = src().text(s.forIter);
                // An epoch loop (`for epoch in range(n)`) may hold the validation inline.
                if (iter.ends_with(".parameters()") || iter.starts_with("range(")) {
                    walk(s.body);
                    walk(s.other);
                    continue;
                }
                EvalPlan e;
                e.loop = refOf(m_p.entry, src(), s);
                e.iterable = iter;
                TSNode target = s.forTarget;
                TSNode it = s.forIter;
                if (nodeType(it) == "call" && src().text(fieldOf(it, "function")) == "enumerate") {
                    it = ts_node_named_child(fieldOf(it, "arguments"), 0);
                    e.iterable = src().text(it);
                    if (ts_node_named_child_count(target) == 2)
                        target = ts_node_named_child(target, 1);
                }
                e.batchTarget = src().text(target);
                e.batchNames = targetNames(src(), target);
                for (const auto& b : s.body) {
                    if (b.isComment())
                        continue;
                    e.body.push_back(refOf(m_p.entry, src(), b));
                    if (b.type == "expression_statement" &&
                        nodeType(ts_node_named_child(b.node, 0)) == "augmented_assignment")
                        for (const auto& d : b.defines)
                            e.metrics.push_back(d);
                }
                e.function = "";
                if (const auto* def = idx().function(functionAt(s.start)))
                    e.function = def->name;
                m_p.evaluation = e;
                findData(e.iterable, functionAt(s.start), m_p.eval);
                bindEvalDataset(functionAt(s.start));
                return;
            }
            walk(s.body);
            walk(s.other);
        }
    };
    walk(src().statements());
}

// An evaluation function that builds its loader over a parameter (`def evaluate(model,
// dataset): loader = DataLoader(dataset, ...)`): the data set is the argument a call gives it,
// the one that is not the training's when it is called on both (`evaluate(model, train_set)`
// and `evaluate(model, test_set)`), so the port's validation reads the held-out data.
void Planner::bindEvalDataset(FunctionId fn)
{
    const auto* def = idx().function(fn);
    const std::string name = m_p.eval.dataset.text;
    if (!def || name.empty() ||
        std::none_of(def->parameters.begin(), def->parameters.end(),
                     [&](const auto& p) { return p.name == name; }))
        return;
    const python::Argument* chosen = nullptr;
    for (const auto& c : idx().calls) {
        const auto given = boundArguments(c, *def);
        if (!given || !given->given.count(name) || !given->given.at(name).argument)
            continue;
        const python::Argument* arg = given->given.at(name).argument;
        if (arg->text.find_first_of("()[] ") != std::string::npos)
            continue;
        if (!chosen || chosen->text == m_p.train.dataset.text)
            chosen = arg;
    }
    if (chosen)
        m_p.eval.dataset = refOf(m_p.entry, src(), chosen->valueSpan);
}

void Planner::findDevices()
{
    for (const auto& a : idx().assignments) {
        bool device = a.value.find("torch.device(") != std::string::npos ||
                      a.value.find("current_accelerator") != std::string::npos ||
                      a.value.find("\"cuda\"") != std::string::npos ||
                      a.value.find("'cuda'") != std::string::npos;
        // A call is a device only when what it calls makes one (`torch.device(...)`,
        // `torch.accelerator.current_accelerator()`): a model or a tensor built with a device
        // argument (`Net(width=8, device=torch.device("cpu"))`) is not one.
        if (device && a.kind == python::ValueKind::Call) {
            const std::string callee = a.value.substr(0, a.value.find('('));
            device = callee.ends_with("device") || callee.find("accelerator") != std::string::npos;
        }
        if (device && a.target.find_first_of(",.[ ") == std::string::npos)
            m_p.deviceNames.insert(a.target);
    }
    m_p.deviceNames.insert("device");
    for (const auto& c : idx().calls) {
        const std::string m = lastPart(c.callee);
        if (m != "cuda" &&
            !(m == "to" && c.arguments.size() == 1 && m_p.deviceNames.count(c.arguments[0].text)))
            continue;
        m_p.deviceMoves.push_back(PlanItem{"device-move", c.callee, refOf(m_p.entry, src(), c.span),
                                           "dropped: the target places the model and the batches"});
    }
}

void Planner::findLeftovers()
{
    for (const auto& c : idx().calls) {
        const std::string m = lastPart(c.callee);
        if (m == "save" || m == "save_image" || m == "save_state_dict" || m == "export")
            m_p.leftovers.push_back(PlanItem{
                "checkpoint", c.callee, refOf(m_p.entry, src(), c.span),
                "saving: left to the target's own checkpoints (the port's notes say where)"});
    }
    for (const auto& s : src().statements())
        if (s.type == "if_statement" &&
            src().text(s.condition).find("__name__") != std::string::npos)
            m_p.leftovers.push_back(PlanItem{"main", "if __name__", refOf(m_p.entry, src(), s),
                                             "the script's entry: the target runs the port"});
}

} // namespace portolan::port::planning
