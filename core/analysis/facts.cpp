// Resolved facts: vendor calls matched to their contracts, the project definitions they receive
// (entries) and what those reach, the part of the params dict each read reads, the keys the code
// or the runner provides, and argparse flags with their uses.
#include "core/analysis/analysis.h"
#include "core/analysis/facts_builder.h"
#include "core/common/glob.h"
#include "core/common/text.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace portolan::analysis {

namespace detail {

std::string brief(std::string_view t)
{
    return oneLine(t);
}

std::string joinKeys(const std::vector<std::string>& keys)
{
    std::string out;
    for (const auto& k : keys)
        out += (out.empty() ? "" : ".") + k;
    return out;
}

std::string unquote(std::string_view t)
{
    if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front())
        return std::string(t.substr(1, t.size() - 2));
    return {};
}

// `base["a"]['b']` -> base "base", keys {a, b}; false for anything else.
bool splitSubscripts(std::string_view t, std::string& base, std::vector<std::string>& keys)
{
    const std::size_t open = t.find('[');
    base = std::string(t.substr(0, open));
    if (base.empty() || base.find_first_of("()\"' ,+") != std::string::npos)
        return false;
    keys.clear();
    std::size_t i = open;
    while (i != std::string_view::npos && i < t.size()) {
        if (t[i] != '[')
            return false;
        const std::size_t close = t.find(']', i);
        if (close == std::string_view::npos)
            return false;
        std::string key = unquote(t.substr(i + 1, close - i - 1));
        if (key.empty())
            return false;
        keys.push_back(std::move(key));
        i = close + 1;
        if (i == t.size())
            break;
    }
    return true;
}

// All call sites agree, or the analysis cannot tell.
Binding join(const std::vector<Binding>& all, const std::string& whyNone)
{
    if (all.empty())
        return Binding::unknown(whyNone);
    for (const auto& b : all)
        if (b.kind == Binding::Unknown && b.cut)
            return b;
    for (const auto& b : all)
        if (b.kind == Binding::Unknown)
            return b;
    for (const auto& b : all)
        if (!(b == all.front()))
            return Binding::unknown("callers pass different parts of the params");
    return all.front();
}

Binding anyOf(const std::vector<Binding>& all, const std::string& whyNone)
{
    if (all.empty())
        return Binding::unknown(whyNone);
    for (const auto& b : all)
        if (b.kind == Binding::Unknown)
            return b;
    Binding out = all.front();
    auto add = [&](const std::vector<std::string>& keys) {
        if (keys != out.keys && std::find(out.alternatives.begin(), out.alternatives.end(), keys) ==
                                    out.alternatives.end())
            out.alternatives.push_back(keys);
    };
    for (std::size_t i = 1; i < all.size(); ++i) {
        add(all[i].keys);
        for (const auto& alt : all[i].alternatives)
            add(alt);
    }
    return out;
}

ProjectFacts FactsBuilder::build()
{
    m_out.calleeQualified.resize(m_a.python.size());
    for (int f = 0; f < int(m_a.python.size()); ++f) {
        const auto& calls = idx(f).calls;
        auto& out = m_out.calleeQualified[std::size_t(f)];
        out.resize(calls.size());
        for (int c = 0; c < int(calls.size()); ++c) {
            if (calls[std::size_t(c)].callee.empty())
                continue;
            const Symbol s = m_r.callee(f, c);
            if (s.kind == SymbolKind::External || s.kind == SymbolKind::Builtin)
                out[std::size_t(c)] = s.qualified;
        }
    }
    vendorCalls();
    entries();
    reachability();
    trainingPath();
    flags();
    configReads();
    provided();
    return std::move(m_out);
}

// --- vendor calls ------------------------------------------------------------------------
// The contract type of an expression's value, when it is a vendor object: an instance of a
// contract API (poptorch.Options()), or a parameter the class contract types (context).
std::string FactsBuilder::typeOf(int file, FunctionId fn, const std::string& expr, int depth) const
{
    if (depth > MaxDepth || expr.empty() || expr.find_first_of("()[] ") != std::string::npos)
        return {};
    const auto key = std::make_tuple(file, fn, expr);
    if (!m_typing.insert(key).second)
        return {};
    struct Done
    {
        std::set<std::tuple<int, FunctionId, std::string>>& typing;
        std::tuple<int, FunctionId, std::string> key;
        ~Done() { typing.erase(key); }
    } done{m_typing, key};
    const ContractSet& c = *m_a.contracts;
    if (expr.starts_with("self.") && expr.find('.', 5) == std::string::npos) {
        const int cls = m_r.classOf(file, fn);
        if (cls < 0)
            return {};
        for (const auto& as : idx(file).assignments)
            if (as.target == expr && m_r.classOf(file, as.function) == cls)
                if (std::string t = valueType(file, as.function, as, depth + 1); !t.empty())
                    return t;
        return {};
    }
    if (expr.find('.') != std::string::npos)
        return {};
    const Symbol s = m_r.resolve(file, fn, expr);
    if (s.kind == SymbolKind::Parameter) {
        const int cls = m_r.classOf(file, s.function);
        const auto& def = idx(file).functions[std::size_t(s.function)];
        if (cls >= 0 && def.name == "__init__")
            if (const ClassContract* cc = classContractOf(file, cls))
                for (const auto& [pos, type] : cc->initParams)
                    if (pos == s.index)
                        return type;
        return {};
    }
    if (s.kind == SymbolKind::Local)
        for (const auto& as : idx(file).assignments)
            if (as.function == s.function && as.target == expr)
                if (std::string t = valueType(file, s.function, as, depth + 1); !t.empty())
                    return t;
    (void)c;
    return {};
}

std::string FactsBuilder::valueType(int file, FunctionId fn, const python::Assignment& as,
                                    int depth) const
{
    if (as.kind == python::ValueKind::Name)
        return typeOf(file, fn, as.value, depth + 1);
    if (as.kind == python::ValueKind::Attribute && as.value.starts_with("self."))
        return typeOf(file, fn, as.value, depth + 1);
    if (as.kind == python::ValueKind::Call && as.call >= 0) {
        const Symbol s = m_r.callee(file, as.call);
        if (s.kind == SymbolKind::External && isContractType(s.qualified))
            return s.qualified;
    }
    return {};
}

// A type the contracts describe: with methods of its own, or the owner of method APIs.
bool FactsBuilder::isContractType(const std::string& type) const
{
    if (m_a.contracts->findType(type))
        return true;
    for (const auto& api : m_a.contracts->apis)
        if (api.methodOf == type)
            return true;
    return false;
}

std::string FactsBuilder::contractOfType(const std::string& type) const
{
    // Types carry no contract id of their own: a type a class contract hands over belongs
    // to that vendor, else the package name stands for it.
    for (const auto& c : m_a.contracts->classes)
        for (const auto& [pos, t] : c.initParams)
            if (t == type)
                return "determined";
    return type.substr(0, type.find('.'));
}

const ClassContract* FactsBuilder::classContractOf(int file, int cls) const
{
    const auto ancestors = m_r.ancestors(file, cls);
    for (const auto& cc : m_a.contracts->classes)
        for (const auto& base : cc.bases)
            for (const auto& a : ancestors)
                if (globMatch(base, a))
                    return &cc;
    return nullptr;
}

void FactsBuilder::vendorCalls()
{
    const ContractSet& contracts = *m_a.contracts;
    for (int f = 0; f < int(m_a.python.size()); ++f) {
        const auto& calls = idx(f).calls;
        for (int c = 0; c < int(calls.size()); ++c) {
            if (calls[std::size_t(c)].callee.empty())
                continue;
            const Symbol s = m_r.callee(f, c);
            if (s.kind == SymbolKind::External) {
                if (const ApiContract* api = contracts.findApi(s.qualified))
                    m_out.vendorCalls.push_back({f, c, api, nullptr, api->contract, s.qualified});
                continue;
            }
            // A method of a vendor object: est.train(...), opts.deviceIterations(...).
            const std::string& callee = calls[std::size_t(c)].callee;
            const auto dot = callee.rfind('.');
            if (dot == std::string::npos)
                continue;
            const std::string type =
                typeOf(f, calls[std::size_t(c)].function, callee.substr(0, dot));
            if (type.empty())
                continue;
            const std::string method = callee.substr(dot + 1);
            const auto qualified = [&] {
                std::string q = type;
                q += '.';
                q += method;
                return q;
            };
            if (const ApiContract* api = contracts.findMethodApi(type, method))
                m_out.vendorCalls.push_back({f, c, api, nullptr, api->contract, qualified()});
            else if (const TypeContract* t = contracts.findType(type))
                if (const MethodContract* m = t->method(method))
                    m_out.vendorCalls.push_back(
                        {f, c, nullptr, m, contractOfType(type), qualified()});
        }
    }
}

// --- entries -------------------------------------------------------------------------------
// The project definitions an expression can stand for: a function or class named directly,
// or passed in through a parameter by the callers of the enclosing function.
void FactsBuilder::definitionsOf(int file, FunctionId fn, const std::string& text, int depth,
                                 std::vector<Symbol>& out) const
{
    if (depth > MaxDepth || text.empty())
        return;
    const Symbol s = m_r.resolve(file, fn, text);
    if (s.isDefinition()) {
        out.push_back(s);
        return;
    }
    if (s.kind == SymbolKind::Parameter && s.rest.empty()) {
        const auto& def = idx(file).functions[std::size_t(s.function)];
        Symbol self;
        self.kind = SymbolKind::Function;
        self.file = file;
        self.index = s.function;
        for (const auto& site : m_r.callSites(self)) {
            const auto& call = idx(site.file).calls[std::size_t(site.call)];
            for (std::size_t i = 0; i < call.arguments.size(); ++i)
                if (python::Resolver::parameterFor(def, call, i, false) == s.index)
                    definitionsOf(site.file, call.function, call.arguments[i].text, depth + 1, out);
        }
    } else if (s.kind == SymbolKind::Local && s.rest.empty()) {
        for (const auto& as : idx(file).assignments)
            if (as.function == s.function && as.target == text &&
                as.kind == python::ValueKind::Name)
                definitionsOf(file, as.function, as.value, depth + 1, out);
    }
}

// The argument of a call that fills a contract parameter.
int FactsBuilder::argumentFor(const ApiContract& api, const python::Call& call,
                              const std::string& parameter, int explicitPosition)
{
    for (std::size_t i = 0; i < call.arguments.size(); ++i)
        if (call.arguments[i].keyword == parameter)
            return int(i);
    int position = explicitPosition;
    if (position < 0 && !api.signatures.empty()) {
        const auto& params = api.signatures.back().params;
        for (std::size_t p = 0; p < params.size(); ++p)
            if (params[p].name == parameter && params[p].star == 0 && !params[p].keywordOnly)
                position = int(p);
    }
    if (position < 0)
        return -1;
    int seen = 0;
    for (std::size_t i = 0; i < call.arguments.size(); ++i) {
        if (!call.arguments[i].keyword.empty() || call.arguments[i].text.starts_with("*"))
            continue;
        if (seen++ == position)
            return int(i);
    }
    return -1;
}

// Which parameter of a callable gets the params dict ("0" or "params").
int FactsBuilder::paramsParameterOf(const Symbol& def, const std::string& receives) const
{
    if (receives.empty() || !def.isDefinition())
        return -1;
    const python::FunctionDef* fn = nullptr;
    int skip = 0;
    if (def.kind == SymbolKind::Function) {
        fn = &idx(def.file).functions[std::size_t(def.index)];
        skip = m_r.classOf(def.file, def.index) >= 0 ? 1 : 0;
    } else {
        const Symbol init = m_r.method(def.file, def.index, "__init__");
        if (init.kind != SymbolKind::Function)
            return -1;
        fn = &idx(init.file).functions[std::size_t(init.index)];
        skip = 1;
    }
    if (std::isdigit(static_cast<unsigned char>(receives[0]))) {
        const int p = std::stoi(receives) + skip;
        return p < int(fn->parameters.size()) && fn->parameters[std::size_t(p)].star == 0 ? p : -1;
    }
    for (std::size_t p = 0; p < fn->parameters.size(); ++p)
        if (fn->parameters[p].name == receives)
            return int(p);
    return -1;
}

void FactsBuilder::entries()
{
    for (int v = 0; v < int(m_out.vendorCalls.size()); ++v) {
        const VendorCall& vc = m_out.vendorCalls[std::size_t(v)];
        if (!vc.api)
            continue;
        const auto& call = idx(vc.file).calls[std::size_t(vc.call)];
        for (const Role& role : vc.api->roles) {
            if (role.role == "params" || role.role == "extra-args")
                continue;
            const int arg = argumentFor(*vc.api, call, role.parameter, role.position);
            if (arg < 0)
                continue;
            std::vector<Symbol> defs;
            definitionsOf(vc.file, call.function, call.arguments[std::size_t(arg)].text, 0, defs);
            if (defs.empty())
                defs.push_back(Symbol{}); // passed, but not resolved to a definition
            for (const auto& d : defs) {
                Entry e;
                e.role = role.role;
                e.vendorCall = v;
                e.parameter = role.parameter;
                e.argument = arg;
                e.definition = d;
                e.text = call.arguments[std::size_t(arg)].text;
                e.returns = role.returns;
                e.paramsParameter = paramsParameterOf(d, role.receivesParams);
                m_out.entries.push_back(std::move(e));
            }
        }
    }
    // Classes a vendor instantiates itself: every subclass of a contract class, or, when an
    // experiment config names the ones it runs (entrypoint: module:Class) and the project has
    // them, only those: the other trial classes of the project (drafts, variants run by other
    // configs the project does not hold) are not what Determined will instantiate.
    const auto named = namedEntrypointClasses();
    const auto isNamed = [&](int f, int c) {
        const std::string& module = m_r.moduleName(f);
        const std::string& name = idx(f).classes[std::size_t(c)].name;
        for (const auto& [mod, cls] : named)
            if (cls == name && (module == mod || module.ends_with("." + mod)))
                return true;
        return false;
    };
    bool anyNamed = false;
    for (int f = 0; f < int(m_a.python.size()); ++f)
        for (int c = 0; c < int(idx(f).classes.size()); ++c)
            anyNamed = anyNamed || (classContractOf(f, c) && isNamed(f, c));
    for (int f = 0; f < int(m_a.python.size()); ++f)
        for (int c = 0; c < int(idx(f).classes.size()); ++c)
            if (const ClassContract* cc = classContractOf(f, c);
                cc && (!anyNamed || isNamed(f, c))) {
                Entry e;
                e.role = cc->role;
                e.definition.kind = SymbolKind::Class;
                e.definition.file = f;
                e.definition.index = c;
                e.definition.qualified =
                    m_r.moduleName(f) + "." + idx(f).classes[std::size_t(c)].name;
                e.text = idx(f).classes[std::size_t(c)].name;
                e.classContract = cc;
                m_out.entries.push_back(std::move(e));
            }
}

// (module, class) pairs that the project's Determined experiment configs name as their
// entrypoint ("model_def:MyTrial", "pkg.trial:MyTrial"); scripts ("python3 train.py") name none.
std::vector<std::pair<std::string, std::string>> FactsBuilder::namedEntrypointClasses() const
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& cfg : m_a.configs) {
        if (cfg.kind != ConfigKind::DeterminedExperiment)
            continue;
        const ConfigKey* k = cfg.find("entrypoint");
        if (!k)
            continue;
        std::string v = k->value;
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back())))
            v.pop_back();
        v.erase(0, std::min(v.size(), v.find_first_not_of(" \t")));
        const auto colon = v.find(':');
        if (colon == std::string::npos || v.find(' ') != std::string::npos)
            continue;
        out.emplace_back(v.substr(0, colon), v.substr(colon + 1));
    }
    return out;
}

// --- reachability --------------------------------------------------------------------------
// The closure of what runs from some starting functions: their calls into the project,
// the methods of the classes they build, and functions they hand on.
std::set<std::pair<int, int>>
FactsBuilder::closure(const std::vector<Symbol>& starts,
                      const std::vector<std::pair<int, int>>& functions)
{
    std::set<std::pair<int, int>> out;
    std::vector<std::pair<int, int>> todo;
    auto addFunction = [&](int file, int fn) {
        if (out.insert({file, fn}).second)
            todo.emplace_back(file, fn);
    };
    // Methods of plain classes waiting for a call by their name (see addClass).
    std::map<std::string, std::vector<std::pair<int, int>>> pending;
    std::set<std::string> called;
    auto addClass = [&](int file, int cls) {
        // A class the vendor or reachable code builds: all its methods may run. A plain class
        // of the project (no base, or `object`: nothing outside calls back into it) runs its
        // own dunder methods, and its other methods only when some reachable code calls them
        // by name (a metric meter's `all_reduce()` that only a distributed branch calls).
        std::vector<std::pair<int, int>> classes{{file, cls}};
        for (std::size_t i = 0; i < classes.size() && i < 32; ++i) {
            const auto [f, c] = classes[i];
            const auto& fns = idx(f).functions;
            const auto& def = idx(f).classes[std::size_t(c)];
            const bool plain =
                def.bases.empty() || (def.bases.size() == 1 && def.bases[0] == "object");
            for (int g = 0; g < int(fns.size()); ++g) {
                if (m_r.classOf(f, g) != c)
                    continue;
                const std::string& name = fns[std::size_t(g)].name;
                if (plain && !name.starts_with("__") && !called.count(name))
                    pending[name].emplace_back(f, g);
                else
                    addFunction(f, g);
            }
            for (const auto& base : def.bases) {
                const Symbol b = m_r.resolve(f, def.function, base);
                if (b.kind == SymbolKind::Class && b.rest.empty())
                    classes.emplace_back(b.file, b.index);
            }
        }
    };
    auto addSymbol = [&](const Symbol& s) {
        if (s.kind == SymbolKind::Function && s.rest.empty())
            addFunction(s.file, s.index);
        else if (s.kind == SymbolKind::Class && s.rest.empty())
            addClass(s.file, s.index);
    };
    for (const auto& s : starts)
        addSymbol(s);
    for (const auto& [f, fn] : functions)
        addFunction(f, fn);
    while (!todo.empty()) {
        const auto [file, fn] = todo.back();
        todo.pop_back();
        const auto& index = idx(file);
        // Nested functions may be called later (closures handed out); count them in. Not
        // for module level, where every function is "nested".
        if (fn != ModuleLevel)
            for (int g = 0; g < int(index.functions.size()); ++g)
                if (index.functions[std::size_t(g)].parent == fn)
                    addFunction(file, g);
        for (int c = 0; c < int(index.calls.size()); ++c) {
            if (index.calls[std::size_t(c)].function != fn ||
                index.calls[std::size_t(c)].callee.empty())
                continue;
            addSymbol(m_r.callee(file, c));
            const auto callName = [&](const std::string& text) {
                const auto dot = text.rfind('.');
                const std::string name = dot == std::string::npos ? text : text.substr(dot + 1);
                called.insert(name);
                if (const auto it = pending.find(name); it != pending.end()) {
                    for (const auto& [pf, pg] : it->second)
                        addFunction(pf, pg);
                    pending.erase(it);
                }
            };
            callName(index.calls[std::size_t(c)].callee);
            // Project functions passed as arguments are called by whoever receives them.
            for (const auto& arg : index.calls[std::size_t(c)].arguments) {
                if (arg.text.find('.') != std::string::npos &&
                    arg.text.find_first_of("()[] ") == std::string::npos)
                    callName(arg.text); // a bound method handed on (`callback=self.log`)
                const Symbol s = m_r.resolve(file, fn, arg.text);
                if (s.isDefinition())
                    addSymbol(s);
            }
        }
    }
    return out;
}

void FactsBuilder::reachability()
{
    std::vector<Symbol> starts;
    for (const auto& e : m_out.entries)
        starts.push_back(e.definition);
    // What the vendor calls on the project's behalf.
    m_out.reachable = closure(starts, {});
    // The program: that, plus the scripts that hand over to the vendor (the functions with
    // hand-over calls and the module-level code of their files).
    std::vector<std::pair<int, int>> scripts;
    for (const auto& vc : m_out.vendorCalls) {
        // Only a hand-over makes a script part of the program (a call that gives the vendor
        // the model, the data or the trial); a data-preparation script that merely loads a
        // checkpoint with the vendor's loader is not the training path.
        if (!vc.api || vc.api->roles.empty())
            continue;
        scripts.emplace_back(vc.file, idx(vc.file).calls[std::size_t(vc.call)].function);
        scripts.emplace_back(vc.file, ModuleLevel);
    }
    m_out.program = closure(starts, scripts);
}

} // namespace detail

using detail::FactsBuilder;
using python::FunctionId;
using python::ModuleLevel;
using python::Symbol;
using python::SymbolKind;

const std::vector<Signature>& VendorCall::signatures() const
{
    static const std::vector<Signature> none;
    return method ? method->signatures : api ? api->signatures : none;
}

bool ProjectFacts::isInProgram(const ProjectAnalysis& a, int file, FunctionId fn) const
{
    if (file < 0)
        return false;
    const auto& index = a.python[std::size_t(file)].index;
    for (FunctionId f = fn;; f = index.functions[std::size_t(f)].parent) {
        if (program.count({file, f}))
            return true;
        if (f < 0)
            return false;
    }
}

bool ProjectFacts::isReachable(const ProjectAnalysis& a, int file, FunctionId fn) const
{
    if (file < 0)
        return false;
    const auto& index = a.python[std::size_t(file)].index;
    for (FunctionId f = fn; f >= 0; f = index.functions[std::size_t(f)].parent)
        if (reachable.count({file, f}))
            return true;
    return false;
}

bool ProjectFacts::isProvided(const std::string& path) const
{
    if (provided.count(path))
        return true;
    for (const auto& p : providedPrefixes)
        if (p.empty() || path == p || path.starts_with(p + "."))
            return true;
    for (const auto& s : providedSuffixes)
        if (path == s || path.ends_with("." + s))
            return true;
    return false;
}

const Entry* ProjectFacts::entryFor(int file, FunctionId fn) const
{
    for (const auto& e : entries)
        if (e.definition.kind == SymbolKind::Function && e.definition.file == file &&
            e.definition.index == fn)
            return &e;
    return nullptr;
}

ProjectFacts computeFacts(const ProjectAnalysis& analysis)
{
    if (!analysis.resolver || !analysis.contracts)
        return {};
    return FactsBuilder(analysis).build();
}

const std::vector<ConfigRead>& configReads(const ProjectAnalysis& analysis)
{
    return analysis.facts().reads;
}

} // namespace portolan::analysis
