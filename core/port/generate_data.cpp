// The port's data code for the targets that build their own loaders: the original's dataset and
// loader arguments rendered for the port, or, for a loop over values that are not batches, a
// loader of those values (LoopValues) whose step builds the batch as the original's body did.
#include "core/port/factory.h"
#include "core/port/generate_internal.h"

#include <algorithm>

namespace portolan::port::detail {

DataCode dataCode(const PortPlan& plan, const Slicer& slicer, const DataPlan& data,
                  const RenderRules& rules, const std::string& indent,
                  const std::set<std::string>& alsoReads, const std::vector<const Stmt*>& already)
{
    DataCode dc;
    if (!data.isDataLoader || !data.dataset.valid())
        return dc;
    const auto& src = slicer.source();
    const TSNode ds = src.nodeAt(data.dataset.start, data.dataset.end);
    std::set<std::string> names = usedNames(src, ds);
    names.insert(alsoReads.begin(), alsoReads.end());
    for (const auto& [k, v] : data.keywords)
        for (const auto& n : identifiersOf(v))
            names.insert(n);
    // Read where the loader is built (the caller of the loop's function, for a loader passed in).
    const Slice sl = slicer.slice(names, {}, {}, data.construction.start);
    dc.module = sl.module;
    std::vector<const Stmt*> local = sl.local;
    std::erase_if(local, [&](const Stmt* s) {
        return std::find(already.begin(), already.end(), s) != already.end();
    });
    dc.statements = renderTrimmingFactories(slicer, local, names, dc.module, rules, indent);
    dc.local = local;
    dc.globals = sl.globals;
    dc.dataset = render(src, ds, rules) + (data.datasetOfLoader ? ".dataset" : "");
    // Keyword values are rendered from their text (they are not statements).
    for (const auto& [k, v] : data.keywords) {
        if (k == "num_workers" || k == "pin_memory" || k == "persistent_workers" ||
            k == "prefetch_factor")
            continue;
        std::string value = v;
        if (identifiersOf(value) == std::set<std::string>{value})
            value = renderName(value, rules, rules.aliasesAt(data.construction.start));
        else if (!plan.argsName.empty() && rules.flag) {
            const std::string prefix = plan.argsName + ".";
            std::size_t at = 0;
            while ((at = value.find(prefix, at)) != std::string::npos) {
                std::size_t e = at + prefix.size();
                while (e < value.size() &&
                       (std::isalnum(static_cast<unsigned char>(value[e])) || value[e] == '_'))
                    ++e;
                const std::string rep =
                    rules.flag(value.substr(at + prefix.size(), e - at - prefix.size()));
                value.replace(at, e - at, rep);
                at += rep.size();
            }
        }
        dc.keywords.emplace_back(k, value);
    }
    dc.ok = true;
    return dc;
}

DataCode loopValuesCode(const PortPlan& plan, const Slicer& slicer, const RenderRules& rules,
                        const std::string& indent)
{
    DataCode dc;
    if (!plan.loop || plan.train.isDataLoader)
        return dc;
    const Stmt* loop = slicer.statementAt(plan.loop->loop);
    if (!loop || loop->type != "for_statement")
        return dc;
    const auto& src = slicer.source();
    TSNode iter = loop->forIter;
    if (std::string_view(ts_node_type(iter)) == "call" &&
        src.text(ts_node_child_by_field_name(iter, "function", 8)) == "enumerate") {
        const TSNode args = ts_node_child_by_field_name(iter, "arguments", 9);
        if (ts_node_named_child_count(args) < 1)
            return dc;
        iter = ts_node_named_child(args, 0);
    }
    // A progress bar over another iterable: the values are that iterable's.
    if (plan.train.progressOf.valid())
        iter = src.nodeAt(plan.train.progressOf.start, plan.train.progressOf.end);
    const Slice sl = slicer.slice(usedNames(src, iter), {});
    dc.module = sl.module;
    dc.statements = renderLocal(slicer, sl.local, rules, indent);
    dc.local = sl.local;
    dc.globals = sl.globals;
    dc.dataset = "LoopValues(lambda: " + render(src, iter, rules) + ")";
    dc.keywords.emplace_back("collate_fn", "one_value");
    dc.ok = true;
    return dc;
}

std::string globalDeclaration(const std::set<std::string>& names, const std::string& indent)
{
    if (names.empty())
        return {};
    std::string list;
    for (const auto& n : names)
        list += (list.empty() ? "" : ", ") + n;
    return indent + "# Module globals of the original that its definitions read.\n" + indent +
           "global " + list + "\n";
}

guides::Finding nonLoaderManual(const PortPlan& plan)
{
    return manualFinding("the training batches come from `" + plan.loop->iterable +
                             "`, not from a torch DataLoader: the target's data loader must be "
                             "written by hand",
                         plan.loop->loop, "wrap the batches in a torch.utils.data.Dataset");
}

std::string loopValuesHelpers()
{
    return R"(

class LoopValues(torch.utils.data.IterableDataset):
    """The values the original's training loop ran over, one per step (Portolan): each step
    builds its batch from its value, as the original's loop body did."""

    def __init__(self, make, limit=None):
        super().__init__()
        self.make = make
        self.limit = limit

    def __iter__(self):
        values = iter(self.make())
        return values if self.limit is None else itertools.islice(values, self.limit)


def one_value(values):
    """A batch is one value of the original's loop (global_batch_size 1)."""
    return values[0]
)";
}

} // namespace portolan::port::detail
