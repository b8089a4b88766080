// The Slicer's rules for branches on the run's environment: a branch that only picks or moves
// to the device is dropped, and an if on the accelerator or on distributed training binds a
// name only in the branch the port's single host process takes (slicer.cpp, static_branch.cpp).
#include "core/port/generate_internal.h"

namespace portolan::port::detail {

// `if torch.cuda.is_available(): model = model.cuda(); device = torch.device("cuda")`: a branch
// on the accelerator whose statements only move values to the device (in place too:
// `model.cuda()`) or pick the device. The
// target places the model and the batches, so the branch is dropped as a whole (kept, it
// would shadow the model's construction with `model = model`).
bool Slicer::isDeviceBranch(const Stmt& s) const
{
    if (s.type != "if_statement")
        return false;
    const std::string cond = m_src->text(s.condition);
    bool device = cond.find("cuda") != std::string::npos || cond.find("gpu") != std::string::npos ||
                  cond.find("accelerator") != std::string::npos ||
                  cond.find("mps") != std::string::npos;
    for (const auto& d : m_plan.deviceNames)
        device = device || s.uses.count(d);
    // Every move is a `.cuda()` call: whatever the flag is called (`if opts.fast:`), the
    // branch moves to the accelerator.
    bool allCuda = true;
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
            const bool cuda = t.find(".cuda(") != std::string::npos;
            // A move rebinds a value to itself (`x = x.to(device)`); a construction that ends in
            // a move (`model = Net(...).to(device)` per `args.model`) builds, and stays.
            const auto eq = t.find('=');
            const std::string value = eq == std::string::npos
                                          ? std::string()
                                          : t.substr(t.find_first_not_of(' ', eq + 1));
            bool move = b.defines.size() == 1 && value.starts_with(*b.defines.begin() + ".") &&
                        (cuda || t.find(".to(") != std::string::npos);
            const TSNode e = ts_node_named_child(b.node, 0);
            // Several at once (`xs, ys = xs.to(dev), ys.to(dev)`): each value moves its own
            // target.
            if (std::string_view(ts_node_type(e)) == "assignment") {
                const TSNode left = ts_node_child_by_field_name(e, "left", 4);
                const TSNode right = ts_node_child_by_field_name(e, "right", 5);
                const uint32_t n = ts_node_named_child_count(left);
                bool each = n > 1 && std::string_view(ts_node_type(right)) == "expression_list" &&
                            ts_node_named_child_count(right) == n;
                for (uint32_t i = 0; each && i < n; ++i) {
                    const std::string v = m_src->text(ts_node_named_child(right, i));
                    each = v.starts_with(m_src->text(ts_node_named_child(left, i)) + ".") &&
                           (v.find(".cuda(") != std::string::npos ||
                            v.find(".to(") != std::string::npos);
                }
                move = move || each;
            }
            // A module moved in place (`model.cuda()`, `net.to(device)`): a call of the move on
            // a plain name, as the whole statement.
            if (b.defines.empty() && std::string_view(ts_node_type(e)) == "call") {
                const TSNode fn = ts_node_child_by_field_name(e, "function", 8);
                const TSNode obj = ts_node_child_by_field_name(fn, "object", 6);
                const std::string attr =
                    m_src->text(ts_node_child_by_field_name(fn, "attribute", 9));
                move = std::string_view(ts_node_type(fn)) == "attribute" &&
                       std::string_view(ts_node_type(obj)) == "identifier" &&
                       (attr == "cuda" || attr == "to");
            }
            if (!names && !move)
                return false;
            allCuda = allCuda && (names || cuda);
        }
        return true;
    };
    return onlyDevice(s.body) && onlyDevice(s.other) && (device || allCuda);
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
