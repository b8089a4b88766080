#include "core/project/project_scan.h"

#include "core/common/text.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
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
    }
    return "unknown";
}

std::size_t ProjectScan::countOf(FileKind k) const
{
    return static_cast<std::size_t>(
        std::count_if(files.begin(), files.end(), [k](const ProjectFile& f) { return f.kind == k; }));
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
    static const std::set<std::string> text{".txt", ".md", ".rst", ".cfg", ".toml", ".ini",
                                            ".sh",  ".csv", ".in", ".gitignore"};
    if (text.count(ext) || p.filename() == "Dockerfile" || p.filename() == "Makefile")
        return FileKind::Text;
    return FileKind::Other;
}

bool isCacheDir(const std::string& name)
{
    static const std::set<std::string> caches{"__pycache__",  ".mypy_cache", ".pytest_cache",
                                              ".ruff_cache",  ".ipynb_checkpoints", ".tox",
                                              ".nox",         "node_modules", ".portolan",
                                              ".cache",       ".eggs",       ".hypothesis"};
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
    {
    }

    void walk(const fs::path& dir, const std::string& rel)
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
        std::sort(entries.begin(), entries.end(),
                  [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
        for (const auto& e : entries) {
            if (m_stop)
                return;
            visit(e, rel.empty() ? e.path().filename().string()
                                 : rel + "/" + e.path().filename().string());
        }
    }

    void walkRoot()
    {
        m_visiting.insert(m_root);
        walk(m_root, "");
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

    void visit(const fs::directory_entry& e, const std::string& rel)
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
            visitDir(target, rel);
        else if (fs::is_regular_file(st))
            visitFile(target, rel);
        else
            skip(rel, SkipReason::Special, "not a regular file or folder", Severity::Info);
    }

    void visitDir(const fs::path& dir, const std::string& rel)
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
        std::error_code ec;
        const fs::path canon = fs::canonical(dir, ec);
        if (!ec && !m_visiting.insert(canon).second) {
            skip(rel + "/", SkipReason::SymlinkLoop,
                 "folder was already walked through another link (a loop)", Severity::Warning);
            return;
        }
        walk(dir, rel);
        if (!ec)
            m_visiting.erase(canon);
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
            skip(rel, SkipReason::Unreadable, std::string("file cannot be read: ") + std::strerror(errno),
                 Severity::Warning);
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
                d.message = "not valid UTF-8 (first bad byte at offset " + std::to_string(bad) + ")";
                d.location = {rel, lc.line, lc.column};
                m_out.diagnostics.push_back(std::move(d));
                return;
            }
        }
        m_out.files.push_back({rel, size, kind});
        if (m_out.files.size() >= m_options.maxFiles) {
            Diagnostic d;
            d.severity = Severity::Warning;
            d.code = "project.too-many-files";
            d.message = "stopped after " + std::to_string(m_options.maxFiles) + " files";
            m_out.diagnostics.push_back(std::move(d));
            m_stop = true;
        }
        if (m_progress && !m_progress(m_out.files.size(), 0)) {
            m_out.cancelled = true;
            m_stop = true;
        }
    }

    fs::path m_root;
    const ScanOptions& m_options;
    const ProgressCallback& m_progress;
    ProjectScan& m_out;
    std::set<fs::path> m_visiting;
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
        return Result<ProjectScan>::fail(rootError(root, "no project folder given", "project.missing"));
    const fs::file_status st = fs::status(root, ec);
    if (ec || !fs::exists(st))
        return Result<ProjectScan>::fail(
            rootError(root, "project folder does not exist", "project.missing"));
    if (!fs::is_directory(st))
        return Result<ProjectScan>::fail(
            rootError(root, "not a folder; open the project's folder instead", "project.not-a-folder"));
    fs::directory_iterator probe(root, ec);
    if (ec)
        return Result<ProjectScan>::fail(
            rootError(root, "project folder cannot be read: " + ec.message(), "project.unreadable"));

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
