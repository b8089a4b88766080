#pragma once
// The values a port's configuration must carry from the original's run (issue 24, D5): the
// training batch size, the number of epochs and, for Cerebras, the steps they make. One resolver
// for every target, so Determined's const.yaml, the Cerebras params and PopTorch's epoch loop say
// the same number and where it comes from: a flag's default, a literal in the call, a constant
// of the script, a parameter's default, or the original's dry run. A value the port has to make
// up is marked so, and the generators say it in a note. Not a public header.
#include "core/port/generate_internal.h"

#include <map>
#include <string>

namespace portolan::port::detail {

struct RunValue
{
    std::string value;   // the number as text, "" when not known
    std::string flag;    // the flag's dest when the value is a flag of the original's command line
    std::string from;    // where it comes from, for the config's comment
    bool madeUp = false; // the port's own default: nothing in the original says it
    bool byName = false; // the epochs read from a flag named for them, not from a loop's count
};

// The training loader's batch size. `fallback`: the value written when nothing says it.
RunValue trainBatchSize(const PortPlan& plan, const std::map<std::string, Hyper>& hp,
                        const std::string& fallback = "32");

// The values a loop that builds its own batches (no DataLoader) steps through in one pass, when
// the code writes them: `range(n)` with n resolved as above, a list or tuple written out (its
// elements); an empty value otherwise.
RunValue loopValueCount(const PortPlan& plan, const std::map<std::string, Hyper>& hp);

// The batch of such a loop, which the port's loader gives one value per step (LoopValues): one
// value when the step reads the loop's value (per instance), else the whole data every step, its
// rows when a tensor the body reads has its shape written in the code (`torch.randn(40, 3)`);
// made up (no value) when that is not known. An empty value for a loop over a DataLoader.
RunValue loopValuesBatch(const PortPlan& plan, const std::map<std::string, Hyper>& hp);

// The epochs the original trains: its epoch loop's count (`range(n)`, `range(1, n + 1)`), with n
// resolved as above; one pass when the batch loop has no epoch loop around it.
RunValue trainEpochs(const PortPlan& plan, const std::map<std::string, Hyper>& hp);

// The loop around the batch loop, or around the call of the function that holds it (once or
// twice removed): the epoch loop the plan shows; invalid when there is none.
CodeRef epochLoopOf(const PortPlan& plan);

// The steps of a loop that draws its batches with next() and stops at a count of steps
// (LoopPlan::stepBound), resolved as above (100, made up, when its value is not known); an
// empty value for any other loop.
RunValue boundSteps(const PortPlan& plan, const std::map<std::string, Hyper>& hp);

// The optimizer steps of the whole training: the bound above; else epochs x the loop's values
// (loopValueCount); else, when the code or the dry run says both, epochs x (samples of an epoch
// // batch size); else `fallback`, made up.
RunValue trainSteps(const PortPlan& plan, const std::map<std::string, Hyper>& hp,
                    const std::string& fallback = "100");

// `  # from` for a YAML line, `  # from (made up ...)` for a made-up one.
std::string runValueComment(const RunValue& v);

} // namespace portolan::port::detail
