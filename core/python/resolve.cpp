// The resolution layer: per-file tables of module-level bindings, a module table for the whole
// project, and lookups that follow imports, classes and assignments across files. Everything is
// read-only after construction except the callers index, which is built once on first use.
#include "core/python/resolve.h"

#include "core/python/resolve_internal.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

namespace portolan::python {

namespace {

std::vector<std::string> splitDots(std::string_view s)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t dot = s.find('.', start);
        const std::size_t end = dot == std::string_view::npos ? s.size() : dot;
        out.emplace_back(s.substr(start, end - start));
        if (dot == std::string_view::npos)
            break;
        start = dot + 1;
    }
    return out;
}

std::string joinDots(const std::vector<std::string>& parts, std::size_t from,
                     std::size_t to = std::string::npos)
{
    std::string out;
    to = std::min(to, parts.size());
    for (std::size_t i = from; i < to; ++i) {
        if (!out.empty())
            out += '.';
        out += parts[i];
    }
    return out;
}

std::string moduleNameOf(const std::string& path)
{
    std::string m = path;
    if (m.ends_with(".py"))
        m.resize(m.size() - 3);
    else if (m.ends_with(".pyi"))
        m.resize(m.size() - 4);
    if (m == "__init__")
        return "";
    if (m.ends_with("/__init__"))
        m.resize(m.size() - 9);
    std::replace(m.begin(), m.end(), '/', '.');
    return m;
}

// The package a file's relative imports start from: its folder, dotted.
std::string packageOf(const std::string& path)
{
    const auto slash = path.rfind('/');
    if (slash == std::string::npos)
        return "";
    std::string p = path.substr(0, slash);
    std::replace(p.begin(), p.end(), '/', '.');
    return p;
}

bool contains(const Span& outer, const Span& inner)
{
    return outer.startByte <= inner.startByte && inner.endByte <= outer.endByte;
}

bool isStatic(const FunctionDef& fn)
{
    for (const auto& d : fn.decorators)
        if (d.find("staticmethod") != std::string::npos)
            return true;
    return false;
}

} // namespace

std::string_view symbolKindName(SymbolKind k)
{
    switch (k) {
    case SymbolKind::Unknown:
        return "unknown";
    case SymbolKind::Builtin:
        return "builtin";
    case SymbolKind::External:
        return "external";
    case SymbolKind::Module:
        return "module";
    case SymbolKind::Class:
        return "class";
    case SymbolKind::Instance:
        return "instance";
    case SymbolKind::Function:
        return "function";
    case SymbolKind::Parameter:
        return "parameter";
    case SymbolKind::Local:
        return "local";
    }
    return "unknown";
}

bool Value::known() const
{
    switch (kind) {
    case ValueKind::Call:
        if (!symbol.rest.empty())
            return false;
        return symbol.kind == SymbolKind::External || symbol.kind == SymbolKind::Builtin ||
               symbol.kind == SymbolKind::Class;
    case ValueKind::Name:
        return symbol.isDefinition();
    case ValueKind::Other:
    case ValueKind::Attribute:
    case ValueKind::Subscript:
        return false;
    default:
        return true; // literals
    }
}

Resolver::Resolver(std::vector<const PyIndex*> files)
    : m_files(std::move(files)), m_callers(std::make_unique<Callers>())
{
    m_modules.reserve(m_files.size());
    for (std::size_t i = 0; i < m_files.size(); ++i) {
        const std::string& path = m_files[i]->file;
        m_paths.emplace(path, static_cast<int>(i));
        m_modules.push_back(moduleNameOf(path));
        // A package's __init__ and a module of the same name: the package wins, as in Python.
        const bool package = path.ends_with("__init__.py");
        auto [it, inserted] = m_moduleFiles.emplace(m_modules.back(), static_cast<int>(i));
        if (!inserted && package)
            it->second = static_cast<int>(i);
    }

    for (const PyIndex* idx : m_files) {
        auto t = std::make_unique<FileTables>();
        // Module-level bindings in source order: the last one wins, as at run time.
        std::vector<std::tuple<std::uint32_t, std::string, Binding>> order;
        for (std::size_t f = 0; f < idx->functions.size(); ++f) {
            const auto& fn = idx->functions[f];
            if (fn.parent == ModuleLevel && fn.className.empty())
                order.emplace_back(fn.span.startByte, fn.name,
                                   Binding{Binding::Function, static_cast<int>(f)});
        }
        for (std::size_t c = 0; c < idx->classes.size(); ++c) {
            const auto& cls = idx->classes[c];
            if (cls.function == ModuleLevel && !cls.nested)
                order.emplace_back(cls.span.startByte, cls.name,
                                   Binding{Binding::Class, static_cast<int>(c)});
        }
        for (std::size_t i = 0; i < idx->imports.size(); ++i) {
            const auto& imp = idx->imports[i];
            if (imp.function == ModuleLevel && imp.name != "*")
                order.emplace_back(imp.span.startByte, imp.boundName(),
                                   Binding{Binding::Import, static_cast<int>(i)});
        }
        for (std::size_t a = 0; a < idx->assignments.size(); ++a) {
            const auto& as = idx->assignments[a];
            if (as.function != ModuleLevel || as.augmented)
                continue;
            // Only plain names: `x = ...`; a conditional import's fallback (`x = None`) counts.
            if (as.target.find_first_of(".[,( ") == std::string::npos)
                order.emplace_back(as.span.startByte, as.target,
                                   Binding{Binding::Local, static_cast<int>(a)});
        }
        std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
            return std::get<0>(a) < std::get<0>(b);
        });
        for (auto& [pos, name, b] : order)
            t->module[name] = b;

        t->methods.resize(idx->classes.size());
        t->classOfFunction.assign(idx->functions.size(), -1);
        for (std::size_t f = 0; f < idx->functions.size(); ++f) {
            const auto& fn = idx->functions[f];
            if (fn.className.empty())
                continue;
            // The innermost class of that name whose body holds the method.
            int best = -1;
            for (std::size_t c = 0; c < idx->classes.size(); ++c) {
                const auto& cls = idx->classes[c];
                if (cls.name == fn.className && contains(cls.span, fn.span) &&
                    (best < 0 || contains(idx->classes[std::size_t(best)].span, cls.span)))
                    best = static_cast<int>(c);
            }
            if (best >= 0) {
                t->methods[std::size_t(best)].emplace_back(fn.name, static_cast<int>(f));
                t->classOfFunction[f] = best;
            }
        }
        m_tables.push_back(std::move(t));
    }

    // The package prefix: for `from a.b.c.m import f` where the project has a module m that
    // defines f, `a.b.c` is a vote (so `from torch.utils.data import DataLoader` is no vote for a
    // project that happens to have a data.py). The prefix with the most votes wins (ties: the
    // longest).
    std::map<std::string, int> votes;
    for (const PyIndex* idx : m_files)
        for (const auto& imp : idx->imports) {
            if (imp.module.empty() || imp.module[0] == '.' || imp.name.empty() || imp.name == "*")
                continue;
            const auto parts = splitDots(imp.module);
            for (std::size_t k = 1; k < parts.size(); ++k) {
                const std::string rest = joinDots(parts, k);
                bool local = false;
                if (const auto it = m_moduleFiles.find(rest); it != m_moduleFiles.end()) {
                    // Defined there, not merely imported there.
                    const auto& names = m_tables[std::size_t(it->second)]->module;
                    const auto def = names.find(imp.name);
                    local = def != names.end() && def->second.kind != Binding::Import;
                }
                local = local || m_moduleFiles.count(rest + "." + imp.name) > 0;
                if (local) {
                    ++votes[joinDots(parts, 0, k)];
                    break; // the longest prefix for this import
                }
            }
        }
    int best = 0;
    for (const auto& [prefix, n] : votes)
        if (n > best || (n == best && prefix.size() > m_prefix.size())) {
            best = n;
            m_prefix = prefix;
        }
}

Resolver::~Resolver() = default;

int Resolver::fileIndex(std::string_view path) const
{
    const auto it = m_paths.find(std::string(path));
    return it == m_paths.end() ? -1 : it->second;
}

const std::string& Resolver::moduleName(int file) const
{
    return m_modules[static_cast<std::size_t>(file)];
}

int Resolver::moduleFile(int fromFile, std::string_view module) const
{
    if (module.empty())
        return -1;
    if (module[0] == '.') {
        std::size_t level = 0;
        while (level < module.size() && module[level] == '.')
            ++level;
        std::vector<std::string> base =
            splitDots(packageOf(m_files[static_cast<std::size_t>(fromFile)]->file));
        if (base.size() == 1 && base[0].empty())
            base.clear();
        for (std::size_t up = 1; up < level; ++up) {
            if (base.empty())
                return -1;
            base.pop_back();
        }
        std::string name = joinDots(base, 0);
        const std::string_view tail = module.substr(level);
        if (!tail.empty())
            name = name.empty() ? std::string(tail) : name + "." + std::string(tail);
        const auto it = m_moduleFiles.find(name);
        return it == m_moduleFiles.end() ? -1 : it->second;
    }
    const std::string m(module);
    if (const auto it = m_moduleFiles.find(m); it != m_moduleFiles.end())
        return it->second;
    if (!m_prefix.empty() && m.size() > m_prefix.size() && m.starts_with(m_prefix) &&
        m[m_prefix.size()] == '.')
        if (const auto it = m_moduleFiles.find(m.substr(m_prefix.size() + 1));
            it != m_moduleFiles.end())
            return it->second;
    // A sibling module of a script in a subfolder (its folder is on sys.path when it runs).
    const std::string pkg = packageOf(m_files[static_cast<std::size_t>(fromFile)]->file);
    if (!pkg.empty())
        if (const auto it = m_moduleFiles.find(pkg + "." + m); it != m_moduleFiles.end())
            return it->second;
    return -1;
}

Symbol Resolver::lookupIn(int file, const std::vector<std::string>& parts, std::size_t from,
                          int depth) const
{
    Symbol s;
    s.file = file;
    if (from >= parts.size()) {
        s.kind = SymbolKind::Module;
        s.qualified = moduleName(file);
        return s;
    }
    const auto& tables = *m_tables[static_cast<std::size_t>(file)];
    const PyIndex& idx = index(file);
    const std::string& head = parts[from];
    const auto it = tables.module.find(head);
    if (it == tables.module.end()) {
        // A submodule of a package: `from pkg import mod`.
        const std::string& me = moduleName(file);
        const auto sub = m_moduleFiles.find(me.empty() ? head : me + "." + head);
        if (sub != m_moduleFiles.end() && sub->second != file)
            return lookupIn(sub->second, parts, from + 1, depth + 1);
        s.kind = SymbolKind::Unknown;
        s.qualified = moduleName(file) + "." + head;
        s.rest = joinDots(parts, from + 1);
        return s;
    }
    const Binding& b = it->second;
    switch (b.kind) {
    case Binding::Function:
        s.kind = SymbolKind::Function;
        s.index = b.index;
        s.qualified = moduleName(file) + "." + head;
        return follow(std::move(s), parts, from + 1, depth);
    case Binding::Class:
        s.kind = SymbolKind::Class;
        s.index = b.index;
        s.qualified = moduleName(file) + "." + head;
        return follow(std::move(s), parts, from + 1, depth);
    case Binding::Import:
        return fromImport(file, idx.imports[static_cast<std::size_t>(b.index)], parts, from + 1,
                          depth + 1);
    case Binding::Local:
        s.kind = SymbolKind::Local;
        s.function = ModuleLevel;
        s.index = b.index;
        s.qualified = moduleName(file) + "." + head;
        s.rest = joinDots(parts, from + 1);
        return s;
    }
    return s;
}

Symbol Resolver::fromQualified(int fromFile, const std::string& dotted, int depth) const
{
    // The longest leading run of parts that is a project module, then names inside it.
    const auto parts = splitDots(dotted);
    for (std::size_t n = parts.size(); n >= 1; --n) {
        const int f = moduleFile(fromFile, joinDots(parts, 0, n));
        if (f >= 0)
            return lookupIn(f, parts, n, depth + 1);
    }
    Symbol s;
    s.kind = SymbolKind::External;
    s.qualified = dotted;
    return s;
}

Symbol Resolver::fromImport(int file, const Import& imp, const std::vector<std::string>& parts,
                            std::size_t from, int depth) const
{
    if (depth > MaxResolveDepth)
        return {};
    std::string target;
    if (imp.name.empty())
        target = imp.alias.empty() ? imp.module.substr(0, imp.module.find('.')) : imp.module;
    else if (imp.module.empty() || imp.module.find_first_not_of('.') == std::string::npos)
        target = imp.module + imp.name; // `from . import x`
    else
        target = imp.module + "." + imp.name;
    const std::string tail = joinDots(parts, from);
    if (!tail.empty())
        target += "." + tail;
    if (target[0] == '.') {
        // Relative: the leading dots choose the package; it must be the project's own.
        std::size_t level = 0;
        while (level < target.size() && target[level] == '.')
            ++level;
        const auto rel = splitDots(std::string_view(target).substr(level));
        for (std::size_t n = rel.size(); n >= 1; --n) {
            const std::string mod = std::string(level, '.') + joinDots(rel, 0, n);
            const int f = moduleFile(file, mod);
            if (f >= 0)
                return lookupIn(f, rel, n, depth + 1);
        }
        if (const int f = moduleFile(file, std::string(level, '.')); f >= 0)
            return lookupIn(f, rel, 0, depth + 1);
        Symbol s;
        s.qualified = target;
        return s;
    }
    return fromQualified(file, target, depth);
}

Symbol Resolver::follow(Symbol s, const std::vector<std::string>& parts, std::size_t from,
                        int depth) const
{
    if (from >= parts.size() || depth > MaxResolveDepth)
        return s;
    switch (s.kind) {
    case SymbolKind::Module:
        return lookupIn(s.file, parts, from, depth + 1);
    case SymbolKind::Class:
    case SymbolKind::Instance: {
        const Symbol m = method(s.file, s.index, parts[from]);
        if (m.kind == SymbolKind::Function) {
            Symbol out = m;
            out.rest = joinDots(parts, from + 1);
            return out;
        }
        s.rest = joinDots(parts, from);
        return s;
    }
    case SymbolKind::External:
    case SymbolKind::Builtin:
        s.qualified += "." + joinDots(parts, from);
        s.kind = SymbolKind::External;
        return s;
    default:
        s.rest = s.rest.empty() ? joinDots(parts, from) : s.rest + "." + joinDots(parts, from);
        return s;
    }
}

Symbol Resolver::resolveParts(int file, FunctionId scope, const std::vector<std::string>& parts,
                              int depth) const
{
    const PyIndex& idx = index(file);
    const std::string& head = parts[0];
    Symbol s;
    s.file = file;
    // Enclosing functions first (class bodies are not enclosing scopes for their methods).
    for (FunctionId f = scope; f >= 0;) {
        const FunctionDef& fn = idx.functions[static_cast<std::size_t>(f)];
        for (std::size_t p = 0; p < fn.parameters.size(); ++p) {
            if (fn.parameters[p].name != head)
                continue;
            const int cls = classOf(file, f);
            if (p == 0 && cls >= 0 && !isStatic(fn) && fn.parameters[p].star == 0) {
                const bool classMethod = std::any_of(
                    fn.decorators.begin(), fn.decorators.end(), [](const std::string& d) {
                        return d.find("classmethod") != std::string::npos;
                    });
                s.kind = classMethod ? SymbolKind::Class : SymbolKind::Instance;
                s.index = cls;
                s.qualified = moduleName(file) + "." + idx.classes[std::size_t(cls)].name;
                return follow(std::move(s), parts, 1, depth);
            }
            s.kind = SymbolKind::Parameter;
            s.index = static_cast<int>(p);
            s.function = f;
            s.qualified = head;
            s.rest = joinDots(parts, 1);
            return s;
        }
        for (auto it = idx.imports.rbegin(); it != idx.imports.rend(); ++it)
            if (it->function == f && it->name != "*" && it->boundName() == head)
                return fromImport(file, *it, parts, 1, depth + 1);
        for (std::size_t g = 0; g < idx.functions.size(); ++g)
            if (idx.functions[g].parent == f && idx.functions[g].className.empty() &&
                idx.functions[g].name == head) {
                s.kind = SymbolKind::Function;
                s.index = static_cast<int>(g);
                s.qualified = moduleName(file) + "." + idx.functions[g].qualifiedName;
                return follow(std::move(s), parts, 1, depth);
            }
        for (std::size_t c = 0; c < idx.classes.size(); ++c)
            if (idx.classes[c].function == f && !idx.classes[c].nested &&
                idx.classes[c].name == head) {
                s.kind = SymbolKind::Class;
                s.index = static_cast<int>(c);
                s.qualified = moduleName(file) + "." + head;
                return follow(std::move(s), parts, 1, depth);
            }
        for (const auto& d : idx.scopeOf(f).defined)
            if (d.name == head) {
                s.kind = SymbolKind::Local;
                s.function = f;
                s.qualified = head;
                s.rest = joinDots(parts, 1);
                return s;
            }
        f = fn.parent;
    }
    const auto& tables = *m_tables[static_cast<std::size_t>(file)];
    if (tables.module.count(head))
        return lookupIn(file, parts, 0, depth);
    if (isBuiltinName(head)) {
        s.kind = SymbolKind::Builtin;
        s.file = -1;
        s.qualified = head;
        return follow(std::move(s), parts, 1, depth);
    }
    s.kind = SymbolKind::Unknown;
    s.qualified = head;
    s.rest = joinDots(parts, 1);
    return s;
}

Symbol Resolver::resolve(int file, FunctionId scope, std::string_view dotted) const
{
    if (dotted.empty() || dotted.find_first_of("()?[ ") != std::string_view::npos) {
        Symbol s;
        s.qualified = std::string(dotted);
        return s;
    }
    return resolveParts(file, scope, splitDots(dotted), 0);
}

Symbol Resolver::callee(int file, int call) const
{
    const Call& c = index(file).calls[static_cast<std::size_t>(call)];
    return resolve(file, c.function, c.callee);
}

Symbol Resolver::method(int file, int cls, std::string_view name) const
{
    // This class, then its project ancestors, depth first in base order (close enough to the
    // MRO for the single-inheritance code the checks look at).
    for (int depth = 0, f = file, c = cls; depth < MaxResolveDepth && f >= 0 && c >= 0; ++depth) {
        const auto& tables = *m_tables[static_cast<std::size_t>(f)];
        for (const auto& [n, fn] : tables.methods[static_cast<std::size_t>(c)])
            if (n == name) {
                Symbol s;
                s.kind = SymbolKind::Function;
                s.file = f;
                s.index = fn;
                s.qualified = moduleName(f) + "." +
                              index(f).functions[static_cast<std::size_t>(fn)].qualifiedName;
                return s;
            }
        const ClassDef& def = index(f).classes[static_cast<std::size_t>(c)];
        int nf = -1, nc = -1;
        for (const auto& base : def.bases) {
            const Symbol b = resolve(f, def.function, base);
            if (b.kind == SymbolKind::Class && b.rest.empty()) {
                nf = b.file;
                nc = b.index;
                break;
            }
        }
        f = nf;
        c = nc;
    }
    return {};
}

int Resolver::classOf(int file, FunctionId fn) const
{
    if (fn < 0)
        return -1;
    return m_tables[static_cast<std::size_t>(file)]->classOfFunction[static_cast<std::size_t>(fn)];
}

std::vector<std::string> Resolver::ancestors(int file, int cls, bool* unknown) const
{
    std::vector<std::string> out;
    std::vector<std::pair<int, int>> todo{{file, cls}};
    std::vector<std::pair<int, int>> seen;
    while (!todo.empty() && seen.size() < 64) {
        const auto [f, c] = todo.back();
        todo.pop_back();
        if (std::find(seen.begin(), seen.end(), std::make_pair(f, c)) != seen.end())
            continue;
        seen.emplace_back(f, c);
        const ClassDef& def = index(f).classes[static_cast<std::size_t>(c)];
        for (const auto& base : def.bases) {
            const Symbol b = resolve(f, def.function, base);
            if (b.kind == SymbolKind::Class && b.rest.empty()) {
                out.push_back(b.qualified);
                todo.emplace_back(b.file, b.index);
            } else if (b.kind == SymbolKind::External || b.kind == SymbolKind::Builtin) {
                out.push_back(b.qualified);
            } else {
                out.push_back(base);
                if (unknown)
                    *unknown = true;
            }
        }
    }
    return out;
}

} // namespace portolan::python
