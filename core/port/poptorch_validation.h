#pragma once
// PopTorch: the original's validation pass, run each epoch after the training pass with the
// trained model compiled for inference (poptorch.inferenceModel over the same torch model).

#include "core/port/generate_internal.h"

#include <optional>
#include <string>
#include <vector>

namespace portolan::port::detail {

struct PopTorchValidation
{
    bool ok = false;
    std::string setup;      // main(), before the epoch loop: what it reads, and the inferenceModel
    std::string epochStart; // the epoch loop's first lines (train mode again, when it switches)
    std::string pass;       // the epoch loop's last lines: the original's validation statements
    std::vector<const Stmt*> module; // module-level code it needs (the evaluation function)
    // The original's statements the pass runs (a decay that compares their result follows).
    std::vector<const Stmt*> statements;
    std::set<std::string> defines; // names those statements bind (`val_loss`)
    std::uint32_t after = 0;       // the end of the validation's call or loop in the original
    std::uint32_t loopEnd = 0;     // the end of the epoch loop
};

// The validation the original runs in its epoch loop beside the training (a call of its
// evaluation function, `test(model, device, test_loader)`, or the loop written inline), as
// PopTorch runs it. `already`: statements main() runs before (not run twice); `model`: the torch
// model's name in main(); indents of main() and of the epoch loop's body.
PopTorchValidation poptorchValidation(const PortPlan& plan, const Slicer& slicer,
                                      const RenderRules& rules,
                                      const std::vector<const Stmt*>& already,
                                      const std::string& indent, const std::string& loopIndent);

// A plateau decay of the plan (`else: lr /= 4.0` after the validation), as PopTorch runs it:
// ReduceLROnPlateau built before the loop, stepped with the validation's metric, then handed to
// the device with training_model.setOptimizer. nullopt when the decay does not compare the
// pass's metric or does not change the optimizer's rate (it stays the plan's item).
struct PopTorchPlateau
{
    std::string setup, step;
    std::vector<std::string> placed; // the plan items it generates ("main.py:241")
};
std::optional<PopTorchPlateau> poptorchPlateau(const PortPlan& plan, const SourceFile& src,
                                               const PopTorchValidation& v,
                                               const std::string& optimizer,
                                               const std::string& indent,
                                               const std::string& loopIndent);

// The pass's last lines: the inference model leaves the device to the training model.
std::string poptorchValidationEnd(const std::string& loopIndent);

} // namespace portolan::port::detail
