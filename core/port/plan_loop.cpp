// The batch loop of the training and the roles of its statements.
#include "core/port/plan_internal.h"

#include <algorithm>
#include <functional>

namespace portolan::port::planning {

namespace {

// `loss`, `out.loss`, `self.loss`: a name the port can read the loss by. Anything else (a call,
// a sum, a subscript) is an expression computed where backward() is called.
bool isDottedName(TSNode n)
{
    const std::string_view t = nodeType(n);
    if (t == "identifier")
        return true;
    return t == "attribute" && isDottedName(fieldOf(n, "object"));
}

} // namespace

bool Planner::findLoop()
{
    const auto& calls = idx().calls;
    const Stmt* best = nullptr;
    const Call* backward = nullptr;
    // Each batch loop with a backward, with its first backward: several are several trainings
    // (plan_trainings.cpp), of which one is ported.
    std::vector<const Stmt*> loops;
    std::vector<const Call*> backwards;
    for (const auto& c : calls) {
        if (!c.callee.ends_with(".backward") && c.callee != "backward")
            continue;
        const auto chain = src().chainAt(c.span.startByte, c.span.endByte);
        const Stmt* loop = nullptr;
        for (const Stmt* s : chain)
            if (s->type == "for_statement" || s->type == "while_statement")
                loop = s;
        if (loop && std::find(loops.begin(), loops.end(), loop) == loops.end()) {
            loops.push_back(loop);
            backwards.push_back(&c);
        }
    }
    if (!loops.empty()) {
        const std::size_t k = chooseTraining(loops);
        best = loops[k];
        backward = backwards[k];
    }
    // No backward inside a loop of its own function: the step may be a function called once
    // per iteration of a loop elsewhere (`for epoch in ...: train_iter(...)`, an episode loop
    // calling finish_episode()). Its statements are then the step, and the calling loop the
    // loop over steps.
    const Stmt* stepFunction = nullptr;
    const Call* stepCall = nullptr;
    for (const auto& c : calls) {
        if (best || (!c.callee.ends_with(".backward") && c.callee != "backward"))
            continue;
        const Stmt* def = nullptr;
        for (const Stmt* s : src().chainAt(c.span.startByte, c.span.endByte))
            if (s->type == "function_definition")
                def = s;
        if (!def || def->name.empty())
            continue;
        for (const auto& d : calls) {
            if (d.callee != def->name && !isSelfCallOf(d, *def))
                continue;
            const Stmt* loop = nullptr;
            for (const Stmt* s : src().chainAt(d.span.startByte, d.span.endByte))
                if (s->type == "for_statement" || s->type == "while_statement")
                    loop = s;
            if (loop && !(loop->start >= def->start && loop->end <= def->end)) {
                best = loop;
                backward = &c;
                stepFunction = def;
                stepCall = &d;
                break;
            }
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
    lp.lossName = receiverOf(backward->callee);
    const TSNode call = src().nodeAt(backward->span.startByte, backward->span.endByte);
    const TSNode callee = nodeType(call) == "call" ? fieldOf(call, "function") : TSNode{};
    const TSNode receiver = nodeType(callee) == "attribute" ? fieldOf(callee, "object") : TSNode{};
    if (!ts_node_is_null(receiver) && !isDottedName(receiver)) {
        lp.lossName.clear();
        lp.unnamedLoss = refOf(m_p.entry, src(), ts_node_start_byte(receiver),
                               ts_node_end_byte(receiver), ts_node_start_point(receiver).row + 1,
                               static_cast<int>(ts_node_start_point(receiver).column));
        noteLossScaling(receiver, lp);
    }
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
    } else if (!drawnBatches(*best, lp)) {
        m_p.manual.push_back(manualFinding(
            "the training loop is a `while` loop, not a loop over batches: where the batches "
            "come from must be written by hand",
            lp.loop, "write the batch source as a DataLoader"));
    }
    m_p.loop = lp;
    if (stepFunction) {
        // The loop may itself be a trainer class's method (`for x, y in self.data:
        // self.run_batch(x, y)`): its `self.x` are the instantiation's arguments.
        bindSelfAttributes(*best);
        noteDrawnInputs(*best, *stepFunction, *stepCall);
        noteAroundStepCall(*best, *stepFunction);
        bindStepArguments(*backward, *stepCall);
        analyseBody(*stepFunction);
        return true;
    }
    bindSelfAttributes(*best);
    if (const Stmt* closure = closureOf(*best, *backward)) {
        analyseClosureLoop(*best, *closure);
        return true;
    }
    analyseBody(*best);
    return true;
}

// The innermost class definition around a span, nullptr when none.
const Stmt* Planner::classAround(std::uint32_t start, std::uint32_t end) const
{
    const Stmt* cls = nullptr;
    for (const Stmt* s : src().chainAt(start, end))
        if (s->type == "class_definition")
            cls = s;
    return cls;
}

// `self.run_batch(x, y)` inside the class that defines `run_batch`: a call of that method, the
// step of a trainer class whose batch loop is in another method (`_run_epoch`).
bool Planner::isSelfCallOf(const Call& call, const Stmt& method) const
{
    if (call.callee != "self." + method.name)
        return false;
    const Stmt* cls = classAround(method.start, method.end);
    return cls && cls == classAround(call.span.startByte, call.span.endByte);
}

// An optimizer stepped with a closure (`def closure(): ...; loss.backward(); return loss` then
// `optimizer.step(closure)`, LBFGS): backward runs inside a function defined in the loop body and
// handed to `.step`. The closure's statements are the step (its locals are the step's own), not
// names to look up elsewhere. Returns the closure's definition, or nullptr.
const Stmt* Planner::closureOf(const Stmt& loop, const Call& backward) const
{
    const Stmt* def = nullptr;
    for (const Stmt* s : src().chainAt(backward.span.startByte, backward.span.endByte))
        if (!def && s->type == "function_definition" && s->start > loop.start &&
            s->end <= loop.end && !s->name.empty())
            def = s;
    if (!def)
        return nullptr;
    for (const auto& c : idx().calls)
        if (lastPart(c.callee) == "step" && within(c.span, loop.start, loop.end))
            for (const auto& x : c.arguments)
                if (x.text == def->name)
                    return def;
    return nullptr;
}

void Planner::analyseClosureLoop(const Stmt& loop, const Stmt& closure)
{
    analyseBody(closure);
    auto& lp = *m_p.loop;
    for (const auto& s : loop.body) {
        if (s.isComment() || &s == &closure)
            continue;
        const CodeRef ref = refOf(m_p.entry, src(), s);
        if (s.uses.count(closure.name) && containsMethodCall(src(), s.node, "step")) {
            lp.steps.push_back(ref);
            continue;
        }
        m_p.leftovers.push_back(PlanItem{"logging", "", ref,
                                         "around the closure's step (evaluation, plots, "
                                         "logging): left out"});
    }
}

// The batch loop in a method of a class the script instantiates (a trainer class:
// `TrainEval(args, model, loader, optimizer, criterion).train()`): what the method reads as
// `self.x` is what the constructor stored from its parameters (`self.x = x`), so each such
// attribute is bound to the instantiation's argument, read where the instance is made.
void Planner::bindSelfAttributes(const Stmt& loop)
{
    const Stmt* cls = nullptr;
    for (const Stmt* s : src().chainAt(loop.start, loop.end))
        if (s->type == "class_definition")
            cls = s;
    if (!cls || cls->name.empty())
        return;
    const Stmt* init = nullptr;
    for (const auto& s : cls->body)
        if (s.type == "function_definition" && s.name == "__init__" && !s.body.empty())
            init = &s;
    const Call* instance = nullptr;
    for (const auto& c : idx().calls)
        if (!instance && c.callee == cls->name)
            instance = &c;
    const auto* def = init ? idx().function(functionAt(init->body.back().start)) : nullptr;
    const auto given = instance && def ? boundArguments(*instance, *def) : std::nullopt;
    // Each attribute the constructor stores from a parameter (`self.x = x`), bound to the
    // instantiation's argument.
    auto& bound = m_p.loop->selfArguments;
    for (std::size_t i = 0; init && given && i < init->body.size(); ++i) {
        const Stmt& s = init->body[i];
        const TSNode a = ts_node_named_child(s.node, 0);
        if (s.type != "expression_statement" || nodeType(a) != "assignment")
            continue;
        const TSNode left = fieldOf(a, "left");
        TSNode right = fieldOf(a, "right");
        // `self.model = model.to(gpu_id)`: the device move is the target's; the value is the
        // parameter.
        if (nodeType(right) == "call") {
            const TSNode callee = fieldOf(right, "function");
            const std::string method = src().text(fieldOf(callee, "attribute"));
            if (nodeType(callee) == "attribute" && (method == "to" || method == "cuda"))
                right = fieldOf(callee, "object");
        }
        if (nodeType(left) != "attribute" || nodeType(right) != "identifier" ||
            src().text(fieldOf(left, "object")) != "self")
            continue;
        if (const auto it = given->given.find(src().text(right)); it != given->given.end())
            bound[src().text(fieldOf(left, "attribute"))] = it->second.text;
    }
    if (init)
        bindSelfBuilt(*cls, *init, instance);
    if (!bound.empty()) {
        m_p.loop->instance = refOf(m_p.entry, src(), instance->span);
        m_instanceFunction = instance->function;
    }
}

// `x = x.to(device)` / `x = x.cuda()`: a value moved to the device in place, which the target
// does for the batches it hands out.
bool Planner::batchDeviceMove(const Stmt& s) const
{
    const TSNode a = ts_node_named_child(s.node, 0);
    if (s.type != "expression_statement" || nodeType(a) != "assignment")
        return false;
    const TSNode left = fieldOf(a, "left"), right = fieldOf(a, "right");
    if (nodeType(left) != "identifier" || nodeType(right) != "call")
        return false;
    const TSNode callee = fieldOf(right, "function");
    if (nodeType(callee) != "attribute")
        return false;
    const std::string method = src().text(fieldOf(callee, "attribute"));
    return (method == "to" || method == "cuda") &&
           src().text(fieldOf(callee, "object")) == src().text(left);
}

// What the loop around a step function's call does besides the call (the batches an episode
// collects) is not the step: named, so the port is partial rather than silent. Statements
// that only steer the loop or log are left out.
void Planner::noteAroundStepCall(const Stmt& loop, const Stmt& stepFunction)
{
    const auto& lp = *m_p.loop;
    // Statements that only steer the loop or log (`if args.dry_run: break`, a print) are
    // not training: left out, as the target decides how many steps run.
    std::function<bool(const Stmt&)> controlOnly = [&](const Stmt& s) {
        if (s.isComment() || s.type == "break_statement" || s.type == "continue_statement" ||
            s.type == "pass_statement")
            return true;
        if (s.type == "expression_statement")
            return src().text(s.start, s.end).starts_with("print(");
        if (s.type != "if_statement")
            return false;
        return std::all_of(s.body.begin(), s.body.end(), controlOnly) &&
               std::all_of(s.other.begin(), s.other.end(), controlOnly);
    };
    const auto callsStep = [&](const Stmt& s) {
        return s.uses.count(stepFunction.name) ||
               src().text(s.start, s.end).find("self." + stepFunction.name + "(") !=
                   std::string::npos;
    };
    const auto drawn = [&](const Stmt& s) {
        return std::any_of(lp.drawnInputs.begin(), lp.drawnInputs.end(),
                           [&](const CodeRef& r) { return r.start == s.start && r.end == s.end; });
    };
    // What the training reads: the step function's free names, the call's and the draws'
    // names, the loop's header, the optimizers and schedulers; and, through the project's
    // functions among them, what those read.
    std::set<std::string> needed = stepFunction.uses; // what it reads from outside itself
    for (const auto& s : loop.body)
        if (!s.isComment() && (callsStep(s) || drawn(s)))
            needed.insert(s.uses.begin(), s.uses.end());
    for (const TSNode header : {loop.forIter, loop.condition})
        if (!ts_node_is_null(header))
            for (const auto& n : usedNames(src(), header))
                needed.insert(n);
    for (const auto& o : m_p.optimizers)
        needed.insert(o.variable);
    for (const auto& sc : m_p.schedulers)
        needed.insert(sc.variable);
    for (std::set<std::string> seen; seen.size() < 64;) {
        const auto before = seen.size();
        for (const auto& n : std::set<std::string>(needed))
            if (const Stmt* def = src().topDefinition(n);
                def && def->type != "class_definition" && seen.insert(n).second)
                for (const auto& f : def->uses)
                    needed.insert(f);
        if (seen.size() == before)
            break;
    }
    for (const auto& s : loop.body) {
        if (s.isComment() || callsStep(s))
            continue;
        // What the step's inputs are drawn with runs in the port's step (drawn_inputs.cpp).
        if (drawn(s))
            continue;
        if (batchDeviceMove(s)) {
            m_p.leftovers.push_back(PlanItem{"device-move", "", refOf(m_p.entry, src(), s),
                                             "moves a batch to the device: the target does"});
            continue;
        }
        // A print that runs the model or draws a random number does change the training.
        const bool record = onlyBookkeeping(s.node, needed);
        if (record && controlOnly(s)) {
            m_p.leftovers.push_back(PlanItem{"loop-control", "", refOf(m_p.entry, src(), s),
                                             "steers the original's loop or logs: the "
                                             "target runs the steps"});
            continue;
        }
        if (record) {
            m_p.leftovers.push_back(PlanItem{"logging", "", refOf(m_p.entry, src(), s),
                                             "keeps the loop's own record (a running total, "
                                             "a log): the training does not read it"});
            continue;
        }
        std::string what = src().text(s.start, std::min(s.end, s.start + 60));
        std::replace(what.begin(), what.end(), '\n', ' ');
        what.erase(std::unique(what.begin(), what.end(),
                               [](char a, char b) { return a == ' ' && b == ' '; }),
                   what.end());
        m_p.manual.push_back(manualFinding("the training step is " + stepFunction.name +
                                               "(), called once per iteration "
                                               "of the loop at " +
                                               lp.loop.where() +
                                               "; what the loop does around the call "
                                               "(`" +
                                               what + "`…) is not carried over",
                                           refOf(m_p.entry, src(), s),
                                           "move it into the step, or into the data loader"));
        break;
    }
}

// The step function's parameters read the values of the call in the loop: each parameter whose
// argument is written otherwise (`train_iter(epoch + 1, gcn, ...)` for `def train_iter(epoch,
// model, ...)`) is bound to the argument's text, so the port's step reads the caller's values.
void Planner::bindStepArguments(const Call& backward, const Call& call)
{
    const auto* def = idx().function(functionAt(backward.span.startByte));
    if (!def)
        return;
    const auto given = boundArguments(call, *def);
    if (!given)
        return;
    for (const auto& [param, value] : given->given)
        if (value.text != param)
            m_p.loop->stepArguments[param] = value.text;
    // A parameter the call leaves at its default (`max_length=MAX_LENGTH`): the step reads the
    // default, unless the function binds the parameter again itself (`if n is None: n = 3`),
    // which a name put in the parameter's place could not take.
    const Stmt* stepDef = nullptr;
    for (const Stmt* st : src().chainAt(backward.span.startByte, backward.span.endByte))
        if (st->type == "function_definition" || st->type == "decorated_definition")
            stepDef = st;
    std::set<std::string> rebound;
    for (const auto& b : stepDef ? stepDef->body : std::vector<Stmt>{})
        rebound.insert(b.defines.begin(), b.defines.end());
    for (const auto& [param, fallback] : given->defaults)
        if (!given->given.count(param) && !rebound.count(param) && fallback != param)
            m_p.loop->stepArguments[param] = fallback;
}

void Planner::analyseBody(const Stmt& loop)
{
    auto& lp = *m_p.loop;
    const auto& f = src();
    int phase = 0; // 0 before backward, 1 between backward and step, 2 after step
    for (const auto& s : loop.body) {
        if (s.isComment() || m_loopControl.count(s.start))
            continue;
        const CodeRef ref = refOf(m_p.entry, f, s);
        if (scalerStatement(s, ref))
            continue;
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
        // A hand-written SGD update (hand_update.cpp).
        const Stmt* manualUpdate = handUpdate(s);
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
                // A loss that is never named is computed where backward was called: the
                // statement is the forward's last, rendered as `loss = <expression>`.
                if (lp.unnamedLoss.valid() && lp.unnamedLoss.start >= s.start &&
                    lp.unnamedLoss.end <= s.end)
                    lp.forward.push_back(ref);
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
        if (step && s.type == "if_statement" && !s.other.empty() && chooseStepBranch(s)) {
            lp.steps.push_back(ref);
            phase = 2;
            continue;
        }
        if (step || manualUpdate) {
            lp.steps.push_back(ref);
            if (manualUpdate && m_p.optimizers.empty()) {
                synthesizeSgd(*manualUpdate, ref);
            } else if (s.type == "if_statement" && !s.other.empty()) {
                m_p.manual.push_back(manualFinding("the optimizer step is conditional (" +
                                                       src().text(s.condition) +
                                                       "); the port always steps the optimizer",
                                                   ref));
            }
            phase = 2;
            continue;
        }
        // A log line in the step (`print(epoch, i, loss.item())` before backward) changes
        // nothing the training computes, and may read the loop's counters, which the target's
        // step does not have: left out, as the ones after the step are.
        if (phase < 2 && isLogLine(s)) {
            m_p.leftovers.push_back(PlanItem{"logging", "", ref,
                                             "a log line inside the step: left out (the target "
                                             "logs the step's loss itself)"});
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
    // Several backward() calls, each a statement of the body: the step is placed in order
    // (plan_multi.cpp), and the targets that run one loss per step say so themselves.
    const bool placed = lp.backwardCount > 1 && placeSequence(loop);
    if (lp.backwardCount > 1 && !placed) {
        m_p.stepNotPlaced = "several backward() calls per step";
        m_p.manual.push_back(
            manualFinding("several backward() calls per step (" + std::to_string(lp.backwardCount) +
                              "): the target runs one loss per step",
                          lp.backward, "combine the losses into one, or write the step by hand"));
    }
    const auto inSequence = [&](const CodeRef& r) {
        return std::any_of(lp.sequence.begin(), lp.sequence.end(), [&](const StepAction& a) {
            return a.at.start == r.start && (a.kind == StepAction::Kind::Statement || a.keep);
        });
    };
    for (const auto& s : lp.afterStep)
        if (!inSequence(s))
            m_p.leftovers.push_back(
                PlanItem{"logging", "", s, "after the optimizer step: left out"});
    for (const auto& s : lp.zeroGrads)
        if (!inSequence(s))
            m_p.leftovers.push_back(
                PlanItem{"zero-grad", "", s, "the target zeroes the gradients itself"});
    for (const auto& s : lp.modeSwitches)
        m_p.leftovers.push_back(
            PlanItem{"mode-switch", "", s, "the target switches train/eval mode itself"});
}

// The value a condition on one boolean flag (`args.use_x`, `not args.use_x`) has on the
// command
// line the original runs with: the value given after `--`, else the flag's default. `said`
// gets how it was decided ("--use-x is False (the default)").
std::optional<bool> Planner::flagValue(TSNode condition, std::string* said) const
{
    bool negate = false;
    TSNode c = condition;
    while (nodeType(c) == "parenthesized_expression" && ts_node_named_child_count(c) == 1)
        c = ts_node_named_child(c, 0);
    if (nodeType(c) == "not_operator") {
        negate = true;
        c = fieldOf(c, "argument");
    }
    if (nodeType(c) != "attribute" || m_p.argsName.empty() ||
        src().text(fieldOf(c, "object")) != m_p.argsName)
        return std::nullopt;
    const auto* f = m_p.flag(src().text(fieldOf(c, "attribute")));
    if (!f || (f->action != "store_true" && f->action != "store_false"))
        return std::nullopt;
    bool value = f->action == "store_false";
    std::string how = " (the default)";
    for (const auto& o : f->options)
        if (m_o.values.count(o)) {
            value = f->action == "store_true";
            how = " (given on the command line)";
        }
    if (said)
        *said = (f->options.empty() ? f->dest : f->options.front()) + " is " +
                (value ? "True" : "False") + how;
    return value != negate;
}

// An optimizer step chosen by a flag (`if args.use_optimizer: optimizer.step()` else a
// hand-written update): the port follows the branch the flag's value selects, so it trains
// as the original does on that command line. The optimizers the other branch steps are not
// built.
bool Planner::chooseStepBranch(const Stmt& s)
{
    // One else (no elif): the two branches are the body and `other`.
    for (uint32_t i = 0; i < ts_node_named_child_count(s.node); ++i)
        if (nodeType(ts_node_named_child(s.node, i)) == "elif_clause")
            return false;
    std::string said;
    const auto value = flagValue(s.condition, &said);
    if (!value)
        return false;
    const auto& chosen = *value ? s.body : s.other;
    const auto& dropped = *value ? s.other : s.body;
    const auto& f = src();
    const auto steps = [&](const std::vector<Stmt>& branch, const std::string& var) {
        return std::any_of(branch.begin(), branch.end(), [&](const Stmt& b) {
            return containsMethodCall(f, b.node, "step", var);
        });
    };
    std::erase_if(m_p.optimizers, [&](const OptimizerPlan& o) {
        return !o.synthesized && steps(dropped, o.variable) && !steps(chosen, o.variable);
    });
    const Stmt* update = nullptr;
    const Stmt* updateStatement = nullptr;
    for (const auto& b : chosen)
        if (const Stmt* u = handUpdate(b)) {
            update = u;
            updateStatement = &b;
        }
    if (update && m_p.optimizers.empty())
        synthesizeSgd(*update, refOf(m_p.entry, f, *updateStatement));
    for (auto& o : m_p.optimizers)
        o.chosenBy = said;
    m_p.notes.push_back("the optimizer step at " + refOf(m_p.entry, f, s).where() +
                        " depends on a flag: " + said + ", so the port " +
                        (update ? "updates the weights as the hand-written branch does"
                                : "steps the optimizer of that branch"));
    return true;
}

// `scaler.scale(loss).backward()` with torch's GradScaler (mixed precision): the expression is
// the loss multiplied by the scaler's factor, which `scaler.step(opt)` divides out of the
// gradients again. The loss the target gets is the unscaled one (handed the scaled one, it would
// train on scaled gradients wherever the scaler is enabled, a GPU); the scaler is kept in the plan
// for each target to write in its own form (loss_scaling.cpp).
void Planner::noteLossScaling(TSNode receiver, LoopPlan& lp)
{
    if (nodeType(receiver) != "call")
        return;
    const TSNode fn = fieldOf(receiver, "function");
    const TSNode args = fieldOf(receiver, "arguments");
    if (nodeType(fn) != "attribute" || src().text(fieldOf(fn, "attribute")) != "scale" ||
        ts_node_named_child_count(args) != 1)
        return;
    const TSNode inner = ts_node_named_child(args, 0);
    if (nodeType(inner) == "keyword_argument" || nodeType(inner) == "list_splat")
        return;
    const std::string owner = src().text(fieldOf(fn, "object"));
    if (const Call* found = gradScalerOf(owner)) {
        const Call& c = *found;
        LossScaling ls;
        ls.scaler = owner;
        ls.constructor = resolvedName(c);
        ls.construction = refOf(m_p.entry, src(), c.span);
        ls.scaled = lp.unnamedLoss;
        for (const auto& a : c.arguments)
            if (!a.keyword.empty())
                ls.keywords[a.keyword] = a.text;
        if (const auto* e = c.keyword("enabled")) {
            ls.enabled = std::nullopt;
            if (e->text == "True" || e->text == "False") {
                ls.enabled = e->text == "True";
                ls.enabledSaid = "enabled=" + e->text;
            } else {
                std::string said;
                ls.enabled =
                    flagValue(src().nodeAt(e->valueSpan.startByte, e->valueSpan.endByte), &said);
                ls.enabledSaid = "enabled=" + e->text + (said.empty() ? "" : ": " + said);
            }
        }
        // The loss itself: a name is the loss as named, any other expression is computed where
        // backward was called, as for a loss never named.
        if (isDottedName(inner)) {
            lp.lossName = src().text(inner);
            lp.unnamedLoss = CodeRef{};
        } else {
            lp.unnamedLoss = refOf(m_p.entry, src(), ts_node_start_byte(inner),
                                   ts_node_end_byte(inner), ts_node_start_point(inner).row + 1,
                                   static_cast<int>(ts_node_start_point(inner).column));
        }
        m_p.lossScaling = ls;
    }
}

// The construction of torch's GradScaler assigned to `name`, nullptr when none.
const Call* Planner::gradScalerOf(const std::string& name) const
{
    for (const auto& c : idx().calls)
        if (c.assignedTo == name && resolvedName(c).ends_with(".GradScaler"))
            return &c;
    return nullptr;
}

// A statement of the loop body that is the scaler's own (`scaler.update()`,
// `scaler.unscale_(opt)`): kept with the scaler, for the targets that write it.
bool Planner::scalerStatement(const Stmt& s, const CodeRef& ref)
{
    if (!m_p.lossScaling || s.type != "expression_statement")
        return false;
    auto& ls = *m_p.lossScaling;
    for (const char* method : {"update", "unscale_"}) {
        if (!containsMethodCall(src(), s.node, method, ls.scaler) || !s.defines.empty())
            continue;
        (std::string(method) == "update" ? ls.updates : ls.unscales).push_back(ref);
        return true;
    }
    return false;
}

} // namespace portolan::port::planning
