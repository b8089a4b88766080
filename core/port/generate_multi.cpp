// A step that trains several models in turn (plan.loop->sequence): Determined's PyTorchTrial
// runs it as the user wrote it (each model and optimizer wrapped, context.backward for each loss,
// context.step_optimizer for each optimizer, in order, in one train_batch); PopTorch and
// Cerebras compile one loss and one optimizer per step, so there the step is the user's.
#include "core/port/generate_internal.h"

#include <algorithm>

namespace portolan::port::detail {

namespace {

std::string modelsInTurn(const PortPlan& plan)
{
    std::string models;
    for (const auto& m : plan.models)
        models += (models.empty() ? "" : ", ") + m.variable + " by " + m.optimizer;
    int backward = 0;
    for (const auto& a : plan.loop->sequence)
        backward += a.kind == StepAction::Kind::Backward;
    return std::to_string(plan.models.size()) + " models trained in turn (" + models + "; " +
           std::to_string(backward) + " backward() calls per batch)";
}

const StepAction* firstOf(const PortPlan& plan, StepAction::Kind kind)
{
    for (const auto& a : plan.loop->sequence)
        if (a.kind == kind)
            return &a;
    return nullptr;
}

} // namespace

PortPlan severalModelsLeft(const PortPlan& plan, const std::string& guide)
{
    PortPlan p = plan;
    p.stepNotPlaced = "several models trained in turn";
    // The port carries the first model's first loss, as a one-loss step would; the rest of the
    // step (the other losses, backward calls and models) is the item's, not a cascade of names
    // that the port then reads without defining.
    auto& lp = *p.loop;
    lp.forward.clear();
    lp.betweenBackwardAndStep.clear();
    std::set<std::string> read;
    for (const auto& a : lp.sequence) {
        if (a.kind == StepAction::Kind::Backward) {
            lp.lossName = a.target;
            break;
        }
        if (a.kind == StepAction::Kind::Statement) {
            lp.forward.push_back(a.at);
            for (const auto& n : identifiersOf(a.at.text))
                read.insert(n);
        }
    }
    // The models that loss reads (the discriminator the generator's loss goes through) are
    // built with the model, as the target builds it, not left at module level where they would
    // be built before the values their classes read are set.
    std::erase_if(p.models, [&](const ModelPlan& m) { return !read.count(m.variable); });
    const StepAction* backward = firstOf(plan, StepAction::Kind::Backward);
    std::string message, hint;
    if (guide == "graphcore-poptorch") {
        // What PopTorch documents (docs/user_guide/overview.rst, PoplarExecutor): the weights
        // of one source model are kept in sync with its PopTorch models (a trainingModel and an
        // inferenceModel). No documented form runs two trainingModels over a shared model (the
        // critic inside the other model's loss), each stepping its own optimizer.
        message = "the step has " + modelsInTurn(plan) +
                  ": a poptorch.trainingModel compiles one loss and steps one optimizer per "
                  "call, and PopTorch documents no form for two trainingModels that share a "
                  "model, each with its own optimizer";
        hint = "write one trainingModel per optimizer, each wrapping its model with its loss "
               "computed in forward, call them in the original's order, and check on an IPU that "
               "the shared model's weights move between them";
    } else {
        message = "the step has " + modelsInTurn(plan) +
                  ": a Cerebras training step compiles one model with one loss and one optimizer";
        hint = "train the models as separate compiled steps, or port to Determined, whose "
               "PyTorchTrial runs this step as written";
    }
    p.manual.insert(p.manual.begin(),
                    manualFinding(message, backward ? backward->at : plan.loop->loop, hint));
    return p;
}

PortPlan sequenceAsForward(const PortPlan& plan)
{
    PortPlan p = plan;
    auto& lp = *p.loop;
    lp.forward.clear();
    lp.betweenBackwardAndStep.clear();
    for (const auto& a : lp.sequence) {
        if (a.kind == StepAction::Kind::Statement)
            lp.forward.push_back(a.at);
        if (a.kind == StepAction::Kind::Backward)
            lp.lossName = a.target;
    }
    return p;
}

std::string sequenceStep(const PortPlan& plan, const Slicer& slicer, const StepCode& sc,
                         const RenderRules& body, const std::string& ind)
{
    std::string out;
    std::vector<std::string> losses;
    const auto renamed = [&](const std::string& name) {
        const auto it = body.rename.find(name);
        return it == body.rename.end() ? name : it->second;
    };
    for (const auto& a : plan.loop->sequence) {
        const Stmt* s = slicer.statementAt(a.at);
        switch (a.kind) {
        case StepAction::Kind::Statement:
            // stepCode leaves out running totals kept for the log.
            if (s && std::find(sc.forward.begin(), sc.forward.end(), s) != sc.forward.end())
                out += renderLocal(slicer, {s}, body, ind);
            break;
        case StepAction::Kind::ZeroGrad:
            if (s && a.keep)
                out += renderLocal(slicer, {s}, body, ind);
            break;
        case StepAction::Kind::Backward:
            out += ind + "self.context.backward(" + renamed(a.target) +
                   (a.arguments.empty() ? "" : ", " + a.arguments) + ")\n";
            if (std::find(losses.begin(), losses.end(), a.target) == losses.end())
                losses.push_back(a.target);
            break;
        case StepAction::Kind::Step:
            out += ind + "self.context.step_optimizer(" + renamed(a.target) + ")\n";
            break;
        }
    }
    // Every loss as a metric; "loss" is the last backward's, the one the original's dry run
    // reports for the step.
    out += ind + "return {\"loss\": " + renamed(losses.empty() ? "None" : losses.back());
    for (const auto& l : losses)
        out += ", \"" + l + "\": " + renamed(l);
    out += "}\n";
    return out;
}

} // namespace portolan::port::detail
