#include "core/project/project_scan.h"

#include "core/common/number_format.h"
#include "core/common/text.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace portolan {

namespace fs = std::filesystem;

std::string_view fileKindName(FileKind k)
{
    switch (k) {
    case FileKind::Python:
        return "python";
    case FileKind::Yaml:
        return "yaml";
    case FileKind::Json:
        return "json";
    case FileKind::Text:
        return "text";
    case FileKind::Other:
        return "other";
    }
    return "other";
}

std::string_view skipReasonName(SkipReason r)
{
    switch (r) {
    case SkipReason::Cache:
        return "cache";
    case SkipReason::VersionControl:
        return "version-control";
    case SkipReason::VirtualEnv:
        return "virtual-env";
    case SkipReason::TooLarge:
        return "too-large";
    case SkipReason::Binary:
        return "binary";
    case SkipReason::NotUtf8:
        return "not-utf8";
    case SkipReason::SymlinkOutside:
        return "symlink-outside";
    case SkipReason::SymlinkLoop:
        return "symlink-loop";
    case SkipReason::BrokenSymlink:
        return "broken-symlink";
    case SkipReason::Unreadable:
        return "unreadable";
    case SkipReason::Special:
        return "special-file";
    case SkipReason::TooDeep:
        return "too-deep";
    case SkipReason::TooManyFiles:
        return "too-many-files";
    }
    return "unknown";
}

std::size_t ProjectScan::countOf(FileKind k) const
{
    return static_cast<std::size_t>(std::count_if(
        files.begin(), files.end(), [k](const ProjectFile& f) { return f.kind == k; }));
}

namespace {

// A long path shortened in its middle so that a line stays readable ("d/d/d/…/d/d/").
std::string shortPath(const std::string& path)
{
    constexpr std::size_t keep = 24;
    if (path.size() <= 2 * keep + 1)
        return path;
    return path.substr(0, keep) + "…" + path.substr(path.size() - keep);
}

// "97,000": counts in a sentence.
std::string withThousands(std::size_t n)
{
    std::string digits = std::to_string(n);
    for (int i = int(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(std::size_t(i), ",");
    return digits;
}

} // namespace

std::vector<std::string> describeSkipped(const ProjectScan& scan, std::size_t examples)
{
    struct Group
    {
        std::size_t files = 0, folders = 0;
        std::vector<std::string> folderNames, fileNames; // examples; folders say more
    };
    std::map<SkipReason, Group> groups;
    for (const auto& s : scan.skipped) {
        if (s.reason == SkipReason::Cache)
            continue;
        Group& g = groups[s.reason];
        const bool folder = !s.path.empty() && s.path.back() == '/';
        ++(folder ? g.folders : g.files);
        auto& names = folder ? g.folderNames : g.fileNames;
        if (names.size() < examples)
            names.push_back(shortPath(s.path));
    }
    auto plural = [](std::size_t n, const char* one, const char* many) {
        return withThousands(n) + " " + (n == 1 ? one : many);
    };
    std::vector<std::string> lines;
    for (const auto& [reason, g] : groups) {
        std::string what;
        if (g.files)
            what = plural(g.files, "file", "files");
        if (g.folders)
            what += (what.empty() ? "" : " and ") + plural(g.folders, "folder", "folders");
        std::string label(skipReasonName(reason));
        std::replace(label.begin(), label.end(), '-', ' ');
        if (reason == SkipReason::TooManyFiles)
            label = "not read (the file limit was reached)";
        std::vector<std::string> names = g.folderNames;
        names.insert(names.end(), g.fileNames.begin(), g.fileNames.end());
        names.resize(std::min(names.size(), examples));
        std::string line = concat(what, " ", label, " (");
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (i)
                line += ", ";
            line += names[i];
        }
        line += g.files + g.folders > names.size() ? ", …)" : ")";
        lines.push_back(std::move(line));
    }
    for (const auto& d : scan.diagnostics)
        if (d.code == "project.yaml-folder")
            lines.push_back(d.location.file + " is a folder, not a params file");
    return lines;
}

namespace {

FileKind kindOf(const fs::path& p)
{
    const std::string ext = p.extension().string();
    if (ext == ".py" || ext == ".pyi")
        return FileKind::Python;
    if (ext == ".yaml" || ext == ".yml")
        return FileKind::Yaml;
    if (ext == ".json")
        return FileKind::Json;
    static const std::set<std::string> text{".txt", ".md", ".rst", ".cfg", ".toml",
                                            ".ini", ".sh", ".csv", ".in",  ".gitignore"};
    if (text.count(ext) || p.filename() == "Dockerfile" || p.filename() == "Makefile")
        return FileKind::Text;
    return FileKind::Other;
}

bool isCacheDir(const std::string& name)
{
    static const std::set<std::string> caches{
        "__pycache__",        ".mypy_cache", ".pytest_cache", ".ruff_cache",
        ".ipynb_checkpoints", ".tox",        ".nox",          "node_modules",
        ".portolan",          ".cache",      ".eggs",         ".hypothesis"};
    return caches.count(name) > 0 || name.ends_with(".egg-info");
}

bool isVcsDir(const std::string& name)
{
    return name == ".git" || name == ".hg" || name == ".svn" || name == ".bzr";
}

bool isVirtualEnv(const fs::path& dir)
{
    std::error_code ec;
    if (fs::exists(dir / "pyvenv.cfg", ec))
        return true;
    const std::string name = dir.filename().string();
    return (name == "venv" || name == ".venv" || name == "env" || name == ".env") &&
           fs::exists(dir / "bin" / "activate", ec);
}

class Walker
{
public:
    Walker(const fs::path& root, const ScanOptions& options, const ProgressCallback& progress,
           ProjectScan& out)
        : m_root(root), m_options(options), m_progress(progress), m_out(out)
    {}

    void walk(const fs::path& dir, const std::string& rel, int depth)
    {
        if (m_stop)
            return;
        std::error_code ec;
        fs::directory_iterator it(dir, fs::directory_options::none, ec);
        if (ec) {
            skip(rel.empty() ? "./" : rel + "/", SkipReason::Unreadable,
                 "folder cannot be read: " + ec.message(), Severity::Warning);
            return;
        }
        std::vector<fs::directory_entry> entries;
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            if (ec)
                break;
            entries.push_back(*it);
        }
        // Sorted so that the result, and the order of diagnostics, is stable across file systems.
        std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
            return a.path().filename() < b.path().filename();
        });
        for (const auto& e : entries) {
            const std::string child = rel.empty() ? e.path().filename().string()
                                                  : rel + "/" + e.path().filename().string();
            if (m_stop) {
                if (!m_out.cancelled)
                    notRead(e, child);
                continue;
            }
            visit(e, child, depth);
        }
    }

    void walkRoot()
    {
        if (const auto id = dirId(m_root))
            m_visiting.insert(*id);
        walk(m_root, "", 0);
        if (m_notReadFiles + m_notReadFolders > 0) {
            Diagnostic d;
            d.severity = Severity::Warning;
            d.code = "project.too-many-files";
            d.message = "stopped after " + std::to_string(m_options.maxFiles) +
                        " files; not read: " + format::counted(long(m_notReadFolders), "folder") +
                        " and " + format::counted(long(m_notReadFiles), "file");
            m_out.diagnostics.push_back(std::move(d));
        }
    }

private:
    void skip(const std::string& rel, SkipReason reason, const std::string& detail,
              std::optional<Severity> severity)
    {
        m_out.skipped.push_back({rel, reason, detail});
        if (severity) {
            Diagnostic d;
            d.severity = *severity;
            d.code = "project." + std::string(skipReasonName(reason));
            d.message = detail;
            d.location.file = rel;
            m_out.diagnostics.push_back(std::move(d));
        }
    }

    // An entry the walk did not reach because it stopped at the file limit: listed, so that the
    // user sees which folders were left out, and counted for the one diagnostic.
    void notRead(const fs::directory_entry& e, const std::string& rel)
    {
        std::error_code ec;
        const bool folder = e.is_directory(ec) && !e.is_symlink(ec);
        if (folder) {
            if (isCacheDir(e.path().filename().string()))
                return;
            ++m_notReadFolders;
        } else {
            ++m_notReadFiles;
        }
        m_out.skipped.push_back(
            {folder ? rel + "/" : rel, SkipReason::TooManyFiles,
             "not read: the walk stopped after " + std::to_string(m_options.maxFiles) + " files"});
    }

    // A folder's identity, to find loops without resolving the whole path (canonical() costs a
    // lookup per level, which made a chain of 1,000 nested folders quadratic).
    static std::optional<std::pair<dev_t, ino_t>> dirId(const fs::path& dir)
    {
        struct stat st
        {
        };
        if (::stat(dir.c_str(), &st) != 0)
            return std::nullopt;
        return std::make_pair(st.st_dev, st.st_ino);
    }

    void visit(const fs::directory_entry& e, const std::string& rel, int depth)
    {
        std::error_code ec;
        const fs::file_status link = e.symlink_status(ec);
        fs::path target = e.path();
        if (fs::is_symlink(link)) {
            const fs::path resolved = fs::canonical(e.path(), ec);
            if (ec) {
                // canonical() reports ELOOP for a chain of links pointing at each other.
                const bool loop = ec == std::errc::too_many_symbolic_link_levels;
                skip(rel, loop ? SkipReason::SymlinkLoop : SkipReason::BrokenSymlink,
                     loop ? "symbolic link loops back on itself"
                          : "symbolic link points to nothing (" + ec.message() + ")",
                     Severity::Warning);
                return;
            }
            const auto [mismatch, _] =
                std::mismatch(m_root.begin(), m_root.end(), resolved.begin(), resolved.end());
            if (mismatch != m_root.end()) {
                skip(rel, SkipReason::SymlinkOutside,
                     "symbolic link leaves the project (to " + resolved.string() + ")",
                     Severity::Warning);
                return;
            }
            target = resolved;
        }
        const fs::file_status st = fs::status(target, ec);
        if (ec) {
            skip(rel, SkipReason::Unreadable, "cannot be examined: " + ec.message(),
                 Severity::Warning);
            return;
        }
        if (fs::is_directory(st))
            visitDir(target, rel, depth + 1);
        else if (fs::is_regular_file(st))
            visitFile(target, rel);
        else
            skip(rel, SkipReason::Special, "not a regular file or folder", Severity::Info);
    }

    void visitDir(const fs::path& dir, const std::string& rel, int depth)
    {
        const std::string name = fs::path(rel).filename().string();
        if (isCacheDir(name)) {
            skip(rel + "/", SkipReason::Cache, "cache folder", std::nullopt);
            return;
        }
        if (isVcsDir(name)) {
            skip(rel + "/", SkipReason::VersionControl, "version-control folder is not analysed",
                 Severity::Info);
            return;
        }
        if (isVirtualEnv(dir)) {
            skip(rel + "/", SkipReason::VirtualEnv, "Python virtual environment is not analysed",
                 Severity::Info);
            return;
        }
        if (depth > m_options.maxDepth) {
            skip(rel + "/", SkipReason::TooDeep,
                 "folder is nested " + std::to_string(depth) +
                     " levels deep; folders deeper than " + std::to_string(m_options.maxDepth) +
                     " levels are not read",
                 Severity::Warning);
            return;
        }
        // A folder named like a config is easy to take for one (a params file replaced by a
        // folder): say so, because the params file rule passes over it silently.
        const std::string ext = fs::path(name).extension().string();
        if (ext == ".yaml" || ext == ".yml") {
            Diagnostic d;
            d.severity = Severity::Warning;
            d.code = "project.yaml-folder";
            d.message = "a folder named like a YAML file; it is not read as a params file";
            d.location.file = rel + "/";
            m_out.diagnostics.push_back(std::move(d));
        }
        const auto id = dirId(dir);
        if (id && !m_visiting.insert(*id).second) {
            skip(rel + "/", SkipReason::SymlinkLoop,
                 "folder was already walked through another link (a loop)", Severity::Warning);
            return;
        }
        walk(dir, rel, depth);
        if (id)
            m_visiting.erase(*id);
    }

    void visitFile(const fs::path& file, const std::string& rel)
    {
        std::error_code ec;
        const std::uint64_t size = fs::file_size(file, ec);
        if (ec) {
            skip(rel, SkipReason::Unreadable, "size cannot be read: " + ec.message(),
                 Severity::Warning);
            return;
        }
        if (size > m_options.maxFileBytes) {
            skip(rel, SkipReason::TooLarge,
                 "file is " + humanBytes(static_cast<double>(size)) + ", over the " +
                     humanBytes(static_cast<double>(m_options.maxFileBytes)) + " limit",
                 Severity::Warning);
            return;
        }
        if (::access(file.c_str(), R_OK) != 0) {
            skip(rel, SkipReason::Unreadable,
                 std::string("file cannot be read: ") + std::strerror(errno), Severity::Warning);
            return;
        }
        const FileKind kind = kindOf(file);
        if (kind != FileKind::Other) {
            std::ifstream in(file, std::ios::binary);
            if (!in) {
                skip(rel, SkipReason::Unreadable, "file cannot be opened", Severity::Warning);
                return;
            }
            std::string bytes(static_cast<std::size_t>(size), '\0');
            in.read(bytes.data(), static_cast<std::streamsize>(size));
            bytes.resize(static_cast<std::size_t>(in.gcount()));
            if (looksBinary(std::string_view(bytes).substr(0, 8192))) {
                skip(rel, SkipReason::Binary, "binary content in a text file", Severity::Warning);
                return;
            }
            std::size_t bad = 0;
            if (!isValidUtf8(bytes, &bad)) {
                const LineColumn lc = lineColumnAt(bytes, bad);
                m_out.skipped.push_back({rel, SkipReason::NotUtf8, "not valid UTF-8"});
                Diagnostic d;
                d.severity = Severity::Warning;
                d.code = "project.not-utf8";
                d.message =
                    "not valid UTF-8 (first bad byte at offset " + std::to_string(bad) + ")";
                d.location = {rel, lc.line, lc.column};
                m_out.diagnostics.push_back(std::move(d));
                return;
            }
        }
        m_out.files.push_back({rel, size, kind});
        if (m_out.files.size() >= m_options.maxFiles)
            m_stop = true; // what is left is listed as not read (notRead), then one diagnostic
        if (m_progress && !m_progress(m_out.files.size(), 0)) {
            m_out.cancelled = true;
            m_stop = true;
        }
    }

    fs::path m_root;
    const ScanOptions& m_options;
    const ProgressCallback& m_progress;
    ProjectScan& m_out;
    std::set<std::pair<dev_t, ino_t>> m_visiting; // the folders being walked, root to here
    std::size_t m_notReadFiles = 0;
    std::size_t m_notReadFolders = 0;
    bool m_stop = false;
};

Diagnostic rootError(const fs::path& root, const std::string& message, const std::string& code)
{
    Diagnostic d;
    d.code = code;
    d.message = message;
    d.location.file = root.string();
    return d;
}

} // namespace

Result<ProjectScan> scanProject(const fs::path& root, const ScanOptions& options,
                                const ProgressCallback& progress)
{
    std::error_code ec;
    if (root.empty())
        return Result<ProjectScan>::fail(
            rootError(root, "no project folder given", "project.missing"));
    const fs::file_status st = fs::status(root, ec);
    if (ec || !fs::exists(st))
        return Result<ProjectScan>::fail(
            rootError(root, "project folder does not exist", "project.missing"));
    if (!fs::is_directory(st))
        return Result<ProjectScan>::fail(rootError(
            root, "not a folder; open the project's folder instead", "project.not-a-folder"));
    fs::directory_iterator probe(root, ec);
    if (ec)
        return Result<ProjectScan>::fail(rootError(
            root, "project folder cannot be read: " + ec.message(), "project.unreadable"));

    ProjectScan scan;
    scan.root = fs::canonical(root, ec);
    if (ec)
        scan.root = fs::absolute(root);
    Walker walker(scan.root, options, progress, scan);
    walker.walkRoot();
    if (scan.files.empty() && !scan.cancelled) {
        Diagnostic d;
        d.severity = Severity::Warning;
        d.code = "project.empty";
        d.message = scan.skipped.empty() ? "project folder is empty"
                                         : "project folder has no files Portolan can analyse";
        d.location.file = scan.root.string();
        scan.diagnostics.insert(scan.diagnostics.begin(), std::move(d));
    }
    return Result<ProjectScan>::ok(std::move(scan));
}

} // namespace portolan
