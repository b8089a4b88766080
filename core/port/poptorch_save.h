#pragma once
// PopTorch: the original's save of the trained weights after its training
// (`torch.save(model.state_dict(), path)`), kept at the end of main() on the host model.

#include "core/port/generate_internal.h"

#include <string>
#include <vector>

namespace portolan::port::detail {

struct PopTorchSaves
{
    std::string code;                // main()'s last lines: the original's save statements
    std::vector<std::string> placed; // the saves carried over ("main.py:61"): no note for them
};

// Each save of the model's state_dict the original runs once its training is over (after the
// epoch loop, or after the call of the function holding it, in the scope that runs the
// training): rendered for main(), which has built everything in `already`. A save inside a loop,
// or one reading what main() does not build, stays the note it was.
PopTorchSaves poptorchSaves(const PortPlan& plan, const Slicer& slicer, const RenderRules& rules,
                            const std::vector<const Stmt*>& already, const std::string& indent);

} // namespace portolan::port::detail
