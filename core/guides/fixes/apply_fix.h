#pragma once

#include "core/common/diagnostic.h"
#include "core/guides/finding.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace portolan::guides {

// The text of a file after the fix's edits (edits must not overlap). Fails when an edit is out of
// range or its `expected` text is not at its place any more.
Result<std::string> applyEdits(std::string_view text, const Fix& fix);

// A unified diff (---/+++ headers, @@ hunks, 3 lines of context) between two versions of a file.
std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& path);

// The diff a fix would make to the files on disk, for showing before applying: one unified diff
// per file, in the order of the fix's edits (a created file is `--- /dev/null`).
Result<std::string> previewFix(const std::filesystem::path& projectRoot, const Fix& fix);

// Applies a fix to the files on disk, each atomically (temporary file + rename); a file the fix
// creates gets its folders. Returns the inverse fix, which undoes it when applied in turn
// (removing a created file, and its folders when nothing else is in them). On failure nothing is
// changed: the files already written are put back.
Result<Fix> applyFix(const std::filesystem::path& projectRoot, const Fix& fix);

} // namespace portolan::guides
