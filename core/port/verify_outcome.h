#pragma once

// What a verification proved, said plainly. `status` (full/partial) is the port's completeness:
// whether the plan placed everything and the target's guide found no error. Whether the port was
// shown to train like the original is a separate answer: a full port whose original did not run
// is still complete, but nothing about its training is proven, and a reader of the status alone
// must not take it as proven. One rule for the CLI's text and JSON (and the GUI).

#include "core/port/generate.h"

#include <string>

namespace portolan::port {

// The largest difference of one weight after the compared steps under which the port's weights
// agree with the original's.
inline constexpr double WeightTolerance = 1e-5;

// Why agreeing would prove nothing, "" when it can: the original's recorded steps moved none of
// its trained weights beyond the tolerance (a loss with no gradient, a rate of 0), so a port that
// does not train at all would agree as well. Such a verification has no power: it is not the
// proof (notProvenBecause says so).
std::string verificationPowerless(const VerifyResult& v);

// "" when the verification is the proof (every asked step compared, losses and weights agree,
// no check error, and the original's training moved its weights); otherwise why not, first the
// cause that leaves nothing compared. With `namingErrors` false the dry runs' error messages are
// left out (a view that shows them on lines of their own).
std::string notProvenBecause(const VerifyResult& v, bool namingErrors = true);

} // namespace portolan::port
