#pragma once

// Where a YAML scalar's text ends, what it means, and how to write a new value so that it reads
// back as intended. yaml-cpp reports where a scalar starts but not where it ends; these functions
// find the end for each scalar style and check it by decoding the bytes again.

#include "core/params/yaml_tree.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::params {

// Skips `&anchor` and `!tag` properties and the blanks, comments and line breaks after them.
std::size_t skipProperties(std::string_view text, std::size_t pos);

struct ScalarExtent
{
    ScalarStyle style = ScalarStyle::Plain;
    std::size_t end = 0;       // one past the last byte of the scalar's text
    int blockIndent = -1;      // block scalars: the indentation of the content lines
    std::size_t headerEnd = 0; // block scalars: end of the `|-`/`>+2` indicators
    bool verified = false;     // the bytes decode to `expected`
    bool unterminated = false; // a quoted scalar with no closing quote
};

// Finds the extent of the scalar whose value starts at `pos`. `parentIndent` is the indentation of
// the block collection holding it (-1 at top level); `expected` is the value yaml-cpp parsed.
ScalarExtent scanScalar(std::string_view text, std::size_t pos, bool inFlow, int parentIndent,
                        std::string_view expected);

// The value of a block scalar's content lines [contentBegin, end) with content indentation
// `indent`, before chomping (no final line break); `folded` for `>`. `folds`, when given, receives
// the offset in the value of each space that a folded line break became.
std::string decodeBlock(std::string_view text, std::size_t contentBegin, std::size_t end,
                        int indent, bool folded, std::vector<std::size_t>* folds = nullptr);

// Decoders for the quoted styles (the text includes the quotes).
std::string decodeDoubleQuoted(std::string_view quoted);
std::string decodeSingleQuoted(std::string_view quoted);

// YAML's plain-scalar resolution, as PyYAML and Go's yaml read configs: null, bool, int, float.
enum class PlainType
{
    Null,
    Bool,
    Int,
    Float,
    String
};
PlainType resolvePlain(std::string_view plain);

// True when `value` can be written without quotes and read back as the same characters.
bool plainAllowed(std::string_view value, bool inFlow);

// The text for a quoted scalar in the given style (SingleQuoted falls back to DoubleQuoted for
// values that single quotes cannot hold on one line).
std::string quoteScalar(std::string_view value, ScalarStyle style);

// How a new value should be written where a scalar of style `original` stood. With
// `forceString`, a value that would read as a number, bool or null is quoted.
std::string renderInlineScalar(std::string_view value, ScalarStyle original, bool inFlow,
                               bool forceString);

} // namespace portolan::params
