#pragma once

// Resolved facts about a project, computed once from the index, the resolution layer and the
// vendor contracts: which vendor APIs it calls, which of its definitions a vendor receives and
// runs (entries), which code those reach, which part of the params dict each config read reads,
// which keys the code or the runner provides, and the command-line flags of its scripts.
// The checks are written against these facts rather than against names.

#include "core/analysis/config_reads.h"
#include "core/analysis/contracts.h"
#include "core/python/resolve.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace portolan::analysis {

struct ProjectAnalysis;
struct PythonFile;

// A call of a vendor API that the contracts describe.
struct VendorCall
{
    int file = -1; // index in ProjectAnalysis::python
    int call = -1;
    const ApiContract* api = nullptr;       // a function, constructor or method with roles
    const MethodContract* method = nullptr; // a method of a contract type (opts.deviceIterations)
    std::string contract;                   // the contract file's id ("poptorch")
    std::string qualified; // what the callee resolved to ("modelzoo.common.pytorch.run_utils.run")

    const std::vector<Signature>& signatures() const;
};

// A project definition that a vendor receives and calls: a data function, a model class, the
// trial class.
struct Entry
{
    std::string role;          // the contract's role: "model", "train-data", ..., "trial"
    int vendorCall = -1;       // index in ProjectFacts::vendorCalls; -1 for a class contract
    std::string parameter;     // the vendor parameter it is passed as ("train_data_fn")
    int argument = -1;         // the argument of the vendor call, -1 when not passed
    python::Symbol definition; // the project function or class, when it could be resolved
    std::string text;          // the argument as written
    int paramsParameter = -1;  // parameter of the function that receives the params dict
    std::string returns;       // "dataloader" when the vendor needs one back
    const ClassContract* classContract = nullptr;
};

// One command-line flag defined with argparse's add_argument.
struct CliFlag
{
    std::string dest;                 // "batch_size" for --batch-size
    std::vector<std::string> options; // "--batch-size", "-b"
    std::string defaultText;          // source text of default=, empty when none
    std::string type;                 // source text of type=
    std::string action;               // action= ("store_true", ...)
    std::string nargs;                // nargs= ("+", "?", "2"), empty when none
    std::string constText;            // source text of const=, empty when none
    std::string help;
    bool required = false;
    int file = -1;
    int call = -1;
    python::Span span;
};

// One use of a parsed flag: `args.batch_size`.
struct CliUse
{
    std::string dest;
    std::string namespaceName; // "args", "opt"
    int file = -1;
    python::Span span;
    python::FunctionId function = python::ModuleLevel;
};

struct ProjectFacts
{
    std::vector<VendorCall> vendorCalls;
    std::vector<Entry> entries;
    // Functions (file, function) that the vendor runs: entries and what they call, transitively.
    std::set<std::pair<int, int>> reachable;
    // The program: what the vendor runs, plus the scripts that hand over to it (run.py's main,
    // a PopTorch training script), from their module-level code on. ModuleLevel is -1.
    std::set<std::pair<int, int>> program;
    // Files that are not on the training path, by path, with the reason for a person: a script
    // whose code never reaches a training step while other entry points of the project do (an
    // inference or generation script), and the modules only such scripts use
    // (analysis/port_scope.h).
    std::map<std::string, std::string> offTrainingPath;
    std::vector<ConfigRead> reads;
    // Key paths the project provides without the params file: written by its own code
    // (params["model"]["x"] = ..., setdefault), or filled by the runner from command-line flags.
    std::set<std::string> provided;
    std::set<std::string> providedPrefixes; // whole sections written or update()d
    std::set<std::string> providedSuffixes; // writes through a mapping of unknown origin
    std::vector<CliFlag> flags;
    std::vector<CliUse> cliUses;
    // Per file and call: what the callee resolves to outside the project (an import's qualified
    // name, or a builtin), empty otherwise. Computed once; every check matches against it.
    std::vector<std::vector<std::string>> calleeQualified;

    bool hasEntries() const { return !entries.empty(); }
    // Is a function (or any function it is nested in) run by the vendor?
    bool isReachable(const ProjectAnalysis& a, int file, python::FunctionId fn) const;
    // Is it part of the program (see `program`)?
    bool isInProgram(const ProjectAnalysis& a, int file, python::FunctionId fn) const;
    // Does the code or the runner provide this key path?
    bool isProvided(const std::string& path) const;
    const Entry* entryFor(int file, python::FunctionId fn) const;
};

ProjectFacts computeFacts(const ProjectAnalysis& analysis);

} // namespace portolan::analysis
