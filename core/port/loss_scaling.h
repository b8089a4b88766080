#pragma once
// Mixed precision with torch's GradScaler (issue 24): the plan hands each target the unscaled
// loss and keeps the scaler (PortPlan::lossScaling); each target writes the scaling in its own
// form, a fact of its contract (resources/contracts/*.yaml, `port: mixed-precision:`), read here.

#include "core/port/generate.h"
#include "core/port/generate_internal.h"

#include <string>
#include <utility>
#include <vector>

namespace portolan::port::detail {

// What a contract says of a target's mixed precision: flat values (`wrap`, `step-keyword`,
// `enabled`, `scaling`, `float16`, `source`), and for a params file the GradScaler keywords it
// takes (keyword -> key), torch's defaults written when the original leaves a keyword out, and
// the keywords the target fixes (keyword -> its value: another value is an item).
struct ScalingForm
{
    std::map<std::string, std::string> values;
    std::map<std::string, std::string> keywords, defaults, fixed;
    std::string value(const std::string& key) const;
};
std::optional<ScalingForm> scalingForm(const std::string& contract);

// Determined: the trial's attribute holding the scaler ("self.scaler").
std::string scalerAttribute(const PortPlan& plan);
// `self.scaler = self.context.wrap_scaler(<the original's construction>)`, written before the
// first wrap_model (Determined requires it); "" without a scaler.
std::string determinedScalerWrap(const PortPlan& plan, const SourceFile& src,
                                 const RenderRules& rules, const std::string& indent);
// What context.backward gets: the loss scaled by the wrapped scaler, or the loss.
std::string determinedBackwardValue(const PortPlan& plan, const std::string& loss);
// `scaler.unscale_(opt)` before the clip, as the original; step_optimizer's `scaler=` argument;
// `scaler.update()` after every optimizer is stepped.
std::string determinedUnscales(const PortPlan& plan, const std::string& indent);
std::string determinedStepScaler(const PortPlan& plan);
std::string determinedUpdates(const PortPlan& plan, const std::string& indent);

// The Model Zoo runner's params keys for the scaler ({"model.mixed_precision", "true"}, ...),
// empty without a scaler or when the runner has no form for it (then `out` gets the item).
std::vector<std::pair<std::string, std::string>> runnerScalingKeys(const PortPlan& plan,
                                                                   PortResult& out);
// The notes (and items) a target without the runner's or Determined's form gets: PopTorch
// trains in float32, its float16 form named; another Cerebras generation gets an item.
void noteScalingDropped(const PortPlan& plan, const std::string& contract, PortResult& out);

} // namespace portolan::port::detail
