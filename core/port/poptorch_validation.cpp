// PopTorch's validation pass (issue 24, D6). PopTorch documents one torch model shared by a
// trainingModel and an inferenceModel: calling the inference model copies the weights the
// training model left on the device to the host and then to its own program
// (PoplarExecutor.__call__, copyWeightsToHostIfNeeded), and a model detached from the device
// attaches again when it is called. So the port builds the inference model once, beside the
// training model, and runs the original's own validation statements with it after each training
// pass; each model leaves the device to the other (detachFromDevice), as one IPU serves both.
#include "core/port/poptorch_validation.h"

#include "core/port/epoch_loop.h"
#include "core/port/validation_pass.h"

#include <algorithm>
#include <map>
#include <optional>
#include <regex>

namespace portolan::port::detail {

namespace {

// The phases of poptorchValidation after the shared finder's; the state they share is the
// struct's.
struct Finder : ValidationPass
{
    const PortPlan& plan;
    const Slicer& slicer;
    const SourceFile& src;
    const RenderRules& rules;
    const std::vector<const Stmt*>& already;
    const std::string& indent;
    const std::string& loopIndent;
    const LoopPlan& lp;
    PopTorchValidation& v;
    std::string dropped; // comments for the prints the port does not run

    RenderRules switches; // for the mode switches: the rules, the parameters read as arguments

    // Each print the port does not run, named in a comment where it was.
    void dropPrints()
    {
        for (const auto& [s, names] : unrun) {
            std::string line = src.text(s->start, s->end);
            line = line.substr(0, line.find('\n'));
            dropped += loopIndent + "# " + plan.entry + ":" + std::to_string(s->line) +
                       " also prints here what the port's training pass does not compute (" +
                       names + "):\n" + loopIndent + "# " + line + "\n";
        }
    }

    // What the validation reads that main() does not build yet (the validation loader): in
    // main() before the loop; the module code it calls stays module code, but an evaluation
    // function that reads the model as a global is defined in main(), where the model is.
    void setupCode(const RenderRules& run)
    {
        std::set<std::string> names, bound;
        for (const Stmt* s : chosen) {
            names.insert(s->uses.begin(), s->uses.end());
            bound.insert(s->defines.begin(), s->defines.end());
            boundIn(s->body, bound);
            boundIn(s->other, bound);
        }
        for (const auto& b : bound)
            names.erase(b);
        std::set<std::string> exclude{plan.modelVariable, plan.modelBinding,
                                      src.text(epoch->forTarget)};
        if (!plan.argsName.empty())
            exclude.insert(plan.argsName);
        exclude.insert(plan.deviceNames.begin(), plan.deviceNames.end());
        for (const Stmt* s : already)
            exclude.insert(s->defines.begin(), s->defines.end());
        for (const Stmt* s : early)
            exclude.insert(s->defines.begin(), s->defines.end());
        if (call) {
            // The training function's parameters: what the call gives them, read in the caller.
            std::set<std::string> read;
            for (const auto& n : names) {
                const auto it = arguments.find(n);
                const auto ids =
                    it == arguments.end() ? std::set<std::string>{n} : identifiersOf(it->second);
                read.insert(ids.begin(), ids.end());
            }
            names = read;
        }
        for (const auto& e : exclude)
            names.erase(e);
        const Slice sl =
            slicer.slice(names, exclude, {}, call ? call->start : body()[anchor].start);
        std::vector<const Stmt*> local;
        for (const Stmt* s : sl.local)
            if (std::find(already.begin(), already.end(), s) == already.end() &&
                !(epoch->start <= s->start && s->end <= epoch->end))
                local.push_back(s);
        for (const Stmt* s : sl.module)
            if (!(nested && s == evalDef))
                v.module.push_back(s);
        derivedFlags(local);
        const std::string where = plan.entry + ":" + std::to_string(body()[anchor].line);
        v.setup = renderLocal(slicer, local, rules, indent);
        v.setup += indent + "# The validation (" + where + ") runs the same model compiled for\n" +
                   indent + "# inference: PopTorch copies the weights the training model leaves " +
                   "on the device\n" + indent + "# to it when it is called.\n";
        v.setup += indent + "inference_model = poptorch.inferenceModel(" + plan.modelBinding +
                   ", options=poptorch.Options())\n";
        if (nested)
            v.setup +=
                indent + "# " + function + "() reads " +
                (modelGlobal ? "the model" : "the device") +
                " as the original's module global: it is defined here, where\n" + indent +
                "# the " +
                (modelGlobal ? "model is, and runs the inference model" : "port's device is") +
                ".\n" + renderLocal(slicer, {evalDef}, modelGlobal ? run : rules, indent);
    }

    // A value the original derives into the flags namespace (`args.cuda = not args.no_cuda
    // and ...`, not a flag of its parser) that the validation's code reads: its assignment comes
    // with it, at module level or in main(), where the original makes it.
    void derivedFlags(std::vector<const Stmt*>& local)
    {
        if (plan.argsName.empty())
            return;
        std::string text;
        for (const auto* list : {&v.module, &local, &chosen})
            for (const Stmt* s : *list)
                text += src.text(s->start, s->end) + "\n";
        if (evalDef)
            text += src.text(evalDef->start, evalDef->end);
        std::set<std::string> derived;
        const std::regex read("\\b" + plan.argsName + "\\.([A-Za-z_][A-Za-z_0-9]*)");
        for (auto it = std::sregex_iterator(text.begin(), text.end(), read);
             it != std::sregex_iterator(); ++it)
            if (!plan.flag((*it)[1].str()))
                derived.insert((*it)[1].str());
        const auto sets = [&](const Stmt& s) {
            const std::string t = src.text(s.start, s.end);
            for (const auto& d : derived) {
                const std::string left = plan.argsName + "." + d;
                const auto after = t.find_first_not_of(' ', left.size());
                if (s.type == "expression_statement" && t.starts_with(left) &&
                    after != std::string::npos && t[after] == '=' && t.compare(after, 2, "==") != 0)
                    return true;
            }
            return false;
        };
        for (const auto& s : src.statements())
            if (sets(s) && std::find(v.module.begin(), v.module.end(), &s) == v.module.end())
                v.module.push_back(&s);
        for (const Stmt* f : src.chainAt(epoch->start, epoch->end))
            if (f->type == "function_definition")
                for (const auto& s : f->body)
                    if (sets(s) && std::find(already.begin(), already.end(), &s) == already.end() &&
                        std::find(local.begin(), local.end(), &s) == local.end())
                        local.insert(local.begin(), &s);
        std::sort(local.begin(), local.end(),
                  [](const Stmt* a, const Stmt* b) { return a->start < b->start; });
    }

    // The epoch loop's lines: the values the validation reads from before the training pass,
    // train mode again when the validation leaves eval mode (the original's training pass sets
    // it, in the epoch loop or its training function), and the validation after the training.
    void loopCode(const RenderRules& run)
    {
        std::string evalText, trainText;
        for (const Stmt* s : chosen)
            evalText += src.text(s->start, s->end);
        if (evalDef)
            evalText += src.text(evalDef->start, evalDef->end);
        for (std::size_t i = 0; i <= train; ++i)
            trainText += src.text(body()[i].start, body()[i].end);
        if (const Stmt* f = lp.function.empty() ? nullptr : src.topDefinition(lp.function))
            trainText += src.text(f->start, f->end);
        v.epochStart = renderLocal(slicer, early, run, loopIndent);
        if (evalText.find(".eval()") != std::string::npos &&
            trainText.find(".train(") != std::string::npos)
            v.epochStart += loopIndent + "# Train mode, as the original's training pass sets " +
                            "it: the validation leaves eval mode.\n" + loopIndent +
                            plan.modelBinding + ".train()\n";
        v.pass = loopIndent + "# The original's validation (" + plan.entry + ":" +
                 std::to_string(body()[anchor].line) +
                 "); one IPU serves the two models in turn.\n";
        v.pass += loopIndent + "training_model.detachFromDevice()\n";
        // The mode switches stay the torch model's; the model called is the inference model.
        for (const Stmt* s : chosen)
            v.pass += renderLocal(slicer, {s}, isModeSwitch(src, *s) ? switches : run, loopIndent);
        v.pass += dropped;
    }
};

} // namespace

PopTorchValidation poptorchValidation(const PortPlan& plan, const Slicer& slicer,
                                      const RenderRules& rules,
                                      const std::vector<const Stmt*>& already,
                                      const std::string& indent, const std::string& loopIndent)
{
    PopTorchValidation v;
    auto found = findValidationPass(plan, slicer);
    if (!found)
        return v;
    Finder f{std::move(*found), plan,   slicer,     slicer.source(), rules,
             already,           indent, loopIndent, *plan.loop,      v};
    f.dropPrints();
    v.statements = f.chosen;
    v.defines = f.defines;
    // Inside the training function, its parameters are the call's arguments.
    f.switches = rules;
    for (const auto& [param, argument] : f.arguments)
        if (param != argument)
            f.switches.rename[param] = argument;
    // The model called is the inference model; the epoch number is the port's loop variable.
    RenderRules run = f.switches;
    const std::string epochName = f.src.text(f.epoch->forTarget);
    const bool renameEpoch =
        epochName != "epoch" && ts_node_type(f.epoch->forTarget) == std::string("identifier");
    for (auto& [name, to] : run.rename)
        if (to == plan.modelVariable || to == plan.modelBinding)
            to = "inference_model";
        else if (renameEpoch && to == epochName)
            to = "epoch";
    for (const auto& m : {plan.modelVariable, plan.modelBinding})
        if (!m.empty())
            run.rename[m] = "inference_model";
    if (renameEpoch)
        run.rename[epochName] = "epoch";
    f.setupCode(run);
    f.loopCode(run);
    v.after = f.after();
    v.loopEnd = f.loopEnd();
    v.ok = true;
    return v;
}

std::optional<PopTorchPlateau> poptorchPlateau(const PortPlan& plan, const SourceFile& src,
                                               const PopTorchValidation& v,
                                               const std::string& optimizer,
                                               const std::string& indent,
                                               const std::string& loopIndent)
{
    if (!v.ok || optimizer == "None")
        return std::nullopt;
    const auto proven = provenPlateaus(plan, src, v.defines, v.after, v.loopEnd);
    if (!proven)
        return std::nullopt;
    PopTorchPlateau out;
    std::string name = "plateau";
    for (const auto used = identifiersOf(src.text()); used.count(name);)
        name = "lr_" + name;
    for (const auto& p : *proven) {
        out.placed.insert(out.placed.end(), p.placed.begin(), p.placed.end());
        out.setup += plateauComment(p, indent) + indent + name + " = " +
                     plateauConstruction(p, optimizer, indent + "    ") + "\n";
        out.step += loopIndent + name + ".step(" + p.plateau->metric + ")\n" + loopIndent +
                    "training_model.setOptimizer(" + optimizer + ")\n";
    }
    return out;
}

std::string poptorchValidationEnd(const std::string& loopIndent)
{
    return loopIndent + "if inference_model.isAttachedToDevice():\n" + loopIndent +
           "    inference_model.detachFromDevice()\n";
}

} // namespace portolan::port::detail
