#pragma once
// The original's validation pass, as every target that runs it finds it: the statements of the
// epoch loop that validate after the training pass (a call of the original's evaluation
// function, or the loop written inline), what they start from and what reads their results; and
// the plateau decays that follow the metric they compute. Each target renders them its way
// (poptorch_validation.cpp, determined_validation.cpp).

#include "core/port/generate_internal.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace portolan::port::detail {

struct ValidationPass
{
    const Stmt* epoch = nullptr;     // the epoch loop
    std::size_t train = 0;           // its statement that runs the training pass
    std::size_t anchor = 0;          // its statement that runs the validation
    std::string function;            // the evaluation function the epoch loop calls, if any
    const Stmt* evalDef = nullptr;   // its definition
    bool modelGlobal = false;        // it reads the model as a global
    bool deviceGlobal = false;       // it reads a device as a global
    bool nested = false;             // for either: a target defines it where the model is
    std::vector<const Stmt*> chosen; // the epoch loop's validation statements, in order
    std::vector<const Stmt*> early;  // statements before the training pass they read
    std::set<std::string> defines;   // the names the chosen statements bind (`val_loss`)
    // Prints after the validation that also read what the port's training pass does not
    // compute (the training function's returned loss): not run; the names they read.
    std::vector<std::pair<const Stmt*, std::string>> unrun;

    // The block holding the training pass and the validation: the epoch loop's body, or the
    // body of the training function it calls, when the validation follows the batch loop there
    // (`def train(...): for x, y in loader: ...; model.eval(); ...`). Then `call` is the epoch
    // loop's statement calling it, and `arguments` the call's value of each parameter.
    const std::vector<Stmt>* block = nullptr;
    std::uint32_t blockStart = 0;
    const Stmt* call = nullptr;
    std::map<std::string, std::string> arguments;

    const std::vector<Stmt>& body() const { return block ? *block : epoch->body; }
    // The end of the validation's call or loop (the training function's call when the
    // validation is inside it), and of the epoch loop.
    std::uint32_t after() const { return call ? call->end : body()[anchor].end; }
    std::uint32_t loopEnd() const { return epoch->end; }
};

// The validation the original runs in its epoch loop beside the training, nullopt when it runs
// none the finder knows (a call of its evaluation function, a function of the entry that calls
// the model and runs no backward, or the evaluation loop written inline).
std::optional<ValidationPass> findValidationPass(const PortPlan& plan, const Slicer& slicer);

bool isModeSwitch(const SourceFile& src, const Stmt& s);
bool isPrint(const SourceFile& src, const Stmt& s);
// Names bound anywhere in the statements, nested blocks included (`for i, (x, y) in ...`).
void boundIn(const std::vector<Stmt>& stmts, std::set<std::string>& out);

// A plateau decay of the plan that is ReduceLROnPlateau stepped with the validation's metric
// (plateau_plan.cpp proves the rule): it compares a name the validation binds, after the
// validation and in the epoch loop, and the rate it changes is the optimizer's.
struct ProvenPlateau
{
    const PlateauPlan* plateau = nullptr;
    std::vector<std::string> placed; // the plan items it generates ("main.py:241")
    bool exact = true; // `lr / k` and the scheduler's `lr * (1 / k)` are the same number
};
// nullopt when one of the plan's decays is not so (it stays the plan's item), or there is none.
// `defines`, `after`, `loopEnd`: the validation's (ValidationPass).
std::optional<std::vector<ProvenPlateau>>
provenPlateaus(const PortPlan& plan, const SourceFile& src, const std::set<std::string>& defines,
               std::uint32_t after, std::uint32_t loopEnd);
// The comment and the construction of one, for `optimizer` as the target names it, on a line of
// its own indented by `continuation`.
std::string plateauComment(const ProvenPlateau& p, const std::string& indent);
std::string plateauConstruction(const ProvenPlateau& p, const std::string& optimizer,
                                const std::string& continuation);

} // namespace portolan::port::detail
