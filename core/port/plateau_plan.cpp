// A plateau decay the targets can generate (issue 24): a rate divided when the metric an epoch
// compares with its best did not improve. torch's ReduceLROnPlateau(mode="min", factor=f,
// patience=0, threshold=0, threshold_mode="abs") keeps its own best (from +inf) and, at each
// step(metric), counts the metric as better only when `metric < best` (min mode, absolute
// threshold 0), resets its count then, and otherwise multiplies every group's rate by f at once
// (patience 0, cooldown 0). That is the original's rule when the decay is the `else` of
// `if metric < best:` (or `best > metric`, or `not best or` before either) and the improving
// branch sets `best = metric`. The forms part at three edges, which the generated comment
// names: a best of exactly 0.0 (`not best` holds for it, `<` does not), a reduction under the
// scheduler's eps (1e-8, it stops changing the rate), and `lr / k` against `lr * (1 / k)`,
// which differ in the last bit unless k is a power of two.
#include "core/port/plan_internal.h"

namespace portolan::port::planning {

namespace {

std::string nodeText(const SourceFile& src, TSNode n)
{
    return src.text(ts_node_start_byte(n), ts_node_end_byte(n));
}

std::string withoutSpaces(std::string s)
{
    std::erase_if(s, [](char c) { return c == ' ' || c == '\n' || c == '\t'; });
    return s;
}

// Whether `block` (a branch's statements) assigns `best = metric` at its top level.
bool setsBest(const SourceFile& src, const std::vector<Stmt>& block, const std::string& best,
              const std::string& metric)
{
    for (const auto& s : block)
        if (s.type == "expression_statement" &&
            withoutSpaces(src.text(s.start, s.end)) == best + "=" + metric)
            return true;
    return false;
}

} // namespace

std::optional<PlateauPlan> Planner::plateauPlan(const Assignment& a, const std::string& text) const
{
    const auto op = text.find("/=") != std::string::npos   ? std::string("/=")
                    : text.find("*=") != std::string::npos ? std::string("*=")
                                                           : std::string();
    if (!a.augmented || op.empty())
        return std::nullopt;
    // The innermost `if` around the decay whose condition compares.
    const Stmt* branch = nullptr;
    for (const Stmt* s : src().chainAt(a.span.startByte, a.span.endByte))
        if (s->type == "if_statement") {
            const std::string cond = src().text(s->condition);
            if (cond.find('<') != std::string::npos || cond.find('>') != std::string::npos)
                branch = s;
        }
    if (!branch || ts_node_is_null(branch->condition))
        return std::nullopt;
    // The decay runs when the comparison fails: in a plain `else` (an `elif` is another
    // condition).
    bool inElse = false;
    for (std::uint32_t i = 0; i < ts_node_named_child_count(branch->node); ++i) {
        const TSNode c = ts_node_named_child(branch->node, i);
        const std::string_view type = ts_node_type(c);
        if (type == "elif_clause")
            return std::nullopt;
        if (type == "else_clause")
            inElse = ts_node_start_byte(c) <= a.span.startByte &&
                     a.span.endByte <= ts_node_end_byte(c);
    }
    if (!inElse)
        return std::nullopt;
    // The condition: the comparison, or `not best or` the comparison.
    TSNode cond = branch->condition;
    std::string guard;
    if (std::string_view(ts_node_type(cond)) == "boolean_operator") {
        const TSNode left = ts_node_child_by_field_name(cond, "left", 4);
        const TSNode oper = ts_node_child_by_field_name(cond, "operator", 8);
        if (ts_node_is_null(left) || ts_node_is_null(oper) || nodeText(src(), oper) != "or" ||
            std::string_view(ts_node_type(left)) != "not_operator")
            return std::nullopt;
        guard = withoutSpaces(nodeText(src(), ts_node_named_child(left, 0)));
        cond = ts_node_child_by_field_name(cond, "right", 5);
    }
    if (ts_node_is_null(cond) || std::string_view(ts_node_type(cond)) != "comparison_operator" ||
        ts_node_child_count(cond) != 3)
        return std::nullopt;
    const TSNode lhs = ts_node_child(cond, 0), rhs = ts_node_child(cond, 2);
    const std::string cmp = nodeText(src(), ts_node_child(cond, 1));
    if (std::string_view(ts_node_type(lhs)) != "identifier" ||
        std::string_view(ts_node_type(rhs)) != "identifier" || (cmp != "<" && cmp != ">"))
        return std::nullopt;
    const std::string metric = nodeText(src(), cmp == "<" ? lhs : rhs);
    const std::string best = nodeText(src(), cmp == "<" ? rhs : lhs);
    if ((!guard.empty() && guard != best) || !setsBest(src(), branch->body, best, metric))
        return std::nullopt;
    PlateauPlan p;
    p.decay = refOf(m_p.entry, src(), a.span);
    p.branch = refOf(m_p.entry, src(), *branch);
    p.rate = a.target;
    p.metric = metric;
    std::string factor = text.substr(text.find(op) + 2);
    factor.erase(0, factor.find_first_not_of(' '));
    p.factor = op == "/=" ? "1 / " + factor : factor;
    return p;
}

} // namespace portolan::port::planning
