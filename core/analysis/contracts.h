#pragma once

// Vendor contracts as data (resources/contracts/*.yaml): the entry points a vendor calls and what
// they receive, the signatures of vendor APIs per release, the classes a project derives from, and
// the command-line flags a runner copies into the params. Checks use them instead of names.

#include "core/common/diagnostic.h"
#include "core/python/index.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace portolan::analysis {

struct SignatureParam
{
    std::string name;
    bool optional = false;    // "name=" in the YAML
    int star = 0;             // 1: *args, 2: **kwargs
    bool keywordOnly = false; // after "*" or "*args"
};

struct Signature
{
    std::string releases; // which SDK releases it holds for
    std::vector<SignatureParam> params;

    std::string toString(std::string_view name) const; // "run(model_fn, train_data_fn=...)"
};

// What a parameter of an entry point receives.
struct Role
{
    std::string parameter; // the vendor API's parameter ("train_data_fn")
    std::string role;      // "model", "train-data", "eval-data", "data", "defaults", "params"
    // Which parameter of the user's callable gets the params dict: a position ("0") or a name
    // ("params"); empty when the callable gets none.
    std::string receivesParams;
    int position = -1;   // explicit argument position (methods), else from the signature
    std::string returns; // "dataloader" when the callable must return one
};

struct ApiContract
{
    std::string contract;           // the file's id
    std::string name;               // "run"
    std::vector<std::string> match; // qualified names (globs) of the API after import resolution
    std::string methodOf;           // for methods: the type they belong to
    std::vector<std::string> methods;
    std::string source;
    std::vector<Signature> signatures; // empty: not checked
    std::vector<Role> roles;
    // The vendor only runs the model it receives (poptorch.inferenceModel): handing over to it
    // does not make a script part of the training path (analysis/port_scope).
    bool inferenceOnly = false;
    // The vendor trains with what it reads itself (the params file), though it is handed no
    // project code (the Trainer's run()): a script that calls it trains.
    bool trains = false;
    SourceLocation definedAt;

    const Role* role(std::string_view parameter) const;
};

struct MethodContract
{
    std::string name;
    std::vector<Signature> signatures;
};

struct TypeContract
{
    std::string name; // qualified type name, e.g. "poptorch.Options"
    std::string source;
    std::vector<MethodContract> methods;

    const MethodContract* method(std::string_view name) const;
};

struct ClassContract
{
    std::string name;
    std::vector<std::string> bases; // qualified names of the vendor base class
    std::string source;
    // What a subclass is to the vendor: "trial" (Determined builds and drives it), or
    // "model-config" (the Model Zoo Trainer builds the model from it).
    std::string role = "trial";
    std::vector<std::pair<int, std::string>> initParams;   // position -> type
    std::vector<std::vector<std::string>> requiredMethods; // groups of alternatives
    std::vector<std::string> optionalMethods;
    std::vector<std::pair<std::string, Signature>> methodSignatures;
    std::vector<std::string> dataLoaderMethods;
    std::vector<std::string> dataLoaderReturns;
    std::vector<std::string> dataLoaderAlsoAccepted;
    std::string dataLoaderSource;
};

struct RunconfigFlags
{
    std::string section;
    std::vector<std::string> flags;
    std::string source;
};

struct FillsFromArgs
{
    std::vector<std::string> match;
    int argsArgument = 0;
    int sectionArgument = 1;
};

struct ContractSet
{
    std::vector<ApiContract> apis;
    std::vector<TypeContract> types;
    std::vector<ClassContract> classes;
    std::vector<RunconfigFlags> runconfigFlags;
    std::vector<FillsFromArgs> fillsFromArgs;
    std::vector<std::string> mutatingCalls; // library calls that fill a params dict they get
    std::vector<Diagnostic> diagnostics;    // malformed contract files, at line:column

    // The function or constructor contract a qualified name stands for.
    const ApiContract* findApi(std::string_view qualified) const;
    // The method contracts of a type ("CerebrasEstimator.train").
    const ApiContract* findMethodApi(std::string_view type, std::string_view method) const;
    const TypeContract* findType(std::string_view name) const;
};

// Loads every *.yaml contract in `dir`; a malformed file is skipped with a diagnostic.
ContractSet loadContracts(const std::filesystem::path& dir);
// The same for one file's text (tests).
ContractSet parseContracts(std::string_view yamlText, const std::string& path);
// The contracts of resources/contracts, loaded once per process.
std::shared_ptr<const ContractSet> defaultContracts();

// "name", "name=", "*args", "**kwargs", "*" -> parameters.
std::vector<SignatureParam> parseSignatureParams(const std::vector<std::string>& items);

// Why a call does not fit a signature, and the argument at fault (-1: the call as a whole, e.g.
// a required argument is missing).
struct SignatureProblem
{
    std::string message; // "unknown keyword 'lr'", "takes at most 1 positional argument, 2 given"
    int argument = -1;
};

// Why a call fits none of the signatures (the problem with the first one), or nothing when it
// fits one, or when the call cannot be judged (it passes *xs or **kw). `implicitSelf`: the first
// parameter is bound by the call (a method called on an instance).
std::optional<SignatureProblem> signatureMismatch(const std::vector<Signature>& signatures,
                                                  const python::Call& call,
                                                  bool implicitSelf = false);

} // namespace portolan::analysis
