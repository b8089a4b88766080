#pragma once
// Shared by the generators (not a public header).

#include "core/port/generate.h"
#include "core/port/static_branch.h"

#include <set>

namespace portolan::port::detail {

// Statements of the original gathered for a piece of generated code.
struct Slice
{
    std::vector<const Stmt*> module; // entry's module level: definitions, constants (in order)
    std::vector<const Stmt*> local;  // statements to run inside the generated function (in order)
    std::set<std::string> localDefines; // names the local statements bind
    std::set<std::string> unresolved;   // names found nowhere
    std::vector<const Stmt*> argsUsers; // module definitions that read the flags namespace
    // Module globals of the original that code copied at module level reads (a model class
    // reading `width` set under `if __name__ == "__main__":`), bound by `local` statements: the
    // generated function declares them `global` so the copied code sees them.
    std::set<std::string> globals;
};

class Slicer
{
public:
    explicit Slicer(const PortPlan& plan);

    // Gathers what `names` need, as seen from the batch loop's function. Names in `exclude` are
    // provided by the generated code itself.
    // Names in `forceLocal` are built inside the generated function even when the original builds
    // them at module level (the model, the optimizers: the target constructs them).
    // `at` (a position in the entry, 0: the batch loop) is where the names are read: a position
    // in a caller of the loop's function starts the lookup there.
    Slice slice(std::set<std::string> names, const std::set<std::string>& exclude,
                const std::set<std::string>& forceLocal = {}, std::uint32_t at = 0) const;
    // Module-level statements (imports first) the generated file needs: every import of the entry
    // but argparse's, plus `slice.module`.
    std::string moduleText(const std::vector<const Stmt*>& extra, const RenderRules& rules,
                           bool keepArgparse = false) const;
    const SourceFile& source() const { return *m_src; }
    const PortPlan& plan() const { return m_plan; }
    const Stmt* loopFunction() const { return m_function; }
    // The loop's function's code reads each parameter its callers give under their name (or
    // leave at a default) as that (LoopPlan::callerArguments): the rules every target's code
    // from the original starts from.
    void aliasCallerArguments(RenderRules& rules) const;
    // The parameter aliases of a slice scope's function (0: the loop's, k > 0: the k-th
    // caller's): LoopPlan::callerArguments or outerArguments; null: none.
    const std::map<std::string, std::string>* aliasesOf(int scope) const;
    // The flags namespace is a module global of the port (PopTorch keeps the script's argparse
    // at module level): module statements that read it can stay at module level.
    bool argsGlobal = false;
    // The statements of a CodeRef list, as statements of the source.
    std::vector<const Stmt*> statements(const std::vector<CodeRef>& refs) const;
    const Stmt* statementAt(const CodeRef& ref) const;
    // The statement of a caller that calls the loop's function with configuration dicts
    // (Caller::bound) written as the bindings of those parameters (`knobs = KNOBS`), with
    // `rules` applied to the arguments; `rules` as they are for any other statement.
    RenderRules bindingRules(const Stmt& s, RenderRules rules) const;
    // The names statement `s` binds as the port writes it: its own, or for a call written as
    // the bindings of what it gives (bindingRules), those.
    std::set<std::string> bindsOf(const Stmt& s) const;
    // The statements that draw the step's inputs in the loop body (LoopPlan::drawnInputs) and,
    // for a call that spreads a value into the step function's parameters, the call's statement
    // read as the binding of those parameters from the value: the start of the step, in the
    // order the original ran them (drawn_inputs.cpp).
    std::vector<const Stmt*> drawnInputs() const;
    // The rules that write that binding (`sample, label = draw()`) for the call's statement;
    // `rules` as they are for any other statement.
    RenderRules spreadRules(const Stmt& s, RenderRules rules) const;
    // Free names of statements (uses minus what they define themselves).
    std::set<std::string> freeNames(const std::vector<const Stmt*>& stmts) const;
    std::string parserName() const { return m_parser; }
    std::vector<const Stmt*> argparseStatements() const;
    bool setsFlagFromFlags(const Stmt& s) const;
    // The seeding calls (torch.manual_seed(...), random.seed(...)) of the loop's scope before
    // the loop.
    std::vector<const Stmt*> seedStatements() const;
    // Sorts statements of the loop's scopes in the order they run (a launch's first).
    void inRunOrder(std::vector<const Stmt*>& stmts) const;
    // The batch loop runs at module level (not in a function nor under `if __name__`).
    bool loopAtModule() const { return !m_function && !m_mainBlock; }
    // `s` changes the object bound to `name` in place: a method of it or of a part called, a
    // part assigned, a loop editing what it yields (slicer_edits.cpp).
    bool editsInPlace(const Stmt& s, const std::string& name) const;

private:
    const Stmt* definer(const std::vector<Stmt>& scope, const std::string& name,
                        std::uint32_t before) const;
    bool excluded(const Stmt& s) const;
    bool isMainBlock(const Stmt& s) const; // `if __name__ == "__main__":`
    bool isDeviceBranch(const Stmt& s) const;
    const Stmt* branchDefiner(const Stmt& s, const std::string& name) const;
    // slice()'s phases: where a name is bound, and taking that statement with what it needs.
    struct Found
    {
        const Stmt* stmt = nullptr;
        bool isLocal = false;
        int scope = -1;
        bool global = false; // a module global bound in the `__main__` block
    };
    // The lookup scope of the free names of a definition copied at module level: the module,
    // then the `if __name__ == "__main__":` block, whose assignments bind module globals too.
    static constexpr int kModuleGlobal = -2;
    struct SliceWork
    {
        std::set<const Stmt*> local, module;
        std::vector<std::pair<std::string, int>> work; // names to look up, in a scope
    };
    Found findDefiner(const std::string& name, int scope,
                      const std::set<std::string>& forceLocal) const;
    void take(const Found& f, const std::string& name, const std::set<std::string>& forceLocal,
              SliceWork& w) const;
    std::shared_ptr<const StaticBranches> m_branches;

    const PortPlan& m_plan;
    const SourceFile* m_src = nullptr;
    const Stmt* m_function = nullptr;  // the function holding the batch loop
    const Stmt* m_mainBlock = nullptr; // or the `if __name__ == "__main__":` block holding it
    const Stmt* m_guard = nullptr;     // the module's `if __name__ == "__main__":` block
    // The names the entry's functions read that no function around the read binds (parameters
    // and locals are not), by where they are read: what a definition reads as a module global.
    std::vector<std::pair<std::uint32_t, std::string>> m_globalReads;
    std::set<std::string> globalReads(const Stmt& def) const;
    // Where the module-level code runs the training (moduleTrainingStart(), 0: unknown).
    std::uint32_t m_trainingStart = 0;
    // Where the batch loop's function is called with a parameter passed under its own name
    // (`train(args, model, device, train_loader, optimizer, epoch)` in main()): the name's
    // definition is looked up in the caller, before the call.
    struct Caller
    {
        const Stmt* function = nullptr; // the calling function (nullptr: module level)
        std::uint32_t call = 0;         // the call's position
        std::set<std::string> passed;   // parameters given a same-named argument
        int of = 0; // 0: calls the loop's function; k > 0: the k-th caller's function
        // Parameters given a configuration dict under another name or inline (`run(SHAPE,
        // {"rate": 0.01})` for `def run(shape, knobs)`): parameter -> the argument's span. The
        // port binds them where the call was (bindingRules), the statement holding the call.
        std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> bound;
        const Stmt* statement = nullptr;
    };
    std::vector<Caller> m_callers;
    std::size_t m_calls = 0; // the first m_calls callers call the loop's function as written
    void findCallers();
    void bindConfigDicts(Caller& c, TSNode args, const std::vector<std::string>& params,
                         const std::string& keywords) const;
    const Caller* binder(const Stmt& s) const;
    // A trainer class's constructor that builds attributes (trainer_class.cpp): a caller of
    // the loop's method, whose parameters the instantiation's values give.
    void addConstructorCaller();
    bool constructorValue(const std::string& name, int scope) const;
    void constructorSeeds(std::vector<const Stmt*>& out) const;
    int m_constructorScope = 0;
    int m_instanceScope = 0; // the caller making the trainer class's instance (LoopPlan::instance)
    void findRebound();
    std::vector<const Stmt*> mutators(const Stmt& definer, const std::string& name) const;
    bool holdsLoop(const Stmt& s) const
    {
        return m_plan.loop && s.start <= m_loopStart && m_loopStart < s.end;
    }
    std::vector<const Stmt*> fillers(const std::vector<Stmt>& scope, const Stmt& definer,
                                     const std::string& name, std::uint32_t before) const;
    bool fillsInPlace(TSNode node, const std::string& name) const;
    const std::vector<Stmt>* scopeBody(int scope) const;
    std::uint32_t runsAt(int scope) const;
    std::uint32_t moduleRunsAt() const;
    void moveReaders(std::set<const Stmt*>& local, std::set<const Stmt*>& module,
                     const std::set<std::string>& forceLocal) const;
    std::set<std::string> m_rebound; // builtin names the script binds itself
    std::uint32_t m_loopStart = 0;
    // The call's statement that spreads a value into the step's parameters, as the statement
    // binding them: it reads the value and defines the parameters (LoopPlan::spreadCall).
    std::shared_ptr<Stmt> m_spread;
    std::string m_parser;
};

// `args.x` -> how the target reads hyperparameter x, and the hyperparameters it needs.
struct Hyper
{
    std::string key;   // the key in the config
    std::string value; // YAML text
    std::string comment;
    std::string type; // Python annotation for typed configs
};
std::map<std::string, Hyper> hyperparameters(const PortPlan& plan,
                                             const std::map<std::string, std::string>& values);

std::string header(const PortPlan& plan, const std::string& what);
std::string todo(const std::string& indent, const std::string& what);
bool isBuiltin(const std::string& name);
std::string indentText(const std::string& text, const std::string& indent);
// Takes the `from __future__` lines out of `module` (they must stay first in the port's file)
// and returns them.
std::string splitFutures(std::string& module);
// The Python files of the original other than the entry, copied verbatim.
void copyOtherFiles(const PortPlan& plan, PortResult& out, const std::set<std::string>& skip = {});
// The text of the loss expression ("loss" variable) after the forward statements.
std::string lossName(const PortPlan& plan);

// The training step's code and what it needs, for a target that runs it in a class.
struct StepCode
{
    std::vector<const Stmt*> forward; // batch -> loss
    std::vector<const Stmt*> between; // after backward, before the step (gradient clipping)
    std::set<std::string> bodyFree;   // names the step reads from outside
    Slice init;                       // what builds the model, optimizers, criterion, ...
    std::map<std::string, std::string> rename; // in the step: name -> "self.name"
    std::vector<std::string> attributes;       // locals of init the step reads (self.x = x)
    std::set<std::string> batchNames;
    // A trainer class's `self.x` the step reads -> the instantiation's argument text.
    std::map<std::string, std::string> selfBound;
};
// Binds the step's `self.x` (a trainer class's attributes) to the instantiation's arguments,
// read as `rules` reads names: call after `rules.rename` is complete.
void bindSelfAttributes(RenderRules& rules, const StepCode& sc);
// A port.manual item for each name the step or the construction needs that the slicer could not
// trace to a definition it can move (a local of another function, for example).
void addUntraced(const PortPlan& plan, const StepCode& sc, PortResult& out);
// The names the step reads before it binds them (a hidden state passed through the model each
// step): state carried from batch to batch, which the port keeps between its steps.
std::set<std::string> carriedState(const Slicer& slicer, const StepCode& sc);
// The start of the first module-level statement that runs the training through a call that
// reaches the loop's function (`for t in range(n): train(...)`, `main()`), 0 when there is none.
std::uint32_t moduleTrainingStart(const SourceFile& src, const Stmt* loopFunction);
// The port's module-level text (`module`) without the imports the target's `header` makes: a line
// the header has, and a name the header imports from another module that no other code of
// `module` reads (the original's torch DataLoader would shadow Determined's in the trial).
std::string withoutTargetImports(const std::string& module, const std::string& header);
// The names statements read before they bind them, in order and into their blocks (an
// assignment's target is bound, not read): what they read from outside. The one rule of both
// the step's free names and its carried state.
std::set<std::string> readBeforeBound(const SourceFile& src, const std::vector<const Stmt*>& stmts);
StepCode stepCode(const PortPlan& plan, const Slicer& slicer, bool withOptimizers,
                  bool argsGlobal = false);

// The flag a seeding call of the original reads when that flag defaults to None and the
// command line (`values`) does not set it: `torch.manual_seed(args.seed)` with --seed unset.
// "" otherwise.
std::string noneSeedFlag(const PortPlan& plan, const Slicer& slicer,
                         const std::map<std::string, std::string>& values, const Stmt& s);
// renderLocal, with each such seeding call guarded by `if <the flag> is not None:` (the one
// rule of every target: the port never calls torch.manual_seed(None)).
std::string renderGuardingSeeds(const PortPlan& plan, const Slicer& slicer,
                                const std::map<std::string, std::string>& values,
                                const std::vector<const Stmt*>& stmts, const RenderRules& rules,
                                const std::string& indent);
// Renders `stmts` (in the slicer's source, from any scope) with their preceding comments.
// The rules for a statement of a trainer class's constructor that builds attributes: `self.x`
// as the constructor's name x, its parameters as their values (trainer_class.cpp). `rules`
// unchanged for any other statement.
RenderRules constructorRules(const PortPlan& plan, const Stmt& s, const RenderRules& rules);
// The value of the constructor's parameter `name` read at `at` inside the constructor, "" when
// `at` is elsewhere or the value is not known.
std::string constructorValueText(const PortPlan& plan, const std::string& name, std::uint32_t at);
std::string launchValue(const PortPlan& plan, const std::string& name, std::uint32_t at);
std::string renderLocal(const Slicer& slicer, const std::vector<const Stmt*>& stmts,
                        const RenderRules& rules, const std::string& indent);
// The parameter names of a function definition, in order ("" for one without a plain name).
std::vector<std::string> parameterNames(const SourceFile& src, const Stmt& def);
// The name of its `**kw` parameter, empty when it has none.
std::string keywordsParameter(const SourceFile& src, const Stmt& def);
// A function that takes the flags namespace as its own parameter, or a class whose every method
// reading it takes it so (`def __init__(self, args)`): it reads what it is given, not a global.
bool takesNamespace(const SourceFile& src, const Stmt& def, const std::string& argsName);
// The identifiers of a Python expression's text (rough: for texts that are not nodes).
std::set<std::string> identifiersOf(const std::string& text);
// An expression's text as it can stand in place of a name: parenthesised unless it is one
// operand already (`xs[lo:hi]`, `args.lr`, `(a + b)`).
std::string asOperand(const std::string& text);
// `text` with its identifiers (not attributes, not inside strings) renamed.
std::string renameIdentifiers(const std::string& text,
                              const std::map<std::string, std::string>& rename);
// The data loader's dataset and keyword values, rendered, with the statements they need.
struct DataCode
{
    bool ok = false;
    std::string statements; // rendered, indented
    std::string dataset;
    std::vector<std::pair<std::string, std::string>> keywords;
    std::vector<const Stmt*> module;
    std::vector<const Stmt*> local; // the statements `statements` renders
    std::set<std::string> globals;  // Slice::globals: `statements`' function declares them
};
// `global a, b` (with why) for the module globals a generated function binds for the original's
// classes and functions (Slice::globals); "" for none.
std::string globalDeclaration(const std::set<std::string>& names, const std::string& indent);
// `alsoReads`: names the target writes from their text beside the loader (PopTorch's
// `batch_size=<the original's expression>`), whose definitions come with the data code too.
// `already`: statements the same function has run before the data code (a factory that
// returns the data set with the model, `data, net, opt = build()`), not run twice.
DataCode dataCode(const PortPlan& plan, const Slicer& slicer, const DataPlan& data,
                  const RenderRules& rules, const std::string& indent,
                  const std::set<std::string>& alsoReads = {},
                  const std::vector<const Stmt*>& already = {});
// The training loop runs over values that are not batches (`count(1)`, `range(0, n, bptt)`):
// its step builds the batch itself (get_batch() helpers, slices of a tensor). The port's loader
// then hands out those values, one per step, and the step builds the batch as the original did.
// `dataset` is `LoopValues(lambda: <the loop's iterable>)`; `statements` what it needs.
DataCode loopValuesCode(const PortPlan& plan, const Slicer& slicer, const RenderRules& rules,
                        const std::string& indent);
// The port.manual item of a target that does not place non-DataLoader batches.
guides::Finding nonLoaderManual(const PortPlan& plan);
// The module-level helpers loopValuesCode's dataset uses (LoopValues, one_value).
std::string loopValuesHelpers();

// Several models trained in turn (plan.loop->sequence, generate_multi.cpp).
// The plan as a target that runs one loss per step sees it: the step is the user's, named by one
// manual item that says why for `guide`.
PortPlan severalModelsLeft(const PortPlan& plan, const std::string& guide);
// The plan with the sequence's statements as the step's forward, the last backward's loss as
// the loss: what stepCode gathers for Determined.
PortPlan sequenceAsForward(const PortPlan& plan);
// train_batch's body for the sequence: the user's statements in order, each backward through
// self.context.backward, each optimizer stepped by self.context.step_optimizer, the zero_grad()
// calls step_optimizer makes redundant dropped; returns every loss as a metric.
std::string sequenceStep(const PortPlan& plan, const Slicer& slicer, const StepCode& sc,
                         const RenderRules& body, const std::string& indent);

// Gradient clipping of the model's parameters in `between` (rendered) as step_optimizer's
// clip_grads value, the call taken out of `between`; "" when `between` is not such one call.
std::string clipGrads(std::string& between);
// `s` as a YAML end-of-line comment ("  # s", on one line); "" for "".
std::string yamlComment(std::string s);
// const.yaml's `records_per_epoch: N` line, with where N comes from (epochSamples): the train
// data's size from the code, else the samples the original's dry run read. "" when unknown, with
// a note saying so; a note too when the dry run made that data up. Never a made-up number.
std::string recordsPerEpochYaml(const PortPlan& plan, const SourceFile& src,
                                const std::map<std::string, Hyper>& hp,
                                std::vector<std::string>& notes);
// `text` with every call of `function` given `extra` as its last positional argument.
// Binds `name = value` once in a rendered piece, before the statement of the first line that reads
// `name` bare (a line inside a call's parentheses binds it before the whole statement); true when
// it did.
bool bindNamespaceAtFirstUse(std::string& piece, const std::string& name, const std::string& value);
std::string passToCalls(const std::string& text, const std::string& function,
                        const std::string& extra);
// The trial's module text with each function of `passes` (the original's functions that read
// the flags namespace as a global) given the namespace as its last parameter, and their calls
// among themselves passing it on.
std::string withNamespaceParameters(std::string module, const std::set<const Stmt*>& passes,
                                    const SourceFile& src, const std::string& argsName);

Result<PortResult> generateDetermined(const PortPlan& plan,
                                      const std::map<std::string, std::string>& values);
Result<PortResult> generatePopTorch(const PortPlan& plan,
                                    const std::map<std::string, std::string>& values);
Result<PortResult> generateCerebras(const PortPlan& plan, const std::string& api,
                                    const std::map<std::string, std::string>& values);

// An optimizer stepped with a closure (LBFGS), for a target with no documented closure form
// (step_closure.cpp): the step's code and the item that names what the port gives up.
struct ClosureStep
{
    std::string text;
    guides::Finding item;
    std::string stepCall; // the port's line that steps with the closure, "" when none
};
// Determined's train_batch body: the original's closure with context.backward, handed to the
// wrapped optimizer's step; `forward` and `between` are rendered at `ind`.
ClosureStep determinedClosureStep(const PortPlan& plan, const OptimizerPlan& o,
                                  const std::string& forward, const std::string& between,
                                  const std::string& loss, const std::string& ind);
// The item of `closure`, found in out.manual, also names the spot of its step in the port's
// `path` (the guide's check flags that call: one thing left, listed once).
void nameStepInPort(PortResult& out, const ClosureStep& closure, const std::string& path);
// A step the port does not place (plan.stepNotPlaced): its item also names the lines of the
// port that carry the step's statements (step_left.cpp).
void nameStepLeftInPort(const PortPlan& plan, PortResult& out);

} // namespace portolan::port::detail
