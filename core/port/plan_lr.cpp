// A learning rate decayed by hand every K epochs, as the equivalent LR scheduler (issue 24).
#include "core/port/plan_internal.h"

#include <algorithm>
#include <cstdio>

namespace portolan::port::planning {

namespace {

std::string withoutSpaces(std::string s)
{
    s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\n'; }),
            s.end());
    return s;
}

bool isNumber(const std::string& s)
{
    return !s.empty() && s.find_first_not_of("0123456789.") == std::string::npos &&
           std::count(s.begin(), s.end(), '.') <= 1 && s != ".";
}

} // namespace

// `if (epoch + 1) % K == 0: lr /= f` at the end of each epoch (after the epoch's training, in
// the epoch loop's body), with the new rate written into the optimizer's param groups there
// (directly, or by a function the branch calls): after the n-th epoch the rate is
// lr0 * (1/f)^(n // K), which is torch's StepLR(step_size=K, gamma=1/f) stepped once per epoch.
// The scheduler joins the plan (each target wraps or converts it as it does the original's own)
// and the assignments it replaces are returned in `replaced` (their start bytes). Only that
// exact form is taken: any other condition (`epoch % K == 0` decays after the first epoch) or a
// rate never written into the optimizer is left to the manual item.
bool Planner::stepDecayScheduler(const Assignment& a, const std::string& text,
                                 std::set<std::uint32_t>& replaced)
{
    if (!m_p.loop || !a.augmented || m_p.optimizers.size() != 1 || m_p.optimizers[0].synthesized ||
        m_p.optimizers[0].closure)
        return false;
    const bool divide = text.find("/=") != std::string::npos;
    if (!divide && text.find("*=") == std::string::npos)
        return false;
    std::string factor = withoutSpaces(text.substr(text.find(divide ? "/=" : "*=") + 2));
    if (!isNumber(factor))
        return false;
    // The branch, directly in the body of a loop that also runs the training before it.
    const auto chain = src().chainAt(a.span.startByte, a.span.endByte);
    const Stmt* branch = nullptr;
    const Stmt* epochLoop = nullptr;
    for (std::size_t i = 1; i < chain.size(); ++i)
        if (chain[i]->type == "if_statement" && chain[i - 1]->type == "for_statement") {
            branch = chain[i];
            epochLoop = chain[i - 1];
        }
    if (!branch || !epochLoop || ts_node_is_null(epochLoop->forTarget) ||
        (!branch->other.empty() && a.span.startByte >= branch->other.front().start))
        return false;
    bool trainedBefore = false;
    for (const auto& s : epochLoop->body) {
        if (&s == branch)
            break;
        trainedBefore =
            trainedBefore ||
            (m_p.loop && s.start <= m_p.loop->loop.start && m_p.loop->loop.start < s.end) ||
            (!m_p.loop->function.empty() &&
             src().text(s.start, s.end).find(m_p.loop->function + "(") != std::string::npos);
    }
    const std::string epoch = src().text(epochLoop->forTarget);
    const std::string cond = withoutSpaces(src().text(branch->condition));
    const std::string head = "(" + epoch + "+1)%";
    if (!trainedBefore || !cond.starts_with(head) || !cond.ends_with("==0"))
        return false;
    const std::string every = cond.substr(head.size(), cond.size() - head.size() - 3);
    if (every.empty() || every.find_first_not_of("0123456789") != std::string::npos || every == "0")
        return false;
    // The new rate reaches the optimizer in that branch: a param-group assignment in it, or in a
    // function it calls.
    const std::string branchText = src().text(branch->start, branch->end);
    std::vector<std::uint32_t> writes;
    for (const auto& g : idx().assignments) {
        if (!g.target.ends_with("[\"lr\"]") && !g.target.ends_with("['lr']"))
            continue;
        bool reached = branch->start <= g.span.startByte && g.span.endByte <= branch->end;
        for (const Stmt* s : src().chainAt(g.span.startByte, g.span.endByte))
            reached = reached || ((s->type == "function_definition") && !s->name.empty() &&
                                  branchText.find(s->name + "(") != std::string::npos);
        if (reached)
            writes.push_back(g.span.startByte);
    }
    if (writes.empty())
        return false;
    const double f = std::stod(factor);
    if (f <= 0)
        return false;
    char gamma[64];
    std::snprintf(gamma, sizeof gamma, "%.17g", divide ? 1.0 / f : f);
    SchedulerPlan s;
    s.variable = "lr_decay";
    for (int n = 2; std::any_of(m_p.schedulers.begin(), m_p.schedulers.end(),
                                [&](const auto& o) { return o.variable == s.variable; });
         ++n)
        s.variable = "lr_decay" + std::to_string(n);
    s.qualified = "torch.optim.lr_scheduler.StepLR";
    s.construction = refOf(m_p.entry, src(), *branch);
    s.stepSize = every;
    s.gamma = gamma;
    s.synthesized = "torch.optim.lr_scheduler.StepLR(" + m_p.optimizers[0].variable +
                    ", step_size=" + every + ", gamma=" + (divide ? "1 / " + factor : factor) + ")";
    s.replaces = "the decay by hand at " + s.construction.where() + " (`if " +
                 src().text(branch->condition) + ":`, `" + text + "`)";
    m_p.schedulers.push_back(s);
    replaced.insert(a.span.startByte);
    replaced.insert(writes.begin(), writes.end());
    return true;
}

} // namespace portolan::port::planning
