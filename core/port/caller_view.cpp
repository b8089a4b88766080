// A training function (or trainer class) defined in one module and called, launched or
// instantiated from another (issue 24): `from work import fit` in main.py, which builds the model
// and the data set and starts `fit` with them. Importing a module runs its top-level code where
// the import is, so the launching file with the module's code in place of its import is the same
// program; the planner reads that one script, and the binding of the values handed over (a
// call's, a launch's or an instantiation's arguments to the parameters) is the one it applies to
// a script (boundArguments, the slicer's callers).
#include "core/port/caller_view.h"

#include "core/port/source.h"

#include <fstream>
#include <random>

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

} // namespace

std::optional<CallerView> callerView(const analysis::ProjectAnalysis& a)
{
    // The module holding the training: the one file that calls backward(), which runs nothing
    // itself under `if __name__ == "__main__":`.
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
    for (const auto& s : module.statements())
        if (isMainBlock(module, s))
            return std::nullopt;
    // The file that imports a name of it at its top level and calls, starts or instantiates that
    // name.
    for (const auto& f : a.python) {
        if (&f == training)
            continue;
        const std::string name = moduleName(training->path, dirOf(f.path));
        if (name.empty())
            continue;
        const SourceFile launcher(f.path, f.text);
        for (const auto& imp : f.index.imports) {
            if (imp.function != python::ModuleLevel || imp.module != name || imp.name.empty() ||
                !imp.alias.empty())
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
            view.text = f.text.substr(0, statement->start) + training->text + "\n" +
                        f.text.substr(statement->end);
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
