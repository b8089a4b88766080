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

// The epochs after which `if <cond>:` holds, in a loop `for <epoch> in <iter>`, when <cond> is
// `epoch % K == 0` or `(epoch + c) % K == 0` and <iter> is `range(E)` or `range(S, E)` with S
// and c integers: the n-th epoch (n = 1, 2, ...) has epoch = S + n - 1, so the branch holds after
// the epochs n with (n + S + c - 1) % K == 0; after n epochs it has held (n + offset) // K times
// with offset = (S + c - 1) mod K. Offset 0 is StepLR(step_size=K): `(epoch + 1) % K` over
// range(E), `epoch % K` over range(1, E + 1). nullopt for any other form.
std::optional<DecayEpochs> decayEpochs(const std::string& epoch, const std::string& iter,
                                       const std::string& condition)
{
    const std::string it = withoutSpaces(iter);
    const std::string cond = withoutSpaces(condition);
    if (!it.starts_with("range(") || !it.ends_with(")") || !cond.ends_with("==0"))
        return std::nullopt;
    const std::string inner = it.substr(6, it.size() - 7);
    long start = 0;
    std::string end = inner;
    if (const auto comma = inner.find(','); comma != std::string::npos) {
        const std::string first = inner.substr(0, comma);
        if (first.empty() || first.find_first_not_of("0123456789") != std::string::npos ||
            first.size() > 6 || inner.find(',', comma + 1) != std::string::npos)
            return std::nullopt;
        start = std::stol(first);
        end = inner.substr(comma + 1);
    } else if (inner.empty()) {
        return std::nullopt;
    }
    long shift = 0;
    std::string rest;
    if (cond.starts_with(epoch + "%")) {
        rest = cond.substr(epoch.size() + 1);
    } else if (cond.starts_with("(" + epoch + "+")) {
        const auto close = cond.find(")%");
        const std::string c = close == std::string::npos
                                  ? std::string()
                                  : cond.substr(epoch.size() + 2, close - epoch.size() - 2);
        if (c.empty() || c.find_first_not_of("0123456789") != std::string::npos || c.size() > 6)
            return std::nullopt;
        shift = std::stol(c);
        rest = cond.substr(close + 2);
    } else {
        return std::nullopt;
    }
    const std::string every = rest.substr(0, rest.size() - 3);
    if (every.empty() || every.find_first_not_of("0123456789") != std::string::npos ||
        every.size() > 6 || std::stol(every) == 0)
        return std::nullopt;
    DecayEpochs d;
    d.every = std::stol(every);
    d.offset = ((start + shift - 1) % d.every + d.every) % d.every;
    d.start = start;
    d.end = end;
    return d;
}

// `if (epoch + 1) % K == 0: lr /= f` at the end of each epoch (after the epoch's training, in
// the epoch loop's body), with the new rate written into the optimizer's param groups there
// (directly, or by a function the branch calls): after the n-th epoch the rate is
// lr0 * (1/f)^(n // K), which is torch's StepLR(step_size=K, gamma=1/f) stepped once per epoch;
// a condition that holds one or more epochs off those (`epoch % K == 0` over range(E) holds after
// the first epoch) is the LambdaLR of the same count with its offset (decayEpochs).
// The scheduler joins the plan (each target wraps or converts it as it does the original's own)
// and the assignments it replaces are returned in `replaced` (their start bytes). Only that
// exact form is taken: any other condition, a loop that is not a range from a literal, or a
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
    if (!trainedBefore)
        return false;
    const auto when = decayEpochs(src().text(epochLoop->forTarget), src().text(epochLoop->forIter),
                                  src().text(branch->condition));
    if (!when)
        return false;
    const std::string every = std::to_string(when->every);
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
    s.construction = refOf(m_p.entry, src(), *branch);
    s.stepSize = every;
    s.gamma = gamma;
    const std::string g = divide ? "1 / " + factor : factor;
    if (when->offset == 0) {
        s.qualified = "torch.optim.lr_scheduler.StepLR";
        s.synthesized = "torch.optim.lr_scheduler.StepLR(" + m_p.optimizers[0].variable +
                        ", step_size=" + every + ", gamma=" + g + ")";
    } else {
        // After n epochs the rate has been decayed (n + offset) // K times.
        s.qualified = "torch.optim.lr_scheduler.LambdaLR";
        s.offset = when->offset;
        s.epochsStart = when->start;
        s.epochsEnd = when->end;
        s.synthesized = "torch.optim.lr_scheduler.LambdaLR(" + m_p.optimizers[0].variable +
                        ", lambda epochs: (" + g + ") ** ((epochs + " +
                        std::to_string(when->offset) + ") // " + every + "))";
    }
    s.replaces = "the decay by hand at " + s.construction.where() + " (`if " +
                 src().text(branch->condition) + ":`, `" + text + "`)";
    m_p.schedulers.push_back(s);
    replaced.insert(a.span.startByte);
    replaced.insert(writes.begin(), writes.end());
    return true;
}

} // namespace portolan::port::planning
