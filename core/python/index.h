#pragma once

#include "core/common/diagnostic.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::python {

// A piece of source: 1-based line:column of its start (columns in bytes, as tree-sitter counts
// them) plus the byte range, so that a fix can replace exactly these bytes.
struct Span
{
    int line = 0;
    int column = 0;
    int endLine = 0;
    int endColumn = 0;
    std::uint32_t startByte = 0;
    std::uint32_t endByte = 0;
};

// Index of the enclosing function in PyIndex::functions; -1 is module level.
using FunctionId = int;
constexpr FunctionId ModuleLevel = -1;

struct Parameter
{
    std::string name;        // without * or **
    std::string annotation;  // source text, empty when none
    std::string defaultText; // source text, empty when none
    Span span;
    int star = 0;             // 1 for *args, 2 for **kwargs
    bool keywordOnly = false; // after * or *args
    bool hasDefault() const { return !defaultText.empty(); }
};

struct FunctionDef
{
    std::string name;
    std::string qualifiedName; // "Class.method" or "outer.inner"
    std::string className;     // enclosing class for methods, empty otherwise
    FunctionId parent = ModuleLevel;
    std::vector<Parameter> parameters;
    std::vector<std::string> decorators;
    Span span;     // the whole definition
    Span nameSpan; // just the name
};

// A name bound in a class body itself (`name: Literal["fc_mnist"]`, `depth: int = 2`, `x = 1`):
// the fields of dataclasses and pydantic models, such as the Model Zoo's typed configs.
struct ClassField
{
    std::string name;
    std::string annotation; // source text, empty when none
    Span span;              // the name
};

struct ClassDef
{
    std::string name;
    FunctionId function = ModuleLevel; // the function it is defined in
    bool nested = false;               // defined inside another class's body
    std::vector<std::string> bases;    // source text, e.g. "nn.Module", "PyTorchBaseModel"
    std::vector<std::string> methods;
    std::vector<ClassField> fields;
    Span span;
    Span nameSpan;
};

// `import a.b as c` -> module "a.b", alias "c"; `from a import b as c` -> module "a", name "b",
// alias "c"; `from a import *` -> name "*".
struct Import
{
    std::string module; // as written, with the leading dots of a relative import (".data")
    std::string name;
    std::string alias;
    Span span;
    FunctionId function = ModuleLevel; // an import inside a function binds a local
    // The name this import binds in the module: alias, else name, else the first part of module.
    std::string boundName() const;
    // The dotted name the bound name stands for ("torch.nn" for `import torch.nn as nn`).
    std::string target() const;
};

struct Argument
{
    std::string keyword;     // empty for a positional argument
    std::string text;        // the value's source text
    std::string stringValue; // the value when it is a plain string literal
    bool isString = false;
    Span span; // the whole argument (keyword included)
    Span valueSpan;
};

struct Call
{
    std::string callee;   // dotted source text of what is called: "torch.optim.SGD",
                          // "self.context.backward", "model.cuda"; "" when not dotted
    std::string resolved; // callee with its first part resolved through the file's imports
    std::vector<Argument> arguments;
    Span span;       // the whole call expression
    Span nameSpan;   // the last identifier of the callee (where a finding points)
    Span calleeSpan; // the callee expression
    FunctionId function = ModuleLevel;
    int parentCall = -1;       // index of the call this one is an argument of, -1 when none
    std::string parentKeyword; // keyword of that argument, when it was passed by keyword
    std::string assignedTo;    // target text when the call is the value of `x = call(...)`

    const Argument* keyword(std::string_view name) const;
};

// What kind of expression a value is, as far as the syntax tells.
enum class ValueKind : std::uint8_t
{
    Other, // anything else: operators, conditionals, lambdas, ...
    Call,
    Name,
    Attribute,
    Subscript,
    List,
    Tuple,
    Dict,
    Set,
    Comprehension, // list/dict/set comprehensions and generator expressions
    String,
    Number,
    Bool,
    None,
};
std::string_view valueKindName(ValueKind k);

// A dotted attribute chain used as a value: "args.batch_size", "self.training".
struct AttributeUse
{
    std::string base; // "args"
    std::string chain;
    Span span;
    FunctionId function = ModuleLevel;
};

// A chain of subscripts with string keys: params["model"]["hidden_size"], or through a local
// alias (mp = params["model"]; mp["depth"]) which is recorded with the alias resolved.
struct KeyRead
{
    std::string base;              // "params", "self.data_config"
    std::vector<std::string> keys; // {"model", "hidden_size"}
    Span span;                     // the whole subscript chain
    FunctionId function = ModuleLevel;
    bool viaAlias = false;
    bool isDefault = false; // .get("key"), .setdefault("key", v), .pop("key", v): may be absent
    bool isWrite = false;   // params["model"]["x"] = v: the code itself provides the key
    // Under a condition, a loop, a try, a conditional expression or the right of and/or: the
    // read may not happen every time the function runs.
    bool conditional = false;

    std::string path() const; // "model.hidden_size"
};

// A local name for a part of a mapping: `mp = params["model"]` or `mp = params["model"].copy()`
// (base "params", keys {"model"}), valid in its function from its position on.
struct Alias
{
    std::string name;
    std::string base;
    std::vector<std::string> keys;
    Span span;
    FunctionId function = ModuleLevel;
};

// `context.get_hparam("lr")` / `self.context.get_hparam("lr")`.
struct HparamRead
{
    std::string name;
    Span span; // the string literal
    FunctionId function = ModuleLevel;
};

struct Return
{
    std::string text;                  // the returned expression, empty for a bare return
    std::string callee;                // when the value is a call, its callee
    std::vector<std::string> keywords; // the keywords of that call
    Span span;
    FunctionId function = ModuleLevel;
    ValueKind kind = ValueKind::None; // None also for a bare return
    int call = -1;                    // index in PyIndex::calls when the value is a call
    Span valueSpan;
};

struct Assignment
{
    std::string target; // source text of the target ("x", "self.model", "a, b")
    std::string value;  // source text of the value
    Span span;
    FunctionId function = ModuleLevel;
    ValueKind kind = ValueKind::Other;
    int call = -1;          // index in PyIndex::calls when the value is a call
    bool augmented = false; // x += ...
};

struct NameUse
{
    std::string name;
    Span span;
};

// The names one function (or the module) defines and uses. Uses are loads of bare identifiers
// that are not attribute names or keyword-argument names.
struct Scope
{
    FunctionId function = ModuleLevel;
    std::vector<NameUse> defined; // parameters, assignments, for/with/except targets, imports,
                                  // nested defs and classes, global/nonlocal declarations
    std::vector<NameUse> used;
    bool hasStarImport = false; // `from x import *` makes every name possibly defined
};

struct PyIndex
{
    std::string file; // as given to indexSource
    std::vector<ClassDef> classes;
    std::vector<FunctionDef> functions;
    std::vector<Import> imports;
    std::vector<Call> calls;
    std::vector<AttributeUse> attributes;
    std::vector<KeyRead> keyReads;
    std::vector<Alias> aliases;
    std::vector<HparamRead> hparams;
    std::vector<Return> returns;
    std::vector<Assignment> assignments;
    std::vector<Scope> scopes; // scopes[0] is the module; then one per function, in order
    std::vector<Diagnostic> syntaxErrors;
    bool truncated = false; // the file was too deep to walk completely (diagnostic added)

    // Position of function f's scope in `scopes` (ModuleLevel's is 0).
    static std::size_t scopeSlot(FunctionId f)
    {
        const FunctionId slot = f - ModuleLevel; // in FunctionId, then widened
        return static_cast<std::size_t>(slot);
    }
    const Scope& scopeOf(FunctionId f) const { return scopes[scopeSlot(f)]; }
    const FunctionDef* function(FunctionId f) const
    {
        return f >= 0 && f < static_cast<int>(functions.size())
                   ? &functions[static_cast<std::size_t>(f)]
                   : nullptr;
    }
    const ClassDef* findClass(std::string_view name) const;
    const FunctionDef* findFunction(std::string_view qualifiedName) const;
    // The dotted name `name` stands for after this file's imports ("nn.Linear" ->
    // "torch.nn.Linear"); unchanged when its first part is not imported.
    std::string resolve(std::string_view dotted) const;
};

// Parses and indexes one Python source. Never fails: syntax errors are listed in syntaxErrors and
// the rest of the file is still indexed.
PyIndex indexSource(std::string_view source, const std::string& fileName);

// Python's builtins (print, len, range, ...), for the undefined-name check.
bool isBuiltinName(std::string_view name);

} // namespace portolan::python
