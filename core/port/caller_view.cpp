// A training function (or trainer class) defined in one module and called, launched or
// instantiated from another (issue 24): `from work import fit` in main.py, which builds the model
// and the data set and starts `fit` with them. Importing a module runs its top-level code where
// the import is, so the launching file with the module's code in place of its import is the same
// program; the planner reads that one script, and the binding of the values handed over (a
// call's, a launch's or an instantiation's arguments to the parameters) is the one it applies to
// a script (boundArguments, the slicer's callers).
#include "core/port/caller_view.h"

#include "core/port/source.h"

#include <algorithm>
#include <fstream>
#include <random>
#include <set>

namespace portolan::port::detail {

namespace fs = std::filesystem;

namespace {

bool isMainBlock(const SourceFile& src, const Stmt& s)
{
    return s.type == "if_statement" && src.text(s.condition).find("__name__") != std::string::npos;
}

// The module `path` (relative, '/' separators) as an import names it from a file of `dir`:
// "work" for work.py beside it, "pkg.work" for pkg/work.py below it; "" when neither.
std::string moduleName(const std::string& path, const std::string& dir)
{
    if (!path.ends_with(".py"))
        return {};
    std::string rel = path.substr(0, path.size() - 3);
    if (!dir.empty()) {
        if (!rel.starts_with(dir + "/"))
            return {};
        rel = rel.substr(dir.size() + 1);
    }
    for (char& c : rel)
        if (c == '/')
            c = '.';
    return rel;
}

std::string dirOf(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool callsBackward(const python::PyIndex& index)
{
    for (const auto& c : index.calls)
        if (c.callee.ends_with(".backward"))
            return true;
    return false;
}

// Every `<bound>.<name>` of the launcher (`work.fit`), as (start, end) byte ranges of the
// attribute node, in order.
void moduleAttributes(const SourceFile& src, TSNode n, const std::string& bound,
                      std::vector<std::pair<std::uint32_t, std::uint32_t>>& out)
{
    if (ts_node_is_null(n))
        return;
    if (std::string_view(ts_node_type(n)) == "attribute") {
        const TSNode obj = ts_node_child_by_field_name(n, "object", 6);
        if (!ts_node_is_null(obj) && std::string_view(ts_node_type(obj)) == "identifier" &&
            src.text(obj) == bound) {
            out.emplace_back(ts_node_start_byte(n), ts_node_end_byte(n));
            return;
        }
    }
    for (std::uint32_t i = 0; i < ts_node_child_count(n); ++i)
        moduleAttributes(src, ts_node_child(n, i), bound, out);
}

// `import work` (or `import work as w`) whose `work.fit(...)` the launcher calls or starts: the
// launcher with the module's code in place of the import and each `work.<name>` read as
// `<name>`, the names the module's code now binds in the launcher itself. "" when the launcher
// does not use the module that way.
std::string inlinedModuleImport(const analysis::PythonFile& f, const SourceFile& launcher,
                                const python::Import& imp, const Stmt& statement,
                                const std::string& moduleText)
{
    const std::string bound = imp.boundName();
    if (statement.type != "import_statement" || bound.find('.') != std::string::npos)
        return {};
    // `import data, work, plots`: the other modules stay imported, before the module's code.
    std::string kept;
    for (const auto& other : f.index.imports)
        if (statement.start <= other.span.startByte && other.span.endByte <= statement.end &&
            other.span.startByte != imp.span.startByte)
            kept += (kept.empty() ? "import " : ", ") +
                    f.text.substr(other.span.startByte, other.span.endByte - other.span.startByte);
    const std::string inlined = (kept.empty() ? "" : kept + "\n") + moduleText + "\n";
    bool used = false;
    for (const auto& c : f.index.calls) {
        used = used || (c.callee.starts_with(bound + ".") &&
                        c.callee.find('.', bound.size() + 1) == std::string::npos);
        for (const auto& x : c.arguments)
            used = used || ((x.keyword == "target" || x.keyword.empty()) &&
                            x.text.starts_with(bound + "."));
    }
    if (!used)
        return {};
    std::vector<std::pair<std::uint32_t, std::uint32_t>> attributes;
    for (const auto& s : launcher.statements())
        if (s.end <= statement.start || s.start >= statement.end)
            moduleAttributes(launcher, s.node, bound, attributes);
    std::string text;
    std::uint32_t at = 0;
    for (const auto& [start, end] : attributes) {
        if (at <= statement.start && statement.start < start) {
            text += f.text.substr(at, statement.start - at) + inlined;
            at = statement.end;
        }
        text += f.text.substr(at, start - at) +
                f.text.substr(start + bound.size() + 1, end - start - bound.size() - 1);
        at = end;
    }
    if (at <= statement.start) {
        text += f.text.substr(at, statement.start - at) + inlined;
        at = statement.end;
    }
    return text + f.text.substr(at);
}

// Whether a file other than the launcher and the module imports the module.
bool importedElsewhere(const analysis::ProjectAnalysis& a, const analysis::PythonFile& launcher,
                       const analysis::PythonFile& module)
{
    for (const auto& f : a.python) {
        if (&f == &launcher || &f == &module)
            continue;
        const std::string name = moduleName(module.path, dirOf(f.path));
        for (const auto& imp : f.index.imports)
            if (!name.empty() && (imp.module == name || imp.module == "." + name))
                return true;
    }
    return false;
}

// Does a main block of the module train (run a backward(), or call a function of the module
// whose body does)? Then the module is a script of its own, the entry.
bool mainBlockTrains(const SourceFile& module, const Stmt& block)
{
    const std::string text = module.text(block.start, block.end);
    if (text.find(".backward(") != std::string::npos)
        return true;
    for (const auto& s : module.statements())
        if ((s.type == "function_definition" || s.type == "decorated_definition") &&
            !s.name.empty() && block.uses.count(s.name) &&
            module.text(s.start, s.end).find(".backward(") != std::string::npos)
            return true;
    return false;
}

// Does the launcher put a folder on Python's path (`sys.path.append(...)`,
// `sys.path.insert(0, ...)`)? Then it may import the module by a name from the project's root
// (`from src.fit import ...`), as the folder it adds is usually that root.
bool extendsPath(const python::PyIndex& index)
{
    for (const auto& c : index.calls)
        if (c.callee == "sys.path.append" || c.callee == "sys.path.insert")
            return true;
    return false;
}

// The package module `pkg` (pkg/__init__.py) that re-exports `name` from `module` (`from
// .trainer import fit` or `from pkg.trainer import fit` in its __init__.py): each as
// (package path without "/__init__.py", name).
std::set<std::pair<std::string, std::string>> reexports(const analysis::ProjectAnalysis& a,
                                                        const std::string& module)
{
    std::set<std::pair<std::string, std::string>> out;
    for (const auto& f : a.python) {
        if (!(f.path == "__init__.py" || f.path.ends_with("/__init__.py")))
            continue;
        const std::string package = dirOf(f.path);
        if (package.empty())
            continue;
        for (const auto& imp : f.index.imports) {
            if (imp.function != python::ModuleLevel || imp.name.empty() ||
                (!imp.alias.empty() && imp.alias != imp.name))
                continue;
            std::string from = imp.module;
            std::string dir = package;
            if (from.starts_with('.')) {
                // `.x` is beside __init__.py, `..x` a folder up.
                std::size_t dots = 0;
                while (dots < from.size() && from[dots] == '.')
                    ++dots;
                for (std::size_t k = 1; k < dots && !dir.empty(); ++k)
                    dir = dirOf(dir);
                from = from.substr(dots);
            } else {
                dir.clear(); // from the project's root
            }
            for (char& c : from)
                if (c == '.')
                    c = '/';
            if ((dir.empty() ? from : dir + "/" + from) + ".py" == module)
                out.emplace(package, imp.name);
        }
    }
    return out;
}

// The module's relative imports (`from .cnn import Net`) made absolute from the package it is
// in (`from pkg.cnn import Net`): its code runs in the launcher, outside the package.
std::string absoluteImports(const std::string& text, const std::string& modulePath)
{
    const std::string package = dirOf(modulePath);
    if (package.empty())
        return text;
    std::string dotted = package;
    for (char& c : dotted)
        if (c == '/')
            c = '.';
    std::string out;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        end = end == std::string::npos ? text.size() : end + 1;
        std::string line = text.substr(at, end - at);
        if (line.starts_with("from .") && !line.starts_with("from .."))
            line = "from " + dotted + (line[6] == ' ' ? "" : ".") + line.substr(6);
        out += line;
        at = end;
    }
    return out;
}

} // namespace

std::optional<CallerView> callerView(const analysis::ProjectAnalysis& a)
{
    // The module holding the training: the one file that calls backward(). A main block of it
    // that trains makes it the entry; one that does not (a self-test) does not run when the
    // module is imported, so the module's code is inlined without it.
    const analysis::PythonFile* training = nullptr;
    for (const auto& f : a.python)
        if (callsBackward(f.index)) {
            if (training)
                return std::nullopt;
            training = &f;
        }
    if (!training)
        return std::nullopt;
    const SourceFile module(training->path, training->text);
    std::string moduleText;
    std::uint32_t kept = 0;
    for (const auto& s : module.statements())
        if (isMainBlock(module, s)) {
            if (mainBlockTrains(module, s))
                return std::nullopt;
            moduleText += training->text.substr(kept, s.start - kept);
            kept = s.end;
        }
    moduleText += training->text.substr(std::min<std::size_t>(kept, training->text.size()));
    // The file that imports a name of it at its top level and calls, starts or instantiates that
    // name.
    for (const auto& f : a.python) {
        if (&f == training)
            continue;
        const std::string name = moduleName(training->path, dirOf(f.path));
        const std::string fromRoot =
            extendsPath(f.index) ? moduleName(training->path, "") : std::string();
        // A package beside the launcher that re-exports the module's names (`from src import
        // fit`, src/__init__.py importing it from .trainer).
        std::set<std::pair<std::string, std::string>> viaPackage;
        for (const auto& [package, exported] : reexports(a, training->path))
            if (const std::string pkg = moduleName(package + ".py", dirOf(f.path)); !pkg.empty())
                viaPackage.emplace(pkg, exported);
        if (name.empty() && fromRoot.empty() && viaPackage.empty())
            continue;
        const SourceFile launcher(f.path, f.text);
        for (const auto& imp : f.index.imports) {
            const bool reexported = viaPackage.count({imp.module, imp.name}) > 0;
            if (imp.function != python::ModuleLevel ||
                (imp.module != name && imp.module != fromRoot && !reexported) || imp.module.empty())
                continue;
            if (imp.name.empty()) {
                for (const auto& s : launcher.statements())
                    if (s.start <= imp.span.startByte && imp.span.endByte <= s.end)
                        if (std::string text = inlinedModuleImport(f, launcher, imp, s, moduleText);
                            !text.empty())
                            return CallerView{f.path, training->path, std::move(text),
                                              importedElsewhere(a, f, *training)};
                continue;
            }
            if (!imp.alias.empty())
                continue;
            bool used = false;
            for (const auto& c : f.index.calls) {
                used = used || c.callee == imp.name;
                for (const auto& x : c.arguments)
                    used = used ||
                           ((x.keyword == "target" || x.keyword.empty()) && x.text == imp.name);
            }
            if (!used)
                continue;
            const Stmt* statement = nullptr;
            for (const auto& s : launcher.statements())
                if (s.start <= imp.span.startByte && imp.span.endByte <= s.end)
                    statement = &s;
            if (!statement || statement->type != "import_from_statement")
                continue;
            CallerView view;
            view.entry = f.path;
            view.module = training->path;
            // Through a package, the statement may import other names of it too (`from src
            // import Net, fit`): it stays, and the module's code after it binds the name anew.
            view.text = reexported ? f.text.substr(0, statement->end) + "\n" +
                                         absoluteImports(moduleText, training->path) + "\n" +
                                         f.text.substr(statement->end)
                                   : f.text.substr(0, statement->start) + moduleText + "\n" +
                                         f.text.substr(statement->end);
            view.importedElsewhere = importedElsewhere(a, f, *training);
            return view;
        }
    }
    return std::nullopt;
}

std::optional<fs::path> writeCallerView(const analysis::ProjectAnalysis& a, const CallerView& view)
{
    std::random_device rd;
    const fs::path root = fs::temp_directory_path() /
                          ("portolan-view-" + std::to_string(rd()) + std::to_string(rd()));
    std::error_code ec;
    for (const auto& f : a.python) {
        const fs::path p = root / (f.path == view.entry ? view.entry : f.path);
        fs::create_directories(p.parent_path(), ec);
        std::ofstream out(p, std::ios::binary);
        out << (f.path == view.entry ? view.text : f.text);
        if (!out)
            return std::nullopt;
    }
    return root;
}

} // namespace portolan::port::detail
