#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace portolan {

// True when `bytes` is valid UTF-8 (overlong forms and surrogates rejected).
// On failure, `badOffset` receives the offset of the first bad byte.
bool isValidUtf8(std::string_view bytes, std::size_t* badOffset = nullptr);

// Heuristic used when walking a project: a NUL byte in the first block means binary.
bool looksBinary(std::string_view firstBlock);

// 1-based line and column (in bytes) of `offset` inside `text`.
struct LineColumn
{
    int line = 1;
    int column = 1;
};
LineColumn lineColumnAt(std::string_view text, std::size_t offset);

// Source text for a one-line message: runs of white space (newlines included) become one space,
// and text longer than `max` bytes is cut with "...".
std::string oneLine(std::string_view text, std::size_t max = 60);

// "1.2 KiB", "3.4 MiB": sizes as people read them (format::bytes, core/common/number_format.h).
std::string humanBytes(double bytes);
// "631 ns", "12.5 µs", "4.2 ms", "1.5 s": format::seconds.
std::string humanSeconds(double seconds);

// The parts one after the other in one allocation, for messages built in loops: a chain of `+`
// makes a temporary string per step.
template <typename... Parts> std::string concat(const Parts&... parts)
{
    const std::string_view views[] = {std::string_view(parts)...};
    std::size_t size = 0;
    for (const std::string_view v : views)
        size += v.size();
    std::string out;
    out.reserve(size);
    for (const std::string_view v : views)
        out.append(v);
    return out;
}

} // namespace portolan
