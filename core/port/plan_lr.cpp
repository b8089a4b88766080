// A learning rate changed by hand (decayed every K epochs, divided on a plateau), as the
// equivalent LR scheduler (issue 24).
#include "core/port/plan_internal.h"

#include <algorithm>
#include <cstdio>

namespace portolan::port::planning {

namespace {

// The operator of a rate changed in place (`lr /= 4`, `lr *= 0.1`): "/=" or "*=", "" for any
// other assignment.
std::string decayOperator(const Assignment& a, const std::string& text)
{
    if (!a.augmented)
        return {};
    return text.find("/=") != std::string::npos   ? std::string("/=")
           : text.find("*=") != std::string::npos ? std::string("*=")
                                                  : std::string();
}

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

// A rate divided when a compared metric did not improve (`if not best or val_loss < best:
// best = val_loss else: lr /= 4.0`, once per epoch after its evaluation): the same rule is
// torch's ReduceLROnPlateau(mode="min", factor=1/4, patience=0, threshold=0,
// threshold_mode="abs") stepped with that metric after each epoch. Why it is the same: its best
// starts at +inf, so the first epoch always improves (the original's `not best`); with threshold
// 0 absolute, "improves" is `metric < best`, as written; patience 0 reduces the rate at the first
// epoch that does not improve, and cooldown 0 keeps doing so at each such epoch, as the `else`
// does. Two edges part: a best of exactly 0.0 (`not best` holds for it, the scheduler's `<` does
// not), and a rate whose reduction is under its eps (1e-8), which the scheduler no longer changes.
// Each target's documented form: Determined wraps it with step_mode MANUAL_STEP (its harness
// refuses ReduceLROnPlateau in any other mode) and steps it with the validation loss in
// evaluate_full_dataset; PopTorch steps it after the epoch's evaluation, then hands the optimizer
// to the device with training_model.setOptimizer; the Cerebras schedules count steps and none
// follows a metric. Where the port's validation is not the original's computation (it stands in
// with training steps when the original's is not a DataLoader), the schedule would follow another
// metric: the item names the form instead of generating a schedule that differs. PopTorch and
// Determined, which run the original's validation, generate it (plateau_plan.cpp,
// validation_pass.cpp).
std::string Planner::plateauDecay(const Assignment& a, const std::string& text) const
{
    const std::string op = decayOperator(a, text);
    if (op.empty())
        return {};
    const Stmt* branch = nullptr;
    bool inElse = false;
    for (const Stmt* s : src().chainAt(a.span.startByte, a.span.endByte)) {
        if (s->type != "if_statement")
            continue;
        const std::string cond = src().text(s->condition);
        if (cond.find('<') == std::string::npos && cond.find('>') == std::string::npos)
            continue;
        branch = s;
        inElse = !s->other.empty() && a.span.startByte >= s->other.front().start;
    }
    if (!branch)
        return {};
    std::string factor = text.substr(text.find(op) + 2);
    factor.erase(0, factor.find_first_not_of(' '));
    const std::string rate = op == "/=" ? "1 / " + factor : factor;
    return "the learning rate is multiplied by " + rate + " when `" +
           src().text(branch->condition) + "` " + (inElse ? "does not hold" : "holds") + " (`" +
           text +
           "`, a plateau decay): the target's form is "
           "torch.optim.lr_scheduler.ReduceLROnPlateau(mode=\"min\", factor=" +
           rate +
           ", patience=0, threshold=0, threshold_mode=\"abs\") stepped with the original's "
           "validation loss at the end of each epoch (Determined: wrap_lr_scheduler(..., "
           "step_mode=LRScheduler.StepMode.MANUAL_STEP) and .step(loss) in "
           "evaluate_full_dataset; PopTorch: .step(loss) after the epoch's evaluation, then "
           "training_model.setOptimizer(optimizer) so that the new rate reaches the device; "
           "Cerebras: its schedules count steps and none follows a metric), which the port does "
           "not compute: the port keeps the starting rate";
}

// A rate divided every K epochs by hand (`if (epoch + 1) % 20 == 0: lr /= 3`) that the plan did
// not turn into a scheduler (plan_lr.cpp: the rate is not written into the optimizer, or the
// epoch loop is not a range from a literal). StepLR(step_size=K, gamma=1/3) is the same schedule
// only when the condition holds after epochs K, 2K, ...: the item names StepLR, says when it is
// the same, and names the LambdaLR that counts an offset. Returns "" when the change is not such
// a decay.
std::string Planner::periodicDecay(const Assignment& a, const std::string& text) const
{
    const std::string op = decayOperator(a, text);
    if (op.empty())
        return {};
    for (const Stmt* s : src().chainAt(a.span.startByte, a.span.endByte)) {
        if (s->type != "if_statement" ||
            (!s->other.empty() && a.span.startByte >= s->other.front().start))
            continue;
        const std::string cond = src().text(s->condition);
        const auto mod = cond.find('%');
        const auto eq = cond.find("==", mod == std::string::npos ? 0 : mod);
        if (mod == std::string::npos || eq == std::string::npos ||
            cond.find_first_not_of(" 0", eq + 2) != std::string::npos)
            continue;
        std::string every = cond.substr(mod + 1, eq - mod - 1);
        every.erase(0, every.find_first_not_of(' '));
        every.erase(every.find_last_not_of(' ') + 1);
        std::string factor = text.substr(text.find(op) + 2);
        factor.erase(0, factor.find_first_not_of(' '));
        const std::string gamma = op == "/=" ? "1 / " + factor : factor;
        return "the learning rate is multiplied by " + gamma + " every " + every +
               " epochs by hand (`if " + cond + ":` at line " + std::to_string(s->line) + ", `" +
               text +
               "`, a step decay): torch.optim.lr_scheduler.StepLR(optimizer, step_size=" + every +
               ", gamma=" + gamma + ") stepped once per epoch decays after epochs " + every +
               ", 2 x " + every +
               ", ...; if the condition holds after other epochs (which depends on the epoch "
               "loop's first value: `epoch % K == 0` over range(E) holds after the first epoch), "
               "LambdaLR(optimizer, lambda n: gamma ** ((n + offset) // K)) counts the same "
               "decays. Write it in place of the decay (the target then runs it: Determined's "
               "LRScheduler STEP_EVERY_EPOCH, scheduler.step() after each epoch with PopTorch, a "
               "Cerebras schedule counted in steps); the port keeps the starting rate";
    }
    return {};
}

// The learning rate changed while training (`lr /= 4.0` after an epoch, `group["lr"] = ...`):
// the port builds its optimizer once, with the starting rate, so such a change is not carried
// over; it is reported where it happens, to be written as an LR scheduler.
void Planner::findLrChanges()
{
    std::set<std::string> rates;
    for (const auto& o : m_p.optimizers) {
        if (o.synthesized && !o.rateName.empty())
            rates.insert(o.rateName);
        if (o.synthesized) {
            // The rate of a hand-written update: a plain name (`lr`).
            if (!o.learningRate.empty() &&
                o.learningRate.find_first_not_of(
                    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                    std::string::npos &&
                !std::isdigit(static_cast<unsigned char>(o.learningRate[0])))
                rates.insert(o.learningRate);
            continue;
        }
        for (const auto& c : idx().calls)
            if (c.span.startByte == o.construction.start)
                for (const auto& arg : c.arguments)
                    if (arg.keyword == "lr" &&
                        arg.text.substr(arg.text.find('=') + 1).find_first_of("().[]+-*/ ") ==
                            std::string::npos)
                        rates.insert(src().text(arg.valueSpan.startByte, arg.valueSpan.endByte));
    }
    // A name holding the same rate (`lr = args.lr`, annealed by hand while the optimizer's
    // construction reads the flag) is the rate too.
    std::set<std::string> values;
    for (const auto& o : m_p.optimizers)
        for (const auto& c : idx().calls)
            if (!o.synthesized && c.span.startByte == o.construction.start)
                for (const auto& arg : c.arguments)
                    if (arg.keyword == "lr")
                        values.insert(src().text(arg.valueSpan.startByte, arg.valueSpan.endByte));
    for (const auto& a : idx().assignments)
        if (!a.augmented && values.count(a.value) &&
            a.target.find_first_of(".[, ") == std::string::npos)
            rates.insert(a.target);
    // A decay every K epochs that is exactly a StepLR becomes that scheduler: neither it nor the
    // param-group writes it makes are left as items.
    std::set<std::uint32_t> replaced;
    for (const auto& a : idx().assignments)
        if (a.augmented && rates.count(a.target))
            stepDecayScheduler(a, src().text(a.span.startByte, a.span.endByte), replaced);
    for (const auto& a : idx().assignments) {
        if (replaced.count(a.span.startByte))
            continue;
        const bool group = a.target.ends_with("[\"lr\"]") || a.target.ends_with("['lr']");
        bool changed = group;
        if (!changed && rates.count(a.target)) {
            // A change: an augmented assignment, or one inside a loop.
            changed = a.augmented;
            for (const Stmt* s : src().chainAt(a.span.startByte, a.span.endByte))
                changed = changed || s->type == "for_statement" || s->type == "while_statement";
        }
        if (!changed)
            continue;
        const std::string text = src().text(a.span.startByte, a.span.endByte);
        if (const auto periodic = periodicDecay(a, text); !periodic.empty()) {
            m_p.manual.push_back(manualFinding(periodic, refOf(m_p.entry, src(), a.span),
                                               "an LR scheduler (StepLR) in place of the decay"));
            continue;
        }
        if (const auto plateau = plateauDecay(a, text); !plateau.empty()) {
            if (auto pp = plateauPlan(a, text))
                m_p.plateaus.push_back(std::move(*pp));
            m_p.manual.push_back(manualFinding(plateau, refOf(m_p.entry, src(), a.span),
                                               "compute the original's validation loss in the "
                                               "port and step ReduceLROnPlateau with it"));
            continue;
        }
        m_p.manual.push_back(manualFinding(
            "the learning rate changes during training (`" + text +
                "`): the port keeps the starting rate; write the change as an LR scheduler",
            refOf(m_p.entry, src(), a.span),
            "torch.optim.lr_scheduler (StepLR, ReduceLROnPlateau, LambdaLR) wrapped by the "
            "target"));
    }
}

} // namespace portolan::port::planning
