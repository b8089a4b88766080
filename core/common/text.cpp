#include "core/common/text.h"

#include "core/common/number_format.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace portolan {

bool isValidUtf8(std::string_view s, std::size_t* badOffset)
{
    std::size_t i = 0;
    const std::size_t n = s.size();
    auto fail = [&](std::size_t at) {
        if (badOffset)
            *badOffset = at;
        return false;
    };
    while (i < n) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        int extra = 0;
        unsigned min = 0;
        unsigned cp = 0;
        if ((c & 0xE0) == 0xC0) {
            extra = 1;
            min = 0x80;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2;
            min = 0x800;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3;
            min = 0x10000;
            cp = c & 0x07;
        } else {
            return fail(i);
        }
        for (int k = 1; k <= extra; ++k) {
            if (i + static_cast<std::size_t>(k) >= n)
                return fail(i);
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80)
                return fail(i);
            cp = (cp << 6) | (cc & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fail(i);
        i += static_cast<std::size_t>(extra) + 1;
    }
    return true;
}

bool looksBinary(std::string_view firstBlock)
{
    return firstBlock.find('\0') != std::string_view::npos;
}

LineColumn lineColumnAt(std::string_view text, std::size_t offset)
{
    LineColumn lc;
    if (offset > text.size())
        offset = text.size();
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++lc.line;
            lc.column = 1;
        } else {
            ++lc.column;
        }
    }
    return lc;
}

// Both go through the one formatter so the CLI, the reports and the GUI print a size or a time
// the same way (issue 26).
std::string humanBytes(double bytes)
{
    return format::bytes(bytes);
}

std::string humanSeconds(double seconds)
{
    return format::seconds(seconds);
}

std::string oneLine(std::string_view text, std::size_t max)
{
    std::string out;
    bool space = false;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            space = !out.empty();
            continue;
        }
        if (space)
            out += ' ';
        space = false;
        out += c;
    }
    if (out.size() > max && max > 3) {
        out.resize(max - 3);
        out += "...";
    }
    return out;
}

} // namespace portolan
