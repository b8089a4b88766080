#include "core/port/plan.h"

#include "core/analysis/facts.h"
#include "core/python/resolve.h"

#include <algorithm>
#include <cstring>

namespace portolan::port {

using python::Assignment;
using python::Call;
using python::FunctionId;
using python::ModuleLevel;
using python::PyIndex;

namespace {

std::string_view nodeType(TSNode n)
{
    return ts_node_is_null(n) ? std::string_view() : std::string_view(ts_node_type(n));
}

TSNode fieldOf(TSNode n, const char* name)
{
    return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::strlen(name)));
}

CodeRef refOf(const std::string& file, const SourceFile& src, std::uint32_t start,
              std::uint32_t end, int line, int column)
{
    CodeRef r;
    r.file = file;
    r.start = start;
    r.end = end;
    r.line = line;
    r.column = column;
    r.text = src.text(start, end);
    return r;
}

CodeRef refOf(const std::string& file, const SourceFile& src, const python::Span& s)
{
    return refOf(file, src, s.startByte, s.endByte, s.line, s.column - 1);
}

CodeRef refOf(const std::string& file, const SourceFile& src, const Stmt& s)
{
    return refOf(file, src, s.start, s.end, s.line, s.column);
}

std::string lastPart(const std::string& dotted)
{
    const auto dot = dotted.rfind('.');
    return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

std::string receiverOf(const std::string& callee)
{
    const auto dot = callee.rfind('.');
    return dot == std::string::npos ? std::string() : callee.substr(0, dot);
}

bool within(const python::Span& s, std::uint32_t start, std::uint32_t end)
{
    return s.startByte >= start && s.endByte <= end;
}

// The statement of its own scope (function body or module) that holds a position: the chain's
// element right after the innermost enclosing definition.
const Stmt* scopeStatement(const std::vector<const Stmt*>& chain)
{
    const Stmt* found = nullptr;
    bool take = true;
    for (const Stmt* s : chain) {
        if (take) {
            found = s;
            take = false;
        }
        if (s->type == "function_definition" || s->type == "decorated_definition" ||
            s->type == "class_definition")
            take = true;
    }
    return take ? nullptr : found;
}

class Planner
{
public:
    Planner(const analysis::ProjectAnalysis& a, const PortOptions& o, PortPlan& p)
        : m_a(a), m_o(o), m_p(p)
    {}

    Result<bool> run();

private:
    const PyIndex& idx() const { return m_a.python[static_cast<std::size_t>(m_file)].index; }
    const SourceFile& src() const { return *m_p.sources.at(m_p.entry); }
    const std::string& qualified(int call) const
    {
        static const std::string none;
        const auto& q = m_a.facts().calleeQualified;
        if (m_file < 0 || static_cast<std::size_t>(m_file) >= q.size())
            return none;
        const auto& f = q[static_cast<std::size_t>(m_file)];
        return call >= 0 && static_cast<std::size_t>(call) < f.size()
                   ? f[static_cast<std::size_t>(call)]
                   : none;
    }
    std::string resolvedName(const Call& c) const
    {
        const auto i = static_cast<int>(&c - idx().calls.data());
        const auto& q = qualified(i);
        return q.empty() ? c.resolved : q;
    }

    bool chooseEntry();
    bool findLoop();
    void analyseBody(const Stmt& loop);
    void findOptimizers();
    void findModel();
    void findLoss();
    void findData(const std::string& iterable, FunctionId fn, DataPlan& out);
    void findEval();
    void findDevices();
    void findLeftovers();
    const Assignment* assignmentOf(const std::string& name, FunctionId fn, int depth = 0) const;
    FunctionId functionAt(std::uint32_t byte) const;
    const Call* innerCall(const Assignment& a) const;

    const analysis::ProjectAnalysis& m_a;
    const PortOptions& m_o;
    PortPlan& m_p;
    int m_file = -1;
    FunctionId m_loopFunction = ModuleLevel;
    const Stmt* m_loopStmt = nullptr;
};

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

// The assignment that gives `name` its value as seen from `fn`: in fn, else through the
// parameter it is (the argument of fn's call sites in this file), else at module level.
const Assignment* Planner::assignmentOf(const std::string& name, FunctionId fn, int depth) const
{
    if (depth > 4)
        return nullptr;
    for (const auto& a : idx().assignments)
        if (a.function == fn && a.target == name && !a.augmented)
            return &a;
    if (fn != ModuleLevel) {
        const auto* def = idx().function(fn);
        int position = -1;
        for (std::size_t i = 0; def && i < def->parameters.size(); ++i)
            if (def->parameters[i].name == name)
                position = static_cast<int>(i);
        if (position >= 0 && def) {
            for (const auto& c : idx().calls) {
                if (c.callee != def->name)
                    continue;
                std::string arg;
                int positional = 0;
                for (const auto& x : c.arguments) {
                    if (x.keyword == name)
                        arg = x.text;
                    else if (x.keyword.empty() && positional++ == position)
                        arg = x.text;
                }
                if (!arg.empty() && arg.find_first_of("().[] ") == std::string::npos)
                    if (const auto* a = assignmentOf(arg, c.function, depth + 1))
                        return a;
            }
            return nullptr;
        }
        if (const auto* parentDef = idx().function(fn))
            return assignmentOf(name, parentDef->parent, depth + 1);
    }
    return nullptr;
}

bool Planner::findLoop()
{
    const auto& calls = idx().calls;
    const Stmt* best = nullptr;
    const Call* backward = nullptr;
    for (const auto& c : calls) {
        if (!c.callee.ends_with(".backward") && c.callee != "backward")
            continue;
        const auto chain = src().chainAt(c.span.startByte, c.span.endByte);
        const Stmt* loop = nullptr;
        for (const Stmt* s : chain)
            if (s->type == "for_statement" || s->type == "while_statement")
                loop = s;
        if (loop && !best) {
            best = loop;
            backward = &c;
        }
    }
    if (!best || !backward)
        return false;
    m_loopStmt = best;
    m_loopFunction = functionAt(best->start);
    LoopPlan lp;
    lp.loop = refOf(m_p.entry, src(), *best);
    if (const auto* def = idx().function(m_loopFunction))
        lp.function = def->name;
    lp.backward = refOf(m_p.entry, src(), backward->span);
    for (const auto& s : best->body)
        if (!s.isComment() && lp.bodyLine == 0)
            lp.bodyLine = s.line;
    const std::string receiver = receiverOf(backward->callee);
    lp.lossName = receiver;
    if (best->type == "for_statement") {
        TSNode target = best->forTarget;
        TSNode iter = best->forIter;
        if (nodeType(iter) == "call" && src().text(fieldOf(iter, "function")) == "enumerate") {
            const TSNode args = fieldOf(iter, "arguments");
            if (ts_node_named_child_count(args) >= 1)
                iter = ts_node_named_child(args, 0);
            TSNode t = target;
            if (nodeType(t) == "tuple_pattern" || nodeType(t) == "pattern_list" ||
                nodeType(t) == "parenthesized_expression") {
                if (ts_node_named_child_count(t) == 2) {
                    lp.indexName = src().text(ts_node_named_child(t, 0));
                    target = ts_node_named_child(t, 1);
                }
            }
        }
        lp.batchTarget = src().text(target);
        lp.batchNames = targetNames(src(), target);
        lp.iterable = src().text(iter);
    } else {
        m_p.manual.push_back(manualFinding(
            "the training loop is a `while` loop, not a loop over batches: where the batches "
            "come from must be written by hand",
            lp.loop, "write the batch source as a DataLoader"));
    }
    m_p.loop = lp;
    analyseBody(*best);
    return true;
}

void Planner::analyseBody(const Stmt& loop)
{
    auto& lp = *m_p.loop;
    const auto& f = src();
    int phase = 0; // 0 before backward, 1 between backward and step, 2 after step
    for (const auto& s : loop.body) {
        if (s.isComment())
            continue;
        const CodeRef ref = refOf(m_p.entry, f, s);
        const bool back = containsMethodCall(f, s.node, "backward");
        bool step = false;
        for (const auto& o : m_p.optimizers)
            step = step || containsMethodCall(f, s.node, "step", o.variable);
        if (!step && containsMethodCall(f, s.node, "step")) {
            bool scheduler = false;
            for (const auto& sc : m_p.schedulers)
                scheduler = scheduler || containsMethodCall(f, s.node, "step", sc.variable);
            step = !scheduler && !m_p.optimizers.empty();
        }
        // A hand-written SGD update: for p in model.parameters(): p.data.add_(...)
        const bool manualUpdate =
            s.type == "for_statement" && src().text(s.forIter).ends_with(".parameters()") &&
            (containsMethodCall(f, s.node, "add_") || containsMethodCall(f, s.node, "sub_"));
        const bool zero =
            containsMethodCall(f, s.node, "zero_grad") && !back && !step && s.defines.empty();
        const bool mode =
            (containsMethodCall(f, s.node, "train") || containsMethodCall(f, s.node, "eval")) &&
            s.type == "expression_statement" && s.defines.empty();
        if (back) {
            int count = 0;
            for (const auto& c : idx().calls)
                if (c.callee.ends_with(".backward") && within(c.span, s.start, s.end))
                    ++count;
            lp.backwardCount += count;
            if (phase == 0 && s.type == "expression_statement" && count == 1) {
                phase = 1;
                continue;
            }
            lp.forward.push_back(ref); // a backward inside a compound statement
            phase = 1;
            continue;
        }
        if (zero) {
            lp.zeroGrads.push_back(ref);
            continue;
        }
        if (mode) {
            lp.modeSwitches.push_back(ref);
            continue;
        }
        if (step || manualUpdate) {
            lp.steps.push_back(ref);
            if (manualUpdate && m_p.optimizers.empty()) {
                // The update is SGD by hand: param -= lr * grad. The rate is what scales grad.
                OptimizerPlan o;
                o.variable = "optimizer";
                o.qualified = "torch.optim.SGD";
                o.synthesized = true;
                const std::string text = ref.text;
                std::string lr;
                if (auto a = text.find("alpha=-"); a != std::string::npos) {
                    lr = text.substr(a + 7);
                    lr = lr.substr(0, lr.find(')'));
                } else if (auto b = text.find("add_(-"); b != std::string::npos) {
                    lr = text.substr(b + 6);
                    lr = lr.substr(0, lr.find('*'));
                } else if (auto c = text.find("sub_("); c != std::string::npos) {
                    lr = text.substr(c + 5);
                    lr = lr.substr(0, lr.find('*'));
                }
                while (!lr.empty() && lr.back() == ' ')
                    lr.pop_back();
                o.learningRate = lr;
                o.construction = ref;
                o.statement = ref;
                const TSNode iter = s.forIter;
                const std::string it = src().text(iter);
                m_p.modelVariable = it.substr(0, it.size() - std::string(".parameters()").size());
                if (lr.empty())
                    m_p.manual.push_back(manualFinding(
                        "the weights are updated by hand and the learning rate could not be "
                        "read from the update",
                        ref, "use a torch.optim optimizer"));
                else
                    m_p.notes.push_back("the hand-written update at " + ref.where() +
                                        " is plain SGD: the port uses torch.optim.SGD(lr=" + lr +
                                        "), the same update");
                m_p.optimizers.push_back(o);
            } else if (s.type == "if_statement" && !s.other.empty()) {
                m_p.manual.push_back(manualFinding("the optimizer step is conditional (" +
                                                       src().text(s.condition) +
                                                       "); the port always steps the optimizer",
                                                   ref));
            }
            phase = 2;
            continue;
        }
        if (phase == 0)
            lp.forward.push_back(ref);
        else if (phase == 1)
            lp.betweenBackwardAndStep.push_back(ref);
        else
            lp.afterStep.push_back(ref);
    }
    if (lp.steps.empty() && m_p.optimizers.empty())
        m_p.manual.push_back(manualFinding("no optimizer step found in the training loop", lp.loop,
                                           "step a torch.optim optimizer in the loop"));
    if (lp.backwardCount > 1)
        m_p.manual.push_back(
            manualFinding("several backward() calls per step (" + std::to_string(lp.backwardCount) +
                              "): the target runs one loss per step",
                          lp.backward, "combine the losses into one, or write the step by hand"));
    for (const auto& s : lp.afterStep)
        m_p.leftovers.push_back(PlanItem{"logging", "", s, "after the optimizer step: left out"});
    for (const auto& s : lp.zeroGrads)
        m_p.leftovers.push_back(
            PlanItem{"zero-grad", "", s, "the target zeroes the gradients itself"});
    for (const auto& s : lp.modeSwitches)
        m_p.leftovers.push_back(
            PlanItem{"mode-switch", "", s, "the target switches train/eval mode itself"});
}

void Planner::findOptimizers()
{
    for (std::size_t i = 0; i < idx().calls.size(); ++i) {
        const auto& c = idx().calls[i];
        const std::string q = resolvedName(c);
        const bool sched = q.starts_with("torch.optim.lr_scheduler.");
        const bool opt = !sched && q.starts_with("torch.optim.") &&
                         std::isupper(static_cast<unsigned char>(lastPart(q)[0]));
        if (!opt && !sched)
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

void Planner::findModel()
{
    if (!m_o.modelVariable.empty())
        m_p.modelVariable = m_o.modelVariable;
    if (m_p.modelVariable.empty()) {
        for (const auto& o : m_p.optimizers) {
            if (o.synthesized)
                continue;
            const auto& c = idx().calls;
            for (const auto& call : c) {
                if (call.span.startByte != o.construction.start)
                    continue;
                if (!call.arguments.empty()) {
                    std::string t = call.arguments[0].text;
                    if (auto p = t.find(".parameters()"); p != std::string::npos)
                        m_p.modelVariable = t.substr(0, p);
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
    const Assignment* a = assignmentOf(m_p.modelVariable, m_loopFunction);
    if (!a) {
        m_p.manual.push_back(
            manualFinding("the construction of `" + m_p.modelVariable + "` was not found",
                          m_p.loop ? m_p.loop->loop : CodeRef{}));
        return;
    }
    m_p.modelBinding = a->target;
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
    for (const auto& u : m_a.facts().cliUses)
        if (u.file == m_file && u.span.startByte >= m_p.modelStatement.start &&
            u.span.endByte <= m_p.modelStatement.end)
            m_p.modelFlags.push_back(u.dest);
}

void Planner::findLoss()
{
    if (!m_p.loop)
        return;
    auto& lp = *m_p.loop;
    for (const auto& a : idx().assignments) {
        if (a.target != lp.lossName || a.augmented)
            continue;
        if (a.span.startByte < lp.loop.start || a.span.endByte > lp.backward.start)
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
    if (!m_o.lossExpression.empty())
        m_p.lossExpression.text = m_o.lossExpression;
    if (!m_p.lossExpression.valid() && lp.lossName.find_first_of("().") == std::string::npos)
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
                if (q.starts_with("torch.nn.") || q.find("Loss") != std::string::npos) {
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
    if (iterable.find_first_of("()[]. ") != std::string::npos)
        return;
    const Assignment* a = assignmentOf(iterable, fn);
    if (!a || a->call < 0)
        return;
    const Call& c = idx().calls[static_cast<std::size_t>(a->call)];
    const std::string q = resolvedName(c);
    out.construction = refOf(m_p.entry, src(), c.span);
    out.isDataLoader = q.ends_with("DataLoader");
    if (!out.isDataLoader)
        return;
    for (const auto& arg : c.arguments) {
        if (arg.text.starts_with("**"))
            continue;
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
}

void Planner::findEval()
{
    // The first loop over batches that calls the model and runs no backward.
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& stmts) {
        for (const auto& s : stmts) {
            if (m_p.evaluation)
                return;
            if (s.type == "for_statement" && &s != m_loopStmt &&
                !containsMethodCall(src(), s.node, "backward") && s.uses.count(m_p.modelVariable) &&
                !m_p.modelVariable.empty()) {
                const std::string iter = src().text(s.forIter);
                if (iter.ends_with(".parameters()") || iter.starts_with("range("))
                    continue;
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
                return;
            }
            walk(s.body);
            walk(s.other);
        }
    };
    walk(src().statements());
}

void Planner::findDevices()
{
    for (const auto& a : idx().assignments) {
        const bool device = a.value.find("torch.device(") != std::string::npos ||
                            a.value.find("current_accelerator") != std::string::npos ||
                            a.value.find("\"cuda\"") != std::string::npos ||
                            a.value.find("'cuda'") != std::string::npos;
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
            m_p.leftovers.push_back(PlanItem{"checkpoint", c.callee,
                                             refOf(m_p.entry, src(), c.span),
                                             "saving: the target checkpoints the trial itself"});
    }
    for (const auto& s : src().statements())
        if (s.type == "if_statement" &&
            src().text(s.condition).find("__name__") != std::string::npos)
            m_p.leftovers.push_back(PlanItem{"main", "if __name__", refOf(m_p.entry, src(), s),
                                             "the script's entry: the target runs the port"});
}

Result<bool> Planner::run()
{
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
        return Result<bool>::fail(d);
    }
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
    return Result<bool>::ok(true);
}

} // namespace

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

Result<PortPlan> planPort(const analysis::ProjectAnalysis& analysis, const PortOptions& options)
{
    PortPlan plan;
    plan.root = analysis.root;
    Planner planner(analysis, options, plan);
    auto r = planner.run();
    if (!r)
        return Result<PortPlan>::fail(r.error);
    return Result<PortPlan>::ok(std::move(plan));
}

} // namespace portolan::port
