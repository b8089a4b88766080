#pragma once
// State carried from batch to batch (a truncated-BPTT hidden state) that the original builds
// anew at the start of each epoch: each target resets it where it marks an epoch, or says at the
// spot that it has no such mark (issue 24). Not a public header.

#include "core/port/generate_internal.h"

namespace portolan::port::detail {

// The statements of the step's construction (`sc.init.local`) that bind its carried state and
// that the original runs inside its epoch loop, before the batch loop: each epoch starts the
// state anew there.
std::vector<const Stmt*> epochResets(const PortPlan& plan, const Slicer& slicer,
                                     const StepCode& sc);

// "`h` anew at the start of each epoch (main.py:12)" for a comment, over `resets`.
std::string resetWhat(const PortPlan& plan, const std::vector<const Stmt*>& resets);

// The reset statements rendered for a step that reads the construction's values through
// `body` (its locals as attributes): "" when one of them reads a local of the construction
// that the step does not keep, which the step could not run again.
std::string resetStatements(const Slicer& slicer, const StepCode& sc,
                            const std::vector<const Stmt*>& resets, const RenderRules& body,
                            const std::string& indent);

// Each target's reset, "" when the original builds no carried state per epoch:
// Determined: in train_batch, when epoch_idx changes (a TODO when the statements read locals
// of __init__ the trial does not keep); PopTorch: in the port's own epoch loop, from the second
// epoch; Cerebras (runner and Trainer): a comment at the step, which is called without epochs.
std::string determinedEpochReset(const PortPlan& plan, const Slicer& slicer, const StepCode& sc,
                                 const RenderRules& body, const std::string& indent);
std::string poptorchEpochReset(const PortPlan& plan, const Slicer& slicer, const StepCode& sc,
                               const RenderRules& rules, const std::string& indent);
std::string cerebrasEpochReset(const PortPlan& plan, const Slicer& slicer, const StepCode& sc,
                               bool runner, const std::string& indent);

} // namespace portolan::port::detail
