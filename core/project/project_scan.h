#pragma once

#include "core/common/diagnostic.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace portolan {

enum class FileKind : std::uint8_t
{
    Python,
    Yaml,
    Json,
    Text,
    Other
};
std::string_view fileKindName(FileKind k);

// A file the analysis will read. Paths are relative to the project root, with '/' separators.
struct ProjectFile
{
    std::string path;
    std::uint64_t size = 0;
    FileKind kind = FileKind::Other;
};

enum class SkipReason : std::uint8_t
{
    Cache,          // __pycache__ and friends: skipped silently
    VersionControl, // .git, .hg, .svn
    VirtualEnv,     // a folder with pyvenv.cfg, or venv/.venv with bin/activate
    TooLarge,
    Binary,
    NotUtf8,
    SymlinkOutside, // resolves to somewhere outside the project
    SymlinkLoop,    // a folder link back to a folder already being walked
    BrokenSymlink,
    Unreadable,
    Special,      // sockets, FIFOs, devices
    TooDeep,      // a folder nested deeper than ScanOptions::maxDepth: not read
    TooManyFiles, // not read because the walk stopped at ScanOptions::maxFiles
};
std::string_view skipReasonName(SkipReason r);

struct SkippedEntry
{
    std::string path; // relative, like ProjectFile::path; a folder ends with '/'
    SkipReason reason = SkipReason::Cache;
    std::string detail; // one sentence, for a person
};

struct ScanOptions
{
    std::uint64_t maxFileBytes = 4ull << 20; // larger files are skipped (TooLarge)
    std::size_t maxFiles = 200'000;          // a runaway tree stops here, with a diagnostic
    // Folders nested deeper than this are not read (TooDeep). Real projects stay far below it; a
    // chain of thousands of folders would otherwise cost a path lookup per level for every entry.
    int maxDepth = 64;
};

struct ProjectScan
{
    std::filesystem::path root; // absolute, canonical
    std::vector<ProjectFile> files;
    std::vector<SkippedEntry> skipped;
    // One per skipped entry that is not a cache, plus anything else worth telling (empty project,
    // file limit reached). Locations are relative paths.
    std::vector<Diagnostic> diagnostics;
    bool cancelled = false;

    std::size_t countOf(FileKind k) const;
};

// What a scan left out, grouped by reason for a person: "50 unreadable files (secret0.py,
// secret1.py, secret10.py, …)", "1 folder too deep (d/d/…/d/)". One line per reason that has
// entries, in the enum's order; caches are left out (they are skipped silently). A folder named
// like a YAML file (a params file replaced by a folder) gets its own line.
std::vector<std::string> describeSkipped(const ProjectScan& scan, std::size_t examples = 3);

// Walks a project folder. Fails (with a message naming the path) when the folder is missing, is
// not a folder, or cannot be read; an empty folder is a success with an "empty project" warning.
// `progress(done, 0)` is called as files are found; returning false stops the walk (cancelled).
Result<ProjectScan> scanProject(const std::filesystem::path& root, const ScanOptions& options = {},
                                const ProgressCallback& progress = {});

} // namespace portolan
