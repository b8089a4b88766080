// Calls on what a vendor wraps, whatever the project names it: `self.sgd.step()` after
// `opt = self.context.wrap_optimizer(opt); self.sgd = opt` is an optimizer step, though no
// `optim` is in its name.
#include "core/analysis/analysis.h"
#include "core/guides/rules.h"

#include <set>

namespace portolan::guides {

using analysis::PythonFile;
using python::Call;

bool receiverFrom(const PythonFile& f, const Call& call, const std::vector<std::string>& globs)
{
    const std::string receiver = receiverOf(call.callee);
    if (receiver.empty())
        return false;
    for (const auto& c : f.index.calls)
        if (c.assignedTo == receiver && calleeOk(globs, c))
            return true;
    return false;
}

bool methodOfWrapped(const RuleParams& p, const PythonFile& f, const Call& c)
{
    if (!p.has("method-of-wrapped") || lastPart(c.callee) != p.get("method-of-wrapped"))
        return false;
    const std::string receiver = receiverOf(c.callee);
    if (receiver.empty())
        return false;
    // The receiver and the plain names it was assigned from (`self.sgd = opt`), a few hops.
    std::set<std::string> names{receiver};
    for (int hop = 0; hop < 3; ++hop)
        for (const auto& a : f.index.assignments)
            if (names.count(a.target) && !a.augmented &&
                a.value.find_first_of("()[], ") == std::string::npos)
                names.insert(a.value);
    const auto wrappers = p.list("wrapped-by");
    for (const auto& w : f.index.calls)
        if (names.count(w.assignedTo) && calleeOk(wrappers, w))
            return true;
    return false;
}

} // namespace portolan::guides
