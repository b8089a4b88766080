// PopTorch's validation pass (issue 24, D6). PopTorch documents one torch model shared by a
// trainingModel and an inferenceModel: calling the inference model copies the weights the
// training model left on the device to the host and then to its own program
// (PoplarExecutor.__call__, copyWeightsToHostIfNeeded), and a model detached from the device
// attaches again when it is called. So the port builds the inference model once, beside the
// training model, and runs the original's own validation statements with it after each training
// pass; each model leaves the device to the other (detachFromDevice), as one IPU serves both.
#include "core/port/poptorch_validation.h"

#include "core/port/epoch_loop.h"

#include <algorithm>
#include <map>
#include <optional>
#include <regex>

namespace portolan::port::detail {

namespace {

bool contains(const Stmt& s, std::uint32_t at)
{
    return s.start <= at && at < s.end;
}

bool isModeSwitch(const SourceFile& src, const Stmt& s)
{
    static const std::regex form(R"(^[A-Za-z_][A-Za-z_0-9.]*\.(eval|train)\([^()]*\)$)");
    return s.type == "expression_statement" && std::regex_match(src.text(s.start, s.end), form);
}

bool isPrint(const SourceFile& src, const Stmt& s)
{
    return s.type == "expression_statement" && src.text(s.start, s.end).starts_with("print(");
}

bool isAssignment(const Stmt& s)
{
    if (s.type != "expression_statement" || s.defines.empty())
        return false;
    const std::string type = ts_node_type(ts_node_named_child(s.node, 0));
    return type == "assignment" || type == "augmented_assignment";
}

// Names bound anywhere in the statements, nested blocks included (`for i, (x, y) in ...`).
void boundIn(const std::vector<Stmt>& stmts, std::set<std::string>& out)
{
    for (const auto& s : stmts) {
        out.insert(s.defines.begin(), s.defines.end());
        boundIn(s.body, out);
        boundIn(s.other, out);
    }
}

// The lines of `stmts` (nested blocks included) that write `rate` into an optimizer's group
// (`g["lr"] = lr`).
void writesRate(const SourceFile& src, const std::vector<Stmt>& stmts, const std::string& rate,
                const std::string& file, std::vector<std::string>& lines)
{
    for (const auto& s : stmts) {
        const std::string t = src.text(s.start, s.end);
        if (s.type == "expression_statement" &&
            (t.find("[\"lr\"] = " + rate) != std::string::npos ||
             t.find("['lr'] = " + rate) != std::string::npos))
            lines.push_back(file + ":" + std::to_string(s.line));
        writesRate(src, s.body, rate, file, lines);
        writesRate(src, s.other, rate, file, lines);
    }
}

// Whether `text` reads `name` as an identifier.
bool readsName(const std::string& text, const std::string& name)
{
    return !name.empty() && identifiersOf(text).count(name) > 0;
}

// The phases of poptorchValidation; the state they share is the struct's.
struct Finder
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

    const Stmt* epoch = nullptr;
    std::size_t train = 0, anchor = 0;
    std::string function;            // the evaluation function the epoch loop calls, if any
    const Stmt* evalDef = nullptr;   // its definition
    bool modelGlobal = false;        // it reads the model as a global
    bool deviceGlobal = false;       // it reads a device as a global
    bool nested = false;             // for either: main() defines it
    std::vector<const Stmt*> chosen; // the epoch loop's validation statements, in order
    std::vector<const Stmt*> early;  // statements before the training pass they read
    std::string dropped;             // comments for the prints the port does not run
    // The block holding the training pass and the validation: the epoch loop's body, or the
    // body of the training function it calls, when the validation follows the batch loop there
    // (`def train(...): for x, y in loader: ...; model.eval(); ...`). Then `call` is the epoch
    // loop's statement calling it, and `arguments` the call's value of each parameter.
    const std::vector<Stmt>* block = nullptr;
    std::uint32_t blockStart = 0;
    const Stmt* call = nullptr;
    std::map<std::string, std::string> arguments;
    RenderRules switches; // for the mode switches: the rules, the parameters read as arguments

    const std::vector<Stmt>& body() const { return *block; }

    // Whether the epoch loop calls the evaluation function at statement `i`; with no planned
    // evaluation (its loop is a `range` over a tensor), a function of the entry that calls the
    // model and runs no backward counts.
    bool callsEvaluation(std::size_t i)
    {
        const auto& ev = plan.evaluation;
        if (ev && !ev->function.empty() && ev->function != lp.function) {
            if (!body()[i].uses.count(ev->function))
                return false;
            function = ev->function;
            return true;
        }
        if (ev)
            return contains(body()[i], ev->loop.start);
        for (const auto& name : body()[i].uses) {
            const Stmt* def = src.topDefinition(name);
            if (!def || def->type != "function_definition" || name == lp.function)
                continue;
            const std::string text = src.text(def->start, def->end);
            if (readsName(text, plan.modelVariable) &&
                text.find(".backward(") == std::string::npos) {
                function = name;
                return true;
            }
        }
        return false;
    }

    // The training pass: the batch loop written in the block, or the call of its function;
    // then the validation after it.
    bool findAnchor()
    {
        train = anchor = body().size();
        for (std::size_t i = 0; i < body().size() && train == body().size(); ++i)
            if (contains(body()[i], lp.loop.start) ||
                (!lp.function.empty() && body()[i].uses.count(lp.function)))
                train = i;
        for (std::size_t i = train + 1; i < body().size() && anchor == body().size(); ++i)
            if (callsEvaluation(i))
                anchor = i;
        return train < body().size() && anchor < body().size();
    }

    // The validation after the batch loop inside the training function the epoch loop calls:
    // that function's body is the block, and its parameters read the call's arguments.
    bool inTrainingFunction()
    {
        if (train >= epoch->body.size() || lp.function.empty() ||
            contains(epoch->body[train], lp.loop.start))
            return false;
        const Stmt* def = src.topDefinition(lp.function);
        if (!def || def->type != "function_definition" || !contains(*def, lp.loop.start))
            return false;
        call = &epoch->body[train];
        const auto given = callArguments(src, call->node, lp.function);
        if (!given)
            return false;
        const auto params = parameterNames(src, *def);
        std::size_t positional = 0;
        for (const auto& [keyword, text] : *given) {
            if (!keyword.empty())
                arguments[keyword] = text;
            else if (positional < params.size())
                arguments[params[positional++]] = text;
        }
        block = &def->body;
        blockStart = def->start;
        return findAnchor();
    }

    bool findPasses()
    {
        epoch = epochLoopStatement(plan, src);
        if (!epoch || epoch->type != "for_statement")
            return false;
        block = &epoch->body;
        blockStart = epoch->start;
        if (!findAnchor() && !inTrainingFunction())
            return false;
        evalDef = function.empty() ? nullptr : src.topDefinition(function);
        if (evalDef) {
            const auto params = parameterNames(src, *evalDef);
            const std::string text = src.text(evalDef->start, evalDef->end);
            const auto given = [&](const std::string& n) {
                return std::find(params.begin(), params.end(), n) != params.end();
            };
            modelGlobal = readsName(text, plan.modelVariable) && !given(plan.modelVariable);
            // A device global (`DEVICE`) read otherwise than by a device move, which the port
            // drops, is not the port's: in main(), the CPU stands for it.
            RenderRules moves;
            moves.deviceNames = plan.deviceNames;
            const std::string kept = render(src, evalDef->node, moves);
            for (const auto& d : plan.deviceNames)
                deviceGlobal = deviceGlobal || (readsName(kept, d) && !given(d));
            nested = modelGlobal || deviceGlobal;
        }
        return true;
    }

    // Before the validation, what it starts from (`running_vloss = 0.0`, `model.eval()`);
    // after it, what reads its results (`avg = running / n`, the prints). A statement reading
    // what the port does not compute (the training function's returned loss) is named, not run;
    // one reading a value set before the training pass (`start = time.time()`) takes it along.
    void chooseStatements()
    {
        const std::set<std::string> anchorReads = slicer.freeNames({&body()[anchor]});
        for (std::size_t i = train + 1; i < anchor; ++i) {
            bool startsIt = isModeSwitch(src, body()[i]);
            if (isAssignment(body()[i]))
                for (const auto& d : body()[i].defines)
                    startsIt = startsIt || anchorReads.count(d) > 0;
            if (startsIt)
                chosen.push_back(&body()[i]);
        }
        chosen.push_back(&body()[anchor]);
        std::set<std::string> made, lost;
        std::map<std::string, const Stmt*> before;
        for (const Stmt* s : chosen)
            made.insert(s->defines.begin(), s->defines.end());
        for (std::size_t i = 0; i < anchor; ++i) {
            const Stmt& s = body()[i];
            if (std::find(chosen.begin(), chosen.end(), &s) != chosen.end())
                continue;
            const bool plain = i < train && isAssignment(s) && !s.uses.count(plan.modelVariable) &&
                               !s.uses.count(lp.function);
            for (const auto& d : s.defines)
                plain ? void(before[d] = &s) : void(lost.insert(d));
        }
        for (std::size_t i = anchor + 1; i < body().size(); ++i) {
            const Stmt& s = body()[i];
            bool readsResult = false, readsLost = false, readsLoop = false;
            for (const auto& n : slicer.freeNames({&s})) {
                readsResult = readsResult || made.count(n) > 0;
                readsLost = readsLost || lost.count(n) > 0;
                readsLoop = readsLoop || (!made.count(n) && before.count(n) == 0 && n != "print" &&
                                          identifiersOf(src.text(blockStart, s.start)).count(n));
            }
            const bool kept = (readsResult && (isPrint(src, s) || isAssignment(s))) ||
                              (isPrint(src, s) && !readsLoop);
            if (kept && readsLost) {
                std::string names;
                for (const auto& n : slicer.freeNames({&s}))
                    if (lost.count(n))
                        names += std::string(names.empty() ? "" : ", ") + "`" + n + "`";
                std::string line = src.text(s.start, s.end);
                line = line.substr(0, line.find('\n'));
                dropped += loopIndent + "# " + plan.entry + ":" + std::to_string(s.line) +
                           " also prints here what the port's training pass does not compute (" +
                           names + "):\n" + loopIndent + "# " + line + "\n";
            }
            if (!kept || readsLost) {
                lost.insert(s.defines.begin(), s.defines.end());
                continue;
            }
            for (const auto& n : slicer.freeNames({&s}))
                if (before.count(n) &&
                    std::find(early.begin(), early.end(), before.at(n)) == early.end())
                    early.push_back(before.at(n));
            chosen.push_back(&s);
            made.insert(s.defines.begin(), s.defines.end());
        }
        std::sort(early.begin(), early.end(),
                  [](const Stmt* a, const Stmt* b) { return a->start < b->start; });
        v.statements = chosen;
        v.defines = made;
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
    if (!plan.loop || plan.modelBinding.empty())
        return v;
    Finder f{plan, slicer, slicer.source(), rules, already, indent, loopIndent, *plan.loop, v};
    if (!f.findPasses())
        return v;
    f.chooseStatements();
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
    v.after = f.call ? f.call->end : f.body()[f.anchor].end;
    v.loopEnd = f.epoch->end;
    v.ok = true;
    return v;
}

std::optional<PopTorchPlateau> poptorchPlateau(const PortPlan& plan, const SourceFile& src,
                                               const PopTorchValidation& v,
                                               const std::string& optimizer,
                                               const std::string& indent,
                                               const std::string& loopIndent)
{
    if (!v.ok || plan.optimizers.size() != 1 || optimizer == "None" || plan.plateaus.empty())
        return std::nullopt;
    const OptimizerPlan& o = plan.optimizers.front();
    PopTorchPlateau out;
    std::string name = "plateau";
    for (const auto used = identifiersOf(src.text()); used.count(name);)
        name = "lr_" + name;
    for (const auto& p : plan.plateaus) {
        if (p.branch.start < v.after || p.branch.end > v.loopEnd || !v.defines.count(p.metric))
            return std::nullopt;
        // The rate it divides is the optimizer's: the one a hand-written update reads, or the
        // one the original writes back into the optimizer's groups in the same branch.
        std::vector<std::string> written;
        for (const Stmt* s : src.chainAt(p.decay.start, p.decay.end))
            if (s->type == "if_statement" && s->start == p.branch.start)
                writesRate(src, s->other, p.rate, plan.entry, written);
        const bool read = o.synthesized && (o.rateName == p.rate || o.learningRate == p.rate);
        if (!read && written.empty())
            return std::nullopt;
        out.placed.push_back(p.decay.where());
        out.placed.insert(out.placed.end(), written.begin(), written.end());
        // `lr / k` and ReduceLROnPlateau's `lr * (1 / k)` are the same number when k is a
        // power of two; otherwise they may differ in the last bit.
        const std::string k = p.factor.starts_with("1 / ") ? p.factor.substr(4) : std::string();
        const bool exact = k.empty() || k == "2" || k == "2.0" || k == "4" || k == "4.0" ||
                           k == "8" || k == "8.0" || k == "16" || k == "16.0";
        out.setup +=
            indent + "# The original multiplies the learning rate by " + p.factor + " when `" +
            p.metric + "` does not improve on\n" + indent + "# its best (" + p.decay.where() +
            "): ReduceLROnPlateau with patience 0 and threshold 0 is that rule\n" + indent +
            "# (they part only at a best of exactly 0.0, once a reduction is " +
            "under its eps of 1e-8" + (exact ? "" : ", and in the last bit of the rate") + ").\n";
        out.setup += indent + name + " = torch.optim.lr_scheduler.ReduceLROnPlateau(\n" + indent +
                     "    " + optimizer + ", mode=\"min\", factor=" + p.factor +
                     ", patience=0, threshold=0, threshold_mode=\"abs\")\n";
        out.step += loopIndent + name + ".step(" + p.metric + ")\n" + loopIndent +
                    "training_model.setOptimizer(" + optimizer + ")\n";
        if (plan.plateaus.size() > 1)
            return std::nullopt;
    }
    return out;
}

std::string poptorchValidationEnd(const std::string& loopIndent)
{
    return loopIndent + "if inference_model.isAttachedToDevice():\n" + loopIndent +
           "    inference_model.detachFromDevice()\n";
}

} // namespace portolan::port::detail
