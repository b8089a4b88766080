#pragma once
// A scheduler the original steps with a metric once per epoch (ReduceLROnPlateau's
// `scheduler.step(metric)`, issue 24), and where that metric comes from: each target steps it
// where the metric is known, or says at the spot that it cannot. Not a public header.

#include "core/guides/finding.h"
#include "core/port/generate_internal.h"

#include <set>
#include <string>
#include <vector>

namespace portolan::port::detail {

struct MetricStep
{
    enum class From
    {
        EpochLosses, // an aggregate of the losses the epoch's batches add up (`mean(losses)`)
        Validation,  // a name the original's validation binds (validation_pass.h)
        Untraced,    // anything else: the target cannot compute it
    };
    const SchedulerPlan* scheduler = nullptr;
    const Stmt* step = nullptr; // `scheduler.step(metric)`, in the epoch loop after the batch loop
    std::string metric;         // the argument as written
    From from = From::Untraced;
    // EpochLosses: the epoch loop's statements after the batch loop that compute the metric, in
    // order; those before it that start the sums each epoch (`losses = []`); the sums' names.
    std::vector<const Stmt*> aggregate;
    std::vector<const Stmt*> starts;
    std::set<std::string> sums;
};

// The plan's ReduceLROnPlateau schedulers (the ones stepped with a metric), each with where its
// metric comes from (Untraced, too, when this does not find its step).
std::vector<MetricStep> metricSteps(const PortPlan& plan, const Slicer& slicer);

// Whether `s` is a statement of the training step that only adds to an epoch's sums
// (`losses.append(loss.item())`): no target runs it as part of the step's forward.
bool addsToSums(const std::vector<MetricStep>& steps, const Stmt& s);

// The item of a metric step a target does not compute: what the original steps with, where,
// and the target's form (`form`).
guides::Finding metricStepItem(const PortPlan& plan, const MetricStep& m, const std::string& form);

} // namespace portolan::port::detail

namespace portolan::port::detail {

// Determined: the wrap_lr_scheduler of each scheduler `s` (a statement of __init__) builds, in
// the mode the harness steps it: every batch or epoch as the original, or MANUAL_STEP for one
// stepped with a metric (the harness refuses a ReduceLROnPlateau in any other mode).
std::string determinedWraps(const PortPlan& plan, const std::vector<MetricStep>& steps,
                            const Stmt& s, const std::string& ind);

// Determined: train_batch's first lines for the metric steps of the epoch's losses (the trial
// keeps the sums across train_batch calls and steps the scheduler with the original's aggregate
// when a new epoch starts, before its first optimizer step: where the original's step takes
// effect). `body`: how train_batch reads __init__'s names.
std::string determinedEpochMetricSteps(const Slicer& slicer, const std::vector<MetricStep>& steps,
                                       const RenderRules& body, const std::string& indent);

} // namespace portolan::port::detail

namespace portolan::port::detail {

// `stmts` without those that only add to an epoch's sums (addsToSums): a validation's forward
// does not add to the training's.
std::vector<const Stmt*> withoutSums(const std::vector<MetricStep>& steps,
                                     const std::vector<const Stmt*>& stmts);

// Determined: a TODO for __init__ and an item for each metric step the trial does not make
// (neither the epoch's losses nor a validation that steps it: `validated`, the schedulers
// evaluate_full_dataset steps).
std::string determinedUnstepped(const PortPlan& plan, const std::vector<MetricStep>& steps,
                                const std::set<std::string>& validated,
                                std::vector<guides::Finding>& manual);

} // namespace portolan::port::detail

namespace portolan::port::detail {

// PopTorch: the metric steps in the port's epoch loop (`rules`: how main() reads names), each
// followed by training_model.setOptimizer(optimizer) (the device takes the new rate from it).
struct PopTorchMetricSteps
{
    std::string epochStart; // the sums started anew, at the top of the epoch loop
    std::string afterCall;  // in the batch loop, after the program: what adds to the sums
    std::string epochEnd;   // after the batch loop: the aggregate and the step
    std::string validated;  // after the validation: the step with its metric
    std::vector<guides::Finding> manual;
};
// `adds`: the training step's statements that add to the sums (addsToSums), which the host runs
// after the program, on the loss it returns (named `loss` in main()). `validation`: the names
// the port's validation binds, empty when it runs none.
PopTorchMetricSteps poptorchMetricSteps(const PortPlan& plan, const Slicer& slicer,
                                        const std::vector<MetricStep>& steps,
                                        const std::vector<const Stmt*>& adds,
                                        const RenderRules& rules, const std::string& loss,
                                        const std::set<std::string>& validation,
                                        const std::string& optimizer,
                                        const std::string& loopIndent);

} // namespace portolan::port::detail
