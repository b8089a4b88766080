// Schedulers stepped with a metric and where the metric comes from: see metric_step.h.
#include "core/port/metric_step.h"

#include "core/port/epoch_loop.h"
#include "core/port/validation_pass.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace portolan::port::detail {

namespace {

// Names an aggregate may read besides the sums: Python's own.
const std::set<std::string>& builtins()
{
    static const std::set<std::string> names{"sum", "len", "max", "min", "float", "abs", "round"};
    return names;
}

bool isPlateau(const SchedulerPlan& s)
{
    return s.qualified.ends_with("ReduceLROnPlateau");
}

// `name = []` / `= 0` / `= 0.0`: a sum started anew.
bool startsSum(const SourceFile& src, const Stmt& s, const std::string& name)
{
    if (s.type != "expression_statement" || s.defines.size() != 1 || !s.defines.count(name))
        return false;
    std::string text = src.text(s.start, s.end);
    std::erase_if(text, [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
    const std::string value = text.substr(text.find('=') + 1);
    return text.starts_with(name + "=") &&
           (value == "[]" || value == "0" || value == "0.0" || value == "list()");
}

// Does a statement of `block` (at any depth) read both `sum` and the loss?
bool addsLoss(const std::vector<Stmt>& block, const std::string& sum, const std::string& loss)
{
    for (const auto& s : block) {
        if (s.body.empty() && s.other.empty() && s.uses.count(sum) && s.uses.count(loss))
            return true;
        if (addsLoss(s.body, sum, loss) || addsLoss(s.other, sum, loss))
            return true;
    }
    return false;
}

// The metric as an aggregate of the epoch's losses: the statements between the batch loop
// (`body[batch]`) and the step (`body[step]`) that compute it read nothing but sums the epoch
// starts before its batch loop and its batches add the loss to.
bool epochLosses(const PortPlan& plan, const SourceFile& src, const std::vector<Stmt>& body,
                 std::size_t batch, std::size_t step, MetricStep& m)
{
    std::set<std::string> needed{m.metric};
    std::vector<const Stmt*> aggregate;
    for (std::size_t i = step; i-- > batch + 1;) {
        const Stmt& s = body[i];
        if (s.isComment() || std::none_of(s.defines.begin(), s.defines.end(),
                                          [&](const auto& d) { return needed.count(d) > 0; }))
            continue;
        if (s.type != "expression_statement")
            return false;
        needed.insert(s.uses.begin(), s.uses.end());
        for (const auto& d : s.defines)
            needed.erase(d);
        aggregate.insert(aggregate.begin(), &s);
    }
    if (aggregate.empty() || plan.loop->lossName.empty())
        return false;
    std::vector<const Stmt*> starts;
    for (const auto& n : needed) {
        if (builtins().count(n))
            continue;
        const Stmt* start = nullptr;
        for (std::size_t i = 0; i < batch; ++i)
            if (startsSum(src, body[i], n))
                start = &body[i];
        if (!start || !addsLoss(body[batch].body, n, plan.loop->lossName))
            return false;
        starts.push_back(start);
        m.sums.insert(n);
    }
    if (starts.empty())
        return false;
    std::sort(starts.begin(), starts.end(),
              [](const Stmt* a, const Stmt* b) { return a->start < b->start; });
    m.aggregate = std::move(aggregate);
    m.starts = std::move(starts);
    m.from = MetricStep::From::EpochLosses;
    return true;
}

} // namespace

std::vector<MetricStep> metricSteps(const PortPlan& plan, const Slicer& slicer)
{
    std::vector<MetricStep> out;
    if (!plan.loop)
        return out;
    const SourceFile& src = slicer.source();
    const Stmt* epoch = epochLoopStatement(plan, src);
    std::optional<ValidationPass> validation;
    bool validationLooked = false;
    for (const auto& sch : plan.schedulers) {
        // Only ReduceLROnPlateau reads a metric (another scheduler's argument is an epoch).
        if (!sch.synthesized.empty() || !isPlateau(sch))
            continue;
        MetricStep m;
        m.scheduler = &sch;
        // The step at the top of the epoch loop, after the batch loop.
        std::optional<std::size_t> batch;
        std::size_t step = 0;
        if (epoch)
            for (std::size_t i = 0; i < epoch->body.size(); ++i) {
                const Stmt& s = epoch->body[i];
                if (s.start <= plan.loop->loop.start && plan.loop->loop.end <= s.end)
                    batch = i;
                const auto args = callArguments(src, s.node, sch.variable + ".step");
                if (s.type == "expression_statement" && args && args->size() == 1 &&
                    args->front().first.empty() && s.start > plan.loop->loop.end) {
                    m.step = &s;
                    m.metric = args->front().second;
                    step = i;
                }
            }
        if (m.step && !(batch && epochLosses(plan, src, epoch->body, *batch, step, m))) {
            if (!validationLooked) {
                validation = findValidationPass(plan, slicer);
                validationLooked = true;
            }
            if (validation && validation->defines.count(m.metric) &&
                m.step->start > validation->after())
                m.from = MetricStep::From::Validation;
        }
        out.push_back(std::move(m));
    }
    return out;
}

bool addsToSums(const std::vector<MetricStep>& steps, const Stmt& s)
{
    if (!s.defines.empty() || s.type != "expression_statement")
        return false;
    for (const auto& m : steps)
        for (const auto& sum : m.sums)
            if (s.uses.count(sum))
                return true;
    return false;
}

guides::Finding metricStepItem(const PortPlan& plan, const MetricStep& m, const std::string& form)
{
    const SchedulerPlan& s = *m.scheduler;
    CodeRef at = s.construction;
    std::string what = "`" + s.variable + "` (" + s.qualified + ") ";
    if (m.step) {
        at = CodeRef{plan.entry, m.step->line, m.step->column, m.step->start, m.step->end, ""};
        what += "is stepped with `" + m.metric + "`, which the port does not compute";
    } else {
        what += "is stepped with a metric where the port cannot follow it";
    }
    return manualFinding(what + ": " + form, at,
                         "step it with the original's metric where the port computes it");
}

} // namespace portolan::port::detail

namespace portolan::port::detail {

std::string determinedWraps(const PortPlan& plan, const std::vector<MetricStep>& steps,
                            const Stmt& s, const std::string& ind)
{
    std::string out;
    for (const auto& sch : plan.schedulers) {
        if (!sch.synthesized.empty() && !plan.optimizers.empty() &&
            s.defines.count(plan.optimizers.front().variable)) {
            out += ind + "# The same schedule as " + sch.replaces + ".\n" + ind + sch.variable +
                   " = self.context.wrap_lr_scheduler(\n" + ind + "    " + sch.synthesized + ",\n" +
                   ind + "    step_mode=LRScheduler.StepMode.STEP_EVERY_EPOCH)\n";
            continue;
        }
        if (!s.defines.count(sch.variable))
            continue;
        std::string mode = sch.perBatch ? "STEP_EVERY_BATCH" : "STEP_EVERY_EPOCH";
        for (const auto& m : steps)
            if (m.scheduler == &sch)
                mode = "MANUAL_STEP";
        out += ind + sch.variable + " = self.context.wrap_lr_scheduler(\n" + ind + "    " +
               sch.variable + ",\n" + ind + "    step_mode=LRScheduler.StepMode." + mode + ")\n";
    }
    return out;
}

std::string determinedEpochMetricSteps(const Slicer& slicer, const std::vector<MetricStep>& steps,
                                       const RenderRules& body, const std::string& indent)
{
    std::string out;
    const std::string inner = indent + "    ";
    for (const auto& m : steps) {
        if (m.from != MetricStep::From::EpochLosses)
            continue;
        const std::string where = slicer.source().path() + ":" + std::to_string(m.step->line);
        // A sum the trial does not keep as an attribute is a module global of the port.
        std::string globals;
        for (const auto& n : m.sums)
            if (!body.rename.count(n))
                globals += (globals.empty() ? "" : ", ") + n;
        const auto scheduler = body.rename.count(m.scheduler->variable)
                                   ? body.rename.at(m.scheduler->variable)
                                   : "self." + m.scheduler->variable;
        out += indent + "# The original steps " + m.scheduler->variable + " with `" + m.metric +
               "` after each epoch\n" + indent + "# (" + where +
               "): the trial does so when a new epoch starts, before its first\n" + indent +
               "# step, and starts the sums anew.\n";
        if (!globals.empty())
            out += indent + "global " + globals + "\n";
        out += indent + "if epoch_idx != getattr(self, \"metric_epoch\", epoch_idx):\n" +
               renderLocal(slicer, m.aggregate, body, inner) + inner + scheduler + ".step(" +
               render(slicer.source(),
                      ts_node_named_child(ts_node_child_by_field_name(
                                              ts_node_named_child(m.step->node, 0), "arguments", 9),
                                          0),
                      body) +
               ")\n" + renderLocal(slicer, m.starts, body, inner) + indent +
               "self.metric_epoch = epoch_idx\n";
    }
    return out;
}

} // namespace portolan::port::detail

namespace portolan::port::detail {

std::vector<const Stmt*> withoutSums(const std::vector<MetricStep>& steps,
                                     const std::vector<const Stmt*>& stmts)
{
    std::vector<const Stmt*> out;
    std::copy_if(stmts.begin(), stmts.end(), std::back_inserter(out),
                 [&](const Stmt* s) { return !addsToSums(steps, *s); });
    return out;
}

std::string determinedUnstepped(const PortPlan& plan, const std::vector<MetricStep>& steps,
                                const std::set<std::string>& validated,
                                std::vector<guides::Finding>& manual)
{
    std::string out;
    for (const auto& m : steps) {
        if (m.from == MetricStep::From::EpochLosses || validated.count(m.scheduler->variable))
            continue;
        out +=
            todo("        ", "step self." + m.scheduler->variable + " with the original's metric" +
                                 (m.metric.empty() ? std::string() : " (`" + m.metric + "`)") +
                                 ": it is wrapped with MANUAL_STEP");
        manual.push_back(metricStepItem(plan, m,
                                        "the trial wraps it with step_mode=MANUAL_STEP (Determined "
                                        "steps a ReduceLROnPlateau in no other mode) and must call "
                                        "its step(metric) where it computes the metric"));
    }
    return out;
}

} // namespace portolan::port::detail

namespace portolan::port::detail {

PopTorchMetricSteps poptorchMetricSteps(const PortPlan& plan, const Slicer& slicer,
                                        const std::vector<MetricStep>& steps,
                                        const std::vector<const Stmt*>& adds,
                                        const RenderRules& rules, const std::string& loss,
                                        const std::set<std::string>& validation,
                                        const std::string& optimizer, const std::string& loopIndent)
{
    PopTorchMetricSteps out;
    const std::string inner = loopIndent + "    ";
    RenderRules host = rules;
    if (!plan.loop->lossName.empty() && plan.loop->lossName != loss)
        host.rename[plan.loop->lossName] = loss;
    out.afterCall = renderLocal(slicer, adds, host, inner);
    for (const auto& m : steps) {
        const std::string stepped = m.scheduler->variable + ".step(" + m.metric + ")\n" +
                                    loopIndent + "training_model.setOptimizer(" + optimizer + ")\n";
        const std::string where = plan.entry + ":" + std::to_string(m.step ? m.step->line : 0);
        if (m.from == MetricStep::From::EpochLosses) {
            out.epochStart += renderLocal(slicer, m.starts, rules, loopIndent);
            out.epochEnd += loopIndent + "# The original steps " + m.scheduler->variable +
                            " with the epoch's `" + m.metric + "` (" + where + ").\n" +
                            renderLocal(slicer, m.aggregate, rules, loopIndent) + loopIndent +
                            stepped;
        } else if (m.from == MetricStep::From::Validation && validation.count(m.metric)) {
            out.validated += loopIndent + "# The original steps " + m.scheduler->variable +
                             " with `" + m.metric + "` after its validation (" + where + ").\n" +
                             loopIndent + stepped;
        } else {
            out.epochEnd +=
                todo(loopIndent, "step " + m.scheduler->variable + " with the original's metric" +
                                     (m.metric.empty() ? std::string() : " (`" + m.metric + "`)") +
                                     ", then training_model.setOptimizer(" + optimizer + ")");
            out.manual.push_back(
                metricStepItem(plan, m,
                               "the port's loop must compute it and call step(metric), then "
                               "training_model.setOptimizer(" +
                                   optimizer + ")"));
        }
    }
    return out;
}

} // namespace portolan::port::detail
