#pragma once

#include "core/common/diagnostic.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace portolan {

// Writes `bytes` to `path` so that a reader sees either the old file or the new one, never a
// half-written one: a temporary file in the same folder, flushed to disk, then renamed over the
// old one. The file's permissions are kept when it existed. Returns an error diagnostic on failure,
// in which case the old file is untouched.
std::optional<Diagnostic> writeFileAtomically(const std::filesystem::path& path,
                                              std::string_view bytes);

// Reads a whole file. Errors carry the path and the reason. `spareCapacity` bytes are reserved
// past the end, for parsers that read a little beyond the text (simdjson needs 64), so that they
// need not copy a large file once more.
Result<std::string> readFile(const std::filesystem::path& path, std::size_t spareCapacity = 0);

} // namespace portolan
