// An optimizer stepped with a closure (`optimizer.step(closure)`, LBFGS), per target.
//
// Determined: PyTorchTrialContext.step_optimizer calls `optimizer.step()` with no argument
// (harness determined/pytorch/_pytorch_context.py), so no documented form runs a closure. The
// wrapped optimizer is the user's own torch optimizer on one slot (wrap_optimizer makes a Horovod
// DistributedOptimizer only when the trial has several), so train_batch can hand the closure to
// its step itself: the same training on one slot, which the dry run and the replay then show. The
// port stays partial, with the item naming what that form gives up.
#include "generate_internal.h"

#include <algorithm>
#include <sstream>

namespace portolan::port::detail {

namespace {

// `text`'s lines, each indented four more spaces (an empty line stays empty).
std::string deeper(const std::string& text)
{
    std::istringstream in(text);
    std::string out, line;
    while (std::getline(in, line))
        out += (line.empty() ? line : "    " + line) + "\n";
    return out;
}

// The closure's name as the step passes it: `optimizer.step(closure)` -> "closure".
std::string closureArgument(const PortPlan& plan, const OptimizerPlan& o)
{
    if (plan.loop)
        for (const auto& s : plan.loop->steps) {
            const auto at = s.text.find(o.variable + ".step(");
            if (at == std::string::npos)
                continue;
            const auto open = at + o.variable.size() + 6;
            const auto close = s.text.find(')', open);
            if (close == std::string::npos)
                continue;
            std::string arg = s.text.substr(open, close - open);
            if (arg.starts_with("closure="))
                arg = arg.substr(8);
            if (!arg.empty() && arg.find_first_of(" (,=") == std::string::npos)
                return arg;
        }
    return "closure";
}

// Where the original steps the optimizer with its closure, else where it builds it.
CodeRef stepSite(const PortPlan& plan, const OptimizerPlan& o)
{
    if (plan.loop)
        for (const auto& s : plan.loop->steps)
            if (s.text.find(o.variable + ".step(") != std::string::npos)
                return s;
    return o.construction;
}

} // namespace

ClosureStep determinedClosureStep(const PortPlan& plan, const OptimizerPlan& o,
                                  const std::string& forward, const std::string& between,
                                  const std::string& loss, const std::string& ind)
{
    ClosureStep r;
    const std::string name = closureArgument(plan, o);
    const std::string opt = "self." + o.variable;
    std::string& t = r.text;
    t += ind + "def " + name + "():\n";
    // LBFGS evaluates the closure several times per step; the original's closure clears the
    // gradients before each evaluation, and the port's must too (step_optimizer does not run).
    if (plan.loop && !plan.loop->zeroGrads.empty())
        t += ind + "    " + opt + ".zero_grad()\n";
    t += deeper(forward);
    t += ind + "    self.context.backward(" + loss + ")\n";
    t += deeper(between);
    t += ind + "    return " + loss + "\n\n";
    t += todo(ind, "Determined's step_optimizer steps without a closure: the wrapped optimizer "
                   "is stepped with it directly, which is the same training on one slot only "
                   "(slots_per_trial: 1)");
    t += ind + "losses = []\n\n";
    t += ind + "def evaluate():\n";
    t += ind + "    losses.append(" + name + "())\n";
    t += ind + "    return losses[-1]\n\n";
    r.stepCall = opt + ".step(evaluate)";
    t += ind + r.stepCall + "\n";
    t += ind + "# The step's loss is its last evaluation's, as the original's last backward().\n";
    t += ind + "return {\"loss\": losses[-1]}\n";
    r.item = manualFinding(
        "optimizer step with a closure (" + o.qualified +
            "): Determined's step_optimizer calls step() without one, so the port steps the "
            "wrapped optimizer with the closure itself; that is the original's training on one "
            "slot, but it bypasses step_optimizer's gradient aggregation and, on several slots, "
            "the distributed optimizer's one backward pass per step",
        stepSite(plan, o),
        "train on one slot (slots_per_trial: 1), or replace " + o.qualified +
            " with an optimizer stepped without a closure");
    return r;
}

void nameStepInPort(PortResult& out, const ClosureStep& closure, const std::string& path)
{
    if (closure.stepCall.empty())
        return;
    const auto file = std::find_if(out.files.begin(), out.files.end(),
                                   [&](const auto& f) { return f.path == path; });
    const auto item = std::find_if(out.manual.begin(), out.manual.end(), [&](const auto& m) {
        return m.message == closure.item.message && m.location.line == closure.item.location.line;
    });
    if (file == out.files.end() || item == out.manual.end())
        return;
    std::istringstream in(file->text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        const auto at = line.find(closure.stepCall);
        if (at != std::string::npos && line.find('#') > at) {
            item->related.push_back(SourceLocation{path, n, int(at) + 1});
            return;
        }
    }
}

} // namespace portolan::port::detail
