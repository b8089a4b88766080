#include "core/port/verify_outcome.h"

#include <sstream>

namespace portolan::port {

namespace {

std::string withError(const std::string& what, const std::string& error, bool naming)
{
    return error.empty() || !naming ? what : what + " (" + error + ")";
}

std::string number(double x)
{
    std::ostringstream s;
    s.precision(3);
    s << x;
    return s.str();
}

} // namespace

std::string verificationPowerless(const VerifyResult& v)
{
    if (v.originalWeightChange < 0 || v.originalWeightChange > WeightTolerance)
        return {};
    return "the training did not change the weights: the comparison cannot show a difference";
}

std::string notProvenBecause(const VerifyResult& v, bool namingErrors)
{
    const int asked = v.stepsAsked;
    const std::string ofAsked = asked > 0 ? " of the " + std::to_string(asked) + " asked" : "";
    if (v.cancelled)
        return "the verification was cancelled: nothing was compared";
    if (v.checkErrors < 0)
        return withError("the port could not be checked with its guide", v.dryRunError,
                         namingErrors);
    // Nothing compared: the cause is the run that did not reach a step, the original's first
    // (without its record there is nothing to replay, whatever the port does).
    if (v.stepsCompared == 0) {
        if (!v.originalError.empty() || v.originalLosses.empty())
            return withError("the original's dry run did not reach a training step",
                             v.originalError, namingErrors) +
                   ": nothing was compared";
        if (v.dryRunSteps == 0)
            return withError("the port's dry run did not reach a training step", v.dryRunError,
                             namingErrors) +
                   ": nothing was compared";
        return withError("the original's steps were not replayed into the port", v.dryRunError,
                         namingErrors) +
               ": nothing was compared";
    }
    if (asked > 0 && v.dryRunSteps < asked)
        return withError("the port's dry run reached " + std::to_string(v.dryRunSteps) +
                             " step(s)" + ofAsked,
                         v.dryRunError, namingErrors) +
               ": only " + std::to_string(v.stepsCompared) + " compared";
    if (asked > 0 && int(v.originalLosses.size()) < asked)
        return withError("the original's dry run reached " +
                             std::to_string(v.originalLosses.size()) + " step(s)" + ofAsked,
                         v.originalError, namingErrors) +
               ": only " + std::to_string(v.stepsCompared) + " compared";
    if (v.firstDivergence > 0)
        return "the losses part at step " + std::to_string(v.firstDivergence) +
               " (relative difference " + number(v.maxRelLossDiff) + ")";
    if (v.maxAbsWeightDiff < 0)
        return withError("the port's weights were not compared", v.dryRunError, namingErrors);
    if (v.maxAbsWeightDiff > WeightTolerance)
        return "the weights differ by " + number(v.maxAbsWeightDiff) + " after " +
               std::to_string(v.stepsCompared) + " steps";
    if (v.checkErrors > 0)
        return "the losses agree, but the target's guide reports " + std::to_string(v.checkErrors) +
               " error(s) in the port";
    if (!v.agrees)
        return withError("the port was not shown to train like the original", v.dryRunError,
                         namingErrors);
    return verificationPowerless(v);
}

} // namespace portolan::port
