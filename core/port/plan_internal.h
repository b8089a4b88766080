#pragma once
// The planner's pieces, shared by plan.cpp (entry, lookups, run), plan_loop.cpp (the batch
// loop and its body) and plan_parts.cpp (optimizers, model, loss, data, evaluation, devices,
// leftovers). Not a public header.

#include "core/analysis/facts.h"
#include "core/port/plan.h"
#include "core/port/syntax.h"
#include "core/python/resolve.h"

#include <cstring>
#include <deque>
#include <optional>

namespace portolan::port::planning {

// When a decay by hand `if <cond>: lr /= f` in an epoch loop holds (plan_lr.cpp): every K
// epochs, after n epochs (n + offset) // K times.
struct DecayEpochs
{
    long every = 0;
    long offset = 0;
    long start = 0;  // the range's first value
    std::string end; // the range's end, as written
};
std::optional<DecayEpochs> decayEpochs(const std::string& epoch, const std::string& iter,
                                       const std::string& condition);

using port::fieldOf; // syntax.h, so `planning::fieldOf` names the one definition
using port::nodeType;
using python::Assignment;
using python::Call;
using python::FunctionId;
using python::ModuleLevel;
using python::PyIndex;

inline CodeRef refOf(const std::string& file, const SourceFile& src, std::uint32_t start,
                     std::uint32_t end, int line, int column)
{
    CodeRef r;
    r.file = file;
    r.start = start;
    r.end = end;
    r.line = line;
    r.column = column;
    r.text = src.text(start, end);
    return r;
}

inline CodeRef refOf(const std::string& file, const SourceFile& src, const python::Span& s)
{
    return refOf(file, src, s.startByte, s.endByte, s.line, s.column - 1);
}

inline CodeRef refOf(const std::string& file, const SourceFile& src, const Stmt& s)
{
    return refOf(file, src, s.start, s.end, s.line, s.column);
}

inline std::string lastPart(const std::string& dotted)
{
    const auto dot = dotted.rfind('.');
    return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

inline std::string receiverOf(const std::string& callee)
{
    const auto dot = callee.rfind('.');
    return dot == std::string::npos ? std::string() : callee.substr(0, dot);
}

inline bool within(const python::Span& s, std::uint32_t start, std::uint32_t end)
{
    return s.startByte >= start && s.endByte <= end;
}

// The statement of its own scope (function body or module) that holds a position: the chain's
// element right after the innermost enclosing definition.
inline const Stmt* scopeStatement(const std::vector<const Stmt*>& chain)
{
    const Stmt* found = nullptr;
    bool take = true;
    for (const Stmt* s : chain) {
        if (take) {
            found = s;
            take = false;
        }
        if (s->type == "function_definition" || s->type == "decorated_definition" ||
            s->type == "class_definition")
            take = true;
    }
    return take ? nullptr : found;
}

// What a call, an instantiation or a launch hands a function's parameters
// (Planner::boundArguments): the caller's argument (its text, and the argument itself when the
// call writes it), the defaults of the parameters it does not give.
struct HandedOver
{
    struct Given
    {
        std::string text;
        const python::Argument* argument = nullptr; // null for a launch's tuple item
    };
    std::map<std::string, Given> given;
    std::map<std::string, std::string> defaults;
    bool splat = false; // a `*xs` / `**kw` argument: the parameters after it are unknown
};

class Planner
{
public:
    Planner(const analysis::ProjectAnalysis& a, const PortOptions& o, PortPlan& p)
        : m_a(a), m_o(o), m_p(p)
    {}

    Result<bool> run();

private:
    const PyIndex& idx() const { return m_a.python[static_cast<std::size_t>(m_file)].index; }
    const SourceFile& src() const { return *m_p.sources.at(m_p.entry); }
    const std::string& qualified(int call) const
    {
        static const std::string none;
        const auto& q = m_a.facts().calleeQualified;
        if (m_file < 0 || static_cast<std::size_t>(m_file) >= q.size())
            return none;
        const auto& f = q[static_cast<std::size_t>(m_file)];
        return call >= 0 && static_cast<std::size_t>(call) < f.size()
                   ? f[static_cast<std::size_t>(call)]
                   : none;
    }
    std::string resolvedName(const Call& c) const
    {
        const auto i = static_cast<int>(&c - idx().calls.data());
        const auto& q = qualified(i);
        return q.empty() ? c.resolved : q;
    }

    bool chooseEntry();
    bool findLoop();
    // Several trainings one after another (plan_trainings.cpp): where each runs, scope by scope.
    struct TrainingAnchor
    {
        FunctionId function = ModuleLevel;
        const Stmt* scope = nullptr;  // the function's definition, nullptr for the module
        const Stmt* holder = nullptr; // the statement of that scope that runs the training
        std::string model;            // the model's name in that scope, "" when not seen there
    };
    struct Training
    {
        const Stmt* loop = nullptr;
        std::vector<TrainingAnchor> anchors;
    };
    enum class Succession
    {
        Unrelated,  // another model, or one whose training is read before the next
        Superseded, // the model is built anew before anything reads what it learned
        Continued,  // the next training goes on training the same model
    };
    std::vector<TrainingAnchor> anchorsOf(const Stmt& loop, const std::string& model) const;
    std::string modelTrainedBy(const Stmt& loop) const;
    std::string parametersOwner(const python::Call& construction) const;
    Succession succession(const Training& a, const Training& b) const;
    std::size_t chooseTraining(const std::vector<const Stmt*>& loops);
    bool drawnBatches(const Stmt& loop, LoopPlan& lp);
    // The loss backward() is called on, scaled by torch's GradScaler: the plan's loss is the
    // unscaled one and the scaler is kept in PortPlan::lossScaling.
    void noteLossScaling(TSNode receiver, LoopPlan& lp);
    bool scalerStatement(const Stmt& s, const CodeRef& ref);
    const Call* gradScalerOf(const std::string& name) const;
    void analyseBody(const Stmt& loop);
    bool isLogLine(const Stmt& s) const;
    const Stmt* closureOf(const Stmt& loop, const Call& backward) const;
    const Stmt* classAround(std::uint32_t start, std::uint32_t end) const;
    bool isSelfCallOf(const Call& call, const Stmt& method) const;
    bool batchDeviceMove(const Stmt& s) const;
    void analyseClosureLoop(const Stmt& loop, const Stmt& closure);
    void bindStepArguments(const Call& backward, const Call& call);
    void bindCallerArguments();
    std::map<std::string, std::string> callerAliases(FunctionId fn) const;
    std::map<std::string, std::string> callerNames(FunctionId fn, int depth) const;
    void bindSelfAttributes(const Stmt& loop);
    void bindSelfBuilt(const Stmt& cls, const Stmt& init, const Call* instance);
    void bindSelfCalls(const Stmt& cls, Stmt& s, const std::set<std::string>& built);
    const Assignment* selfBuiltAssignment(const std::string& name) const;
    void constructorValues(DataPlan& out, FunctionId fn) const;
    bool readsSelfBuilt(const Stmt& s, const std::string& attribute) const;
    void noteAroundStepCall(const Stmt& loop, const Stmt& stepFunction);
    // The loop's own record around a step call (plan_bookkeeping.cpp).
    bool onlyBookkeeping(TSNode node, const std::set<std::string>& needed, int depth = 0) const;
    void noteDrawnInputs(const Stmt& loop, const Stmt& stepFunction, const Call& call);
    bool findProgressData(const Call& c, FunctionId fn, DataPlan& out);
    bool findHelperData(const Call& c, FunctionId fn, DataPlan& out);
    std::string flagPassedAs(const std::string& name, FunctionId fn) const;
    void dropDistributedSampler(DataPlan& out);
    bool noteLaunch();
    void bindLaunch();
    bool callsFunction(const Call& c, const python::FunctionDef& def) const;
    void noteOneProcess();
    std::string processCount(const std::string& file, const Call& c) const;
    std::optional<std::vector<std::string>> launchedArguments(const Call& c,
                                                              const std::string& function) const;
    std::optional<HandedOver> boundArguments(const Call& c, const python::FunctionDef& def) const;
    bool isFlagRead(const std::string& text) const;
    bool spreadsFlags(const std::string& argument) const;
    void findOptimizers();
    std::string optimizerByName(const Call& c) const;
    bool factoryOptimizer(const Call& construction, const std::string& qualified);
    void keepLiveOptimizers();
    void findModel();
    void findLoss();
    void findData(const std::string& iterable, FunctionId fn, DataPlan& out);
    void findEval();
    void bindEvalDataset(FunctionId fn);
    void findDevices();
    void findLeftovers();
    void findLrChanges();
    bool placeSequence(const Stmt& loop);
    void markZeroGrads();
    std::set<std::string> modelsReached(std::size_t index) const;
    std::string plateauDecay(const Assignment& a, const std::string& text) const;
    std::optional<PlateauPlan> plateauPlan(const Assignment& a, const std::string& text) const;
    std::string periodicDecay(const Assignment& a, const std::string& text) const;
    bool stepDecayScheduler(const Assignment& a, const std::string& text,
                            std::set<std::uint32_t>& replaced);
    const Stmt* handUpdate(const Stmt& s) const;
    void synthesizeSgd(const Stmt& update, const CodeRef& ref);
    std::optional<bool> flagValue(TSNode condition, std::string* said) const;
    bool chooseStepBranch(const Stmt& s);
    const Assignment* assignmentOf(const std::string& name, FunctionId fn, int depth = 0) const;
    const Assignment* inlineArgument(const std::string& param, const Call& c,
                                     const python::Argument* argument) const;
    FunctionId functionAt(std::uint32_t byte) const;
    const Call* innerCall(const Assignment& a) const;

    const analysis::ProjectAnalysis& m_a;
    const PortOptions& m_o;
    PortPlan& m_p;
    int m_file = -1;
    FunctionId m_loopFunction = ModuleLevel;
    const Stmt* m_loopStmt = nullptr;
    // The statements of a `while` loop that draw its batch or count its steps (plan_while.cpp):
    // not the step's, by their start.
    std::set<std::uint32_t> m_loopControl;
    // A parameter given a call inline (`fit(TinyNet(), loader, nn.CrossEntropyLoss())`), as
    // the assignment it stands for (assignmentOf); a deque, so that the pointers handed out
    // stay valid as it grows.
    mutable std::deque<Assignment> m_inlineArguments;
    FunctionId m_instanceFunction = ModuleLevel; // where the trainer class is instantiated
    FunctionId m_initFunction = ModuleLevel;     // its constructor, when it builds attributes
};

} // namespace portolan::port::planning
