#include "core/common/environment.h"

#include "core/common/text.h"

#include <algorithm>

extern char** environ; // NOLINT: POSIX declares it only here

namespace portolan {

std::vector<std::string>
environmentWith(const std::vector<std::pair<std::string, std::string>>& add)
{
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view kv = *e;
        const bool replaced = std::any_of(add.begin(), add.end(), [&](const auto& p) {
            return kv.size() > p.first.size() && kv.compare(0, p.first.size(), p.first) == 0 &&
                   kv[p.first.size()] == '=';
        });
        if (!replaced)
            env.emplace_back(kv);
    }
    env.reserve(env.size() + add.size());
    for (const auto& [k, v] : add)
        env.push_back(concat(k, "=", v));
    return env;
}

} // namespace portolan
