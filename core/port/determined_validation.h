#pragma once
// Determined: the original's validation in the trial. evaluate_full_dataset runs the original's
// own statements over the whole validation data (its evaluation function's body, or the loop
// written inline in its epoch loop), so the metrics it reports are the original's sums and the
// ratios it computes from them after its loop (accuracy = correct / len(dataset)), not means of
// per-batch ratios; a plateau decay that follows its metric is ReduceLROnPlateau stepped there.

#include "core/port/generate_internal.h"
#include "core/port/metric_step.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace portolan::port::detail {

struct DeterminedValidation
{
    bool ok = false;
    std::string init;   // __init__'s last lines: what the validation reads, the scheduler
    std::string method; // evaluate_full_dataset
    std::vector<const Stmt*> module;
    std::vector<std::string> metrics; // the names it reports beside validation_loss
    std::vector<std::string> placed;  // the plan items it generates (plateau decays)
    std::string helper;               // module-level code the method needs (its reducer)
    std::set<std::string> stepped;    // the schedulers stepped with its metric (metric_step.h)
};

// The validation's statements as evaluate_full_dataset runs them, for the per-batch form.
struct ValidationStatements
{
    std::vector<const Stmt*> top;   // in order: an evaluation function's body written out
    const Stmt* returned = nullptr; // its final `return`, run as `target = <value>`
    std::string target;
    std::vector<std::string> metrics; // the names reported beside validation_loss
    std::string loss;                 // the one reported as validation_loss
    std::string where;                // "main.py:42"
};

// The per-batch form of a validation that is one loop over the loader Determined hands it
// (`data_loader` as `run` reads it) adding up sums: evaluate_batch runs the loop's body on one
// batch with the sums started at zero and hands them to a MetricReducer (wrap_reducer), which
// adds them over every batch of every slot and then runs the original's statements after its
// loop on the totals (`accuracy = correct / len(loader.dataset)`). nullopt for any other form.
struct BatchValidation
{
    std::string init;    // the reducer wrapped in __init__
    std::string methods; // evaluate_batch and the method the reducer ends with
    std::string helper;  // the MetricReducer class, module level
};
std::optional<BatchValidation> batchValidation(const Slicer& slicer, const RenderRules& run,
                                               const ValidationStatements& v);

// `body`: how the trial's methods read the names __init__ keeps (`model` -> `self.model`);
// `rules`: how __init__ reads names; `loaders`: the names of the original's validation loader
// that build_validation_data_loader builds (none when it builds another), which data_loader
// stands for; `metricSteps`: the schedulers the original steps with a metric, which it steps
// after the validation when the metric is the validation's.
DeterminedValidation determinedValidation(const PortPlan& plan, const Slicer& slicer,
                                          const StepCode& sc, const RenderRules& rules,
                                          const RenderRules& body,
                                          const std::set<std::string>& loaders,
                                          const std::vector<MetricStep>& metricSteps);

} // namespace portolan::port::detail
