#pragma once

// A YAML document as a tree of nodes that know where their bytes are in the original text.
// yaml-cpp parses; we keep the byte range of every scalar, key, alias and collection so that
// edits can be applied to the original text instead of re-emitting it (yaml-cpp's emitter drops
// comments and layout; docs/ARCHITECTURE.md, Params files).

#include "core/common/diagnostic.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::params {

enum class NodeKind
{
    Scalar,
    Null,
    Sequence,
    Mapping,
    Alias
};
enum class ScalarStyle
{
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded
};

struct YamlNode
{
    NodeKind kind = NodeKind::Null;
    ScalarStyle style = ScalarStyle::Plain;
    bool flow = false;          // a flow collection, or a scalar inside one
    bool empty = false;         // a null written as nothing at all (`key:`)
    bool verified = true;       // the byte range re-reads to the parsed value; editing needs it
    std::string value;          // scalars: the parsed value
    std::string tag;            // explicit tag (`!!str`), empty when none
    std::string anchor;         // `&name` on this node
    std::string aliasOf;        // aliases: the anchor name
    int aliasTarget = -1;       // aliases: the anchored node
    std::size_t begin = 0;      // first byte, including anchor/tag properties
    std::size_t valueBegin = 0; // first byte of the value itself (after properties)
    std::size_t end = 0;        // one past the last byte of the value (a flow collection's bracket)
    int line = 0;               // 1-based position of valueBegin
    int column = 0;
    int indent = -1; // block collections: the column (0-based) of their keys or dashes
    int parent = -1;
    std::vector<int> keys;               // mappings: the key node of each entry
    std::vector<int> children;           // mappings: values (parallel to keys); sequences: items
    std::vector<std::size_t> itemStarts; // block sequences: the offset of each item's dash

    bool isCollection() const { return kind == NodeKind::Sequence || kind == NodeKind::Mapping; }
    bool isScalarLike() const { return kind == NodeKind::Scalar || kind == NodeKind::Null; }
};

struct YamlTree
{
    std::vector<YamlNode> nodes;
    int root = -1; // -1 for an empty document
    bool crlf = false;
    bool hasMoreDocuments = false;

    const YamlNode& at(int i) const { return nodes[std::size_t(i)]; }
    // The value of key `key` in mapping `map`, or -1. A later duplicate wins, as in PyYAML.
    int child(int map, std::string_view key) const;
    int keyIndex(int map, std::string_view key) const;
    // Follows aliases to the node they name.
    int deref(int node) const;
};

// Parses `text` (the first document). Errors carry `fileName` and the line:column of the problem.
Result<YamlTree> parseYamlTree(std::string_view text, const std::string& fileName = {});

} // namespace portolan::params
