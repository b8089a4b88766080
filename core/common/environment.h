#pragma once

#include <string>
#include <utility>
#include <vector>

namespace portolan {

// The parent's environment as "KEY=VALUE" strings, with `add` appended and any parent entry of
// the same key dropped (a child must see one value per key, not the parent's first). Built before
// fork, because allocating in the forked child of a threaded parent is not safe.
std::vector<std::string>
environmentWith(const std::vector<std::pair<std::string, std::string>>& add);

} // namespace portolan
