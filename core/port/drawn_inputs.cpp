// A step function whose inputs the loop body draws for each call (`fit(*draw())`, `pair = draw();
// fit(*pair)`, `a, b = draw(); fit(a, b)`): the drawing is how each step's batch is made, so the
// port runs it at the start of its step, after the target hands out the step's value, as the
// original ran it before each call. The replay seeds both runs there, so a draw with Python's
// random picks the same sample in both (LoopPlan::drawnInputs).
#include "core/port/generate_internal.h"
#include "core/port/plan_internal.h"

#include <algorithm>

namespace portolan::port::planning {

namespace {

// The statement of the loop body that is the call, or assigns its result (`out, loss =
// fit(...)`, `total += fit(...)`: the step function's own statements are the step, its
// returned values the log's).
const Stmt* callStatement(const Stmt& loop, const Call& call)
{
    for (const auto& s : loop.body) {
        if (s.type != "expression_statement" || call.span.startByte < s.start ||
            call.span.endByte > s.end)
            continue;
        TSNode e = ts_node_named_child(s.node, 0);
        // `out = fit(...)`, and `total += fit(...)`: the running total is the loop's record.
        if (nodeType(e) == "assignment" || nodeType(e) == "augmented_assignment")
            e = fieldOf(e, "right");
        const bool whole = ts_node_start_byte(e) == call.span.startByte &&
                           ts_node_end_byte(e) == call.span.endByte;
        return whole ? &s : nullptr;
    }
    return nullptr;
}

// The parameters a spread value fills: every parameter of the step function but a method's
// `self`, each a plain name (a default, `*rest` or a keyword-only parameter makes how many the
// value fills unknown: empty).
std::vector<std::string> spreadParameters(const SourceFile& src, const Stmt& def, bool method)
{
    std::vector<std::string> out;
    const TSNode node =
        def.type == "decorated_definition" ? fieldOf(def.node, "definition") : def.node;
    const TSNode params = fieldOf(node, "parameters");
    for (uint32_t i = 0; !ts_node_is_null(params) && i < ts_node_named_child_count(params); ++i) {
        const TSNode p = ts_node_named_child(params, i);
        if (nodeType(p) == "comment")
            continue;
        if (nodeType(p) != "identifier")
            return {};
        if (i == 0 && method && src.text(p) == "self")
            continue;
        out.push_back(src.text(p));
    }
    return out;
}

} // namespace

void Planner::noteDrawnInputs(const Stmt& loop, const Stmt& stepFunction, const Call& call)
{
    auto& lp = *m_p.loop;
    const Stmt* at = callStatement(loop, call);
    if (!at)
        return;
    const TSNode args = fieldOf(src().nodeAt(call.span.startByte, call.span.endByte), "arguments");
    if (ts_node_is_null(args))
        return;
    std::set<std::string> reads = usedNames(src(), args);
    // `*value` as the one argument: the value is spread into the parameters.
    std::vector<TSNode> given;
    for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i)
        if (nodeType(ts_node_named_child(args, i)) != "comment")
            given.push_back(ts_node_named_child(args, i));
    const bool spread = std::any_of(given.begin(), given.end(),
                                    [](TSNode a) { return nodeType(a) == "list_splat"; });
    if (spread) {
        const auto into = spreadParameters(src(), stepFunction,
                                           classAround(stepFunction.start, stepFunction.end));
        if (given.size() != 1 || into.empty()) {
            m_p.manual.push_back(
                manualFinding("the inputs of the training step " + stepFunction.name +
                                  "() are spread from `" + src().text(args) +
                                  "` into parameters the port cannot count: they are not bound",
                              refOf(m_p.entry, src(), *at),
                              "bind the step function's parameters from the drawn value by hand"));
            return;
        }
        const TSNode value = ts_node_named_child(given.front(), 0);
        lp.spreadCall = refOf(m_p.entry, src(), *at);
        lp.spreadValue = refOf(m_p.entry, src(), ts_node_start_byte(value), ts_node_end_byte(value),
                               ts_node_start_point(value).row + 1,
                               static_cast<int>(ts_node_start_point(value).column));
        lp.spreadInto = into;
    }
    // The body's statements before the call that bind what its arguments read, and what those
    // read in turn (`pair = draw()` for `fit(*pair)`), in the order they run.
    std::vector<CodeRef> drawn;
    for (auto it = loop.body.rbegin(); it != loop.body.rend(); ++it) {
        const Stmt& s = *it;
        if (s.start >= at->start || s.isComment() || s.type != "expression_statement" ||
            batchDeviceMove(s))
            continue;
        if (std::none_of(s.defines.begin(), s.defines.end(),
                         [&](const std::string& n) { return reads.count(n) > 0; }))
            continue;
        drawn.insert(drawn.begin(), refOf(m_p.entry, src(), s));
        reads.insert(s.uses.begin(), s.uses.end());
    }
    lp.drawnInputs = drawn;
}

} // namespace portolan::port::planning

namespace portolan::port::detail {

std::vector<const Stmt*> Slicer::drawnInputs() const
{
    std::vector<const Stmt*> out;
    if (!m_plan.loop)
        return out;
    out = statements(m_plan.loop->drawnInputs);
    if (m_spread)
        out.push_back(m_spread.get());
    return out;
}

RenderRules Slicer::spreadRules(const Stmt& s, RenderRules rules) const
{
    if (!m_spread || s.start != m_spread->start || s.end != m_spread->end)
        return rules;
    const auto& lp = *m_plan.loop;
    std::string names;
    for (const auto& p : lp.spreadInto)
        names += (names.empty() ? "" : ", ") + p;
    if (lp.spreadInto.size() == 1)
        names += ",";
    const TSNode value = m_src->nodeAt(lp.spreadValue.start, lp.spreadValue.end);
    rules.replace[{s.start, s.end}] = names + " = " + render(*m_src, value, rules);
    return rules;
}

} // namespace portolan::port::detail
