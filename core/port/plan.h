#pragma once

// The port plan (issue 24): from the resolved index of an original PyTorch project, which code is
// the model, the loss, the optimizers and schedulers, the data, the training loop, the flags,
// and what is left over, each with its source location. Plain structs: the user (GUI, options)
// can change any choice before generation.

#include "core/analysis/analysis.h"
#include "core/analysis/facts.h"
#include "core/common/diagnostic.h"
#include "core/guides/finding.h"
#include "core/guides/fixes/params_from_argparse.h"
#include "core/port/data_files.h"
#include "core/port/source.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace portolan::port {

// A piece of the original: file, position and the source text.
struct CodeRef
{
    std::string file; // relative to the project root
    int line = 0;
    int column = 0;
    std::uint32_t start = 0;
    std::uint32_t end = 0;
    std::string text;
    bool valid() const { return !file.empty(); }
    std::string where() const { return file + ":" + std::to_string(line); }
};

struct PlanItem
{
    std::string kind; // "model", "loss", "optimizer", ..., "leftover", "device-move"
    std::string name; // the variable or construct
    CodeRef at;
    std::string note;
};

struct OptimizerPlan
{
    std::string variable;     // "optimizer"
    std::string qualified;    // "torch.optim.Adam"
    CodeRef construction;     // the call expression
    CodeRef statement;        // the statement that builds it (may be an if around it)
    bool closure = false;     // .step(closure) (LBFGS)
    bool synthesized = false; // made from a hand-written SGD update (no optimizer in the code)
    std::string learningRate; // synthesized: the rate expression
    std::string rateName;     // synthesized: the name the update reads (`lr`) when it holds a flag
    std::string chosenBy;     // the step is one branch of a flag: "--flag is False (the default)"
    // Built and returned by a function or a method of the script (`tuner = make_tuner(net, lr)`,
    // `opt = model.configure_optimizers(cfg)`): `construction` is the optimizer's call inside
    // that factory, `madeBy` the call that binds `variable` (where the port builds it, its
    // statement `statement`), `trains` the model whose parameters it takes, as the caller names
    // it. Not valid for an optimizer the script builds where it binds it.
    CodeRef madeBy;
    std::string trains;
    // Where the optimizer is bound: the factory's call, else the construction.
    const CodeRef& binding() const { return madeBy.valid() ? madeBy : construction; }
    // Does it take the parameters of `model` (as the loop names it)?
    bool takesParametersOf(const std::string& model) const
    {
        return !model.empty() &&
               (madeBy.valid()
                    ? trains == model
                    : construction.text.find(model + ".parameters()") != std::string::npos);
    }
};

struct SchedulerPlan
{
    std::string variable;
    std::string qualified; // "torch.optim.lr_scheduler.StepLR"
    CodeRef construction;
    bool perBatch = false; // stepped inside the batch loop (else once per epoch)
    // Made by the plan for a rate the original changes by hand (plan_lr.cpp), not in the code:
    // the construction as Python text (construction is then the code it replaces), its StepLR
    // arguments (gamma as a number) and what it replaces, for the port's comment.
    std::string synthesized;
    std::string stepSize;
    std::string gamma;
    std::string replaces;
    // A decay that holds `offset` epochs off StepLR's (after n epochs it has held
    // (n + offset) // stepSize times): a LambdaLR, not a StepLR.
    long offset = 0;
    // Its epoch loop `range(epochsStart, epochsEnd)` (epochsEnd as written): the epochs it
    // decays after are known when epochsEnd has a value (a Cerebras schedule in steps).
    long epochsStart = 0;
    std::string epochsEnd;
};

// A rate divided when a compared metric did not improve (`if not best or val_loss < best:
// best = val_loss else: lr /= 4.0`): ReduceLROnPlateau(mode="min", factor, patience=0,
// threshold=0, threshold_mode="abs") stepped with the metric (plateau_plan.cpp says when that is
// the same rule). Each is also a manual item, which a target that generates it drops.
struct PlateauPlan
{
    CodeRef decay;      // `lr /= 4.0`
    CodeRef branch;     // the `if` holding it
    std::string rate;   // `lr`
    std::string metric; // `val_loss`
    std::string factor; // `1 / 4.0`
};

struct DataPlan
{
    std::string variable;                                      // "train_loader"
    CodeRef construction;                                      // DataLoader(...) call
    CodeRef dataset;                                           // its first argument
    std::string batchSize;                                     // the batch_size argument as written
    std::vector<std::pair<std::string, std::string>> keywords; // other keyword args, as written
    bool isDataLoader = false; // a torch DataLoader (else some other iterable)
    // `dataset` is a project function's call that builds the loader with a data set of its own
    // (`make_loader(args, "train")`): the data set is that loader's `.dataset`.
    bool datasetOfLoader = false;
    // `bar = tqdm(splits.train, desc=...)`, `for x, y in bar`: the iterable the progress bar
    // wraps when it is not a name, which the port's loader gives the values of.
    CodeRef progressOf;
    // What the original's dry run observed (runOriginal), 0 when it did not run: the samples of
    // the data set of its first step, and whether that data was made up by the dry run.
    long observedSamples = 0;
    bool observedSynthetic = false;
};

// One statement of a training step that trains several models in turn (a GAN: several
// backward() calls and optimizers per batch), in the user's order.
struct StepAction
{
    enum class Kind
    {
        Statement, // the user's code, moved verbatim
        Backward,  // `loss.backward(...)`
        Step,      // `optimizer.step()`
        ZeroGrad,  // `model.zero_grad()` / `optimizer.zero_grad()`
    };
    Kind kind = Kind::Statement;
    CodeRef at;
    std::string target;    // the loss, the optimizer, or the zero_grad's receiver
    std::string arguments; // backward's arguments as written ("retain_graph=True"), "" when none
    // ZeroGrad: the gradients it clears may hold a later backward's leftovers (Determined zeroes
    // an optimizer's gradients only right after stepping it), so the port keeps the call.
    bool keep = false;
};

// A model of a step with several: the variable, and the optimizer that trains its parameters.
struct ModelPlan
{
    std::string variable;  // "generator"
    std::string optimizer; // "opt_g", "" when no optimizer takes its parameters
};

struct LoopPlan
{
    CodeRef loop;                        // the `for` over batches
    int bodyLine = 0;                    // the line of the loop body's first statement
    CodeRef epochLoop;                   // the loop around it (or around the call of its function)
    std::string function;                // the function holding the batch loop ("" at module level)
    std::string batchTarget;             // "(data, target)" as written
    std::vector<std::string> batchNames; // {"data", "target"}
    std::string indexName;               // enumerate's index ("batch_idx"), "" when none
    std::string iterable;                // what is iterated ("train_loader")
    // A `while` loop drawing its batches with next() (plan_while.cpp): the statement that draws
    // (`x, y = next(it)`, or the `try` around it), and the steps the loop runs as written
    // (`args.max_steps`), "" when its bound is not a step count.
    CodeRef draw;
    std::string stepBound;
    // `while True:` that nothing in it leaves (no break, return or exit): the original trains
    // until it is stopped, and the port's count of steps is made up (run_values.cpp).
    bool untilStopped = false;
    std::string lossName; // the variable .backward() is called on
    CodeRef backward;     // loss.backward()
    // The loss when .backward() is called on an expression rather than a name
    // (`criterion(out, y).backward()`, `(a + b).backward()`): the expression as written, which
    // the port binds to `loss` where the original called backward (lossName is then empty).
    CodeRef unnamedLoss;
    std::vector<CodeRef> steps; // optimizer.step() calls
    std::vector<CodeRef> zeroGrads;
    std::vector<CodeRef> forward; // statements from the start of the body to backward
    std::vector<CodeRef> betweenBackwardAndStep; // gradient clipping, ...
    std::vector<CodeRef> afterStep;              // logging, accumulation of metrics: left over
    std::vector<CodeRef> modeSwitches;           // model.train() / model.eval()
    // A step function called with other names than its parameters (`step(gcn, opt, x)` for
    // `def step(model, optimizer, inputs)`): parameter -> the caller's argument text.
    std::map<std::string, std::string> stepArguments;
    // The loop's function called with the caller's names for its parameters, or leaving them at
    // a default (`train(model, loader)` for `def train(net, data, lr=0.01)`), the same by every
    // call: parameter -> the name or the default. The slicer builds the caller's value and the
    // port reads it in the function's code (RenderRules::aliases); they are stepArguments too.
    std::map<std::string, std::string> callerArguments;
    // The same for the functions above it that build what it is handed (`def run(bs, lr)`
    // building the loader and optimizer, then calling `one_epoch(loader, net, opt)`, itself
    // called as `run(**vars(args))` or `run(loader, scorer)`): function -> parameter -> what
    // every call of that function gives it.
    std::map<std::string, std::map<std::string, std::string>> outerArguments;
    // A step function called with values the loop body draws (`fit(*draw())`, `pair = draw();
    // fit(*pair)`, `a, b = draw(); fit(a, b)`): the body's statements that draw them, which the
    // port runs at the start of each step as the original did before the call (drawn_inputs.cpp).
    // For a call that spreads one value into the parameters (`*draw()`), spreadCall is the
    // statement of the call, spreadValue the value spread and spreadInto the parameters it fills:
    // the port binds them (`sample, label = draw()`) where the call was.
    std::vector<CodeRef> drawnInputs;
    CodeRef spreadCall;
    CodeRef spreadValue;
    std::vector<std::string> spreadInto;
    // The loop in a method of a class the script instantiates (a trainer class): attribute x of
    // `self.x`, stored by the constructor from a parameter -> the instantiation's argument text.
    std::map<std::string, std::string> selfArguments;
    CodeRef instance; // the instantiation `Trainer(args, model, ...)`
    // The loop's function (or its caller) started in other processes by the entry
    // (`mp.Process(target=train, args=(rank, model, 10))`, `mp.spawn(train, ...)`): the launch, a
    // caller of the function as a call is (the slicer looks the parameters it hands over up there);
    // launchArguments its parameter -> argument text (the process index is the port's one process,
    // 0).
    CodeRef launch;
    std::string launched; // the function it starts: the loop's, or one that calls it
    std::map<std::string, std::string> launchArguments;
    // The attributes the trainer class's constructor builds itself (`self.model = Net()`,
    // `self.loader = DataLoader(...)`): each is a name of the constructor's scope, which the
    // slicer reads as a caller of the loop's method (trainer_class.cpp). selfInit is that
    // constructor; initValues its parameters' values: the instantiation's argument when it is a
    // literal or a flag, else the default.
    std::set<std::string> selfBuilt;
    CodeRef selfInit;
    std::map<std::string, std::string> initValues;
    // `self.opt = self.configure_optimizers()` in that constructor, for a method of the class that
    // only returns an expression: the call -> the expression, which the port writes in its place.
    std::vector<std::pair<CodeRef, CodeRef>> initCalls;
    int backwardCount = 0;
    // Several backward() calls per batch, each a statement of the loop body: the whole step in
    // order (plan_multi.cpp). Empty for a step with one backward.
    std::vector<StepAction> sequence;
};

// Mixed precision with torch's GradScaler (`scaler.scale(loss).backward()`, `scaler.step(opt)`,
// `scaler.update()`): the loss the target gets is the unscaled one (LoopPlan's lossName or
// unnamedLoss), and each target writes the scaling in its own form from what is kept here.
struct LossScaling
{
    std::string scaler;            // the scaler's name ("scaler")
    std::string constructor;       // the class as resolved ("torch.cuda.amp.GradScaler")
    CodeRef construction;          // the call `torch.cuda.amp.GradScaler(...)`, as written
    CodeRef scaled;                // `scaler.scale(loss)`
    std::vector<CodeRef> unscales; // `scaler.unscale_(opt)` statements (before clipping)
    std::vector<CodeRef> updates;  // `scaler.update()` statements
    // The constructor's keywords as written (init_scale, growth_interval, enabled, ...).
    std::map<std::string, std::string> keywords;
    // Whether the scaler is enabled in the run the original makes: its `enabled=` (a literal or
    // a flag's value on the original's command line); nullopt when not known. `enabledSaid`
    // says how it was decided.
    std::optional<bool> enabled = true;
    std::string enabledSaid;
};

struct EvalPlan
{
    CodeRef loop;
    std::string function;
    std::string iterable;
    std::string batchTarget;
    std::vector<std::string> batchNames;
    std::vector<CodeRef> body;        // the statements of the evaluation loop body
    std::vector<std::string> metrics; // names accumulated (test_loss, correct)
};

// One of several trainings the original runs one after another (plan_trainings.cpp).
struct TrainingPlan
{
    CodeRef loop;            // its batch loop
    std::string model;       // the model it trains, as its scope names it
    bool superseded = false; // the model is built anew before anything reads what it learned
    bool chosen = false;     // the one the port ports
};

struct PortOptions
{
    std::string modelClass; // the user's choice of the model class ("" = planned)
    std::string modelVariable;
    std::string lossExpression; // replaces the planned loss expression (Python text)
    std::string entry;          // the training script ("" = planned)
    // Of several trainings, the one to port: its batch loop's line ("42" or "train.py:42"),
    // "" = planned (PortPlan::trainings).
    std::string training;
    // The command line the original runs with (option -> value as written after `--`): a step
    // chosen by a flag follows the branch these values select.
    std::map<std::string, std::string> values;
};

struct PortPlan
{
    std::filesystem::path root;
    std::string entry;    // the training script (relative)
    std::string argsName; // "args" / "opt": the argparse namespace, "" when none
    // The namespace is a dict (`args = vars(parser.parse_args())`): a flag reads `args["lr"]`.
    bool argsDict = false;
    // How the original's code reads the flag `dest` off the namespace.
    std::string flagRead(const std::string& dest) const
    {
        return argsDict ? argsName + "[\"" + dest + "\"]" : argsName + "." + dest;
    }
    // The flag `text` reads off the namespace as a whole (`args.lr`, or `args["lr"]` for a
    // dict), "" when it is not one such read.
    std::string flagDest(const std::string& text) const
    {
        if (argsName.empty() || !text.starts_with(argsName) || text.size() <= argsName.size() + 1)
            return {};
        std::string dest;
        if (!argsDict && text[argsName.size()] == '.')
            dest = text.substr(argsName.size() + 1);
        for (const char* quote : {"[\"", "['"})
            if (argsDict && text.compare(argsName.size(), 2, quote) == 0 &&
                text.size() > argsName.size() + 4 && text.ends_with(std::string(1, quote[1]) + "]"))
                dest = text.substr(argsName.size() + 2, text.size() - argsName.size() - 4);
        const bool word = !dest.empty() && std::all_of(dest.begin(), dest.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
        return word ? dest : std::string();
    }
    // model
    std::string modelVariable;
    std::string modelClass; // the class the construction instantiates (or a factory)
    std::string modelClassFile;
    CodeRef modelConstruction;           // the expression, device moves stripped when rendered
    CodeRef modelStatement;              // the statement holding it
    std::vector<std::string> modelFlags; // flags the construction reads
    bool modelFromFactory = false;
    // loss
    std::string criterionVariable;
    CodeRef criterion;                    // nn.CrossEntropyLoss() construction
    CodeRef lossExpression;               // the value of `loss = ...` in the loop
    std::vector<std::string> lossHelpers; // project functions the loss calls
    std::vector<OptimizerPlan> optimizers;
    std::vector<SchedulerPlan> schedulers;
    // A step with several models (loop->sequence not empty): every model an optimizer trains, in
    // the order of the optimizers. modelVariable is the first of them.
    std::vector<ModelPlan> models;
    DataPlan train;
    DataPlan eval;
    std::optional<LoopPlan> loop;
    std::optional<EvalPlan> evaluation;
    std::vector<analysis::CliFlag> flags;
    // The params-from-argparse fix's plans (keys, sections, YAML values of the defaults).
    std::optional<guides::ParamsPlan> paramsDetermined;
    std::optional<guides::ParamsPlan> paramsCerebras;
    std::string modelBinding; // the name the construction assigns (may differ from the loop's)
    std::set<std::string> deviceNames; // "device", "use_cuda"
    std::vector<PlanItem> deviceMoves;
    std::vector<PlanItem> leftovers;
    // What the plan could not place: each becomes a port.manual finding.
    std::vector<guides::Finding> manual;
    std::vector<PlateauPlan> plateaus;
    std::optional<LossScaling> lossScaling;
    // Why the training step itself is the user's to write (several backward() calls, layer-local
    // optimizers), "" when the port places it. Such a step's own names (its locals, its
    // function's parameters) are then named by that one item, not each as untraced.
    std::string stepNotPlaced;
    // The training function is started by a launch (a process, a thread, a pool) whose handed
    // values the port does not build: the one item at the launch names them, not each again.
    bool handedOver = false;
    std::vector<std::string> notes;
    // Several trainings run one after another, in run order (empty for one), and where the
    // chosen one's part of the original's run begins when others run before it: the original's
    // dry run counts the steps from there (PortResult::originalTrainingFrom).
    std::vector<TrainingPlan> trainings;
    CodeRef trainingFrom;
    // The training started from another module (caller_view.h): the file that starts it, which
    // the original's dry run runs (the module may have a main block of its own); "" otherwise.
    std::string launcher;
    // Data files the original reads by a literal path (data_files.h): copied or noted.
    std::vector<DataFileRead> dataFiles;
    // The original's command line (PortOptions::values): the branches a run takes follow it.
    std::map<std::string, std::string> commandLine;

    // The parsed sources (statement level), by relative path.
    std::map<std::string, std::shared_ptr<SourceFile>> sources;
    const SourceFile* source(const std::string& path) const;
    const analysis::CliFlag* flag(const std::string& dest) const;
};

// The plan for an original project. Fails when the project has no training loop to port (no
// backward() anywhere).
Result<PortPlan> planPort(const analysis::ProjectAnalysis& analysis,
                          const PortOptions& options = {});

// A manual item: "port.manual" finding at a place.
guides::Finding manualFinding(const std::string& message, const CodeRef& at,
                              const std::string& hint = {});

} // namespace portolan::port
