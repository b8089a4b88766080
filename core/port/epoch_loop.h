#pragma once
// The original's epoch loop as a target that writes its own loop over epochs reads it (issue 24).

#include "core/port/plan.h"
#include "core/port/source.h"

#include <optional>
#include <string>

namespace portolan::port::detail {

// The statement of the plan's epoch loop (LoopPlan::epochLoop: the `for` or `while` around the
// batch loop, or around the call of the function that holds it) when it is in `src`; null
// otherwise.
const Stmt* epochLoopStatement(const PortPlan& plan, const SourceFile& src);

// `range(...)` of the epoch loop around the batch loop, as written, when it reads nothing but
// literals and the flags namespace (`range(1, args.n_epochs + 1)`): a port whose loop reads the
// same flags runs as many epochs as the original, whatever the flag's name. nullopt otherwise.
std::optional<std::string> epochRange(const PortPlan& plan, const SourceFile& src);

} // namespace portolan::port::detail
