// Determined's per-batch validation (determined_validation.h, batchValidation): Determined
// documents evaluate_batch with a custom MetricReducer (context.wrap_reducer) for metrics that
// are not means of per-batch values. The original's sums are additive: started at zero on each
// batch, its own loop body gives that batch's share, and the reducer adds the shares of every
// batch of every slot before the original's statements after its loop divide them, so accuracy
// is correct / len(dataset) over the whole data, as the original computes it.
#include "core/port/determined_validation.h"
#include "core/port/plan_internal.h"
#include "core/port/validation_pass.h"

#include <algorithm>
#include <map>
#include <regex>

namespace portolan::port::detail {

namespace {

using planning::fieldOf;
using planning::nodeType;


// Every augmented assignment in `stmts`, nested blocks included: name -> whether each is `+=`.
void augmented(const SourceFile& src, const std::vector<Stmt>& stmts,
               std::map<std::string, bool>& adds)
{
    for (const auto& s : stmts) {
        const TSNode e =
            s.type == "expression_statement" ? ts_node_named_child(s.node, 0) : TSNode{};
        if (nodeType(e) == "augmented_assignment") {
            const bool plus = src.text(fieldOf(e, "operator")) == "+=";
            for (const auto& d : s.defines)
                adds[d] = (adds.count(d) ? adds[d] : true) && plus;
        }
        augmented(src, s.body, adds);
        augmented(src, s.other, adds);
    }
}

// The statement's `for` over the loader, itself or as the one statement of `with` blocks.
const Stmt* loopIn(const Stmt& s)
{
    if (s.type == "for_statement")
        return &s;
    if (s.type != "with_statement")
        return nullptr;
    const Stmt* only = nullptr;
    for (const auto& b : s.body)
        if (!b.isComment()) {
            if (only)
                return nullptr;
            only = &b;
        }
    return only ? loopIn(*only) : nullptr;
}

bool isZero(const SourceFile& src, const Stmt& s)
{
    const TSNode e = s.type == "expression_statement" ? ts_node_named_child(s.node, 0) : TSNode{};
    if (nodeType(e) != "assignment" || nodeType(fieldOf(e, "left")) != "identifier")
        return false;
    const std::string value = src.text(fieldOf(e, "right"));
    return value == "0" || value == "0." || value == "0.0";
}

} // namespace

std::optional<BatchValidation> batchValidation(const Slicer& slicer, const RenderRules& run,
                                               const ValidationStatements& v)
{
    const SourceFile& src = slicer.source();
    const std::string ind = "        ";
    // The names the form adds must be the port's own: its class beside the original's module
    // names, the count beside the names the validation's statements read and bind.
    for (const auto& s : src.statements())
        if (s.name == "ValidationSums" || s.defines.count("ValidationSums"))
            return std::nullopt;
    for (const Stmt* s : v.top)
        if (identifiersOf(src.text(s->start, s->end)).count("batches"))
            return std::nullopt;
    // The one loop over the loader, the statements before and after it.
    std::size_t at = v.top.size();
    for (std::size_t i = 0; i < v.top.size(); ++i)
        if (const Stmt* l = loopIn(*v.top[i])) {
            if (at != v.top.size())
                return std::nullopt;
            at = i;
            (void)l;
        }
    if (at == v.top.size())
        return std::nullopt;
    const Stmt& loop = *loopIn(*v.top[at]);
    TSNode iter = loop.forIter, target = loop.forTarget;
    std::string index;
    if (nodeType(iter) == "call" && src.text(fieldOf(iter, "function")) == "enumerate") {
        const TSNode args = fieldOf(iter, "arguments");
        if (ts_node_named_child_count(args) != 1 || ts_node_named_child_count(target) != 2 ||
            nodeType(ts_node_named_child(target, 0)) != "identifier")
            return std::nullopt;
        iter = ts_node_named_child(args, 0);
        index = src.text(ts_node_named_child(target, 0));
        target = ts_node_named_child(target, 1);
    }
    if (render(src, iter, run) != "data_loader")
        return std::nullopt;
    // The sums: added to (`+=`) and nothing else in the loop, each started at zero before it.
    std::map<std::string, bool> adds;
    augmented(src, loop.body, adds);
    std::vector<std::string> sums;
    for (const auto& [name, plus] : adds) {
        if (!plus)
            return std::nullopt;
        bool zero = false;
        for (std::size_t i = 0; i < at; ++i)
            zero = zero || (v.top[i]->defines.count(name) && isZero(src, *v.top[i]));
        if (!zero)
            return std::nullopt;
        sums.push_back(name);
    }
    if (sums.empty())
        return std::nullopt;
    // Nothing else carried from batch to batch, and nothing after the loop reads its body's
    // names but the sums and the index.
    std::vector<const Stmt*> body;
    for (const auto& s : loop.body)
        if (!s.isComment()) // renderLocal writes a statement's comments with it
            body.push_back(&s);
    // (The batch's names are each batch's, even when the body binds them again.)
    const std::set<std::string> batchNames = identifiersOf(src.text(loop.forTarget));
    std::set<std::string> inLoop;
    boundIn(loop.body, inLoop);
    for (const auto& n : readBeforeBound(src, body))
        if (inLoop.count(n) && !adds.count(n) && !batchNames.count(n))
            return std::nullopt;
    inLoop.insert(batchNames.begin(), batchNames.end());
    std::vector<const Stmt*> before(v.top.begin(), v.top.begin() + static_cast<long>(at));
    std::vector<const Stmt*> after(v.top.begin() + static_cast<long>(at) + 1, v.top.end());
    std::set<std::string> afterReads = slicer.freeNames(after);
    if (v.returned)
        for (const auto& n : identifiersOf(src.text(v.returned->start, v.returned->end)))
            afterReads.insert(n);
    for (const auto& n : afterReads)
        if (inLoop.count(n) && !adds.count(n) && n != index)
            return std::nullopt;
    // The loader only as the loop's: evaluate_batch has no loader.
    std::string perBatch =
        renderLocal(slicer, before, run, ind) + renderLocal(slicer, body, run, ind);
    if (std::regex_search(perBatch, std::regex(R"(\bdata_loader\b)")))
        return std::nullopt;

    BatchValidation out;
    std::string names;
    for (const auto& s : sums)
        names += s + ", ";
    out.init = ind +
               "# The original's validation sums, added over every batch (ValidationSums).\n" +
               ind + "self.validation_sums = self.context.wrap_reducer(\n" + ind +
               "    ValidationSums(self.validation_metrics), for_training=False)\n";
    std::string& m = out.methods;
    m += "    def evaluate_batch(self, batch: Any, batch_idx: int) -> Dict[str, Any]:\n";
    m += ind + "# The original's validation (" + v.where +
         ") on one batch: its loop's body, with\n" + ind +
         "# the sums it adds up started at zero; self.validation_sums adds them over the\n" + ind +
         "# whole validation data.\n";
    m += renderLocal(slicer, before, run, ind);
    m += ind + src.text(target) + " = batch\n";
    if (!index.empty())
        m += ind + index + " = batch_idx\n";
    m += renderLocal(slicer, body, run, ind);
    m += ind + "self.validation_sums.update(";
    for (const auto& s : sums)
        m += s + "=" + s + ", ";
    m += "batches=1)\n" + ind + "return {}\n\n";
    m += "    def validation_metrics(self, " + names + "batches: int) -> Dict[str, Any]:\n";
    m += ind + "# What the original computes after its loop, from the sums over every batch.\n";
    std::string finish;
    // What the statements after the loop read from before it (not the sums: their totals).
    for (const Stmt* s : before)
        if (std::any_of(s->defines.begin(), s->defines.end(),
                        [&](const auto& n) { return afterReads.count(n) && !adds.count(n); }))
            finish += renderLocal(slicer, {s}, run, ind);
    finish += renderLocal(slicer, after, run, ind);
    if (v.returned && !v.target.empty())
        finish += ind + v.target + " = " +
                  render(src, ts_node_named_child(v.returned->node, 0), run) + "\n";
    if (std::regex_search(finish, std::regex(R"(\bdata_loader\b)")))
        m += ind + "data_loader = self.build_validation_data_loader()\n";
    if (!index.empty() && afterReads.count(index))
        m += ind + index + " = batches - 1  # the loop's last index\n";
    m += finish;
    m += ind + "return {\"validation_loss\": " + v.loss;
    for (const auto& n : v.metrics)
        if (n != "validation_loss")
            m += ", \"" + n + "\": " + n;
    m += "}\n";
    out.helper =
        "\n\nclass ValidationSums(MetricReducer):\n"
        "    \"\"\"The original's validation sums: each batch's share added up over every batch "
        "of\n"
        "    every slot, then handed to `finish`, which computes the metrics from them as the\n"
        "    original does after its loop.\"\"\"\n\n"
        "    def __init__(self, finish):\n        self.finish = finish\n        self.reset()\n\n"
        "    def reset(self):\n        self.sums = {}\n\n"
        "    def update(self, **shares):\n        for name, value in shares.items():\n"
        "            self.sums[name] = self.sums.get(name, 0) + value\n\n"
        "    def per_slot_reduce(self):\n        return self.sums\n\n"
        "    def cross_slot_reduce(self, per_slot_metrics):\n        sums = {}\n"
        "        for slot in per_slot_metrics:\n            for name, value in slot.items():\n"
        "                sums[name] = sums.get(name, 0) + value\n"
        "        return self.finish(**sums)\n";
    return out;
}

} // namespace portolan::port::detail
