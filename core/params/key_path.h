#pragma once

// Key paths name a node: `optimizer.learning_rate`, `model.layers[2].size`. A key holding `.`,
// `[`, `]` or `\` escapes it with a backslash (`runconfig.a\.b`).

#include "core/common/diagnostic.h"
#include "core/params/yaml_tree.h"

#include <string>
#include <string_view>
#include <vector>

namespace portolan::params {

struct PathSegment
{
    bool isIndex = false;
    std::string key;
    std::size_t index = 0;

    bool operator==(const PathSegment&) const = default;
};
using KeyPath = std::vector<PathSegment>;

Result<KeyPath> parseKeyPath(std::string_view path);
std::string formatKeyPath(const KeyPath& path);
std::string escapeKey(std::string_view key);

// The path of a node (through its parents).
KeyPath pathOf(const YamlTree& tree, int node);

struct Resolved
{
    int node = -1;         // the node found, aliases followed
    bool viaAlias = false; // the path went through an alias (or a `<<` merge)
    int parentMap = -1;    // the mapping or sequence holding the last segment
    int entry = -1;        // its index there
    std::string missing;   // when not found: the first segment that does not exist
};

// Follows `path` from the root. Reads through aliases and `<<` merge keys; `viaAlias` tells
// editors that the node belongs to another place in the file.
Resolved resolvePath(const YamlTree& tree, const KeyPath& path);

} // namespace portolan::params
