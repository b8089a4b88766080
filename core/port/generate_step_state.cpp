// What a training step carries between its steps, and the seeding the port keeps: the rules
// every target's generation shares (issue 24).
#include "core/port/generate_internal.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace portolan::port::detail {

namespace {

// What a simple statement reads: an assignment's right side (and a target that is not a plain
// name, `x[i] = ...`); any other statement all the names it uses.
std::set<std::string> simpleReads(const SourceFile& src, const Stmt& s)
{
    const TSNode e = ts_node_named_child(s.node, 0);
    const std::string kind =
        s.type == "expression_statement" && !ts_node_is_null(e) ? ts_node_type(e) : "";
    if (kind != "assignment")
        return s.uses;
    std::set<std::string> reads = usedNames(src, ts_node_child_by_field_name(e, "right", 5));
    const TSNode left = ts_node_child_by_field_name(e, "left", 4);
    const std::string lt = ts_node_is_null(left) ? "" : ts_node_type(left);
    if (lt != "identifier" && lt != "pattern_list" && lt != "tuple_pattern" && lt != "list_pattern")
        for (const auto& n : usedNames(src, left))
            reads.insert(n);
    return reads;
}

// Statements in order: the names read before a statement before them binds them (`readFirst`),
// and what they bind. A block (an `if` and its branches, a loop's body) is looked into, so a
// name each branch binds (`if t: out = f(x) else: out, h = g(x, h)`) is not read first.
void readsBeforeBinding(const SourceFile& src, const std::vector<const Stmt*>& stmts,
                        std::set<std::string>& bound, std::set<std::string>& readFirst)
{
    const auto read = [&](const std::set<std::string>& names) {
        for (const auto& n : names)
            if (!bound.count(n))
                readFirst.insert(n);
    };
    const auto block = [&](const std::vector<Stmt>& body) {
        std::vector<const Stmt*> inner;
        for (const auto& b : body)
            inner.push_back(&b);
        std::set<std::string> branchBound = bound;
        readsBeforeBinding(src, inner, branchBound, readFirst);
        return branchBound;
    };
    for (const Stmt* s : stmts) {
        if (s->isComment())
            continue;
        const bool compound = s->type == "if_statement" || s->type == "for_statement" ||
                              s->type == "while_statement" || s->type == "with_statement" ||
                              s->type == "try_statement";
        if (!compound) {
            read(simpleReads(src, *s));
            bound.insert(s->defines.begin(), s->defines.end());
            continue;
        }
        if (!ts_node_is_null(s->condition))
            read(usedNames(src, s->condition));
        if (!ts_node_is_null(s->forIter))
            read(usedNames(src, s->forIter));
        // `with autocast(enabled=args.amp):` reads its items before its body runs.
        if (s->type == "with_statement")
            for (uint32_t i = 0; i < ts_node_named_child_count(s->node); ++i) {
                const TSNode c = ts_node_named_child(s->node, i);
                if (std::string_view(ts_node_type(c)) == "with_clause")
                    read(usedNames(src, c));
            }
        if (!ts_node_is_null(s->forTarget))
            for (const auto& n : targetNames(src, s->forTarget))
                bound.insert(n);
        // What either block binds is bound after the statement.
        const auto inBody = block(s->body);
        const auto inOther = block(s->other);
        bound.insert(inBody.begin(), inBody.end());
        bound.insert(inOther.begin(), inOther.end());
    }
}

} // namespace

std::set<std::string> readBeforeBound(const SourceFile& src, const std::vector<const Stmt*>& stmts)
{
    std::set<std::string> bound, readFirst;
    readsBeforeBinding(src, stmts, bound, readFirst);
    return readFirst;
}

std::set<std::string> carriedState(const Slicer& slicer, const StepCode& sc)
{
    std::set<std::string> bound, readFirst;
    std::vector<const Stmt*> all = sc.forward;
    all.insert(all.end(), sc.between.begin(), sc.between.end());
    readsBeforeBinding(slicer.source(), all, bound, readFirst);
    std::set<std::string> out;
    for (const auto& n : readFirst)
        if (bound.count(n) && !sc.batchNames.count(n))
            out.insert(n);
    return out;
}

std::string noneSeedFlag(const PortPlan& plan, const Slicer& slicer,
                         const std::map<std::string, std::string>& values, const Stmt& s)
{
    const auto seeds = slicer.seedStatements();
    if (plan.argsName.empty() || std::find(seeds.begin(), seeds.end(), &s) == seeds.end())
        return {};
    const std::string text = slicer.source().text(s.start, s.end);
    for (const auto& f : plan.flags) {
        const std::string use = plan.flagRead(f.dest);
        const auto at = text.find(use);
        const bool whole = at != std::string::npos &&
                           (at + use.size() == text.size() ||
                            !(std::isalnum(static_cast<unsigned char>(text[at + use.size()])) ||
                              text[at + use.size()] == '_'));
        if (whole && !f.required && f.action.empty() &&
            (f.defaultText.empty() || f.defaultText == "None") &&
            !values.count(f.options.empty() ? "" : f.options.front()))
            return f.dest;
    }
    return {};
}

std::string renderGuardingSeeds(const PortPlan& plan, const Slicer& slicer,
                                const std::map<std::string, std::string>& values,
                                const std::vector<const Stmt*>& stmts, const RenderRules& rules,
                                const std::string& indent)
{
    const bool any = std::any_of(stmts.begin(), stmts.end(), [&](const Stmt* s) {
        return !noneSeedFlag(plan, slicer, values, *s).empty();
    });
    if (!any)
        return renderLocal(slicer, stmts, rules, indent);
    std::string out;
    for (const Stmt* s : stmts) {
        const std::string flag = noneSeedFlag(plan, slicer, values, *s);
        if (flag.empty()) {
            out += renderLocal(slicer, {s}, rules, indent);
            continue;
        }
        // torch.manual_seed(None) raises; the original draws a seed then (or seeds itself
        // before, under `if flag is None`), as the target does when no seed is set.
        const std::string read = rules.flag
                                     ? rules.flag(flag)
                                     : renameIdentifiers(plan.argsName, rules.rename) + "." + flag;
        out += indent + "if " + read + " is not None:\n";
        out += renderLocal(slicer, {s}, rules, indent + "    ");
    }
    return out;
}

} // namespace portolan::port::detail
