// Graphcore PopTorch: a wrapper module that computes the loss inside forward, poptorch.Options,
// poptorch.DataLoader, trainingModel with the optimizer, and a loop without backward or step.
// PopTorch asks for no config file, so the script keeps its own argparse flags.
#include "core/port/carry_reset.h"
#include "core/port/epoch_loop.h"
#include "core/port/generate_internal.h"
#include "core/port/gradient_clip.h"
#include "core/port/loss_scaling.h"
#include "core/port/metric_step.h"
#include "core/port/poptorch_save.h"
#include "core/port/poptorch_validation.h"
#include "core/port/run_values.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace portolan::port::detail {

namespace {

// The port's script sits in the entry's folder (`neural_style/train.py` for
// `neural_style/neural_style.py`): the entry's imports of its sibling modules (`import utils`)
// then resolve as they did for the original.
std::string trainPath(const PortPlan& plan)
{
    const std::string folder = std::filesystem::path(plan.entry).parent_path().generic_string();
    return folder.empty() ? std::string("train.py") : folder + "/train.py";
}

// The phases of a PopTorch port, in the order generatePopTorch runs them; each writes a piece
// of train.py, and the state they share is the struct's.
struct PopTorchPort
{
    const PortPlan& plan;
    // The values given on the command line: the port keeps the script's argparse, so they only
    // say which flag a count is (an epoch count from a positional without a default).
    const std::map<std::string, std::string>& values;
    PortResult out;
    Slicer slicer;
    const LoopPlan& lp;
    const SourceFile& src;
    const std::string ind = "    ";
    const std::string ind2 = "        ";
    const std::string ind3 = "            ";
    RenderRules rules;
    std::vector<const Stmt*> argparse;
    bool argparseAtModule = true;
    StepCode sc;
    std::vector<const Stmt*> moduleStmts;
    std::string wrapper;
    std::vector<std::string> params; // TrainingModel.forward's parameters
    DataCode loopData;
    std::vector<const Stmt*> host; // statements that build the batch on the host
    std::string loss;
    std::string main;
    std::string optimizer;

    bool clipPlaced = false;
    // Edits of the definitions train.py carries (a factory's optimizer that clips).
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> definitionEdits;
    std::vector<const Stmt*> inMain; // the original's statements main() runs before the loop
    PopTorchValidation validation;
    std::vector<std::string> carried; // state the step carries over: in and out of the program
    std::vector<MetricStep> stepped;  // schedulers stepped with a metric (metric_step.h)
    std::vector<const Stmt*> sumAdds; // the step's statements adding to their sums: host's

    PopTorchPort(const PortPlan& p, const std::map<std::string, std::string>& v)
        : plan(p), values(v), slicer(p), lp(*p.loop), src(slicer.source())
    {}

    // Gradient clipping by norm between backward() and the step: PopTorch clips inside the
    // program when its optimizer is given the limit (poptorch.yaml's gradient-clipping form), so
    // the optimizer's construction becomes the poptorch.optim one with that argument.
    struct ClipInOptimizer
    {
        const Stmt* statement = nullptr; // the statement building the optimizer
        std::string from, to;            // its construction, rendered, and the one that clips
        // Built in a factory the port carries as a definition (`model.configure_optimizers()`):
        // the construction there becomes the one that clips.
        std::pair<std::uint32_t, std::uint32_t> inDefinition{0, 0};
    };
    ClipInOptimizer clipInOptimizer() const
    {
        ClipInOptimizer c;
        const auto clip = gradientClip(plan, slicer, sc);
        const auto form = clip ? clipForm("poptorch", clip->kind) : std::nullopt;
        if (!form || form->argument.empty() || plan.optimizers[0].synthesized ||
            !form->optimizers.count(plan.optimizers[0].qualified))
            return c;
        const OptimizerPlan& o = plan.optimizers[0];
        const TSNode call = src.nodeAt(o.construction.start, o.construction.end);
        const TSNode callee = ts_node_child_by_field_name(call, "function", 8);
        if (ts_node_is_null(callee))
            return c;
        if (o.madeBy.valid())
            c.inDefinition = {o.construction.start, o.construction.end};
        else
            c.statement = slicer.statementAt(o.statement);
        c.from = render(src, call, rules);
        const std::string calleeText = render(src, callee, rules);
        const auto close = c.from.rfind(')');
        if (!c.from.starts_with(calleeText) || close == std::string::npos)
            return {};
        // `torch.optim.Adam(params, lr=x)` -> `poptorch.optim.Adam(params, lr=x, max_grad_norm=c)`
        std::string args = c.from.substr(calleeText.size(), close - calleeText.size());
        while (!args.empty() && (args.back() == ' ' || args.back() == '\n' || args.back() == ','))
            args.pop_back();
        c.to = form->optimizers.at(o.qualified) + args + ", " + form->argument + "=" +
               render(src, clip->limitNode, rules) + ")";
        return c;
    }

    // Where the flags are parsed, and the training step's code.
    void stepAndFlags()
    {
        rules.deviceNames = plan.deviceNames;
        for (const auto& d : plan.deviceNames)
            rules.rename[d] = "torch.device(\"cpu\")";
        slicer.aliasCallerArguments(rules);

        // Where the flags are parsed: at module level, or inside a function (main()).
        argparse = slicer.argparseStatements();
        argparseAtModule = true;
        for (const Stmt* s : argparse) {
            bool top = false;
            for (const auto& t : src.statements())
                top = top || &t == s;
            argparseAtModule = argparseAtModule && top;
        }
        slicer.argsGlobal = argparseAtModule;
        sc = stepCode(plan, slicer, true, argparseAtModule);
        moduleStmts = sc.init.module;
        // The flags' definitions may read module-level values (`choices=model_names`, a list
        // built from a registry): the port parses the same flags, so those values come along.
        if (!argparse.empty()) {
            const Slice read = slicer.slice(slicer.freeNames(argparse), {});
            moduleStmts.insert(moduleStmts.end(), read.module.begin(), read.module.end());
        }
        addUntraced(plan, sc, out);
        if (!plan.argsName.empty() && sc.bodyFree.count(plan.argsName) && !argparseAtModule) {
            sc.rename[plan.argsName] = "self." + plan.argsName;
            sc.attributes.push_back(plan.argsName);
        }
    }

    // TrainingModel: the model with its loss computed inside forward.
    void wrapperClass()
    {
        wrapper += "class TrainingModel(torch.nn.Module):\n";
        wrapper += ind +
                   "\"\"\"The model with its loss computed inside forward: PopTorch compiles "
                   "forward, loss\n" +
                   ind + "and backward into one program.\"\"\"\n\n";
        wrapper += ind + "def __init__(self, model, **values):\n";
        wrapper += ind2 + "super().__init__()\n" + ind2 + "self.model = model\n";
        wrapper += ind2 + "for name, value in values.items():\n" + ind2 +
                   "    setattr(self, name, value)\n\n";
        params = lp.batchNames;
        // State carried from step to step (a hidden state): an input of the program and one of
        // its outputs, kept on the host between the calls, not an attribute the program would
        // have to keep (the host's own statements, `h = detach(h)`, then work on it as before).
        const auto carriedSet = carriedState(slicer, sc);
        carried.assign(carriedSet.begin(), carriedSet.end());
        for (const auto& c : carried) {
            sc.rename.erase(c);
            sc.attributes.erase(std::remove(sc.attributes.begin(), sc.attributes.end(), c),
                                sc.attributes.end());
        }
        // What adds the loss to an epoch's sums runs on the host, after the program: the sums
        // are the host's, which the program neither takes nor returns.
        stepped = metricSteps(plan, slicer);
        for (const Stmt* s : sc.forward)
            if (addsToSums(stepped, *s))
                sumAdds.push_back(s);
        sc.forward = withoutSums(stepped, sc.forward);
        for (const auto& m : stepped)
            for (const auto& n : m.sums)
                if (std::none_of(sc.forward.begin(), sc.forward.end(),
                                 [&](const Stmt* s) { return s->uses.count(n) > 0; })) {
                    sc.rename.erase(n);
                    std::erase(sc.attributes, n);
                }
        // A loop that builds its own batches (get_batch() helpers): its values come from the
        // loader, and the statements that build the batch from them run on the host, before the
        // program, which takes the tensors they build (the leading statements that do not use the
        // model or the criterion).
        loopData = loopValuesCode(plan, slicer, rules, ind);
        if (loopData.ok) {
            std::set<std::string> modelNames{plan.modelVariable, plan.modelBinding,
                                             plan.criterionVariable};
            // A step function's parameters that are the model or the criterion under
            // another name.
            for (const auto& [param, arg] : lp.stepArguments)
                if (modelNames.count(arg))
                    modelNames.insert(param);
            std::size_t n = 0;
            while (n < sc.forward.size()) {
                bool usesModel = false;
                for (const auto& m : modelNames)
                    usesModel = usesModel || (!m.empty() && sc.forward[n]->uses.count(m));
                if (usesModel)
                    break;
                ++n;
            }
            host.assign(sc.forward.begin(), sc.forward.begin() + static_cast<std::ptrdiff_t>(n));
            sc.forward.erase(sc.forward.begin(),
                             sc.forward.begin() + static_cast<std::ptrdiff_t>(n));
            auto rest = slicer.freeNames(sc.forward);
            // A step function's parameter read under the caller's argument (`fit(a, b)` for
            // `def fit(sample, label)`): the program takes what the host binds, `a`.
            for (const auto& [param, arg] : lp.stepArguments)
                if (rest.count(param))
                    for (const auto& n : identifiersOf(arg))
                        rest.insert(n);
            params.clear();
            std::set<std::string> given;
            for (const Stmt* s : host)
                for (const auto& d : s->defines)
                    if (rest.count(d) && given.insert(d).second)
                        params.push_back(d);
            for (const auto& b : lp.batchNames)
                if (rest.count(b) && given.insert(b).second)
                    params.push_back(b);
        }
        for (const auto& c : carried)
            if (std::find(params.begin(), params.end(), c) == params.end())
                params.push_back(c);
        std::string paramText;
        for (const auto& p : params)
            paramText += ", " + p;
        wrapper += ind + "def forward(self" + paramText + "):\n";
        if (!plan.stepNotPlaced.empty())
            out.stepLeftAt.push_back("def forward(self" + paramText + "):");
        RenderRules body = rules;
        for (const auto& [k, v] : sc.rename)
            body.rename[k] = v;
        bindSelfAttributes(body, sc);
        loss = lossName(plan);
        wrapper += renderLocal(slicer, sc.forward, body, ind2);
        if (plan.lossExpression.valid() &&
            plan.lossExpression.text !=
                src.text(plan.lossExpression.start, plan.lossExpression.end))
            wrapper += ind2 + loss + " = " + plan.lossExpression.text + "  # the loss chosen\n";
        if (!lp.lossName.empty() && loss != lp.lossName)
            wrapper += ind2 + "loss = " + lp.lossName + "\n";
        std::string state;
        for (const auto& c : carried)
            state += ", " + c;
        wrapper += ind2 + "return " + loss + state + "\n";
        if (!plan.stepNotPlaced.empty())
            out.stepLeftAt.push_back("return " + loss + state);
    }

    // main(): the flags, what builds the model, the options and the loader.
    void mainData()
    {
        main = "def main():\n";
        if (!argparseAtModule) {
            // The flags parsed in a helper (`def parse_args(): ... return parser.parse_args()`,
            // called as `args = parse_args()`): the helper stays a module function and main()
            // calls it as the original did; parsed in the loop's function itself, its statements
            // move into main().
            const Stmt* helper = nullptr;
            for (const Stmt* a : argparse)
                for (const Stmt* c : src.chainAt(a->start, a->end))
                    if ((c->type == "function_definition" || c->type == "decorated_definition") &&
                        c != slicer.loopFunction() && src.topDefinition(c->name) == c)
                        helper = c;
            const Stmt* call = nullptr;
            if (helper && slicer.loopFunction())
                for (const auto& st : slicer.loopFunction()->body)
                    if (st.defines.count(plan.argsName) && st.uses.count(helper->name))
                        call = &st;
            if (call) {
                moduleStmts.push_back(helper);
                main += renderLocal(slicer, {call}, RenderRules{}, ind);
            } else {
                main += renderLocal(slicer, argparse, RenderRules{}, ind);
            }
        }
        // The flags parsed under another name than the one the training code reads
        // (`args = parser.parse_args()`, then `main(args)` into `def main(opts)`).
        if (!plan.argsName.empty())
            for (const Stmt* a : argparse)
                if (src.text(a->start, a->end).find("parse_args(") != std::string::npos &&
                    !a->defines.empty() && !a->defines.count(plan.argsName) &&
                    a->defines.size() == 1)
                    main += ind + plan.argsName + " = " + *a->defines.begin() + "\n";
        const ClipInOptimizer clip = clipInOptimizer();
        for (const Stmt* s : sc.init.local) {
            // The script parses its own flags in the port, so a seed flag is None exactly when
            // the command line leaves it unset: the guard holds for any command line.
            std::string text = renderGuardingSeeds(plan, slicer, {}, {s}, rules, ind);
            // The optimizer that clips as the original did between backward() and the step.
            if (clip.statement == s && text.find(clip.from) != std::string::npos) {
                text.replace(text.find(clip.from), clip.from.size(), clip.to);
                clipPlaced = true;
            }
            main += text;
        }
        if (clip.inDefinition.second != 0 && !clip.to.empty()) {
            definitionEdits[clip.inDefinition] = clip.to;
            clipPlaced = true;
        }
        inMain = sc.init.local;
        if (!argparseAtModule)
            inMain.insert(inMain.end(), argparse.begin(), argparse.end());
        // poptorch.Options under a name the original's code does not use (a script whose
        // flags are `opts` keeps them).
        const auto used = identifiersOf(src.text());
        while (used.count(opts))
            opts = "ipu_" + opts;
        main += ind + opts + " = poptorch.Options()\n";
        // The batch size is written from the original's text (`batch_size=batch_size`): a
        // module constant or a local it names comes with the data code. The flags are main's.
        std::set<std::string> batchReads;
        for (const auto& n : identifiersOf(plan.train.batchSize))
            if (n != plan.argsName && plan.train.batchSize.find("." + n) == std::string::npos)
                batchReads.insert(n);
        DataCode dc = dataCode(plan, slicer, plan.train, rules, ind, batchReads, sc.init.local);
        inMain.insert(inMain.end(), dc.local.begin(), dc.local.end());
        inMain.insert(inMain.end(), loopData.local.begin(), loopData.local.end());
        // Globals the original's `__main__` block set for the classes and functions copied at
        // module level (Slice::globals), for the model's and the data's code: one declaration
        // first in main(), before any of them binds one.
        std::set<std::string> globals = sc.init.globals;
        globals.insert(dc.globals.begin(), dc.globals.end());
        globals.insert(loopData.globals.begin(), loopData.globals.end());
        main.insert(std::string("def main():\n").size(), globalDeclaration(globals, ind));
        if (loopData.ok) {
            moduleStmts.insert(moduleStmts.end(), loopData.module.begin(), loopData.module.end());
            // What main() has built already is not built again: a tensor the loop slices, drawn
            // once, is the one the program was handed.
            std::vector<const Stmt*> own = loopData.local;
            std::erase_if(own, [&](const Stmt* s) {
                return std::find(sc.init.local.begin(), sc.init.local.end(), s) !=
                       sc.init.local.end();
            });
            if (own.size() != loopData.local.size())
                loopData.statements = renderLocal(slicer, own, rules, ind);
            main += loopData.statements;
            main +=
                ind + "# One value of the original's loop per batch: the batch is built from it\n";
            main += ind + "# on the host, as the original's loop body did.\n";
            main += ind + "step_loader = poptorch.DataLoader(\n" + ind2 + opts + ",\n" + ind2 +
                    loopData.dataset + ",\n" + ind2 + "batch_size=1";
            for (const auto& [k, v] : loopData.keywords)
                main += ",\n" + ind2 + k + "=" + v;
            main += ")\n";
        } else if (dc.ok) {
            moduleStmts.insert(moduleStmts.end(), dc.module.begin(), dc.module.end());
            main += dc.statements;
            std::string bs = plan.train.batchSize.empty() ? "1" : plan.train.batchSize;
            // A parameter of the function building the loader, named by the batch size, reads
            // its caller's value.
            if (identifiersOf(bs) == std::set<std::string>{bs})
                bs = renderName(bs, rules, rules.aliasesAt(plan.train.construction.start));
            main += ind + "train_loader = poptorch.DataLoader(\n" + ind2 + opts + ",\n" + ind2 +
                    dc.dataset + ",\n" + ind2 + "batch_size=" + bs;
            for (const auto& [k, v] : dc.keywords)
                main += ",\n" + ind2 + k + "=" + v;
            main += ")\n";
        } else {
            if (!plan.train.isDataLoader && !lp.batchTarget.empty())
                out.manual.push_back(nonLoaderManual(plan));
            main += todo(ind, "the batches come from `" + lp.iterable +
                                  "`: build a poptorch.DataLoader(opts, dataset, batch_size=...)");
            main += ind + "train_loader = " + lp.iterable + "\n";
        }
    }

    // The optimizer trainingModel takes (one), and what PopTorch cannot take.
    void mainOptimizer()
    {
        optimizer = "None";
        int stepped = 0;
        const bool inTurn = plan.loop && !plan.loop->sequence.empty();
        for (const auto& o : plan.optimizers) {
            ++stepped;
            // Several models trained in turn: the one item of severalModelsLeft says it.
            if (stepped > 1 && inTurn) {
                main += todo(ind, "the original also steps `" + o.variable +
                                      "`: PopTorch trains one optimizer per trainingModel");
                continue;
            }
            if (stepped > 1) {
                out.manual.push_back(manualFinding(
                    "a second optimizer (" + o.variable + ", " + o.qualified +
                        "): poptorch.trainingModel takes one; train it with a second trainingModel "
                        "by hand",
                    o.construction, "one trainingModel per optimizer"));
                main += todo(ind, "the original also steps `" + o.variable +
                                      "`: PopTorch trains one optimizer per trainingModel");
                continue;
            }
            if (o.closure) {
                out.manual.push_back(manualFinding(
                    "optimizer step with a closure (" + o.qualified +
                        "): PopTorch has no LBFGS and runs no closure",
                    o.construction, "use poptorch.optim.SGD/Adam/AdamW/RMSprop/LAMB"));
                // The port keeps the construction: the item names its spot in train.py too.
                unsupportedItem = out.manual.size() - 1;
                unsupportedCall = o.qualified.substr(o.qualified.rfind('.') + 1) + "(";
            }
            // trainingModel takes these (torch.optim's or poptorch.optim's); any other is a
            // choice the user makes, so it is a manual item rather than a silent swap.
            static const std::set<std::string> supported{"SGD", "Adam", "AdamW", "RMSprop", "LAMB"};
            const std::string cls = o.qualified.substr(o.qualified.rfind('.') + 1);
            if (!o.synthesized && !o.closure && !supported.count(cls)) {
                // The port keeps the original's optimizer (the guide's check then flags it in
                // train.py, at the spot this item names, so it is one thing left, not two):
                // another optimizer is another training, which only the user can choose.
                out.manual.push_back(manualFinding(
                    "the optimizer `" + o.variable + "` (" + o.qualified +
                        ") is not one poptorch.trainingModel trains with (SGD, Adam, AdamW, "
                        "RMSprop, LAMB): the port keeps it, so it does not run on an IPU until "
                        "it is replaced, and the replacement (and its learning rate) changes "
                        "the training",
                    o.construction, "replace it with the closest poptorch.optim optimizer"));
                unsupportedItem = out.manual.size() - 1;
                unsupportedCall = cls + "(";
                main += todo(ind, "`" + o.variable + "` is " + o.qualified +
                                      ": PopTorch trains with SGD, Adam, AdamW, RMSprop or LAMB");
            }
            if (o.synthesized) {
                // Its gradient clipping, in the optimizer as for a torch one (clipInOptimizer).
                const auto clip = gradientClip(plan, slicer, sc);
                const auto form = clip ? clipForm("poptorch", clip->kind) : std::nullopt;
                std::string clipArg;
                if (form && !form->argument.empty() && form->optimizers.count("torch.optim.SGD")) {
                    clipArg = ", " + form->argument + "=" + render(src, clip->limitNode, rules);
                    clipPlaced = true;
                }
                main += ind + "# The original updates the weights by hand with plain SGD.\n";
                main += ind + "optimizer = poptorch.optim.SGD(" + plan.modelBinding +
                        ".parameters(), lr=" + (o.learningRate.empty() ? "0.1" : o.learningRate) +
                        clipArg + ")\n";
                optimizer = "optimizer";
            } else {
                optimizer = o.variable;
            }
        }
        for (auto& n : dropUntakenBetween(plan, src, sc.between))
            out.notes.push_back(std::move(n));
        if (!sc.between.empty() && !inTurn && !clipPlaced)
            out.manual.push_back(manualFinding(
                "code between backward() and the optimizer step (" +
                    src.text(sc.between.front()->start, sc.between.front()->end) +
                    "): PopTorch runs backward and the step inside the program",
                CodeRef{plan.entry, sc.between.front()->line, sc.between.front()->column,
                        sc.between.front()->start, sc.between.front()->end, ""},
                "gradient clipping: poptorch.optim optimizers take max_grad_norm"));
        for (const auto& s : plan.schedulers)
            if (!s.synthesized.empty())
                main += ind + "# The same schedule as " + s.replaces + ".\n" + ind + s.variable +
                        " = " + s.synthesized + "\n";
            else
                main += ind + "# " + s.variable + " (" + s.qualified +
                        ") is stepped as in the original; call training_model.setOptimizer(" +
                        optimizer + ") after it.\n";
    }

    // trainingModel, the loop over the loader, the schedulers and the evaluation.
    void mainLoop()
    {
        std::string extras;
        for (const auto& a : sc.attributes)
            extras += ", " + a + "=" + a;
        main += ind + "training_model = poptorch.trainingModel(\n" + ind2 + "TrainingModel(" +
                (plan.modelBinding.empty() ? "model" : plan.modelBinding) + extras + "),\n" + ind2 +
                "options=" + opts + ",\n" + ind2 + "optimizer=" + optimizer + ")\n";
        if (!plan.stepNotPlaced.empty() && plan.modelBinding.empty())
            out.stepLeftAt.push_back("TrainingModel(model" + extras + "),");
        validation = poptorchValidation(plan, slicer, rules, inMain, ind, ind2);
        main += validation.setup;
        const auto plateau = poptorchPlateau(plan, src, validation, optimizer, ind, ind2);
        if (plateau) {
            main += plateau->setup;
            out.generatedItems = plateau->placed;
        }
        moduleStmts.insert(moduleStmts.end(), validation.module.begin(), validation.module.end());
        // The original's epoch count (run_values.h): its flag, read from the parser the port
        // keeps, else the number with where it comes from. The original's own range, when it
        // reads only the parser's flags (`range(1, args.n_epochs + 1)`), is kept as written, so
        // the epoch numbers a decay or a reset reads are the original's.
        const RunValue count = trainEpochs(plan, hyperparameters(plan, values));
        const bool byFlag = !count.flag.empty() && !plan.argsName.empty();
        std::string epochs =
            byFlag ? "range(" + plan.flagRead(count.flag) + ")" : "range(" + count.value + ")";
        std::string epochsComment = byFlag ? std::string() : runValueComment(count);
        if (const auto range = epochRange(plan, src)) {
            epochs = *range;
            epochsComment.clear();
        } else if (count.madeUp) {
            out.notes.push_back("the port trains range(" + count.value + ") epochs, " + count.from +
                                " count in train.py");
        }
        std::string args;
        for (std::size_t i = 0; i < params.size(); ++i)
            args += (i ? ", " : "") + params[i];
        // A loader of the loop's values gets its own name: the original's iterable may be called
        // train_loader itself, which the values' lambda reads.
        const std::string loaderName = loopData.ok ? "step_loader" : "train_loader";
        // The batch loop binding `epoch` itself (a loop over epochs that is the batch loop): the
        // pass around it names nothing, so that it does not shadow the step's own.
        const bool shadows = lp.batchTarget == "epoch" || lp.indexName == "epoch";
        // A loop that draws its batches up to a count of steps: passes over the loader until
        // as many steps have run.
        const RunValue bound = boundSteps(plan, hyperparameters(plan, values));
        std::string counter = "steps_done", last;
        for (const auto used = identifiersOf(src.text()); used.count(counter);)
            counter = "port_" + counter;
        if (!bound.value.empty()) {
            last = !bound.flag.empty() && !plan.argsName.empty() ? plan.flagRead(bound.flag)
                                                                 : bound.value;
            if (bound.madeUp)
                out.notes.push_back("the port trains " + bound.value + " steps, " + bound.from);
            main += ind + "# The original draws its batches with next()" +
                    (bound.madeUp ? "; " + bound.value + " steps, " : " for ") + bound.from +
                    ".\n" + ind + counter + " = 0\n" + ind + "while " + counter + " < " + last +
                    ":\n";
        } else {
            main += ind + "for " + (shadows ? "_" : "epoch") + " in " + epochs + ":" +
                    epochsComment + "\n";
        }
        const PopTorchMetricSteps metricSteps = poptorchMetricSteps(
            plan, slicer, stepped, sumAdds, rules, loss,
            validation.ok ? validation.defines : std::set<std::string>{}, optimizer, ind2);
        out.manual.insert(out.manual.end(), metricSteps.manual.begin(), metricSteps.manual.end());
        main += validation.epochStart;
        main += poptorchEpochReset(plan, slicer, sc, rules, ind2);
        main += metricSteps.epochStart;
        if (lp.indexName.empty())
            main += ind2 + "for " + (lp.batchTarget.empty() ? "_" : lp.batchTarget) + " in " +
                    loaderName + ":\n";
        else
            main += ind2 + "for " + lp.indexName + ", " + lp.batchTarget + " in enumerate(" +
                    loaderName + "):\n";
        // The host's statements read a step function's parameters as the call's arguments
        // (`x = Variable(x_val)` for `train(..., trX[start:end], ...)`), main()'s own names.
        RenderRules hostRules = rules;
        for (const auto& [param, arg] : lp.stepArguments)
            if (std::any_of(host.begin(), host.end(),
                            [&](const Stmt* s) { return s->uses.count(param) > 0; }))
                hostRules.rename[param] = asOperand(arg);
        main += renderLocal(slicer, host, hostRules, ind3);
        std::string state;
        for (const auto& c : carried)
            state += ", " + c;
        main += ind3 + loss + state + " = training_model(" + args + ")\n";
        if (!last.empty())
            main += ind3 + counter + " += 1\n" + ind3 + "if " + counter + " == " + last + ":\n" +
                    ind3 + "    break\n";
        main += metricSteps.afterCall;
        for (const auto& s : plan.schedulers)
            if (std::none_of(stepped.begin(), stepped.end(),
                             [&](const MetricStep& m) { return m.scheduler == &s; }))
                main += (s.perBatch ? ind3 : ind2) + s.variable + ".step()\n" +
                        (s.perBatch ? ind3 : ind2) + "training_model.setOptimizer(" + optimizer +
                        ")\n";
        main += metricSteps.epochEnd;
        main += validation.pass + metricSteps.validated;
        if (plateau)
            main += plateau->step;
        if (validation.ok)
            main += poptorchValidationEnd(ind2);
        if (!validation.ok)
            main += ind + "training_model.detachFromDevice()\n";
        // An evaluation the port does not run (not after each training pass): named.
        if (plan.evaluation && !validation.ok)
            for (const auto& m : plan.evaluation->metrics)
                out.notes.push_back("evaluation metric `" + m + "` of " +
                                    plan.evaluation->loop.where() + " is not carried over");
        const PopTorchSaves saves = poptorchSaves(plan, slicer, rules, inMain, ind);
        main += saves.code;
        out.keptSaves = saves.placed;
    }

    // A function or class the port copies at module level that reads one of the original's
    // module globals which main() now builds (a helper evaluating the model every few steps,
    // the model a global of the script): main() declares it global, so the copy reads main()'s.
    void declareModuleGlobals()
    {
        std::set<std::string> read, atModule, builtInMain;
        for (const Stmt* s : moduleStmts) {
            atModule.insert(s->defines.begin(), s->defines.end());
            if (s->type == "function_definition" || s->type == "decorated_definition" ||
                s->type == "class_definition")
                read.insert(s->uses.begin(), s->uses.end());
        }
        for (const Stmt* s : inMain)
            if (src.chainAt(s->start, s->end).size() == 1)
                builtInMain.insert(s->defines.begin(), s->defines.end());
        std::set<std::string> names;
        for (const auto& n : read)
            if (builtInMain.count(n) && !atModule.count(n))
                names.insert(n);
        if (!names.empty())
            main.insert(std::string("def main():\n").size(), globalDeclaration(names, ind));
    }

    // train.py: the module level main() and the wrapper need, then both.
    void trainPy()
    {
        if (argparseAtModule)
            moduleStmts.insert(moduleStmts.end(), argparse.begin(), argparse.end());
        std::sort(moduleStmts.begin(), moduleStmts.end(),
                  [](const Stmt* a, const Stmt* b) { return a->start < b->start; });
        moduleStmts.erase(std::unique(moduleStmts.begin(), moduleStmts.end()), moduleStmts.end());
        declareModuleGlobals();
        // A seed left at module level (placeSeeds) on a flag that may be None keeps the guard
        // main() gives such a seed.
        for (const Stmt* s : moduleStmts)
            if (!noneSeedFlag(plan, slicer, {}, *s).empty()) {
                std::string guarded = renderGuardingSeeds(plan, slicer, {}, {s}, {}, "");
                while (!guarded.empty() && guarded.back() == '\n')
                    guarded.pop_back();
                definitionEdits[{ts_node_start_byte(s->node), ts_node_end_byte(s->node)}] = guarded;
            }
        RenderRules moduleRules;
        moduleRules.deviceNames = plan.deviceNames;
        moduleRules.replace = definitionEdits;
        std::string module = slicer.moduleText(moduleStmts, moduleRules, true);
        std::string rest = module;
        const std::string futures = splitFutures(rest);
        std::string text;
        text += "\"\"\"PopTorch port generated by Portolan from " + plan.entry +
                ".\n\nThe model, loss and data code are the original's; the loss is computed "
                "inside forward\n(TrainingModel), and PopTorch runs backward and the optimizer "
                "step.\n\"\"\"\n";
        text += futures + "import torch\nimport poptorch\n" +
                withoutTargetImports(rest, "import torch\nimport poptorch\n");
        if (loopData.ok)
            text += "import itertools\n" + loopValuesHelpers();
        text += "\n\n" + wrapper + "\n\n" + main + "\n\nif __name__ == \"__main__\":\n    main()\n";
        out.files.push_back(GeneratedFile{trainPath(plan), plan.entry, text});
        // Where the kept optimizer is built in train.py: the manual item names that spot too.
        if (unsupportedItem < out.manual.size()) {
            int line = 1;
            for (std::size_t at = 0; at < text.size();) {
                const auto eol = std::min(text.find('\n', at), text.size());
                const std::string l = text.substr(at, eol - at);
                const auto call = l.find(unsupportedCall);
                const auto hash = l.find('#');
                if (call != std::string::npos && (hash == std::string::npos || hash > call)) {
                    out.manual[unsupportedItem].related.push_back(
                        SourceLocation{trainPath(plan), line, int(call) + 1});
                    break;
                }
                at = eol + 1;
                ++line;
            }
        }
    }

    std::string opts = "opts"; // the poptorch.Options variable
    std::size_t unsupportedItem = std::size_t(-1);
    std::string unsupportedCall;
};

} // namespace

Result<PortResult> generatePopTorch(const PortPlan& plan,
                                    const std::map<std::string, std::string>& values)
{
    if (!plan.loop) {
        Diagnostic d;
        d.code = "port.no-loop";
        d.message = "nothing to port: no training loop";
        return Result<PortResult>::fail(d);
    }
    PopTorchPort port(plan, values);
    port.stepAndFlags();
    port.wrapperClass();
    port.mainData();
    port.mainOptimizer();
    port.mainLoop();
    port.trainPy();
    noteScalingDropped(plan, "poptorch", port.out);
    copyOtherFiles(plan, port.out);
    port.out.entry = trainPath(plan);
    return Result<PortResult>::ok(std::move(port.out));
}

} // namespace portolan::port::detail
