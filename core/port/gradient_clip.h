#pragma once
// Gradient clipping between backward() and the optimizer step (issue 24): which clip the step
// does, and how each target expresses it. The targets' forms are facts of their contracts
// (resources/contracts/*.yaml, `port: gradient-clipping:`), read here.

#include "core/port/generate_internal.h"

#include <optional>
#include <string>

namespace portolan::port::detail {

// `clip_grad_norm_(model.parameters(), 0.5)`: the whole code between backward() and the step
// is one clip of the trained model's gradients, by their global 2-norm or by value.
struct GradientClip
{
    std::string kind;   // "norm" (clip_grad_norm_) or "value" (clip_grad_value_)
    std::string limit;  // the limit as written ("0.5", "args.clip")
    TSNode limitNode{}; // its node, to render it as the target reads names
    const Stmt* at = nullptr;
};
std::optional<GradientClip> gradientClip(const PortPlan& plan, const Slicer& slicer,
                                         const StepCode& sc);

// A target's form of a clip, from `port: gradient-clipping: <kind>:` of a contract file
// (cerebras-modelzoo, cerebras-trainer, poptorch): `config` is the key of the params file that
// takes the limit ("optimizer.max_gradient_norm"); `argument` the optimizer argument that takes
// it, for the optimizers of `optimizers` (the original's class -> the target's).
struct ClipForm
{
    std::string config;
    std::string argument;
    std::map<std::string, std::string> optimizers;
    std::string source; // where the fact comes from, for the generated comment
};
std::optional<ClipForm> clipForm(const std::string& contract, const std::string& kind);

// The statements between backward() and the step that the original's run does not take (`if
// args.clip > 0:` with --clip's default -1, no else): left out of `between` for the targets that
// run backward and the step themselves; returns a note for each.
std::vector<std::string> dropUntakenBetween(const PortPlan& plan, const SourceFile& src,
                                            std::vector<const Stmt*>& between);

} // namespace portolan::port::detail
