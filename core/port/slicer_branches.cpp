// The Slicer's rules for branches on the run's environment: a branch that only picks or moves
// to the device is dropped, and an if on the accelerator or on distributed training binds a
// name only in the branch the port's single host process takes (slicer.cpp, static_branch.cpp).
#include "core/port/generate_internal.h"

namespace portolan::port::detail {

// `if torch.cuda.is_available(): model = model.cuda(); device = torch.device("cuda")`: a branch
// on the accelerator whose statements only move values to the device or pick the device. The
// target places the model and the batches, so the branch is dropped as a whole (kept, it
// would shadow the model's construction with `model = model`).
bool Slicer::isDeviceBranch(const Stmt& s) const
{
    if (s.type != "if_statement")
        return false;
    const std::string cond = m_src->text(s.condition);
    bool device = cond.find("cuda") != std::string::npos ||
                  cond.find("accelerator") != std::string::npos ||
                  cond.find("mps") != std::string::npos;
    for (const auto& d : m_plan.deviceNames)
        device = device || s.uses.count(d);
    if (!device)
        return false;
    auto onlyDevice = [&](const std::vector<Stmt>& block) {
        for (const auto& b : block) {
            if (b.isComment())
                continue;
            if (b.type != "expression_statement")
                return false;
            bool names = !b.defines.empty();
            for (const auto& d : b.defines)
                names = names && m_plan.deviceNames.count(d);
            const std::string t = m_src->text(b.start, b.end);
            // A move rebinds a value to itself (`x = x.to(device)`); a construction that ends in
            // a move (`model = Net(...).to(device)` per `args.model`) builds, and stays.
            const auto eq = t.find('=');
            const std::string value = eq == std::string::npos
                                          ? std::string()
                                          : t.substr(t.find_first_not_of(' ', eq + 1));
            const bool move =
                b.defines.size() == 1 && value.starts_with(*b.defines.begin() + ".") &&
                (t.find(".cuda(") != std::string::npos || t.find(".to(") != std::string::npos);
            if (!names && !move)
                return false;
        }
        return true;
    };
    return onlyDevice(s.body) && onlyDevice(s.other);
}

// An if on the accelerator or on distributed training binds a name only in the branch the
// port's single host process takes (StaticBranches): that branch's statement, or nullptr when
// the branch does not bind it. Any other statement is its own definer.
const Stmt* Slicer::branchDefiner(const Stmt& s, const std::string& name) const
{
    const auto taken = m_branches ? m_branches->taken(s) : std::nullopt;
    if (!taken)
        return &s;
    const Stmt* found = nullptr;
    for (const Stmt* b : *taken)
        if (b->defines.count(name) && !b->isComment())
            if (const Stmt* d = branchDefiner(*b, name))
                found = d;
    return found;
}

} // namespace portolan::port::detail
