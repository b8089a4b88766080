// The batch and the count of a training loop that builds its own batches, with no DataLoader
// (see run_values.h: loopValueCount, loopValuesBatch).
#include "core/port/run_value_resolver.h"
#include "core/port/run_values.h"
#include "core/port/syntax.h"

#include <algorithm>
#include <set>

namespace portolan::port::detail {

namespace {

// The batch loop's own statement, null when it is not a `for` of the plan's sources.
const Stmt* batchLoop(const PortPlan& plan, const SourceFile** srcOut)
{
    if (!plan.loop || plan.train.isDataLoader)
        return nullptr;
    const SourceFile* src = plan.source(plan.loop->loop.file);
    if (!src)
        return nullptr;
    for (const Stmt* s : src->chainAt(plan.loop->loop.start, plan.loop->loop.end))
        if (s->start == plan.loop->loop.start && s->type == "for_statement") {
            *srcOut = src;
            return s;
        }
    return nullptr;
}

// The names a block reads, and those it binds.
void namesOf(const std::vector<Stmt>& block, std::set<std::string>& uses,
             std::set<std::string>& defines)
{
    for (const auto& s : block) {
        uses.insert(s.uses.begin(), s.uses.end());
        defines.insert(s.defines.begin(), s.defines.end());
        namesOf(s.body, uses, defines);
        namesOf(s.other, uses, defines);
    }
}

// The rows of a tensor built with a static shape (`torch.randn(40, 3)`, `torch.zeros((40, 3))`,
// `torch.randint(0, 3, (40,))`): the text of its first dimension, "" for any other value.
std::string firstDimension(const SourceFile& src, TSNode value)
{
    static const std::set<std::string> shaped = {"torch.randn", "torch.rand",  "torch.zeros",
                                                 "torch.ones",  "torch.empty", "torch.randint"};
    if (nodeType(value) != "call" || !shaped.count(src.text(fieldOf(value, "function"))))
        return {};
    const TSNode args = fieldOf(value, "arguments");
    std::vector<TSNode> positional;
    for (uint32_t k = 0; k < ts_node_named_child_count(args); ++k) {
        const TSNode a = ts_node_named_child(args, k);
        if (nodeType(a) == "keyword_argument" && src.text(fieldOf(a, "name")) == "size")
            positional.insert(positional.begin(), fieldOf(a, "value"));
        else if (nodeType(a) != "keyword_argument" && nodeType(a) != "comment")
            positional.push_back(a);
    }
    const bool randint = src.text(fieldOf(value, "function")) == "torch.randint";
    // randint(high, size) or randint(low, high, size): the size is the last positional.
    TSNode dim = positional.empty() ? TSNode{} : randint ? positional.back() : positional.front();
    if (ts_node_is_null(dim) || (randint && positional.size() < 2))
        return {};
    if (nodeType(dim) == "tuple" || nodeType(dim) == "list")
        dim = ts_node_named_child(dim, 0);
    return ts_node_is_null(dim) ? std::string() : src.text(dim);
}

} // namespace

RunValue loopValueCount(const PortPlan& plan, const std::map<std::string, Hyper>& hp)
{
    RunValue v;
    const SourceFile* src = nullptr;
    const Stmt* loop = batchLoop(plan, &src);
    if (!loop)
        return v;
    TSNode iter = loop->forIter;
    if (nodeType(iter) == "call" && src->text(fieldOf(iter, "function")) == "enumerate")
        iter = ts_node_named_child(fieldOf(iter, "arguments"), 0);
    const std::string written = trimmed(src->text(iter));
    const std::string where = "`for " + src->text(loop->forTarget) + " in " +
                              oneLine(src->text(loop->forIter)) + "` (" + at(*src, loop->node) +
                              ")";
    std::string from, to;
    const Resolver r(plan, hp);
    if (rangeCount(*src, iter, &from, &to)) {
        const RunValue a = r.resolve(*src, from, loop->start);
        const RunValue b = r.resolve(*src, to, loop->start);
        if (!a.value.empty() && !b.value.empty() && std::stol(b.value) > std::stol(a.value)) {
            v.value = std::to_string(std::stol(b.value) - std::stol(a.value));
            v.from = where + (b.from.empty() ? "" : ", " + b.from);
        }
        return v;
    }
    // A list or tuple written out: its elements, one per step.
    TSNode literal = iter;
    std::string assigned;
    if (nodeType(iter) == "identifier") {
        const Stmt* here = nullptr;
        for (const auto& [stmt, value] : assignments(*src, written))
            if (stmt->start < loop->start) {
                literal = value;
                here = stmt;
            }
        if (here)
            assigned = ", `" + written + "` assigned at " + at(*src, here->node);
        else
            return v;
    }
    if (nodeType(literal) != "list" && nodeType(literal) != "tuple")
        return v;
    long n = 0;
    for (uint32_t k = 0; k < ts_node_named_child_count(literal); ++k)
        n += nodeType(ts_node_named_child(literal, k)) != "comment";
    if (n == 0)
        return v;
    v.value = std::to_string(n);
    v.from = where + ": the " + v.value + " values written in the code" + assigned;
    return v;
}

RunValue loopValuesBatch(const PortPlan& plan, const std::map<std::string, Hyper>& hp)
{
    RunValue v;
    const SourceFile* src = nullptr;
    const Stmt* loop = batchLoop(plan, &src);
    if (!loop)
        return v;
    std::set<std::string> uses, defines;
    namesOf(loop->body, uses, defines);
    const std::string iterable = trimmed(src->text(loop->forIter));
    // Per value when the step's forward reads the loop's value (a print of the epoch number
    // does not make the value the batch).
    std::set<std::string> forward;
    for (const auto& ref : plan.loop->forward)
        for (const auto& n : identifiersOf(ref.text))
            forward.insert(n);
    const bool perValue = std::any_of(plan.loop->batchNames.begin(), plan.loop->batchNames.end(),
                                      [&](const std::string& n) { return forward.count(n) > 0; });
    if (perValue) {
        v.value = "1";
        v.from = "one value of `" + iterable +
                 "` per step, as the original's loop takes them: the port's loader gives the step "
                 "that value and the step builds its batch from it as the loop's body did";
        return v;
    }
    // The whole data every step: the rows of a tensor the body reads and does not bind, when
    // its shape is written in the code.
    const Resolver r(plan, hp);
    std::vector<std::string> read;
    for (const auto& n : uses)
        if (!defines.count(n))
            read.push_back(n);
    for (const auto& name : read) {
        const std::pair<const Stmt*, TSNode>* last = nullptr;
        const auto all = assignments(*src, name);
        for (const auto& a : all)
            if (a.first->start < loop->start)
                last = &a;
        if (!last)
            continue;
        const std::string dim = firstDimension(*src, last->second);
        if (dim.empty())
            continue;
        const RunValue rows = r.resolve(*src, dim, last->first->start);
        if (rows.value.empty())
            continue;
        v = rows;
        v.from = "the whole `" + name + "` (" + rows.value + " rows, `" +
                 trimmed(src->text(last->first->start, last->first->end)) + "` at " +
                 at(*src, last->first->node) + ") every step: the original's loop (`" + iterable +
                 "`) does not batch it";
        return v;
    }
    v.madeUp = true;
    v.from = "not known from the code: each step of the original's loop (`" + iterable +
             "`) builds or reads its whole batch itself, and its size is not written in the "
             "code; set it";
    return v;
}

} // namespace portolan::port::detail
