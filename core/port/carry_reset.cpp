// State the step carries, reset each epoch as the original does: see carry_reset.h.
#include "core/port/carry_reset.h"

#include "core/port/factory.h"

#include <algorithm>

namespace portolan::port::detail {

namespace {

bool isLoop(const Stmt& s)
{
    return s.type == "for_statement" || s.type == "while_statement";
}

// Does a statement at `s` run once per pass over the data: inside a loop that also holds the
// batch loop, before it; or in the batch loop's function, whose every pass is one epoch (no loop
// of its own around the batch loop) and which a caller calls in a loop.
bool runsPerEpoch(const PortPlan& plan, const Slicer& slicer, const Stmt& s)
{
    const SourceFile& src = slicer.source();
    const auto& loop = plan.loop->loop;
    if (s.end > loop.start)
        return false;
    bool aroundBatchLoop = false;
    for (const Stmt* l : src.chainAt(loop.start, loop.end)) {
        if (!isLoop(*l) || l->start == loop.start)
            continue;
        aroundBatchLoop = true;
        if (l->start < s.start && s.end <= l->end)
            return true;
    }
    const Stmt* fn = slicer.loopFunction();
    if (aroundBatchLoop || !fn || s.start < fn->start || s.end > fn->end)
        return false;
    for (const TSNode call : callsOf(src, fn->name)) {
        const auto chain = src.chainAt(ts_node_start_byte(call), ts_node_end_byte(call));
        if (std::any_of(chain.begin(), chain.end(), [](const Stmt* c) { return isLoop(*c); }))
            return true;
    }
    return false;
}

} // namespace

std::vector<const Stmt*> epochResets(const PortPlan& plan, const Slicer& slicer, const StepCode& sc)
{
    std::vector<const Stmt*> out;
    if (!plan.loop || plan.loop->loop.file != plan.entry)
        return out;
    const auto carried = carriedState(slicer, sc);
    for (const Stmt* s : sc.init.local) {
        const bool binds = std::any_of(s->defines.begin(), s->defines.end(),
                                       [&](const auto& d) { return carried.count(d) > 0; });
        if (binds && runsPerEpoch(plan, slicer, *s))
            out.push_back(s);
    }
    return out;
}

std::string resetWhat(const PortPlan& plan, const std::vector<const Stmt*>& resets)
{
    std::string names, lines;
    for (const Stmt* s : resets) {
        for (const auto& d : s->defines)
            names += (names.empty() ? "`" : ", `") + d + "`";
        lines += (lines.empty() ? "" : ", ") + plan.entry + ":" + std::to_string(s->line);
    }
    return names + " anew at the start of each epoch (" + lines + ")";
}

std::string resetStatements(const Slicer& slicer, const StepCode& sc,
                            const std::vector<const Stmt*>& resets, const RenderRules& body,
                            const std::string& indent)
{
    for (const Stmt* s : resets)
        for (const auto& u : s->uses)
            if (sc.init.localDefines.count(u) && !body.rename.count(u))
                return {};
    return renderLocal(slicer, resets, body, indent);
}

std::string determinedEpochReset(const PortPlan& plan, const Slicer& slicer, const StepCode& sc,
                                 const RenderRules& body, const std::string& indent)
{
    const auto resets = epochResets(plan, slicer, sc);
    if (resets.empty())
        return {};
    const std::string what = resetWhat(plan, resets);
    const std::string again = resetStatements(slicer, sc, resets, body, indent + "    ");
    if (again.empty())
        return indent + "# TODO(portolan): the original builds " + what +
               "; the trial builds it once, in __init__\n";
    // train_batch is told its epoch: the state built in __init__ is the first epoch's.
    return indent + "# The original builds " + what +
           ": so does the trial, when epoch_idx changes.\n" + indent +
           "if epoch_idx != getattr(self, \"carry_epoch\", epoch_idx):\n" + again + indent +
           "self.carry_epoch = epoch_idx\n";
}

std::string poptorchEpochReset(const PortPlan& plan, const Slicer& slicer, const StepCode& sc,
                               const RenderRules& rules, const std::string& indent)
{
    const auto resets = epochResets(plan, slicer, sc);
    if (resets.empty())
        return {};
    // The host keeps the state between the program's calls; the first epoch's is built with
    // the model, before the loop, where the original's first epoch built it.
    return indent + "# The original builds " + resetWhat(plan, resets) + ".\n" + indent +
           "if epoch > 0:\n" + renderLocal(slicer, resets, rules, indent + "    ");
}

std::string cerebrasEpochReset(const PortPlan& plan, const Slicer& slicer, const StepCode& sc,
                               bool runner, const std::string& indent)
{
    const auto resets = epochResets(plan, slicer, sc);
    if (resets.empty())
        return {};
    return indent + "# The original builds " + resetWhat(plan, resets) + "; the " +
           (runner ? "runner" : "Trainer") +
           " counts steps and calls the model without marking epochs, so the port carries the "
           "state across epochs (set the steps of one epoch and rebuild it there for the "
           "original's behaviour).\n";
}

} // namespace portolan::port::detail
