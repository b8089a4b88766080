#pragma once

// The resolution layer over the per-file indexes: what a name stands for (an import, a project
// function or class, a parameter, a local), what a function returns along every return path,
// and who calls a project function. Checks are written against these facts instead of names.
//
// Imports resolve to qualified names: aliases, `from x import y as z`, relative imports, and
// absolute imports of the project's own modules, including Model Zoo style ones
// (`from modelzoo.transformers.pytorch.gpt2.data import f` in a copy of the gpt2 folder is the
// project's data.py). The project's package prefix ("modelzoo.transformers.pytorch.gpt2") is
// inferred from the imports that name its own modules.

#include "core/python/index.h"

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace portolan::python {

enum class SymbolKind : std::uint8_t
{
    Unknown,   // not found, dynamic, or defined by something the index does not model
    Builtin,   // print, list, super, ...
    External,  // outside the project: qualified is its dotted name ("torch.utils.data.DataLoader")
    Module,    // a project module (file)
    Class,     // a project class (index)
    Instance,  // an instance of a project class (index): `self` in a method
    Function,  // a project function or method (index)
    Parameter, // a parameter (index = position) of `function`
    Local,     // a name assigned in `function` (ModuleLevel: a module-level variable)
};
std::string_view symbolKindName(SymbolKind k);

struct Symbol
{
    SymbolKind kind = SymbolKind::Unknown;
    int file = -1;                     // project file index (not for Builtin/External)
    int index = -1;                    // class, function or parameter index, by kind
    FunctionId function = ModuleLevel; // Parameter, Local: the function they belong to
    std::string qualified; // External/Builtin: dotted name; project symbols: "module.Class.fn"
    std::string rest;      // attributes after the symbol that were not followed ("x.y")

    bool isProject() const
    {
        return kind == SymbolKind::Module || kind == SymbolKind::Class ||
               kind == SymbolKind::Instance || kind == SymbolKind::Function;
    }
    // A project class or function itself, with nothing left over.
    bool isDefinition() const
    {
        return rest.empty() && (kind == SymbolKind::Class || kind == SymbolKind::Function);
    }
};

// One possible value of an expression.
struct Value
{
    ValueKind kind = ValueKind::Other; // literal kinds; Call; Name for a function or class itself
    Symbol symbol; // Call: what was called; Name: what the name stands for (Parameter, Function)
    int file = -1;
    int call = -1; // Call: the call's index in the file's index
    Span span;
    std::string text;

    // Known: a literal, a builtin or external call, a project class instance, or a project
    // definition. Unknown: a parameter, an attribute, an unresolved call.
    bool known() const;
};

struct CallSite
{
    int file = -1;
    int call = -1;
};

class Resolver
{
public:
    // `files` must outlive the resolver; paths are PyIndex::file, relative to the project root.
    explicit Resolver(std::vector<const PyIndex*> files);
    ~Resolver();
    Resolver(const Resolver&) = delete;
    Resolver& operator=(const Resolver&) = delete;

    int fileCount() const { return static_cast<int>(m_files.size()); }
    const PyIndex& index(int file) const { return *m_files[static_cast<std::size_t>(file)]; }
    int fileIndex(std::string_view path) const;
    const std::string& moduleName(int file) const;
    // "modelzoo.transformers.pytorch.gpt2" when the project imports itself that way; "" else.
    const std::string& packagePrefix() const { return m_prefix; }

    // The project file a module name stands for when imported from `fromFile` (relative forms
    // with leading dots included); -1 when it is not a module of the project.
    int moduleFile(int fromFile, std::string_view module) const;

    // What a dotted name means in a function (or ModuleLevel) of a file.
    Symbol resolve(int file, FunctionId scope, std::string_view dotted) const;
    // What a call calls.
    Symbol callee(int file, int call) const;

    // Every value a function can return, over all its return statements; locals are followed to
    // their assignments and project calls to what those return (a few levels deep). A function
    // without a return statement returns None.
    std::vector<Value> returnValues(int file, FunctionId fn) const;
    // Every value a name can have at a place in a function (all its assignments there).
    std::vector<Value> nameValues(int file, FunctionId fn, std::string_view name) const;
    // The value of a call argument (its text is the expression).
    std::vector<Value> argumentValues(int file, const Call& call, const Argument& arg) const;

    // Classes: the qualified names of every ancestor (project classes as "module.Class", then
    // their own bases); `unknown` is set when some base could not be resolved.
    std::vector<std::string> ancestors(int file, int cls, bool* unknown = nullptr) const;
    // The method `name` of a class or of its project ancestors.
    Symbol method(int file, int cls, std::string_view name) const;
    // The class a method belongs to (-1 for a plain function).
    int classOf(int file, FunctionId fn) const;

    // Where a project function, method or class (its constructor) is called.
    const std::vector<CallSite>& callSites(const Symbol& definition) const;
    // The parameter of `fn` an argument of a call binds to (-1: none, or *args / **kwargs).
    // `skipSelf`: the call passes the instance implicitly (a method call or a class call).
    static int parameterFor(const FunctionDef& fn, const Call& call, std::size_t argument,
                            bool skipSelf);

private:
    struct Binding;
    struct FileTables;

    Symbol lookupIn(int file, const std::vector<std::string>& parts, std::size_t from,
                    int depth) const;
    Symbol fromQualified(int fromFile, const std::string& dotted, int depth) const;
    Symbol fromImport(int file, const Import& imp, const std::vector<std::string>& parts,
                      std::size_t from, int depth) const;
    Symbol follow(Symbol s, const std::vector<std::string>& parts, std::size_t from,
                  int depth) const;
    Symbol resolveParts(int file, FunctionId scope, const std::vector<std::string>& parts,
                        int depth) const;
    std::vector<Value> valuesOf(int file, FunctionId fn, ValueKind kind, int call,
                                const std::string& text, const Span& span, int depth) const;
    std::vector<Value> namedValues(int file, FunctionId fn, std::string_view name,
                                   std::uint32_t before, int depth) const;
    std::vector<Value> returns(int file, FunctionId fn, int depth) const;
    void buildCallers() const;

    std::vector<const PyIndex*> m_files;
    std::vector<std::string> m_modules; // module name per file
    std::unordered_map<std::string, int> m_moduleFiles;
    std::unordered_map<std::string, int> m_paths;
    std::vector<std::unique_ptr<FileTables>> m_tables;
    std::string m_prefix;
    struct Callers;
    std::unique_ptr<Callers> m_callers;
};

} // namespace portolan::python
