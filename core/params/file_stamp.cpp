#include "core/params/file_stamp.h"

#include "core/common/atomic_file.h"

namespace portolan::params {

std::uint64_t contentHash(std::string_view bytes)
{
    std::uint64_t h = 1469598103934665603ull;
    for (const unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

namespace {
bool statFile(const std::filesystem::path& path, FileStamp& s)
{
    std::error_code ec;
    s.size = std::filesystem::file_size(path, ec);
    if (ec)
        return false;
    const auto t = std::filesystem::last_write_time(path, ec);
    if (ec)
        return false;
    s.mtimeNs = std::int64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
    s.exists = true;
    return true;
}
} // namespace

FileStamp stampOf(const std::filesystem::path& path, std::string_view content)
{
    FileStamp s;
    if (statFile(path, s))
        s.hash = contentHash(content);
    return s;
}

FileStamp currentStamp(const std::filesystem::path& path, const FileStamp& known)
{
    FileStamp s;
    if (!statFile(path, s))
        return s;
    if (s.size == known.size && s.mtimeNs == known.mtimeNs) {
        s.hash = known.hash;
        return s;
    }
    auto bytes = readFile(path);
    if (!bytes) {
        s.exists = false;
        return s;
    }
    s.hash = contentHash(*bytes.value);
    return s;
}

} // namespace portolan::params
