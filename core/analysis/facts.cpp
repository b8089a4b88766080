// Resolved facts: vendor calls matched to their contracts, the project definitions they receive
// (entries) and what those reach, the part of the params dict each read reads, the keys the code
// or the runner provides, and argparse flags with their uses.
#include "core/analysis/facts.h"

#include "core/analysis/analysis.h"
#include "core/common/glob.h"
#include "core/common/text.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace portolan::analysis {

using python::FunctionId;
using python::ModuleLevel;
using python::Symbol;
using python::SymbolKind;

namespace {

// Values are followed through parameters and returns this many steps (each hop through a
// parameter, a return or an expression counts one).
constexpr int MaxDepth = 48;

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

    static Binding unknown(std::string_view why) { return {Unknown, {}, brief(why), {}, false}; }
    static Binding root(std::string scope = {}) { return {Root, {}, {}, std::move(scope), false}; }
    Binding plus(const std::vector<std::string>& more) const
    {
        if (kind == Unknown)
            return *this;
        Binding b{Section, keys, {}, scope, false};
        b.keys.insert(b.keys.end(), more.begin(), more.end());
        if (b.keys.empty())
            b.kind = Root;
        return b;
    }
    bool operator==(const Binding& o) const
    {
        return kind == o.kind && keys == o.keys && scope == o.scope;
    }
};

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

class FactsBuilder
{
public:
    explicit FactsBuilder(const ProjectAnalysis& a) : m_a(a), m_r(*a.resolver) {}

    ProjectFacts build()
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
        flags();
        configReads();
        provided();
        return std::move(m_out);
    }

private:
    const python::PyIndex& idx(int file) const { return m_a.python[std::size_t(file)].index; }

    // --- vendor calls ------------------------------------------------------------------------
    // The contract type of an expression's value, when it is a vendor object: an instance of a
    // contract API (poptorch.Options()), or a parameter the class contract types (context).
    std::string typeOf(int file, FunctionId fn, const std::string& expr, int depth = 0) const
    {
        if (depth > MaxDepth || expr.empty() || expr.find_first_of("()[] ") != std::string::npos)
            return {};
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

    std::string valueType(int file, FunctionId fn, const python::Assignment& as, int depth) const
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
    bool isContractType(const std::string& type) const
    {
        if (m_a.contracts->findType(type))
            return true;
        for (const auto& api : m_a.contracts->apis)
            if (api.methodOf == type)
                return true;
        return false;
    }

    std::string contractOfType(const std::string& type) const
    {
        // Types carry no contract id of their own: a type a class contract hands over belongs
        // to that vendor, else the package name stands for it.
        for (const auto& c : m_a.contracts->classes)
            for (const auto& [pos, t] : c.initParams)
                if (t == type)
                    return "determined";
        return type.substr(0, type.find('.'));
    }

    const ClassContract* classContractOf(int file, int cls) const
    {
        const auto ancestors = m_r.ancestors(file, cls);
        for (const auto& cc : m_a.contracts->classes)
            for (const auto& base : cc.bases)
                for (const auto& a : ancestors)
                    if (globMatch(base, a))
                        return &cc;
        return nullptr;
    }

    void vendorCalls()
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
                        m_out.vendorCalls.push_back(
                            {f, c, api, nullptr, api->contract, s.qualified});
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
    void definitionsOf(int file, FunctionId fn, const std::string& text, int depth,
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
                        definitionsOf(site.file, call.function, call.arguments[i].text, depth + 1,
                                      out);
            }
        } else if (s.kind == SymbolKind::Local && s.rest.empty()) {
            for (const auto& as : idx(file).assignments)
                if (as.function == s.function && as.target == text &&
                    as.kind == python::ValueKind::Name)
                    definitionsOf(file, as.function, as.value, depth + 1, out);
        }
    }

    // The argument of a call that fills a contract parameter.
    static int argumentFor(const ApiContract& api, const python::Call& call,
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
    int paramsParameterOf(const Symbol& def, const std::string& receives) const
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
            return p < int(fn->parameters.size()) && fn->parameters[std::size_t(p)].star == 0 ? p
                                                                                              : -1;
        }
        for (std::size_t p = 0; p < fn->parameters.size(); ++p)
            if (fn->parameters[p].name == receives)
                return int(p);
        return -1;
    }

    void entries()
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
                definitionsOf(vc.file, call.function, call.arguments[std::size_t(arg)].text, 0,
                              defs);
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
        // Classes a vendor instantiates itself: every subclass of a contract class.
        for (int f = 0; f < int(m_a.python.size()); ++f)
            for (int c = 0; c < int(idx(f).classes.size()); ++c)
                if (const ClassContract* cc = classContractOf(f, c)) {
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

    // --- reachability --------------------------------------------------------------------------
    // The closure of what runs from some starting functions: their calls into the project,
    // the methods of the classes they build, and functions they hand on.
    std::set<std::pair<int, int>> closure(const std::vector<Symbol>& starts,
                                          const std::vector<std::pair<int, int>>& functions)
    {
        std::set<std::pair<int, int>> out;
        std::vector<std::pair<int, int>> todo;
        auto addFunction = [&](int file, int fn) {
            if (out.insert({file, fn}).second)
                todo.emplace_back(file, fn);
        };
        auto addClass = [&](int file, int cls) {
            // A class the vendor or reachable code builds: all its methods may run.
            std::vector<std::pair<int, int>> classes{{file, cls}};
            for (std::size_t i = 0; i < classes.size() && i < 32; ++i) {
                const auto [f, c] = classes[i];
                const auto& fns = idx(f).functions;
                for (int g = 0; g < int(fns.size()); ++g)
                    if (m_r.classOf(f, g) == c)
                        addFunction(f, g);
                const auto& def = idx(f).classes[std::size_t(c)];
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
                // Project functions passed as arguments are called by whoever receives them.
                for (const auto& arg : index.calls[std::size_t(c)].arguments) {
                    const Symbol s = m_r.resolve(file, fn, arg.text);
                    if (s.isDefinition())
                        addSymbol(s);
                }
            }
        }
        return out;
    }

    void reachability()
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

    // --- argparse ------------------------------------------------------------------------------
    void flags()
    {
        for (int f = 0; f < int(m_a.python.size()); ++f) {
            const auto& index = idx(f);
            for (int c = 0; c < int(index.calls.size()); ++c) {
                const auto& call = index.calls[std::size_t(c)];
                if (!call.callee.ends_with("add_argument") || call.arguments.empty())
                    continue;
                CliFlag flag;
                flag.file = f;
                flag.call = c;
                flag.span = call.span;
                for (const auto& arg : call.arguments) {
                    if (arg.keyword.empty() && arg.isString)
                        flag.options.push_back(arg.stringValue);
                    else if (arg.keyword == "dest" && arg.isString)
                        flag.dest = arg.stringValue;
                    else if (arg.keyword == "default")
                        flag.defaultText = arg.text;
                    else if (arg.keyword == "type")
                        flag.type = arg.text;
                    else if (arg.keyword == "action")
                        flag.action = arg.isString ? arg.stringValue : arg.text;
                    else if (arg.keyword == "help")
                        flag.help = arg.isString ? arg.stringValue : arg.text;
                    else if (arg.keyword == "required")
                        flag.required = arg.text == "True";
                }
                if (flag.options.empty())
                    continue;
                if (flag.dest.empty()) {
                    // argparse: the first long option, else the first short one, else the name.
                    std::string pick;
                    for (const auto& o : flag.options)
                        if (o.starts_with("--")) {
                            pick = o.substr(2);
                            break;
                        }
                    if (pick.empty())
                        pick = flag.options.front();
                    while (!pick.empty() && pick[0] == '-')
                        pick.erase(0, 1);
                    std::replace(pick.begin(), pick.end(), '-', '_');
                    flag.dest = pick;
                }
                m_out.flags.push_back(std::move(flag));
            }
            // Uses of parsed flags: args.lr where args holds what parse_args() returned.
            for (const auto& use : index.attributes) {
                const auto dot = use.chain.find('.');
                if (dot == std::string::npos)
                    continue;
                if (!isCliNamespace(f, use.function, use.base, 0))
                    continue;
                const auto end = use.chain.find('.', dot + 1);
                CliUse u;
                u.dest = use.chain.substr(dot + 1, end == std::string::npos ? end : end - dot - 1);
                u.namespaceName = use.base;
                u.file = f;
                u.span = use.span;
                u.function = use.function;
                m_out.cliUses.push_back(std::move(u));
            }
        }
    }

    // Does a name hold the namespace that argparse's parse_args() returns?
    bool isCliNamespace(int file, FunctionId fn, const std::string& name, int depth)
    {
        if (depth > MaxDepth)
            return false;
        const auto key = std::make_tuple(file, fn, name);
        if (const auto it = m_cli.find(key); it != m_cli.end())
            return it->second;
        m_cli[key] = false; // cycles answer "no"
        bool yes = false;
        const Symbol s = m_r.resolve(file, fn, name);
        auto fromCall = [&](int f, int call) {
            const std::string& callee = idx(f).calls[std::size_t(call)].callee;
            return callee.ends_with("parse_args") || callee == "vars";
        };
        if (s.kind == SymbolKind::Local) {
            for (const auto& as : idx(file).assignments)
                if (as.function == s.function && as.target == name) {
                    if (as.kind == python::ValueKind::Call && as.call >= 0 &&
                        fromCall(file, as.call))
                        yes = true;
                    else if (as.kind == python::ValueKind::Call && as.call >= 0) {
                        // args = get_args(): a project function that returns parse_args().
                        for (const auto& v : m_r.nameValues(file, s.function, name))
                            if (v.kind == python::ValueKind::Call &&
                                v.symbol.qualified.ends_with("parse_args"))
                                yes = true;
                        const Symbol callee = m_r.callee(file, as.call);
                        if (callee.kind == SymbolKind::Function && callee.rest.empty())
                            for (const auto& r : idx(callee.file).returns)
                                if (r.function == callee.index &&
                                    ((r.call >= 0 && fromCall(callee.file, r.call)) ||
                                     (r.kind == python::ValueKind::Name &&
                                      isCliNamespace(callee.file, callee.index, r.text,
                                                     depth + 1))))
                                    yes = true;
                    }
                }
        } else if (s.kind == SymbolKind::Parameter) {
            const auto& def = idx(file).functions[std::size_t(s.function)];
            Symbol self{SymbolKind::Function, file, s.function, ModuleLevel, {}, {}};
            for (const auto& site : m_r.callSites(self)) {
                const auto& call = idx(site.file).calls[std::size_t(site.call)];
                for (std::size_t i = 0; i < call.arguments.size(); ++i)
                    if (python::Resolver::parameterFor(
                            def, call, i, m_r.classOf(file, s.function) >= 0) == s.index &&
                        call.arguments[i].text.find_first_of(".[( ") == std::string::npos &&
                        isCliNamespace(site.file, call.function, call.arguments[i].text, depth + 1))
                        yes = true;
            }
        } else if (s.kind == SymbolKind::Unknown && name == "args") {
            yes = true; // a leftover `args` with no definition in scope: the old script's flags
        }
        m_cli[key] = yes;
        return yes;
    }

    // --- params bindings -----------------------------------------------------------------------
    bool isParamsPath(int file, FunctionId fn, const std::string& text, int depth)
    {
        if (depth > MaxDepth || text.empty())
            return false;
        if (const std::string lit = unquote(text); !lit.empty()) {
            std::string want = m_a.paramsFile.path;
            std::string got = lit;
            if (got.starts_with("./"))
                got = got.substr(2);
            return !want.empty() &&
                   (got == want || want.ends_with("/" + got) || got.ends_with("/" + want));
        }
        // args.params, parser.parse_args().params: the conventional params flag.
        static const std::set<std::string> flagNames{"params", "params_file", "params_path",
                                                     "config", "config_file", "cfg"};
        const auto dot = text.rfind('.');
        if (dot != std::string::npos) {
            const std::string flag = text.substr(dot + 1);
            const std::string ns = text.substr(0, dot);
            if (!flagNames.count(flag))
                return false;
            // The Model Zoo's --params flag, whether argparse (args.params), absl
            // (FLAGS.params) or parse_args().params holds it.
            (void)ns;
            return true;
        }
        const Symbol s = m_r.resolve(file, fn, text);
        if (s.kind == SymbolKind::Parameter && s.rest.empty()) {
            const auto& def = idx(file).functions[std::size_t(s.function)];
            Symbol self{SymbolKind::Function, file, s.function, ModuleLevel, {}, {}};
            const auto& sites = m_r.callSites(self);
            bool any = false;
            for (const auto& site : sites) {
                const auto& call = idx(site.file).calls[std::size_t(site.call)];
                for (std::size_t i = 0; i < call.arguments.size(); ++i)
                    if (python::Resolver::parameterFor(
                            def, call, i, m_r.classOf(file, s.function) >= 0) == s.index) {
                        if (!isParamsPath(site.file, call.function, call.arguments[i].text,
                                          depth + 1))
                            return false;
                        any = true;
                    }
            }
            return any;
        }
        if (s.kind == SymbolKind::Local && s.rest.empty())
            for (const auto& as : idx(file).assignments)
                if (as.function == s.function && as.target == text)
                    return isParamsPath(file, s.function, as.value, depth + 1);
        return false;
    }

    // The binding of a call's value: a project function's returns, or a YAML load of the
    // project's params file.
    Binding callBinding(int file, FunctionId fn, int call, int depth)
    {
        const Symbol s = m_r.callee(file, call);
        const auto& c = idx(file).calls[std::size_t(call)];
        if (s.kind == SymbolKind::Function && s.rest.empty()) {
            std::vector<Binding> all;
            for (const auto& r : idx(s.file).returns)
                if (r.function == s.index && !r.text.empty())
                    all.push_back(valueBinding(s.file, s.index, r.kind, r.call, r.text, depth + 1));
            return join(all, "the value comes from " + c.callee + "()");
        }
        if (s.kind == SymbolKind::External &&
            (s.qualified == "yaml.safe_load" || s.qualified == "yaml.load" ||
             s.qualified == "yaml.full_load" || s.qualified == "yaml.unsafe_load") &&
            !c.arguments.empty()) {
            // yaml.safe_load(stream): follow the stream to open(path).
            std::string stream = c.arguments[0].text;
            std::string path;
            if (stream.starts_with("open(")) {
                for (const auto& inner : idx(file).calls)
                    if (inner.parentCall == call && inner.callee == "open" &&
                        !inner.arguments.empty())
                        path = inner.arguments[0].text;
            } else {
                const Symbol st = m_r.resolve(file, fn, stream);
                if (st.kind == SymbolKind::Local)
                    for (const auto& as : idx(file).assignments)
                        if (as.function == st.function && as.target == stream && as.call >= 0 &&
                            idx(file).calls[std::size_t(as.call)].callee == "open" &&
                            !idx(file).calls[std::size_t(as.call)].arguments.empty())
                            path = idx(file).calls[std::size_t(as.call)].arguments[0].text;
            }
            if (!path.empty() && isParamsPath(file, fn, path, depth + 1))
                return Binding::root();
            return Binding::unknown(
                "a YAML file the analysis cannot tie to " +
                (m_a.paramsFile.path.empty() ? std::string("a params file") : m_a.paramsFile.path));
        }
        if (c.callee.ends_with(".copy") || c.callee == "dict" || c.callee.ends_with("deepcopy")) {
            if (c.callee.ends_with(".copy"))
                return exprBinding(file, fn, c.callee.substr(0, c.callee.size() - 5), depth + 1);
            if (!c.arguments.empty())
                return exprBinding(file, fn, c.arguments[0].text, depth + 1);
        }
        return Binding::unknown("the value comes from " + c.callee + "()");
    }

    Binding valueBinding(int file, FunctionId fn, python::ValueKind kind, int call,
                         const std::string& text, int depth)
    {
        if (depth > MaxDepth) {
            Binding b = Binding::unknown("the value is passed through too many calls");
            b.cut = true;
            return b;
        }
        if (kind == python::ValueKind::Call && call >= 0)
            return callBinding(file, fn, call, depth + 1);
        if (kind == python::ValueKind::Name || kind == python::ValueKind::Subscript ||
            kind == python::ValueKind::Attribute)
            return exprBinding(file, fn, text, depth + 1);
        return Binding::unknown("the value is " + text);
    }

    Binding exprBinding(int file, FunctionId fn, const std::string& text, int depth)
    {
        std::string base;
        std::vector<std::string> keys;
        if (!splitSubscripts(text, base, keys))
            return Binding::unknown("the value is " + text);
        return nameBinding(file, fn, base, depth + 1).plus(keys);
    }

    // The folder whose configs the runner of an entry reads: the folder of the script that calls
    // the runner, when that folder has YAML configs of its own (a sub-project such as BERT's
    // fine_tuning/classifier); else the project root.
    std::string entryScope(const Entry& e) const
    {
        if (e.vendorCall < 0)
            return {};
        const std::string& path =
            m_a.python[std::size_t(m_out.vendorCalls[std::size_t(e.vendorCall)].file)].path;
        const auto slash = path.rfind('/');
        if (slash == std::string::npos)
            return {};
        std::string dir = path.substr(0, slash);
        for (const auto& c : m_a.configs)
            if (c.path.starts_with(dir + "/"))
                return dir;
        return {};
    }

    Binding nameBinding(int file, FunctionId fn, const std::string& name, int depth)
    {
        if (depth > MaxDepth) {
            Binding b = Binding::unknown("the value is passed through too many calls");
            b.cut = true;
            return b;
        }
        const auto key = std::make_tuple(file, fn, name);
        if (const auto it = m_bindings.find(key); it != m_bindings.end())
            return it->second;
        m_bindings[key] = Binding::unknown("the value depends on itself");
        Binding b = computeNameBinding(file, fn, name, depth);
        if (b.cut)
            m_bindings.erase(key); // a deeper search from elsewhere may still tell
        else
            m_bindings[key] = b;
        return b;
    }

    Binding computeNameBinding(int file, FunctionId fn, const std::string& name, int depth)
    {
        const auto& index = idx(file);
        // An alias recorded by the indexer: mp = params["model"].
        for (auto it = index.aliases.rbegin(); it != index.aliases.rend(); ++it)
            if (it->function == fn && it->name == name)
                return nameBinding(file, fn, it->base, depth + 1).plus(it->keys);
        if (name.starts_with("self.")) {
            const int cls = m_r.classOf(file, fn);
            if (cls < 0)
                return Binding::unknown("the value is " + name);
            std::vector<Binding> all;
            for (const auto& as : index.assignments)
                if (as.target == name && !as.augmented && m_r.classOf(file, as.function) == cls)
                    all.push_back(
                        valueBinding(file, as.function, as.kind, as.call, as.value, depth + 1));
            return join(all, name + " is not assigned in its class");
        }
        if (name.find('.') != std::string::npos)
            return Binding::unknown("the value is " + name);
        const Symbol s = m_r.resolve(file, fn, name);
        if (s.kind == SymbolKind::Parameter && s.rest.empty()) {
            // An entry's params parameter gets the params dict from the vendor.
            for (const auto& e : m_out.entries) {
                if (e.paramsParameter != s.index || !e.definition.isDefinition())
                    continue;
                bool here = e.definition.kind == SymbolKind::Function &&
                            e.definition.file == file && e.definition.index == s.function;
                if (e.definition.kind == SymbolKind::Class) {
                    const Symbol init =
                        m_r.method(e.definition.file, e.definition.index, "__init__");
                    here = init.file == file && init.index == s.function;
                }
                if (here)
                    return Binding::root(entryScope(e));
            }
            // Else: what every caller passes.
            const auto& def = index.functions[std::size_t(s.function)];
            const int cls = m_r.classOf(file, s.function);
            Symbol target{SymbolKind::Function, file, s.function, ModuleLevel, {}, {}};
            bool isInit = false;
            if (cls >= 0 && def.name == "__init__") {
                target = Symbol{SymbolKind::Class, file, cls, ModuleLevel, {}, {}};
                isInit = true;
            }
            std::vector<Binding> all;
            for (const auto& site : m_r.callSites(target)) {
                const auto& call = idx(site.file).calls[std::size_t(site.call)];
                // A method called on an instance (or a class called) passes self implicitly.
                const bool skipSelf =
                    isInit ||
                    (cls >= 0 && call.callee.find('.') != std::string::npos &&
                     !call.callee.starts_with(index.classes[std::size_t(cls)].name + "."));
                bool passed = false;
                for (std::size_t i = 0; i < call.arguments.size(); ++i)
                    if (python::Resolver::parameterFor(def, call, i, skipSelf) == s.index) {
                        all.push_back(
                            site.file == file && call.function == s.function
                                ? Binding::unknown("recursive call")
                                : exprOrValue(site.file, call, call.arguments[i], depth + 1));
                        passed = true;
                    }
                if (!passed)
                    all.push_back(Binding::unknown("a caller leaves " + name + " to its default"));
            }
            const std::string where =
                m_a.python[std::size_t(file)].path + ":" + std::to_string(def.nameSpan.line);
            return join(all, name + " is a parameter of " + def.qualifiedName + "() (" + where +
                                 ") and no visible caller passes it");
        }
        if (s.kind == SymbolKind::Local && s.rest.empty()) {
            std::vector<Binding> all;
            for (const auto& as : index.assignments)
                if (as.function == s.function && as.target == name && !as.augmented)
                    all.push_back(
                        valueBinding(file, s.function, as.kind, as.call, as.value, depth + 1));
            return join(all, name + " is bound by a loop or a with statement");
        }
        return Binding::unknown("the value is " + name);
    }

    // An argument's binding: its call, if it is one, else its expression.
    Binding exprOrValue(int file, const python::Call& call, const python::Argument& arg, int depth)
    {
        const auto& calls = idx(file).calls;
        for (std::size_t i = 0; i < calls.size(); ++i)
            if (calls[i].span.startByte == arg.valueSpan.startByte &&
                calls[i].span.endByte == arg.valueSpan.endByte)
                return callBinding(file, call.function, int(i), depth + 1);
        return exprBinding(file, call.function, arg.text, depth + 1);
    }

    static bool paramsLikeName(std::string_view base)
    {
        if (base.starts_with("self."))
            base.remove_prefix(5);
        static const std::set<std::string_view> names{"params",     "config",  "cfg", "hparams",
                                                      "run_params", "configs", "conf"};
        return names.count(base) > 0 || base.ends_with("_params") || base.ends_with("_config") ||
               base.ends_with("_cfg");
    }

    void configReads()
    {
        for (int f = 0; f < int(m_a.python.size()); ++f) {
            const PythonFile& file = m_a.python[std::size_t(f)];
            const auto& index = file.index;
            // Names bound to Determined's data config in this file.
            std::set<std::string> dataConfig;
            for (const auto& as : index.assignments)
                if (as.value.find("get_data_config()") != std::string::npos)
                    dataConfig.insert(as.target);
            for (const auto& k : index.keyReads) {
                ConfigRead r;
                r.file = &file;
                r.span = k.span;
                r.function = k.function;
                r.isDefault = k.isDefault;
                if (dataConfig.count(k.base)) {
                    if (k.isWrite)
                        continue;
                    r.target = ConfigTarget::DeterminedData;
                    r.path = "data." + k.path();
                    m_out.reads.push_back(std::move(r));
                    continue;
                }
                const Binding b = nameBinding(f, k.function, k.base, 0);
                if (k.isWrite) {
                    if (b.kind != Binding::Unknown)
                        m_writes.push_back(joinKeys(b.plus(k.keys).keys));
                    else if (paramsLikeName(k.base))
                        m_suffixWrites.push_back(k.path());
                    continue;
                }
                if (b.kind == Binding::Unknown) {
                    // Not provably the params; kept (unverified) so that a key is not called
                    // unused while something may read it, and for the notes.
                    if (!paramsLikeName(k.base))
                        continue;
                    r.verified = false;
                    r.origin = b.why;
                    r.path = k.path();
                } else {
                    r.path = joinKeys(b.plus(k.keys).keys);
                    r.scope = b.scope;
                }
                r.conditional = k.conditional;
                // setdefault provides the key for everyone after it.
                if (r.verified && k.isDefault)
                    m_defaulted.push_back(r.path);
                m_out.reads.push_back(std::move(r));
            }
            for (const auto& h : index.hparams) {
                ConfigRead r;
                r.file = &file;
                r.target = ConfigTarget::DeterminedHparam;
                r.path = "hyperparameters." + h.name;
                r.span = h.span;
                r.function = h.function;
                m_out.reads.push_back(std::move(r));
            }
            // A library function handed the params (set_bert_defaults(params), or
            // params = get_bits_per_x_dataset(params)) may fill in any key under them.
            for (int c = 0; c < int(index.calls.size()); ++c) {
                const auto& call = index.calls[std::size_t(c)];
                if (call.callee.empty() || call.arguments.empty())
                    continue;
                const Symbol s = m_r.callee(f, c);
                if (s.kind != SymbolKind::External)
                    continue;
                const std::string last = s.qualified.substr(s.qualified.rfind('.') + 1);
                bool mutating = false;
                for (const auto& m : m_a.contracts->mutatingCalls)
                    mutating = mutating || globMatch(m, last);
                for (const auto& arg : call.arguments) {
                    if (!mutating && arg.text != call.assignedTo)
                        continue;
                    const Binding b = exprOrValue(f, call, arg, 0);
                    if (b.kind != Binding::Unknown)
                        m_out.providedPrefixes.insert(joinKeys(b.keys));
                }
            }
            // X.update(...) on a section provides keys nobody can list.
            for (const auto& c : index.calls)
                if (c.callee.ends_with(".update") && c.callee.find("()") == std::string::npos) {
                    const std::string receiver = c.callee.substr(0, c.callee.size() - 7);
                    const Binding b = nameBinding(f, c.function, receiver, 0);
                    if (b.kind != Binding::Unknown)
                        m_out.providedPrefixes.insert(joinKeys(b.keys));
                }
            // update_params_from_args(args, params["runconfig"]): every flag becomes a key.
            for (int c = 0; c < int(index.calls.size()); ++c) {
                const auto& call = index.calls[std::size_t(c)];
                for (const auto& fill : m_a.contracts->fillsFromArgs) {
                    bool hit = false;
                    for (const auto& m : fill.match)
                        hit = hit || globMatch(m, call.callee);
                    if (!hit || int(call.arguments.size()) <= fill.sectionArgument)
                        continue;
                    const Binding b =
                        exprOrValue(f, call, call.arguments[std::size_t(fill.sectionArgument)], 0);
                    m_fills.push_back(b.kind == Binding::Unknown ? std::string("runconfig")
                                                                 : joinKeys(b.keys));
                }
            }
        }
    }

    void provided()
    {
        for (const auto& w : m_writes) {
            m_out.provided.insert(w);
            m_out.providedPrefixes.insert(w); // a written section brings everything in it
        }
        for (const auto& d : m_defaulted)
            m_out.provided.insert(d);
        for (const auto& s : m_suffixWrites)
            m_out.providedSuffixes.insert(s);
        // The runner's own flags, when the project hands over to that runner.
        bool runner = false;
        for (const auto& vc : m_out.vendorCalls)
            runner = runner || vc.contract == "cerebras-modelzoo";
        if (runner)
            for (const auto& rf : m_a.contracts->runconfigFlags)
                for (const auto& flag : rf.flags)
                    m_out.provided.insert(rf.section + "." + flag);
        for (const auto& section : m_fills)
            for (const auto& flag : m_out.flags)
                m_out.provided.insert((section.empty() ? "" : section + ".") + flag.dest);
    }

    const ProjectAnalysis& m_a;
    const python::Resolver& m_r;
    ProjectFacts m_out;
    std::map<std::tuple<int, int, std::string>, Binding> m_bindings;
    std::map<std::tuple<int, int, std::string>, bool> m_cli;
    std::vector<std::string> m_writes, m_defaulted, m_suffixWrites, m_fills;
};

} // namespace

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
