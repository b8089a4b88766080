// Determined PyTorchTrial: the model built and wrapped in __init__, the optimizers and LR
// schedulers wrapped, the loaders in build_*_data_loader with the per-slot batch size, the loop
// body in train_batch with context.backward / context.step_optimizer, the flags in const.yaml's
// hyperparameters read with context.get_hparam.
#include "core/port/carry_reset.h"
#include "core/port/cerebras_schedule.h"
#include "core/port/determined_validation.h"
#include "core/port/flag_writes.h"
#include "core/port/generate_internal.h"
#include "core/port/loss_scaling.h"
#include "core/port/metric_step.h"
#include "core/port/run_values.h"
#include "core/port/step_cleanup.h"

#include <algorithm>
#include <filesystem>

namespace portolan::port::detail {

namespace {

// The phases of a Determined port, in the order write() runs them; each writes a piece of
// model_def.py or const.yaml, and the state they share is the struct's.
struct DeterminedPort
{
    const PortPlan& plan;
    const std::map<std::string, std::string>& values;
    PortResult out;
    Slicer slicer;
    const LoopPlan& lp;
    const SourceFile& src;
    std::map<std::string, Hyper> hp;
    std::map<std::string, std::string> keyOf; // flag dest -> hyperparameter key
    RenderRules rules;
    std::set<std::string> unknownFlags;
    StepCode sc;
    ClosureStep closure; // an optimizer stepped with a closure (step_closure.cpp)
    std::vector<const Stmt*> moduleStmts;
    std::string init, trainLoader, evalLoader, train, eval;
    std::string trainLoaderText, evalLoaderText, flagsMethod;
    std::set<std::string>
        evalLoaderNames; // the original's loader build_validation_data_loader builds
    std::string helper;  // module-level code of the validation (its MetricReducer)
    bool namespaceUsed = false;
    std::vector<MetricStep> stepped;        // schedulers stepped with a metric (metric_step.h)
    std::set<std::string> moduleGlobals;    // module globals of the original set in __init__
    std::set<std::string> mainGlobals;      // ... set by its `__main__` block (Slice::globals)
    std::set<const Stmt*> passesNamespace;  // module functions given the namespace (see below)
    std::set<const Stmt*> namespaceReaders; // definitions reading it as a global (namespaceGlobal)

    DeterminedPort(const PortPlan& p, const std::map<std::string, std::string>& v)
        : plan(p), values(v), slicer(p), lp(*p.loop), src(slicer.source())
    {}

    // The hyperparameters and their const.yaml keys (the params-from-argparse fix's names).
    void keys()
    {
        hp = hyperparameters(plan, values);
        // Keys as the params-from-argparse fix names them (batch_size -> global_batch_size).
        for (auto& [dest, h] : hp) {
            if (plan.paramsDetermined)
                if (const auto* e = plan.paramsDetermined->entry(dest))
                    h.key = e->key;
            keyOf[dest] = h.key;
        }
        // A loop that builds its own batches (no DataLoader) steps once per value of its loop: the
        // port's batch is one such value, and a batch-size flag keeps its own name (it sizes the
        // batches the step builds, not Determined's).
        const bool loopValues = plan.loop && !plan.train.isDataLoader;
        if (loopValues)
            for (auto& [dest, h] : hp)
                if (h.key == "global_batch_size") {
                    h.key = dest;
                    keyOf[dest] = dest;
                }
        bool haveGlobal = false;
        for (const auto& [d, h] : hp)
            haveGlobal = haveGlobal || h.key == "global_batch_size";
        const std::string bs = plan.train.batchSize;
        if (!haveGlobal) {
            if (const std::string dest = plan.flagDest(bs); !dest.empty() && hp.count(dest)) {
                hp[dest].key = "global_batch_size";
                keyOf[dest] = "global_batch_size";
            } else if (const RunValue v = trainBatchSize(plan, hp);
                       !loopValues && !v.flag.empty() && hp.count(v.flag)) {
                // A name that holds the flag (`bs = args.batch_size`).
                hp[v.flag].key = "global_batch_size";
                keyOf[v.flag] = "global_batch_size";
            } else {
                Hyper h;
                h.key = "global_batch_size";
                h.value = v.value;
                h.comment = "the training DataLoader's batch size: " + v.from;
                if (v.madeUp && !loopValues)
                    out.notes.push_back("global_batch_size in const.yaml is " + v.value + ", " +
                                        v.from + " batch size there");
                if (loopValues) {
                    h.value = "1";
                    h.comment = "one value of the original's training loop per batch: the step "
                                "builds its batch";
                }
                hp["global_batch_size"] = h;
            }
        }
    }

    // How the trial reads a flag and the device.
    void readingRules()
    {
        rules.argsName = plan.argsName;
        rules.flag = [&](const std::string& dest) {
            const auto it = keyOf.find(dest);
            if (it == keyOf.end())
                unknownFlags.insert(dest);
            return "self.context.get_hparam(\"" + (it == keyOf.end() ? dest : it->second) + "\")";
        };
        rules.deviceNames = plan.deviceNames;
        for (const auto& d : plan.deviceNames)
            rules.rename[d] = "self.context.device";
        slicer.aliasCallerArguments(rules);
    }

    // __init__: the model, optimizers and schedulers built and wrapped.
    void initMethod()
    {
        init += "    def __init__(self, context: PyTorchTrialContext) -> None:\n";
        init += "        self.context = context\n";
        // A module-level value of the original computed from the flags (`nz = int(opt.nz)`) and
        // read by its classes or functions as a global: the trial computes it from the
        // hyperparameters, and sets it as the module global those definitions read.
        for (const Stmt* s : sc.init.local) {
            if (src.chainAt(s->start, s->end).size() != 1)
                continue;
            for (const auto& n : s->defines)
                for (const Stmt* m : moduleStmts)
                    if ((m->type == "class_definition" || m->type == "function_definition" ||
                         m->type == "decorated_definition") &&
                        m->uses.count(n))
                        moduleGlobals.insert(n);
        }
        // A global the original's `__main__` block set before building the model, read by a
        // class or function the trial's module holds: set by __init__ as that block did.
        for (const auto& n : sc.init.globals)
            if (!moduleGlobals.count(n))
                mainGlobals.insert(n);
        if (!moduleGlobals.empty() || !mainGlobals.empty()) {
            std::string names;
            for (const auto* set : {&moduleGlobals, &mainGlobals})
                for (const auto& n : *set)
                    names += (names.empty() ? "" : ", ") + n;
            init += "        # Module globals of the original that its definitions read.\n";
            init += "        global " + names + "\n";
        }
        {
            const std::string ind = "        ";
            // The model is wrapped once the original is done with it: after its construction and
            // what the original does to it right after (`model.apply(init)`, `model.double()`, a
            // part frozen or replaced).
            // Several models trained in turn: each is wrapped so.
            std::vector<std::string> wrapped{plan.modelBinding};
            for (const auto& m : plan.models)
                if (m.variable != plan.modelBinding && m.variable != plan.modelVariable)
                    wrapped.push_back(m.variable);
            std::string pendingWrap;
            std::string scalerWrap = determinedScalerWrap(plan, src, rules, ind);
            const auto wrap = [&] {
                init += std::exchange(scalerWrap, "") + ind + pendingWrap +
                        " = self.context.wrap_model(" + pendingWrap + ")\n";
                pendingWrap.clear();
            };
            for (const Stmt* s : sc.init.local) {
                if (!noneSeedFlag(plan, slicer, values, *s).empty()) {
                    if (!pendingWrap.empty())
                        wrap();
                    init += renderGuardingSeeds(plan, slicer, values, {s}, rules, ind);
                    continue;
                }
                // A statement the rules reduce to nothing (`model = model.to(device)`) is not
                // there; one that builds the model anew from itself (`model =
                // nn.DataParallel(model)` under `if cuda:`, `model = model.double()`) goes on
                // making it: the model is wrapped after it.
                const std::string rendered = renderLocal(slicer, {s}, rules, ind);
                if (rendered.empty())
                    continue;
                const bool mutator = slicer.editsInPlace(*s, pendingWrap) ||
                                     (!pendingWrap.empty() && s->defines.count(pendingWrap) &&
                                      s->uses.count(pendingWrap));
                if (!pendingWrap.empty() && !mutator)
                    wrap();
                init += rendered;
                const auto binds = slicer.bindsOf(*s);
                for (const auto& w : wrapped)
                    if (!w.empty() && binds.count(w))
                        pendingWrap = w;
                for (const auto& o : plan.optimizers)
                    if (!o.synthesized && binds.count(o.variable))
                        init += ind + o.variable + " = self.context.wrap_optimizer(" + o.variable +
                                ")\n";
                init += determinedWraps(plan, stepped, *s, ind);
            }
            if (!pendingWrap.empty())
                wrap();
            init += scalerWrap; // a model built at module level: wrapped below
            if (plan.modelBinding.empty()) {
                init += todo(ind, "build the model here and wrap it with self.context.wrap_model");
            } else {
                bool built = sc.init.localDefines.count(plan.modelBinding) > 0;
                if (!built) {
                    // Built at module level: wrap it here.
                    init +=
                        ind + "self.model = self.context.wrap_model(" + plan.modelBinding + ")\n";
                } else {
                    init += ind + "self.model = " + plan.modelBinding + "\n";
                }
            }
            for (const auto& o : plan.optimizers) {
                if (o.synthesized) {
                    const std::string lr = o.learningRate.empty() ? "0.1" : o.learningRate;
                    // The rate as the trial reads it (a flag: its hyperparameter).
                    const std::string dest = plan.flagDest(lr);
                    const std::string lrText = !dest.empty() ? rules.flag(dest) : lr;
                    if (!o.chosenBy.empty())
                        init +=
                            ind + "# The original's step depends on a flag: " + o.chosenBy + ".\n";
                    init += ind + "# The original updates the weights by hand with plain SGD "
                                  "(p -= lr * grad).\n";
                    init +=
                        ind + "self." + o.variable +
                        " = self.context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), "
                        "lr=" +
                        lrText + "))\n";
                } else if (o.variable.starts_with("self.")) {
                    // Built by a layer on its own parameters (layer-local training): the trial
                    // neither builds nor holds it; the plan's item says so.
                    init += todo(ind, "`" + o.variable + "` is a layer's own optimizer");
                } else {
                    init += ind + "self." + o.variable + " = " + o.variable + "\n";
                }
            }
            for (const auto& sch : plan.schedulers)
                init += ind + "self." + sch.variable + " = " + sch.variable + "\n";
            for (const auto& a : sc.attributes)
                init += ind + "self." + a + " = " + a + "\n";
        }
        // A name the step binds before reading it is its own (`loss = ...`), not one it reads.
        std::set<std::string> ownNames;
        for (const auto* list : {&sc.forward, &sc.between})
            for (const Stmt* st : *list)
                ownNames.insert(st->defines.begin(), st->defines.end());
        for (const auto& n : carriedState(slicer, sc))
            ownNames.erase(n);
        for (const auto& n : sc.init.unresolved)
            if (sc.bodyFree.count(n) && !sc.rename.count(n) && !ownNames.count(n))
                out.notes.push_back("`" + n +
                                    "` is read by the training step but defined nowhere "
                                    "the port can see");
    }

    // build_training_data_loader / build_validation_data_loader.
    void loaderMethods()
    {
        auto loader = [&](const char* method, const DataPlan& data, const DataPlan& fallback,
                          bool train) {
            std::string m = std::string("    def ") + method + "(self) -> DataLoader:\n";
            const std::string ind = "        ";
            DataCode dc = dataCode(plan, slicer, data, rules, ind);
            if (dc.ok && !train && data.isDataLoader) {
                // The loader as the loop reads it, and as the code that builds it names it.
                evalLoaderNames.insert(data.variable);
                const auto chain = src.chainAt(data.construction.start, data.construction.end);
                if (!chain.empty() && chain.back()->defines.size() == 1)
                    evalLoaderNames.insert(*chain.back()->defines.begin());
            }
            if (!dc.ok && !train)
                dc = dataCode(plan, slicer, fallback, rules, ind);
            bool values = false;
            if (!dc.ok && !plan.eval.isDataLoader) {
                dc = loopValuesCode(plan, slicer, rules, ind);
                values = dc.ok;
                // Validation: a few of the training loop's steps (the loop may never end).
                if (values && !train) {
                    dc.dataset.insert(dc.dataset.size() - 1, ", limit=10");
                    m += ind + "# The original has no validation data: ten of its training steps "
                               "stand in.\n";
                }
            }
            if (!dc.ok) {
                if (train && plan.loop && !plan.train.isDataLoader && plan.loop->batchTarget.size())
                    out.manual.push_back(nonLoaderManual(plan));
                m += todo(ind, "build the " + std::string(train ? "training" : "validation") +
                                   " data: the original's batches come from `" +
                                   (train ? lp.iterable : data.variable) + "`");
                m += ind + "raise NotImplementedError(\"TODO(portolan): " + method + "\")\n";
                return m;
            }
            if (!train && !data.isDataLoader && !values)
                m +=
                    ind + "# The original has no validation loader: the training data stands in.\n";
            moduleStmts.insert(moduleStmts.end(), dc.module.begin(), dc.module.end());
            m += globalDeclaration(dc.globals, ind) + dc.statements;
            m += ind + "return DataLoader(\n" + ind + "    " + dc.dataset + ",\n" + ind +
                 "    batch_size=self.context.get_per_slot_batch_size()";
            for (const auto& [k, v] : dc.keywords)
                m += ",\n" + ind + "    " + k + "=" + v;
            m += ")\n";
            return m;
        };
        trainLoader = loader("build_training_data_loader", plan.train, plan.train, true);
        evalLoader = loader("build_validation_data_loader", plan.eval, plan.train, false);
    }

    // The step's forward for evaluate_batch. State the step carries from batch to batch (a hidden
    // state, `self.hidden = model(x, self.hidden)`) is the training's: validation starts from it
    // but works on a local copy, so it does not advance the state training continues from (the
    // original evaluates with its own state too).
    std::string evaluationForward(RenderRules body, const std::string& ind) const
    {
        std::string prefix;
        for (const auto& a : sc.attributes) {
            bool assigned = false;
            for (const Stmt* s : sc.forward)
                assigned = assigned || s->defines.count(a);
            if (!assigned)
                continue;
            body.rename[a] = a;
            prefix += ind + a + " = self." + a + "\n";
        }
        return prefix + renderLocal(slicer, withoutSums(stepped, sc.forward), body, ind);
    }

    // train_batch's body for a step with one backward: the forward, context.backward, what
    // works on the gradients, then each optimizer stepped.
    void singleStep(const std::string& forward, const RenderRules& body, const std::string& loss,
                    const std::string& ind)
    {
        std::string between = renderLocal(slicer, sc.between, body, ind);
        if (plan.optimizers.size() == 1 && plan.optimizers[0].closure) {
            closure = determinedClosureStep(plan, plan.optimizers[0], forward, between, loss, ind);
            train += closure.text;
            out.manual.push_back(closure.item);
            return;
        }
        train += forward;
        train += ind + "self.context.backward(" + determinedBackwardValue(plan, loss) + ")\n";
        std::string clip;
        if (plan.optimizers.size() == 1 && !plan.modelVariable.empty() &&
            (plan.optimizers[0].synthesized ||
             plan.optimizers[0].takesParametersOf(plan.modelVariable)))
            clip = clipGrads(between);
        train += determinedUnscales(plan, ind) + between;
        bool first = true;
        for (const auto& o : plan.optimizers) {
            if (o.variable.starts_with("self.")) {
                // A layer's own optimizer (layer-local training): the plan's item says so.
                train += todo(ind, "`" + o.variable + "` is a layer's own optimizer");
                continue;
            }
            if (o.closure) {
                train += todo(ind, "the original steps " + o.variable +
                                       " with a closure (LBFGS): Determined steps without one; "
                                       "re-evaluate the loss by hand if needed");
                out.manual.push_back(manualFinding(
                    "optimizer step with a closure (" + o.qualified +
                        "): Determined's "
                        "step_optimizer takes no closure",
                    o.construction, "use an optimizer without a closure, or step it by hand"));
            }
            train += ind + "self.context.step_optimizer(self." + o.variable +
                     (clip.empty() ? std::string() : ",\n" + ind + "    clip_grads=" + clip) +
                     determinedStepScaler(plan) + ")\n";
            if (!first)
                out.notes.push_back(
                    "second optimizer " + o.variable +
                    " is stepped after the same backward; Determined allows several");
            first = false;
        }
        if (plan.optimizers.empty())
            train += todo(ind, "no optimizer: step one with self.context.step_optimizer");
        train += determinedUpdates(plan, ind) + ind + "return {\"loss\": " + loss + "}\n";
    }

    // train_batch / evaluate_batch.
    void stepMethods()
    {
        RenderRules body = rules;
        for (const auto& [k, v] : sc.rename)
            body.rename[k] = v;
        bindSelfAttributes(body, sc);
        const std::string loss = lossName(plan);
        auto unpack = [&](const std::string& ind, const char* indexParam) {
            // A loop that binds no batch (a `while` loop, whose item says so) unpacks nothing.
            std::string t = lp.batchTarget.empty() ? "" : ind + lp.batchTarget + " = batch\n";
            if (!lp.indexName.empty() && lp.indexName != indexParam)
                t += ind + lp.indexName + " = " + indexParam + "\n";
            return t;
        };
        const std::string ind = "        ";
        std::string chosen;
        if (plan.lossExpression.valid() &&
            plan.lossExpression.text !=
                src.text(plan.lossExpression.start, plan.lossExpression.end))
            chosen += ind + loss + " = " + plan.lossExpression.text + "  # the loss chosen\n";
        if (!plan.loop->lossName.empty() && loss != plan.loop->lossName)
            chosen += ind + "loss = " + plan.loop->lossName + "\n";
        const std::string forward = renderLocal(slicer, sc.forward, body, ind) + chosen;
        train += "    def train_batch(self, batch: Any, epoch_idx: int,\n"
                 "                    batch_idx: int) -> Dict[str, torch.Tensor]:\n";
        train += unpack(ind, "batch_idx");
        train += determinedEpochReset(plan, slicer, sc, body, ind);
        train += determinedEpochMetricSteps(slicer, stepped, body, ind);
        if (!lp.sequence.empty())
            train += sequenceStep(plan, slicer, sc, body, ind);
        else
            singleStep(forward, body, loss, ind);

        eval += "    def evaluate_batch(self, batch: Any, batch_idx: int) -> Dict[str, Any]:\n";
        eval += ind + "# The training step's forward and loss, as the validation metric.\n";
        eval += unpack(ind, "batch_idx");
        eval += evaluationForward(body, ind) + chosen;
        eval += ind + "return {\"validation_loss\": " + loss + "}\n";
        train = dropDeadAliases(train);
        eval = dropTrainingComments(dropDeadAliases(eval));
        // The original's own validation, when the trial can run it (determined_validation.h).
        const DeterminedValidation v =
            determinedValidation(plan, slicer, sc, rules, body, evalLoaderNames, stepped);
        if (v.ok) {
            eval = v.method;
            init += v.init;
            moduleStmts.insert(moduleStmts.end(), v.module.begin(), v.module.end());
            out.generatedItems = v.placed;
            helper = v.helper;
        } else if (plan.evaluation)
            for (const auto& m : plan.evaluation->metrics)
                out.notes.push_back("evaluation metric `" + m + "` of " +
                                    plan.evaluation->loop.where() +
                                    " is not carried over: evaluate_batch reports the loss");
        init += determinedUnstepped(plan, stepped, v.ok ? v.stepped : std::set<std::string>{},
                                    out.manual);
    }

    // A module-level function of the original that reads the global flags namespace
    // (`def get_batch(source, i): ... args.bptt`): in the port it takes the namespace as its last
    // parameter, and each call in the trial passes it (rebuilt from the hyperparameters by
    // flagsNamespace), so the function reads the same values without a command line.
    void namespaceParameters()
    {
        if (plan.argsName.empty())
            return;
        for (const Stmt* s : moduleStmts)
            if (s->type == "function_definition" && !s->name.empty() &&
                s->uses.count(plan.argsName) && !takesNamespace(src, *s, plan.argsName))
                passesNamespace.insert(s);
        for (const Stmt* s : passesNamespace)
            for (auto* piece : {&init, &trainLoader, &evalLoader, &train, &eval})
                *piece = passToCalls(*piece, s->name, plan.argsName);
    }

    void flagsNamespace()
    {
        // The flags namespace itself handed to a function (`make_loader(args, ...)`): the port
        // rebuilds it from the hyperparameters (every flag under its own name) in the method that
        // needs it, so the function reads the same values.
        auto markBare = [&](std::string& piece) {
            if (bindNamespaceAtFirstUse(piece, plan.argsName, "self.flags()"))
                namespaceUsed = true;
        };
        trainLoaderText = trainLoader;
        evalLoaderText = evalLoader;
        if (!plan.argsName.empty()) {
            markBare(init);
            markBare(trainLoaderText);
            markBare(evalLoaderText);
            markBare(train);
            markBare(eval);
        }
        if (namespaceUsed)
            buildFlagsMethod();
    }

    void buildFlagsMethod()
    {
        flagsMethod = "    def flags(self) -> types.SimpleNamespace:\n"
                      "        # The original's flags namespace, rebuilt from the hyperparameters "
                      "for the code\n        # that takes it whole.\n"
                      "        return types.SimpleNamespace(\n";
        std::set<std::string> seen;
        for (const auto& f : plan.flags)
            if (seen.insert(f.dest).second)
                flagsMethod += "            " + f.dest + "=self.context.get_hparam(\"" +
                               (keyOf.count(f.dest) ? keyOf.at(f.dest) : f.dest) + "\"),\n";
        flagsMethod += "        )\n\n";
    }

    // A class or function of the original that reads the flags namespace as a module global
    // (`opt.latent_dim` in Generator.__init__): the trial sets that global to the namespace
    // rebuilt from the hyperparameters before it builds anything, as it sets the module values
    // the original computed from its flags (moduleGlobals).
    void namespaceGlobal()
    {
        if (plan.argsName.empty())
            return;
        for (const Stmt* s : moduleStmts)
            if ((s->type == "class_definition" || s->type == "function_definition" ||
                 s->type == "decorated_definition") &&
                s->uses.count(plan.argsName) && !takesNamespace(src, *s, plan.argsName) &&
                !passesNamespace.count(s))
                namespaceReaders.insert(s);
        if (namespaceReaders.empty())
            return;
        const std::string at = "        self.context = context\n";
        const auto where = init.find(at);
        if (where == std::string::npos) {
            namespaceReaders.clear();
            return;
        }
        init.insert(where + at.size(),
                    "        # The original's definitions read its flags namespace as a module "
                    "global.\n        global " +
                        plan.argsName + "\n        " + plan.argsName + " = self.flags()\n");
        if (!namespaceUsed)
            buildFlagsMethod();
        namespaceUsed = true;
    }

    // A flag the original assigns to (`args.hidden *= 2` in a branch the port keeps) cannot
    // stay `get_hparam(...) = ...`, a SyntaxError: the trial holds it (flag_writes.h).
    void holdFlags()
    {
        std::set<std::string> keys;
        for (const auto& dest : assignedFlags(src, plan.argsName))
            keys.insert(keyOf.count(dest) ? keyOf.at(dest) : dest);
        holdAssignedFlags(keys,
                          {&init, &trainLoader, &evalLoader, &train, &eval, &trainLoaderText,
                           &evalLoaderText, &flagsMethod},
                          init);
    }

    // model_def.py: the module level the methods need, then the trial.
    void modelDef()
    {
        std::sort(moduleStmts.begin(), moduleStmts.end(),
                  [](const Stmt* a, const Stmt* b) { return a->start < b->start; });
        moduleStmts.erase(std::unique(moduleStmts.begin(), moduleStmts.end()), moduleStmts.end());
        RenderRules moduleRules;
        moduleRules.deviceNames = plan.deviceNames;
        std::string module = withNamespaceParameters(slicer.moduleText(moduleStmts, moduleRules),
                                                     passesNamespace, src, plan.argsName);
        for (const Stmt* s : moduleStmts) {
            // A function taking the namespace as its own parameter reads what it is given.
            const bool parameter = takesNamespace(src, *s, plan.argsName);
            if (passesNamespace.count(s))
                continue;
            if (!plan.argsName.empty() && s->uses.count(plan.argsName) && !parameter &&
                !namespaceReaders.count(s)) {
                const std::string what = s->name.empty() ? "a module-level statement" : s->name;
                out.manual.push_back(
                    manualFinding(what + " reads the command-line flags (`" + plan.argsName +
                                      ".…`) at module level: pass the values from the trial",
                                  CodeRef{plan.entry, s->line, s->column, s->start, s->end, ""},
                                  "give the function the hyperparameters it needs as parameters"));
            }
        }

        std::string text = "\"\"\"Determined PyTorchTrial generated by Portolan from " +
                           plan.entry +
                           ".\n\nThe model, loss and data code are the original's, moved here; "
                           "Determined owns the\nloop, the device and checkpoints. Hyperparameters "
                           "are in const.yaml.\n\"\"\"\n";
        // Imports from __future__ must come first.
        text += "from typing import Any, Dict\n\n";
        const std::string futures = splitFutures(module);
        text = text.substr(0, text.find("from typing")) + futures +
               text.substr(text.find("from typing"));
        const std::string header =
            "import torch\nfrom determined.pytorch import DataLoader, LRScheduler, PyTorchTrial, "
            "PyTorchTrialContext\n";
        text += header;
        // An entry in a sub-folder imports its sibling modules (`import utils`) from there.
        const std::string folder = std::filesystem::path(plan.entry).parent_path().generic_string();
        if (!folder.empty())
            text += "import os\nimport sys\n\nsys.path.insert(0, "
                    "os.path.join(os.path.dirname(os.path.abspath(__file__)), \"" +
                    folder + "\"))\n";
        text += withoutTargetImports(module, "from typing import Any, Dict\n" + header);
        if (!moduleGlobals.empty()) {
            text += "\n# Set by Trial.__init__ from the hyperparameters, as the original computed "
                    "them from its flags.\n";
            for (const auto& n : moduleGlobals)
                text += n + " = None\n";
        }
        if (!mainGlobals.empty()) {
            text += "\n# Set by Trial.__init__, as the original's main code set them before "
                    "building its model.\n";
            for (const auto& n : mainGlobals)
                text += n + " = None\n";
        }
        if (!namespaceReaders.empty())
            text += "\n# The flags namespace, set by Trial.__init__ from the hyperparameters.\n" +
                    plan.argsName + " = None\n";
        if (namespaceUsed)
            text += "import types\n";
        if (trainLoader.find("LoopValues(") != std::string::npos)
            text += "import itertools\n" + loopValuesHelpers();
        if (!helper.empty())
            text += "from determined.pytorch import MetricReducer\n" + helper;
        text += "\n\nclass Trial(PyTorchTrial):\n";
        text += init + "\n" + flagsMethod + trainLoaderText + "\n" + evalLoaderText + "\n" + train +
                "\n" + eval;
        // A read the trial still has (the rules render reads that a dropped statement held,
        // `if args.cuda:` left empty).
        for (const auto& n : unknownFlags)
            if (!plan.handedOver && // the launch's one item names the flags it hands over
                text.find("get_hparam(\"" + n + "\")") != std::string::npos)
                out.manual.push_back(
                    manualFinding("`" + plan.argsName + "." + n + "` is not a flag of the script",
                                  CodeRef{plan.entry, 1, 0, 0, 0, ""}));
        out.files.push_back(GeneratedFile{"model_def.py", plan.entry, text});
    }

    void constYaml()
    {
        std::string name = plan.root.filename().string();
        if (name.empty())
            name = plan.root.parent_path().filename().string();
        std::string yaml =
            "# Determined experiment config generated by Portolan from the flags of " + plan.entry +
            ".\nname: " + name + "-determined\n";
        yaml += "entrypoint: model_def:Trial\n";
        yaml += "hyperparameters:\n";
        std::set<std::string> written;
        for (const auto& f : plan.flags) {
            const auto it = hp.find(f.dest);
            if (it == hp.end() || !written.insert(it->second.key).second)
                continue;
            yaml += "  " + it->second.key + ": " + it->second.value +
                    yamlComment(it->second.comment) + "\n";
            out.hyperparameters[it->second.key] = it->second.value;
            // A required flag no code of the port reads (another sub-command's: `eval
            // --model`) needs no value.
            const bool read = std::any_of(out.files.begin(), out.files.end(), [&](const auto& g) {
                return g.text.find("\"" + it->second.key + "\"") != std::string::npos;
            });
            if (it->second.value == "null" && f.required && !read)
                out.notes.push_back("the flag " + (f.options.empty() ? f.dest : f.options.front()) +
                                    " is required by the original's command line but nothing "
                                    "the port runs reads it");
            else if (it->second.value == "null" && f.required)
                out.manual.push_back(
                    manualFinding("the flag " + (f.options.empty() ? f.dest : f.options.front()) +
                                      " is required and has no default: set hyperparameters." +
                                      it->second.key + " in const.yaml",
                                  CodeRef{plan.entry, f.span.line, f.span.column - 1, 0, 0, ""}));
        }
        if (const auto it = hp.find("global_batch_size");
            it != hp.end() && written.insert("global_batch_size").second) {
            yaml +=
                "  global_batch_size: " + it->second.value + yamlComment(it->second.comment) + "\n";
            out.hyperparameters["global_batch_size"] = it->second.value;
        }
        yaml += "searcher:\n  name: single\n  metric: validation_loss\n  smaller_is_better: true\n"
                "  max_length:\n";
        // A loop that draws its batches up to a count of steps: the length is that count, in
        // batches (Determined hands out the loader's batches again after its last one).
        if (const RunValue steps = boundSteps(plan, hp); !steps.value.empty()) {
            if (steps.madeUp)
                out.notes.push_back("searcher.max_length.batches in const.yaml is " + steps.value +
                                    ", " + steps.from);
            yaml += "    batches: " + steps.value + runValueComment(steps) +
                    "\nmin_validation_period:\n  batches: " + steps.value + "\n";
        } else {
            const RunValue epochs = trainEpochs(plan, hp);
            if (epochs.madeUp)
                out.notes.push_back("searcher.max_length.epochs in const.yaml is " + epochs.value +
                                    ", " + epochs.from + " count there");
            yaml += "    epochs: " + epochs.value + runValueComment(epochs) + "\n" +
                    recordsPerEpochYaml(plan, src, hp, out.notes) +
                    "min_validation_period:\n  epochs: 1\n";
        }
        yaml += "resources:\n  slots_per_trial: 1\nmax_restarts: 0\n";
        out.files.push_back(GeneratedFile{"const.yaml", "", yaml});
    }
};

} // namespace

Result<PortResult> generateDetermined(const PortPlan& plan,
                                      const std::map<std::string, std::string>& values)
{
    if (!plan.loop || !Slicer(plan).source().statements().size()) {
        return Result<PortResult>::fail(
            Diagnostic{Severity::Error, "port.no-loop", "nothing to port: no training loop", {}});
    }
    // Several models trained in turn: the step's statements are its forward (stepCode).
    const bool several = !plan.loop->sequence.empty();
    const PortPlan sequencePlan = several ? sequenceAsForward(plan) : PortPlan{};
    DeterminedPort port(several ? sequencePlan : plan, values);
    port.keys();
    port.readingRules();
    port.sc = stepCode(port.plan, port.slicer, true);
    port.moduleStmts = port.sc.init.module;
    addUntraced(port.plan, port.sc, port.out);
    port.stepped = metricSteps(port.plan, port.slicer);
    port.initMethod();
    port.loaderMethods();
    port.stepMethods();
    port.namespaceParameters();
    port.flagsNamespace();
    port.namespaceGlobal();
    port.holdFlags();
    port.modelDef();
    nameStepInPort(port.out, port.closure, "model_def.py");
    port.constYaml();
    copyOtherFiles(port.plan, port.out);
    port.out.entry = "model_def:Trial";
    return Result<PortResult>::ok(std::move(port.out));
}

} // namespace portolan::port::detail
