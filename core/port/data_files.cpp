#include "core/port/data_files.h"

#include "core/analysis/analysis.h"
#include "core/port/generate.h"

#include <algorithm>
#include <fstream>
#include <glob.h>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace portolan::port {

namespace {

namespace fs = std::filesystem;

// Functions whose first argument is a file they read.
bool readsFile(const std::string& callee)
{
    static const std::set<std::string> readers{"open",
                                               "io.open",
                                               "torch.load",
                                               "numpy.load",
                                               "numpy.loadtxt",
                                               "numpy.genfromtxt",
                                               "numpy.fromfile",
                                               "pandas.read_csv",
                                               "pandas.read_table",
                                               "pandas.read_json",
                                               "pandas.read_pickle",
                                               "pandas.read_parquet",
                                               "pandas.read_excel",
                                               "PIL.Image.open",
                                               "h5py.File",
                                               "scipy.io.loadmat"};
    return readers.count(callee) > 0;
}

// Functions that write the file their argument at `position` names.
int writtenArgument(const std::string& callee)
{
    if (callee == "torch.save")
        return 1;
    if (callee == "numpy.save" || callee == "numpy.savetxt" || callee == "numpy.savez" ||
        callee.ends_with(".to_csv"))
        return 0;
    return -1;
}

// `open(p, "w")`: a mode that writes.
bool opensForWriting(const python::Call& c)
{
    const python::Argument* mode = c.keyword("mode");
    if (!mode && c.arguments.size() > 1 && c.arguments[1].keyword.empty())
        mode = &c.arguments[1];
    return mode && mode->isString && mode->stringValue.find_first_of("wax") != std::string::npos;
}

// The string literals of an expression's text, in order ("a", 'b').
std::vector<std::string> literals(const std::string& text)
{
    std::vector<std::string> out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char q = text[i];
        if (q != '"' && q != '\'')
            continue;
        const auto end = text.find(q, i + 1);
        if (end == std::string::npos)
            break;
        out.push_back(text.substr(i + 1, end - i - 1));
        i = end;
    }
    return out;
}

struct PathArg
{
    std::string written;
    bool fromScriptFolder = false;
};

// The path an argument names, when it is a literal or joined from __file__'s folder with
// literals (`os.path.join(os.path.dirname(__file__), "data", "x.csv")`,
// `Path(__file__).parent / "x.csv"`); nullopt for anything else (a flag, a variable).
std::optional<PathArg> literalPath(const python::Argument& a)
{
    if (a.isString) {
        if (a.stringValue.empty())
            return std::nullopt;
        return PathArg{a.stringValue, false};
    }
    const auto file = a.text.rfind("__file__");
    if (file == std::string::npos)
        return std::nullopt;
    const auto parts = literals(a.text.substr(file));
    if (parts.empty())
        return std::nullopt;
    PathArg p{"", true};
    for (const auto& part : parts)
        p.written += (p.written.empty() ? "" : "/") + part;
    return p;
}

const python::Argument* firstPositional(const python::Call& c)
{
    for (const auto& a : c.arguments)
        if (a.keyword.empty())
            return &a;
    return nullptr;
}

std::string folderOf(const std::string& file)
{
    const auto slash = file.rfind('/');
    return slash == std::string::npos ? std::string() : file.substr(0, slash);
}

std::string normal(const fs::path& p)
{
    return p.lexically_normal().generic_string();
}

bool outsideRoot(const std::string& relative)
{
    return relative.empty() || relative == ".." || relative.starts_with("../");
}

std::string megabytes(std::uintmax_t bytes)
{
    std::ostringstream s;
    s.precision(3);
    s << double(bytes) / (1 << 20) << " MB";
    return s.str();
}

} // namespace

// Functions whose first argument is a pattern of the files they list (`glob.glob("data/*.txt")`):
// the files it matches in the original's folder are what the code goes on to read.
bool listsFiles(const std::string& callee)
{
    return callee == "glob.glob" || callee == "glob.iglob";
}

// The paths a call's argument names: the literal itself, or, when it is a parameter of the
// function the call is in (`def find(path): return glob.glob(path)`), the literals every call
// of that function in the project passes for it (one level: a wrapper of a reader).
// A flag's default when `a` reads one (`args.input_file`, `--input-file` defaulting to
// 'names.txt'): the file the original reads when run as it is.
std::optional<PathArg> flagDefaultPath(const analysis::ProjectAnalysis& analysis,
                                       const python::Argument& a)
{
    const auto dot = a.text.find('.');
    if (dot == std::string::npos || a.text.find_first_of(".()[] ", dot + 1) != std::string::npos)
        return std::nullopt;
    const std::string dest = a.text.substr(dot + 1);
    for (const auto& f : analysis.facts().flags) {
        const std::string& d = f.defaultText;
        if (f.dest != dest || d.size() < 3 || (d.front() != '"' && d.front() != '\'') ||
            d.back() != d.front() || d.find(d.front(), 1) != d.size() - 1)
            continue;
        if (const auto& uses = analysis.facts().cliUses;
            std::none_of(uses.begin(), uses.end(), [&](const auto& u) {
                return u.dest == dest && u.namespaceName == a.text.substr(0, dot);
            }))
            continue;
        return PathArg{d.substr(1, d.size() - 2), false};
    }
    return std::nullopt;
}

std::optional<PathArg> pathOf(const analysis::ProjectAnalysis& analysis, const python::Argument& a)
{
    if (auto p = literalPath(a))
        return p;
    return flagDefaultPath(analysis, a);
}

std::vector<PathArg> pathsOf(const analysis::ProjectAnalysis& analysis, const python::PyIndex& idx,
                             const python::Call& c, const python::Argument& a)
{
    if (auto p = pathOf(analysis, a))
        return {*p};
    std::vector<PathArg> out;
    if (c.function == python::ModuleLevel || c.function < 0 ||
        static_cast<std::size_t>(c.function) >= idx.functions.size())
        return out;
    const auto& def = idx.functions[static_cast<std::size_t>(c.function)];
    if (!def.className.empty())
        return out;
    std::size_t position = 0;
    for (; position < def.parameters.size(); ++position)
        if (def.parameters[position].name == a.text)
            break;
    if (position == def.parameters.size() || def.parameters[position].star != 0)
        return out;
    for (const auto& f : analysis.python)
        for (const auto& caller : f.index.calls) {
            if (caller.callee != def.name && !caller.resolved.ends_with("." + def.name))
                continue;
            const python::Argument* given = caller.keyword(a.text);
            std::size_t positional = 0;
            for (const auto& arg : caller.arguments)
                if (!given && arg.keyword.empty() && positional++ == position)
                    given = &arg;
            if (given)
                if (auto p = pathOf(analysis, *given))
                    out.push_back(*p);
        }
    return out;
}

// The path a formatted string names, its values as wildcards: `'data/%s-%s.txt' % (a, b)`,
// `f"data/{a}-{b}.txt"` and `"data/{}-{}.txt".format(a, b)` are `data/*-*.txt`. "" for anything
// else, and for a pattern whose file name would be all wildcard (it could be any file).
std::string formattedPattern(const std::string& text)
{
    std::string literal;
    bool percent = false, braces = false;
    const auto quoted = [](const std::string& t, std::size_t from) -> std::string {
        if (from >= t.size() || (t[from] != '\'' && t[from] != '"'))
            return {};
        const auto end = t.find(t[from], from + 1);
        return end == std::string::npos ? std::string() : t.substr(from + 1, end - from - 1);
    };
    if (text.starts_with("f'") || text.starts_with("f\"")) {
        literal = quoted(text, 1);
        braces = literal.size() + 3 == text.size();
    } else if (!text.empty() && (text[0] == '\'' || text[0] == '"')) {
        literal = quoted(text, 0);
        std::string rest = text.substr(std::min(text.size(), literal.size() + 2));
        rest.erase(0, rest.find_first_not_of(" "));
        percent = rest.starts_with("%");
        braces = rest.starts_with(".format(");
    }
    if (literal.empty() || (!percent && !braces))
        return {};
    std::string pattern;
    for (std::size_t i = 0; i < literal.size(); ++i) {
        const char ch = literal[i];
        if (percent && ch == '%' && i + 1 < literal.size()) {
            std::size_t j = i + 1;
            if (literal[j] == '(')
                j = literal.find(')', j);
            if (j == std::string::npos)
                return {};
            j = literal.find_first_of("sdifgr", j);
            if (j == std::string::npos)
                return {};
            pattern += '*';
            i = j;
        } else if (braces && ch == '{') {
            const auto j = literal.find('}', i);
            if (j == std::string::npos)
                return {};
            pattern += '*';
            i = j;
        } else if (ch == '*' || ch == '?' || ch == '[') {
            return {}; // a glob character of its own
        } else {
            pattern += ch;
        }
    }
    const std::string name = pattern.substr(pattern.rfind('/') + 1);
    if (pattern.find('*') == std::string::npos || name.find_first_not_of("*") == std::string::npos)
        return {};
    return pattern;
}

// The regular files a glob pattern (relative to `root`) matches there, relative to `root`, in
// order; `*` does not match a leading dot, as in Python's glob.
std::vector<std::string> globbed(const fs::path& root, const std::string& pattern)
{
    std::vector<std::string> out;
    glob_t g{};
    const std::string full = (root / pattern).string();
    if (::glob(full.c_str(), 0, nullptr, &g) == 0) {
        for (std::size_t i = 0; i < g.gl_pathc; ++i) {
            std::error_code ec;
            const fs::path match(g.gl_pathv[i]);
            if (fs::is_regular_file(match, ec))
                out.push_back(normal(match.lexically_relative(root)));
        }
    }
    globfree(&g);
    return out;
}

std::vector<DataFileRead> dataFilesRead(const analysis::ProjectAnalysis& analysis)
{
    std::vector<DataFileRead> reads;
    std::map<std::string, std::string> writers;     // relative path -> "file:line"
    std::map<std::string, std::uintmax_t> patterns; // a glob too large to copy -> its bytes
    std::set<std::string> seen;
    for (const auto& f : analysis.python) {
        const auto& calls = f.index.calls;
        for (std::size_t i = 0; i < calls.size(); ++i) {
            const auto& c = calls[i];
            const std::string& callee = c.resolved.empty() ? c.callee : c.resolved;
            const std::string at = f.path + ":" + std::to_string(c.span.line);
            const int w = writtenArgument(callee);
            const bool open = callee == "open" || callee == "io.open";
            const python::Argument* arg = nullptr;
            if (w >= 0) {
                int positional = 0;
                for (const auto& a : c.arguments)
                    if (a.keyword.empty() && positional++ == w)
                        arg = &a;
            } else if (readsFile(callee) || listsFiles(callee)) {
                arg = firstPositional(c);
            }
            if (!arg)
                continue;
            std::vector<PathArg> paths = pathsOf(analysis, f.index, c, *arg);
            // A path formatted from values (`'data/%s-%s.txt' % (a, b)`): the files of the
            // original's folder it can name, as a pattern's.
            const std::string formatted =
                paths.empty() && w < 0 ? formattedPattern(arg->text) : std::string();
            if (!formatted.empty())
                paths.push_back(PathArg{formatted, false});
            if (listsFiles(callee) || !formatted.empty()) {
                // Each file the pattern matches in the original's folder, as if read by name.
                // A dataset of many files, or a large one, stays one entry: its pattern, which
                // the port notes rather than copies.
                std::vector<PathArg> matches;
                for (const auto& p : paths) {
                    const std::string folder = p.fromScriptFolder ? folderOf(f.path) : "";
                    if (fs::path(p.written).is_absolute())
                        continue;
                    const auto prefix = normal(fs::path(folder.empty() ? "." : folder));
                    const auto found = globbed(analysis.root, normal(fs::path(folder) / p.written));
                    std::uintmax_t bytes = 0;
                    for (const auto& m : found) {
                        std::error_code ec;
                        bytes += fs::file_size(analysis.root / m, ec);
                    }
                    if (found.size() > kGlobFilesLimit || bytes > kDataFilesTotalLimit) {
                        patterns[normal(fs::path(folder) / p.written)] = bytes;
                        matches.push_back(p);
                        continue;
                    }
                    for (const auto& m : found)
                        matches.push_back(PathArg{normal(fs::path(m).lexically_relative(prefix)),
                                                  p.fromScriptFolder});
                }
                paths = std::move(matches);
            }
            for (const auto& path : paths) {
                DataFileRead r;
                r.readBy = at;
                r.readingFile = f.path;
                r.written = path.written;
                r.fromScriptFolder = path.fromScriptFolder;
                r.absolute = fs::path(r.written).is_absolute();
                if (!r.absolute)
                    r.relative =
                        normal(fs::path(r.fromScriptFolder ? folderOf(f.path) : "") / r.written);
                if (w >= 0 || (open && opensForWriting(c))) {
                    if (!r.relative.empty())
                        writers.emplace(r.relative, at);
                    continue;
                }
                // Python sources are the port's to write; a folder is a dataset root, not a file.
                if (r.written.ends_with(".py") ||
                    !seen.insert(r.absolute ? r.written : r.relative).second)
                    continue;
                if (!r.absolute && outsideRoot(r.relative))
                    continue;
                std::error_code ec;
                const fs::path onDisk =
                    r.absolute ? fs::path(r.written) : analysis.root / r.relative;
                if (fs::is_directory(onDisk, ec))
                    continue;
                r.exists = fs::is_regular_file(onDisk, ec);
                r.bytes = r.exists ? fs::file_size(onDisk, ec) : 0;
                if (const auto it = patterns.find(r.relative); it != patterns.end()) {
                    r.exists = true;
                    r.bytes = std::max(it->second, kDataFileCopyLimit + 1);
                }
                reads.push_back(r);
            }
        }
    }
    for (auto& r : reads)
        if (auto it = writers.find(r.relative); it != writers.end())
            r.writtenBy = it->second;
    // A file the reading script writes itself (a checkpoint it saves and loads back) is its own
    // output, not data the port needs in its folder.
    std::erase_if(reads, [](const DataFileRead& r) {
        return !r.exists && r.writtenBy.starts_with(r.readingFile + ":");
    });
    return reads;
}

std::string addFilesRead(const fs::path& root, const std::vector<std::string>& filesRead,
                         std::vector<DataFileRead>& reads)
{
    std::error_code ec;
    std::vector<std::string> fresh;
    for (const auto& rel : filesRead)
        if (!rel.empty() && rel.find("..") == std::string::npos &&
            std::none_of(reads.begin(), reads.end(),
                         [&](const DataFileRead& r) { return r.relative == rel; }))
            fresh.push_back(rel);
    if (fresh.size() > kGlobFilesLimit) {
        std::set<std::string> folders;
        for (const auto& rel : fresh)
            folders.insert(rel.substr(0, rel.find('/')));
        std::string list;
        for (const auto& f : folders)
            list += (list.empty() ? "" : ", ") + f;
        return "the original's dry run read " + std::to_string(fresh.size()) +
               " files of its folder (under " + list +
               "): a data set that large is not copied into the port; put it at the same place "
               "in the port's folder where the port runs, or mount it there";
    }
    for (const auto& rel : fresh) {
        DataFileRead r;
        r.readBy = "the original's dry run";
        r.written = rel;
        r.relative = rel;
        r.exists = fs::is_regular_file(root / rel, ec);
        if (!r.exists)
            continue;
        r.bytes = fs::file_size(root / rel, ec);
        reads.push_back(std::move(r));
    }
    return {};
}

void addDataFiles(const std::vector<DataFileRead>& reads, const fs::path& root, PortResult& port)
{
    std::uintmax_t total = 0;
    for (const auto& r : reads) {
        if (r.absolute) {
            port.notes.push_back("data file " + r.written + " (read at " + r.readBy +
                                 ") is an absolute path: the port reads it there too, so it "
                                 "must exist on the machine that runs the port");
            continue;
        }
        // Where the port's code that reads it is: relative to the run's folder (the port's
        // root), or, joined from __file__, beside the port's file made from the reading one.
        std::string place = r.relative;
        if (r.fromScriptFolder) {
            std::string portFolder;
            for (const auto& g : port.files)
                if (g.from == r.readingFile) {
                    portFolder = folderOf(g.path);
                    break;
                }
            place = normal(fs::path(portFolder) / r.written);
        }
        const bool present = std::any_of(port.files.begin(), port.files.end(),
                                         [&](const auto& g) { return g.path == place; });
        if (present)
            continue;
        if (!r.exists) {
            const auto writer = r.writtenBy.substr(0, r.writtenBy.find(':'));
            const bool writerInPort =
                !writer.empty() && std::any_of(port.files.begin(), port.files.end(),
                                               [&](const auto& g) { return g.from == writer; });
            port.notes.push_back("data file " + place + " (read at " + r.readBy +
                                 ") is not in the original's folder" +
                                 (writerInPort ? ": " + r.writtenBy + " writes it; run " + writer +
                                                     " in the port's folder first"
                                               : ": put it in the port's folder at " + place));
            continue;
        }
        if (r.bytes > kDataFileCopyLimit || total + r.bytes > kDataFilesTotalLimit) {
            port.notes.push_back(
                "data file " + r.relative + " (" + megabytes(r.bytes) + ", read at " + r.readBy +
                ") is not copied: a dataset that large stays where it is (Determined uploads "
                "the port's folder as its context, under 95 MB); put it at " +
                place + " in the port's folder where the port runs, or mount it there");
            continue;
        }
        std::ifstream in(root / r.relative, std::ios::binary);
        GeneratedFile g;
        g.path = place;
        g.from = r.relative;
        g.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        if (!in && !in.eof())
            continue;
        total += r.bytes;
        port.files.push_back(std::move(g)); // listed with its `from`: no note needed
    }
}

} // namespace portolan::port
