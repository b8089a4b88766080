// A `while` training loop that draws its batches with next() (issue 24): `it = iter(loader)`
// before it and `x, y = next(it)` in it (perhaps re-creating the iterator on StopIteration), or
// `next(iter(loader))` each time. The batch is what next() returns and the loader is what the
// iterator walks, so the targets hand out the loader's batches as for a `for` over it; the loop's
// bound on a step counter (`while step < n`, or `if step >= n: break`) is the steps it trains.
#include "core/port/plan_internal.h"

namespace portolan::port::planning {

namespace {

// X of `next(X)`, null when `value` is no such call.
TSNode nextArgument(const SourceFile& src, TSNode value)
{
    if (nodeType(value) != "call" || src.text(fieldOf(value, "function")) != "next")
        return TSNode{};
    const TSNode args = fieldOf(value, "arguments");
    if (ts_node_named_child_count(args) != 1)
        return TSNode{};
    return ts_node_named_child(args, 0);
}

// The assignment of `target = next(X)` when `s` is that statement, null otherwise.
TSNode drawAssignment(const SourceFile& src, const Stmt& s)
{
    if (s.type != "expression_statement")
        return TSNode{};
    const TSNode a = ts_node_named_child(s.node, 0);
    if (nodeType(a) != "assignment" || ts_node_is_null(nextArgument(src, fieldOf(a, "right"))))
        return TSNode{};
    return a;
}

// `name += 1` as a statement.
bool incrementOf(const SourceFile& src, const Stmt& s, const std::string& name)
{
    if (s.type != "expression_statement")
        return false;
    const TSNode a = ts_node_named_child(s.node, 0);
    return nodeType(a) == "augmented_assignment" && src.text(fieldOf(a, "left")) == name &&
           src.text(fieldOf(a, "operator")) == "+=" && src.text(fieldOf(a, "right")) == "1";
}

// `left OP right` with one operator: its three texts.
bool comparison(const SourceFile& src, TSNode c, std::string* left, std::string* op,
                std::string* right)
{
    while (nodeType(c) == "parenthesized_expression" && ts_node_named_child_count(c) == 1)
        c = ts_node_named_child(c, 0);
    if (nodeType(c) != "comparison_operator" || ts_node_named_child_count(c) != 2)
        return false;
    const TSNode l = ts_node_named_child(c, 0), r = ts_node_named_child(c, 1);
    *left = src.text(l);
    *right = src.text(r);
    *op = src.text(ts_node_end_byte(l), ts_node_start_byte(r));
    op->erase(0, op->find_first_not_of(' '));
    op->erase(op->find_last_not_of(' ') + 1);
    return nodeType(l) == "identifier";
}

// Does anything in `node` leave the loop it is the body of: a break not inside a loop of its
// own, a return, a raise, or a call of exit()? (A nested definition's are not the loop's.)
bool leavesLoop(const SourceFile& src, TSNode node, bool inner = false, int depth = 0)
{
    if (ts_node_is_null(node) || depth > 200)
        return false;
    const auto t = nodeType(node);
    if (t == "function_definition" || t == "class_definition" || t == "lambda")
        return false;
    if ((t == "break_statement" && !inner) || t == "return_statement" || t == "raise_statement")
        return true;
    if (t == "call") {
        const std::string callee = src.text(fieldOf(node, "function"));
        if (callee == "exit" || callee == "quit" || callee == "sys.exit" || callee == "os._exit")
            return true;
    }
    const bool loop = t == "for_statement" || t == "while_statement";
    for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i)
        if (leavesLoop(src, ts_node_named_child(node, i), inner || loop, depth + 1))
            return true;
    return false;
}

} // namespace

bool Planner::drawnBatches(const Stmt& loop, LoopPlan& lp)
{
    const auto& f = src();
    // The statement that draws the batch: `x, y = next(it)`, alone or in a `try` whose
    // StopIteration handler starts the loader again.
    const Stmt* draw = nullptr;
    TSNode assignment{};
    for (const auto& s : loop.body) {
        if (draw)
            break;
        if (const TSNode a = drawAssignment(f, s); !ts_node_is_null(a)) {
            draw = &s;
            assignment = a;
        } else if (s.type == "try_statement" &&
                   f.text(s.start, s.end).find("StopIteration") != std::string::npos) {
            for (const auto& b : s.body)
                if (const TSNode in = drawAssignment(f, b); !ts_node_is_null(in) && !draw) {
                    draw = &s;
                    assignment = in;
                }
        }
    }
    if (!draw)
        return false;
    // What the iterator walks: `next(iter(loader))`, or `it` bound to `iter(loader)`.
    const TSNode from = nextArgument(f, fieldOf(assignment, "right"));
    std::string iterable;
    if (nodeType(from) == "call" && f.text(fieldOf(from, "function")) == "iter" &&
        ts_node_named_child_count(fieldOf(from, "arguments")) == 1)
        iterable = f.text(ts_node_named_child(fieldOf(from, "arguments"), 0));
    else if (nodeType(from) == "identifier")
        if (const Assignment* a = assignmentOf(f.text(from), functionAt(loop.start));
            a && a->value.starts_with("iter(") && a->value.ends_with(")"))
            iterable = a->value.substr(5, a->value.size() - 6);
    if (iterable.empty() || iterable.find_first_of("(),") != std::string::npos)
        return false;
    const TSNode target = fieldOf(assignment, "left");
    lp.batchTarget = f.text(target);
    lp.batchNames = targetNames(f, target);
    lp.iterable = iterable;
    lp.draw = refOf(m_p.entry, f, *draw);
    m_loopControl.insert(draw->start);
    m_p.leftovers.push_back(PlanItem{"batch-draw", "", lp.draw,
                                     "draws the next batch of " + iterable +
                                         ": the target hands out the loader's batches"});
    // The bound: `while step < n`, or `while True` left by `if step >= n: break`, with `step`
    // counted up by one from 0 in the loop.
    std::string counter, op, bound;
    const Stmt* leave = nullptr;
    const std::string condition = f.text(loop.condition);
    const bool whileBelow = comparison(f, loop.condition, &counter, &op, &bound) && op == "<";
    if (!whileBelow) {
        counter.clear();
        bound.clear();
    }
    for (const auto& s : loop.body) {
        std::string c, o, b;
        if (!whileBelow && !leave && (condition == "True" || condition == "1") &&
            s.type == "if_statement" && s.other.empty() && s.body.size() == 1 &&
            s.body[0].type == "break_statement" && comparison(f, s.condition, &c, &o, &b) &&
            (o == ">=" || o == "==")) {
            leave = &s;
            counter = c;
            bound = b;
        }
    }
    const Stmt* increment = nullptr;
    for (const auto& s : loop.body)
        if (!counter.empty() && incrementOf(f, s, counter))
            increment = &s;
    bool fromZero = false;
    for (const auto& a : idx().assignments)
        if (!counter.empty() && a.target == counter && !a.augmented &&
            a.function == functionAt(loop.start) && a.span.startByte < loop.start)
            fromZero = a.value == "0";
    // `while True:` with no way out: trains until the user stops it.
    if (bound.empty() && !leave && (condition == "True" || condition == "1")) {
        bool leaves = false;
        for (const auto& s : loop.body)
            leaves = leaves || leavesLoop(f, s.node);
        if (!leaves) {
            lp.untilStopped = true;
            return true;
        }
    }
    if (!increment || !fromZero || bound.empty()) {
        m_p.manual.push_back(manualFinding(
            "the `while` loop draws its batches from " + iterable +
                " but its bound is not a step counter (`while step < n`, or `if step >= n: "
                "break`, counted up from 0): how many steps it trains must be written by hand",
            lp.loop, "bound the loop by a count of steps"));
        return true;
    }
    lp.stepBound = bound;
    for (const Stmt* s : {increment, leave})
        if (s) {
            m_loopControl.insert(s->start);
            m_p.leftovers.push_back(
                PlanItem{"loop-control", "", refOf(m_p.entry, f, *s),
                         "counts the original's steps: the target runs " + bound + " steps"});
        }
    return true;
}

} // namespace portolan::port::planning
