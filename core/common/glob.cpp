#include "core/common/glob.h"

namespace portolan {

bool globMatch(std::string_view p, std::string_view t)
{
    // Most patterns are a plain name, "prefix*" or "*suffix", and they are tried against every
    // call of a project: answer those without the general loop.
    const std::size_t wild = p.find_first_of("*?");
    if (wild == std::string_view::npos)
        return p == t;
    if (wild + 1 == p.size() && p[wild] == '*')
        return t.substr(0, wild) == p.substr(0, wild);
    if (wild == 0 && p[0] == '*' && p.find_first_of("*?", 1) == std::string_view::npos)
        return t.size() >= p.size() - 1 && t.substr(t.size() - (p.size() - 1)) == p.substr(1);
    // Iterative matcher with one backtrack point per star: linear enough for short names.
    std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
    while (ti < t.size()) {
        if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
            ++pi;
            ++ti;
        } else if (pi < p.size() && p[pi] == '*') {
            star = pi++;
            mark = ti;
        } else if (star != std::string_view::npos) {
            pi = star + 1;
            ti = ++mark;
        } else {
            return false;
        }
    }
    while (pi < p.size() && p[pi] == '*')
        ++pi;
    return pi == p.size();
}

} // namespace portolan
