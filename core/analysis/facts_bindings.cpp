// The second half of the facts builder (facts_builder.h): argparse flags and their uses, what
// each mapping a read reads is (the params dict, a section of it, or unknown), the config reads,
// and the keys the code or the runner provides.
#include "core/analysis/facts_builder.h"
#include "core/common/glob.h"
#include "core/common/text.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace portolan::analysis::detail {

// --- argparse ------------------------------------------------------------------------------
void FactsBuilder::flags()
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
                else if (arg.keyword == "nargs")
                    flag.nargs = arg.isString ? arg.stringValue : arg.text;
                else if (arg.keyword == "const")
                    flag.constText = arg.text;
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
bool FactsBuilder::isCliNamespace(int file, FunctionId fn, const std::string& name, int depth)
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
                if (as.kind == python::ValueKind::Call && as.call >= 0 && fromCall(file, as.call))
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
                                  isCliNamespace(callee.file, callee.index, r.text, depth + 1))))
                                yes = true;
                }
            }
    } else if (s.kind == SymbolKind::Parameter) {
        const auto& def = idx(file).functions[std::size_t(s.function)];
        Symbol self{SymbolKind::Function, file, s.function, ModuleLevel, {}, {}};
        for (const auto& site : m_r.callSites(self)) {
            const auto& call = idx(site.file).calls[std::size_t(site.call)];
            for (std::size_t i = 0; i < call.arguments.size(); ++i)
                if (python::Resolver::parameterFor(def, call, i,
                                                   m_r.classOf(file, s.function) >= 0) == s.index &&
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
bool FactsBuilder::isParamsPath(int file, FunctionId fn, const std::string& text, int depth)
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
                if (python::Resolver::parameterFor(def, call, i,
                                                   m_r.classOf(file, s.function) >= 0) == s.index) {
                    if (!isParamsPath(site.file, call.function, call.arguments[i].text, depth + 1))
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
Binding FactsBuilder::callBinding(int file, FunctionId fn, int call, int depth)
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
                if (inner.parentCall == call && inner.callee == "open" && !inner.arguments.empty())
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

Binding FactsBuilder::valueBinding(int file, FunctionId fn, python::ValueKind kind, int call,
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

Binding FactsBuilder::exprBinding(int file, FunctionId fn, const std::string& text, int depth)
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
std::string FactsBuilder::entryScope(const Entry& e) const
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

Binding FactsBuilder::nameBinding(int file, FunctionId fn, const std::string& name, int depth)
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

Binding FactsBuilder::computeNameBinding(int file, FunctionId fn, const std::string& name,
                                         int depth)
{
    const auto& index = idx(file);
    // An alias recorded by the indexer: mp = params["model"]. When the name is also bound
    // otherwise in the function (the other branch of an if: mp = params), a read of it after
    // both may be of any of them.
    // A conditional expression (mp = params["model"] if ... else params) records one alias per
    // branch at the assignment's place.
    for (auto it = index.aliases.rbegin(); it != index.aliases.rend(); ++it)
        if (it->function == fn && it->name == name) {
            std::vector<Binding> all;
            for (const auto& as : index.assignments) {
                if (as.function != fn || as.target != name || as.augmented)
                    continue;
                bool branches = false;
                for (const auto& al : index.aliases)
                    if (al.function == fn && al.name == name &&
                        al.span.startByte == as.span.startByte) {
                        all.push_back(nameBinding(file, fn, al.base, depth + 1).plus(al.keys));
                        branches = true;
                    }
                if (!branches)
                    all.push_back(valueBinding(file, fn, as.kind, as.call, as.value, depth + 1));
            }
            if (all.empty())
                return nameBinding(file, fn, it->base, depth + 1).plus(it->keys);
            return anyOf(all, name + " is not assigned");
        }
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
            bool here = e.definition.kind == SymbolKind::Function && e.definition.file == file &&
                        e.definition.index == s.function;
            if (e.definition.kind == SymbolKind::Class) {
                const Symbol init = m_r.method(e.definition.file, e.definition.index, "__init__");
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
                isInit || (cls >= 0 && call.callee.find('.') != std::string::npos &&
                           !call.callee.starts_with(index.classes[std::size_t(cls)].name + "."));
            bool passed = false;
            for (std::size_t i = 0; i < call.arguments.size(); ++i)
                if (python::Resolver::parameterFor(def, call, i, skipSelf) == s.index) {
                    all.push_back(site.file == file && call.function == s.function
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
Binding FactsBuilder::exprOrValue(int file, const python::Call& call, const python::Argument& arg,
                                  int depth)
{
    const auto& calls = idx(file).calls;
    for (std::size_t i = 0; i < calls.size(); ++i)
        if (calls[i].span.startByte == arg.valueSpan.startByte &&
            calls[i].span.endByte == arg.valueSpan.endByte)
            return callBinding(file, call.function, int(i), depth + 1);
    return exprBinding(file, call.function, arg.text, depth + 1);
}

bool FactsBuilder::paramsLikeName(std::string_view base)
{
    if (base.starts_with("self."))
        base.remove_prefix(5);
    static const std::set<std::string_view> names{"params",     "config",  "cfg", "hparams",
                                                  "run_params", "configs", "conf"};
    return names.count(base) > 0 || base.ends_with("_params") || base.ends_with("_config") ||
           base.ends_with("_cfg");
}

void FactsBuilder::configReads()
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
                if (b.kind != Binding::Unknown) {
                    const Binding full = b.plus(k.keys);
                    m_writes.push_back(joinKeys(full.keys));
                    for (const auto& alt : full.alternatives)
                        m_writes.push_back(joinKeys(alt));
                } else if (paramsLikeName(k.base))
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
                const Binding full = b.plus(k.keys);
                r.path = joinKeys(full.keys);
                for (const auto& alt : full.alternatives)
                    r.alternatives.push_back(joinKeys(alt));
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

void FactsBuilder::provided()
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

} // namespace portolan::analysis::detail
