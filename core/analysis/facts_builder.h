#pragma once

// Internal to core/analysis: the builder of ProjectFacts (facts.h), whose phases live in
// facts.cpp (vendor calls, entries, reachability) and facts_bindings.cpp (flags, what each
// mapping is, config reads, provided keys).
#include "core/analysis/analysis.h"
#include "core/analysis/facts.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace portolan::analysis::detail {

using python::FunctionId;
using python::ModuleLevel;
using python::Symbol;
using python::SymbolKind;

// Values are followed through parameters and returns this many steps (each hop through a
// parameter, a return or an expression counts one).
constexpr int MaxDepth = 48;

std::string brief(std::string_view t); // one line, shortened, for messages

// What a mapping is, as far as the analysis can tell.
struct Binding
{
    enum Kind : std::uint8_t
    {
        Unknown,
        Root,
        Section
    } kind = Unknown;
    std::vector<std::string> keys;
    std::string why;   // for Unknown: where the value comes from
    std::string scope; // the folder of the runner script that hands the params over
    bool cut = false;  // Unknown only because the search went too deep (not remembered)
    // Other key paths the mapping may be: a name bound in branches (`if "model" in params:
    // mp = params["model"]` / `else: mp = params`) is any of them at run time.
    std::vector<std::vector<std::string>> alternatives;

    static Binding unknown(std::string_view why)
    {
        return {Unknown, {}, brief(why), {}, false, {}};
    }
    static Binding root(std::string scope = {})
    {
        return {Root, {}, {}, std::move(scope), false, {}};
    }
    Binding plus(const std::vector<std::string>& more) const
    {
        if (kind == Unknown)
            return *this;
        Binding b{Section, keys, {}, scope, false, alternatives};
        b.keys.insert(b.keys.end(), more.begin(), more.end());
        for (auto& alt : b.alternatives)
            alt.insert(alt.end(), more.begin(), more.end());
        if (b.keys.empty())
            b.kind = Root;
        return b;
    }
    bool operator==(const Binding& o) const
    {
        return kind == o.kind && keys == o.keys && scope == o.scope &&
               alternatives == o.alternatives;
    }
};

std::string joinKeys(const std::vector<std::string>& keys);
std::string unquote(std::string_view t);
// `base["a"]['b']` -> base "base", keys {a, b}; false for anything else.
bool splitSubscripts(std::string_view t, std::string& base, std::vector<std::string>& keys);
// All call sites agree, or the analysis cannot tell.
Binding join(const std::vector<Binding>& all, const std::string& whyNone);
// The values of a name bound in branches: any of them (the first, with the others as
// alternatives), or unknown when one of them is.
Binding anyOf(const std::vector<Binding>& all, const std::string& whyNone);

class FactsBuilder
{
public:
    explicit FactsBuilder(const ProjectAnalysis& a) : m_a(a), m_r(*a.resolver) {}

    ProjectFacts build();

private:
    const python::PyIndex& idx(int file) const { return m_a.python[std::size_t(file)].index; }

    // --- vendor calls ------------------------------------------------------------------------
    // The contract type of an expression's value, when it is a vendor object: an instance of a
    // contract API (poptorch.Options()), or a parameter the class contract types (context).
    std::string typeOf(int file, FunctionId fn, const std::string& expr, int depth = 0) const;

    std::string valueType(int file, FunctionId fn, const python::Assignment& as, int depth) const;

    // A type the contracts describe: with methods of its own, or the owner of method APIs.
    bool isContractType(const std::string& type) const;

    std::string contractOfType(const std::string& type) const;

    const ClassContract* classContractOf(int file, int cls) const;
    std::vector<std::pair<std::string, std::string>> namedEntrypointClasses() const;

    void vendorCalls();

    // --- entries -------------------------------------------------------------------------------
    // The project definitions an expression can stand for: a function or class named directly,
    // or passed in through a parameter by the callers of the enclosing function.
    void definitionsOf(int file, FunctionId fn, const std::string& text, int depth,
                       std::vector<Symbol>& out) const;

    // The argument of a call that fills a contract parameter.
    static int argumentFor(const ApiContract& api, const python::Call& call,
                           const std::string& parameter, int explicitPosition);

    // Which parameter of a callable gets the params dict ("0" or "params").
    int paramsParameterOf(const Symbol& def, const std::string& receives) const;

    void entries();

    // --- reachability --------------------------------------------------------------------------
    // The closure of what runs from some starting functions: their calls into the project,
    // the methods of the classes they build, and functions they hand on.
    std::set<std::pair<int, int>> closure(const std::vector<Symbol>& starts,
                                          const std::vector<std::pair<int, int>>& functions);

    void reachability();

    // Scripts that never train and the modules only they use (port_scope.cpp).
    void trainingPath();
    bool trains(const std::set<std::pair<int, int>>& code) const;
    bool isScript(int file) const;

    // --- argparse ------------------------------------------------------------------------------
    void flags();

    // Does a name hold the namespace that argparse's parse_args() returns?
    bool isCliNamespace(int file, FunctionId fn, const std::string& name, int depth);

    // --- params bindings -----------------------------------------------------------------------
    bool isParamsPath(int file, FunctionId fn, const std::string& text, int depth);

    // The binding of a call's value: a project function's returns, or a YAML load of the
    // project's params file.
    Binding callBinding(int file, FunctionId fn, int call, int depth);

    Binding valueBinding(int file, FunctionId fn, python::ValueKind kind, int call,
                         const std::string& text, int depth);

    Binding exprBinding(int file, FunctionId fn, const std::string& text, int depth);

    // The folder whose configs the runner of an entry reads: the folder of the script that calls
    // the runner, when that folder has YAML configs of its own (a sub-project such as BERT's
    // fine_tuning/classifier); else the project root.
    std::string entryScope(const Entry& e) const;

    Binding nameBinding(int file, FunctionId fn, const std::string& name, int depth);

    Binding computeNameBinding(int file, FunctionId fn, const std::string& name, int depth);

    // An argument's binding: its call, if it is one, else its expression.
    Binding exprOrValue(int file, const python::Call& call, const python::Argument& arg, int depth);

    static bool paramsLikeName(std::string_view base);

    void configReads();

    void provided();

    const ProjectAnalysis& m_a;
    // The names typeOf() is resolving (file, function, expression): a value defined through
    // itself (`model = model`, `a = b; b = a`) is not followed round again, which would grow
    // exponentially with the assignments of the name up to MaxDepth.
    mutable std::set<std::tuple<int, FunctionId, std::string>> m_typing;
    const python::Resolver& m_r;
    ProjectFacts m_out;
    std::map<std::tuple<int, int, std::string>, Binding> m_bindings;
    std::map<std::tuple<int, int, std::string>, bool> m_cli;
    std::vector<std::string> m_writes, m_defaulted, m_suffixWrites, m_fills;
};

} // namespace portolan::analysis::detail
