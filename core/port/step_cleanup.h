#pragma once

// The generated step read as a porting engineer would leave it (probe D8): the unpacking aliases
// the generator writes at the top of a step method (`i = batch_idx`, `batch = batch`) only when
// the step reads them; the training loop's comments about backward and the optimizer left out
// of the evaluation copy of the step; and every checkpoint save of the original accounted for in
// a note that says what the target does instead.

#include <string>

namespace portolan::port {

struct PortPlan;
struct PortResult;

// `method` is one rendered method (its `def` line first). An alias line `name = source` of the
// method's opening lines, with `source` one of the method's batch parameters, is dropped when
// it binds the name to itself or when nothing after it reads the name.
std::string dropDeadAliases(const std::string& method);

// The evaluation copy of the step: whole-line comments about the training's own work (backward,
// gradients, the optimizer, zeroing) describe code that is not there.
std::string dropTrainingComments(const std::string& method);

// A note for each checkpoint save of the original (`torch.save(model.state_dict(), path)`),
// saying what became of it on the target (`guide`, and `api` for Cerebras).
void noteCheckpointSaves(const PortPlan& plan, const std::string& guide, const std::string& api,
                         PortResult& out);

} // namespace portolan::port
