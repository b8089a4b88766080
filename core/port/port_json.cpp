#include "core/guides/findings_report.h"
#include "core/port/generate.h"
#include "core/port/verify_outcome.h"

#include <algorithm>
#include <cctype>

namespace portolan::port {

nlohmann::json findingJson(const guides::Finding& f)
{
    return guides::toJson(f);
}

namespace {

nlohmann::json refJson(const CodeRef& r)
{
    if (!r.valid())
        return nullptr;
    return {{"file", r.file}, {"line", r.line}, {"column", r.column + 1}, {"text", r.text}};
}

nlohmann::json numbers(const std::vector<double>& v)
{
    nlohmann::json a = nlohmann::json::array();
    for (double x : v)
        a.push_back(x);
    return a;
}

} // namespace

namespace {

// The port's dry run, once verification ran, did not reach a step or stopped on an error: the
// port is not shown to run, so it cannot be full, whatever the plan and the check say.
bool dryRunFailed(const VerifyResult& v)
{
    return v.checkErrors >= 0 && (v.dryRunSteps <= 0 || !v.dryRunError.empty());
}

// "model_def.py:118:25: error: ..." -> the file and line the dry run names, when it does.
SourceLocation errorLocation(const std::string& error)
{
    SourceLocation at;
    const auto colon = error.find(':');
    if (colon == std::string::npos || colon == 0 || error.find(' ') < colon)
        return at;
    std::size_t end = colon + 1;
    while (end < error.size() && std::isdigit(static_cast<unsigned char>(error[end])))
        ++end;
    if (end == colon + 1)
        return at;
    at.file = error.substr(0, colon);
    at.line = std::stoi(error.substr(colon + 1, end - colon - 1));
    return at;
}

} // namespace

bool PortResult::full(const VerifyResult* checked) const
{
    return manual.empty() && (!checked || (checked->checkErrors == 0 && !dryRunFailed(*checked)));
}

std::string PortResult::status(const VerifyResult* checked) const
{
    return full(checked) ? "full" : "partial";
}

std::vector<guides::Finding> PortResult::leftFor(const VerifyResult* checked) const
{
    std::vector<guides::Finding> left = manual;
    if (!checked)
        return left;
    // A check finding at a spot of the port that a manual item already names (its related
    // places) is that item's consequence: one thing left, listed once.
    for (const auto& f : checked->checkFindings) {
        const bool named = std::any_of(manual.begin(), manual.end(), [&](const auto& m) {
            return std::any_of(m.related.begin(), m.related.end(), [&](const auto& r) {
                return r.file == f.location.file && r.line == f.location.line;
            });
        });
        if (!named)
            left.push_back(f);
    }
    if (checked->checkErrors < 0) {
        guides::Finding f;
        f.checkId = "port.manual";
        f.stepId = "port";
        f.severity = Severity::Warning;
        f.message = "the port could not be checked with its guide: " + checked->dryRunError;
        left.push_back(f);
    } else if (dryRunFailed(*checked) && left.empty()) {
        // Only when nothing else is left: a port with items left fails its dry run because of
        // them (the step the user writes), and naming that failure again is not another item.
        guides::Finding f;
        f.checkId = "port.manual";
        f.stepId = "port";
        f.severity = Severity::Warning;
        f.location = errorLocation(checked->dryRunError);
        f.message = "the port's dry run " +
                    (checked->dryRunSteps > 0
                         ? "stopped after " + std::to_string(checked->dryRunSteps) + " steps"
                         : std::string("reached no training step")) +
                    (checked->dryRunError.empty() ? std::string() : ": " + checked->dryRunError);
        left.push_back(f);
    }
    return left;
}

nlohmann::json toJson(const PortResult& r, const std::string& output, const VerifyResult* verify)
{
    nlohmann::json j;
    j["target"] = r.target;
    j["api"] = r.api.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.api);
    j["output"] = output;
    j["status"] = r.status(verify);
    // `status` is the port's completeness; whether it was shown to train like the original is
    // `verified`, with the reason when not (verify_outcome.h).
    if (verify) {
        const std::string why = notProvenBecause(*verify);
        j["verified"] = why.empty();
        if (!why.empty())
            j["not_verified_because"] = why;
    }
    j["entry"] = r.entry;
    j["files"] = nlohmann::json::array();
    for (const auto& f : r.files)
        j["files"].push_back(
            {{"path", f.path},
             {"from", f.from.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.from)}});
    j["manual"] = nlohmann::json::array();
    // What is left: the plan's items and, once checked, the check's errors (the one rule of
    // PortResult::full), so that every partial port says what is left.
    for (const auto& m : r.leftFor(verify))
        j["manual"].push_back(findingJson(m));
    j["notes"] = r.notes;
    j["plan_ms"] = r.planMs;
    j["generate_ms"] = r.generateMs;
    if (verify) {
        const auto& v = *verify;
        nlohmann::json jv;
        jv["check_errors"] = v.checkErrors;
        jv["check_findings"] = nlohmann::json::array();
        for (const auto& f : v.checkFindings)
            jv["check_findings"].push_back(findingJson(f));
        if (!v.itemFindings.empty()) {
            jv["check_findings_of_items"] = nlohmann::json::array();
            for (const auto& f : v.itemFindings)
                jv["check_findings_of_items"].push_back(findingJson(f));
        }
        if (!v.inheritedFindings.empty()) {
            jv["check_findings_of_the_original"] = nlohmann::json::array();
            for (const auto& f : v.inheritedFindings)
                jv["check_findings_of_the_original"].push_back(findingJson(f));
        }
        jv["dry_run_steps"] = v.dryRunSteps;
        if (!v.dryRunError.empty())
            jv["dry_run_error"] = v.dryRunError;
        if (!v.originalError.empty())
            jv["original_error"] = v.originalError;
        jv["steps_asked"] = v.stepsAsked;
        jv["steps_compared"] = v.stepsCompared;
        jv["original_losses"] = numbers(v.originalLosses);
        jv["port_losses"] = numbers(v.portLosses);
        // What is compared: each step's loss (the last backward()'s), and when a step has
        // several backward() calls, each of their losses in order.
        if (!v.originalBackwardLosses.empty() || !v.portBackwardLosses.empty()) {
            jv["losses_compared"] = "each step's backward() losses, in order";
            auto lists = [&](const std::vector<std::vector<double>>& steps) {
                nlohmann::json a = nlohmann::json::array();
                for (const auto& s : steps)
                    a.push_back(numbers(s));
                return a;
            };
            jv["original_backward_losses"] = lists(v.originalBackwardLosses);
            jv["port_backward_losses"] = lists(v.portBackwardLosses);
        }
        jv["max_rel_loss_diff"] =
            v.maxRelLossDiff < 0 ? nlohmann::json(nullptr) : nlohmann::json(v.maxRelLossDiff);
        jv["max_abs_weight_diff"] =
            v.maxAbsWeightDiff < 0 ? nlohmann::json(nullptr) : nlohmann::json(v.maxAbsWeightDiff);
        jv["first_divergent_step"] =
            v.firstDivergence ? nlohmann::json(v.firstDivergence) : nlohmann::json(nullptr);
        jv["agrees"] = v.agrees;
        // Whether agreeing can show anything: "none" when the original's steps moved no weight
        // (a port that does not train would agree too; `verified` is then false), null when the
        // original's change was not recorded.
        jv["original_weight_change"] = v.originalWeightChange < 0
                                           ? nlohmann::json(nullptr)
                                           : nlohmann::json(v.originalWeightChange);
        const std::string powerless = verificationPowerless(v);
        jv["power"] = v.originalWeightChange < 0 ? nlohmann::json(nullptr)
                      : powerless.empty()        ? nlohmann::json("weights-changed")
                                                 : nlohmann::json("none");
        if (!powerless.empty())
            jv["no_power_because"] = powerless;
        jv["milliseconds"] = v.milliseconds;
        j["verify"] = jv;
    }
    return j;
}

nlohmann::json toJson(const PortPlan& p)
{
    nlohmann::json j;
    j["entry"] = p.entry;
    j["args"] = p.argsName;
    j["model"] = {{"variable", p.modelVariable},
                  {"class", p.modelClass},
                  {"class_file", p.modelClassFile},
                  {"factory", p.modelFromFactory},
                  {"construction", refJson(p.modelConstruction)},
                  {"flags", p.modelFlags}};
    j["loss"] = {{"criterion", p.criterionVariable},
                 {"criterion_construction", refJson(p.criterion)},
                 {"expression", refJson(p.lossExpression)},
                 {"helpers", p.lossHelpers}};
    j["optimizers"] = nlohmann::json::array();
    for (const auto& o : p.optimizers)
        j["optimizers"].push_back({{"variable", o.variable},
                                   {"class", o.qualified},
                                   {"construction", refJson(o.construction)},
                                   {"closure", o.closure},
                                   {"synthesized", o.synthesized}});
    j["schedulers"] = nlohmann::json::array();
    for (const auto& s : p.schedulers)
        j["schedulers"].push_back({{"variable", s.variable},
                                   {"class", s.qualified},
                                   {"construction", refJson(s.construction)},
                                   {"per_batch", s.perBatch}});
    auto data = [](const DataPlan& d) {
        return nlohmann::json{{"variable", d.variable},
                              {"dataloader", d.isDataLoader},
                              {"construction", refJson(d.construction)},
                              {"dataset", refJson(d.dataset)},
                              {"batch_size", d.batchSize}};
    };
    j["train_data"] = data(p.train);
    j["eval_data"] = data(p.eval);
    if (p.loop)
        j["loop"] = {{"loop", refJson(p.loop->loop)},          {"function", p.loop->function},
                     {"batch", p.loop->batchTarget},           {"index", p.loop->indexName},
                     {"iterable", p.loop->iterable},           {"loss", p.loop->lossName},
                     {"backward_calls", p.loop->backwardCount}};
    // What the loop's function's parameters read: the caller's names and the defaults.
    if (p.loop && !p.loop->callerArguments.empty())
        j["loop"]["caller_arguments"] = p.loop->callerArguments;
    // Several models trained in turn: each model with the optimizer that trains it, and the
    // step in the user's order (plan_multi.cpp).
    if (p.loop && !p.loop->sequence.empty()) {
        j["models"] = nlohmann::json::array();
        for (const auto& m : p.models)
            j["models"].push_back({{"variable", m.variable}, {"optimizer", m.optimizer}});
        nlohmann::json seq = nlohmann::json::array();
        for (const auto& a : p.loop->sequence) {
            static const char* const kinds[] = {"statement", "backward", "step", "zero_grad"};
            nlohmann::json x = {{"kind", kinds[static_cast<int>(a.kind)]}, {"at", refJson(a.at)}};
            if (!a.target.empty())
                x["target"] = a.target;
            if (!a.arguments.empty())
                x["arguments"] = a.arguments;
            if (a.kind == StepAction::Kind::ZeroGrad)
                x["kept"] = a.keep;
            seq.push_back(x);
        }
        j["loop"]["sequence"] = seq;
    }
    // Several trainings one after another: each, and the one ported (plan_trainings.cpp).
    if (!p.trainings.empty()) {
        j["trainings"] = nlohmann::json::array();
        for (const auto& t : p.trainings)
            j["trainings"].push_back({{"loop", refJson(t.loop)},
                                      {"model", t.model},
                                      {"superseded", t.superseded},
                                      {"chosen", t.chosen}});
        j["training_from"] = refJson(p.trainingFrom);
    }
    if (p.evaluation)
        j["evaluation"] = {{"loop", refJson(p.evaluation->loop)},
                           {"metrics", p.evaluation->metrics}};
    j["flags"] = nlohmann::json::array();
    for (const auto& f : p.flags)
        j["flags"].push_back({{"dest", f.dest}, {"default", f.defaultText}});
    auto items = [](const std::vector<PlanItem>& v) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& i : v)
            a.push_back(
                {{"kind", i.kind}, {"name", i.name}, {"at", refJson(i.at)}, {"note", i.note}});
        return a;
    };
    j["device_moves"] = items(p.deviceMoves);
    j["leftovers"] = items(p.leftovers);
    j["manual"] = nlohmann::json::array();
    for (const auto& m : p.manual)
        j["manual"].push_back(findingJson(m));
    j["notes"] = p.notes;
    return j;
}

} // namespace portolan::port
