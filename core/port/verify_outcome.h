#pragma once

// What a verification proved, said plainly. `status` (full/partial) is the port's completeness:
// whether the plan placed everything and the target's guide found no error. Whether the port was
// shown to train like the original is a separate answer: a full port whose original did not run
// is still complete, but nothing about its training is proven, and a reader of the status alone
// must not take it as proven. One rule for the CLI's text and JSON (and the GUI).

#include "core/port/generate.h"

#include <string>

namespace portolan::port {

// "" when the verification is the proof (every asked step compared, losses and weights agree,
// no check error); otherwise why not, first the cause that leaves nothing compared. With
// `namingErrors` false the dry runs' error messages are left out (a view that shows them on lines
// of their own).
std::string notProvenBecause(const VerifyResult& v, bool namingErrors = true);

} // namespace portolan::port
