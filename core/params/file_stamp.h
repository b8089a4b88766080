#pragma once

// What a file looked like when it was loaded, to notice that someone else changed it before we
// overwrite it.

#include <cstdint>
#include <filesystem>
#include <string_view>

namespace portolan::params {

struct FileStamp
{
    bool exists = false;
    std::int64_t mtimeNs = 0;
    std::uintmax_t size = 0;
    std::uint64_t hash = 0; // FNV-1a of the content

    // Same content: a `touch` alone is not a change, a same-size rewrite is.
    bool sameContentAs(const FileStamp& o) const
    {
        return exists == o.exists && size == o.size && hash == o.hash;
    }
};

std::uint64_t contentHash(std::string_view bytes);
FileStamp stampOf(const std::filesystem::path& path, std::string_view content);
// Reads the file only when its size and modification time differ from `known`.
FileStamp currentStamp(const std::filesystem::path& path, const FileStamp& known);

} // namespace portolan::params
