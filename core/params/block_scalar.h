#pragma once

// Writing a new value into a block scalar (`|`, `>`) without changing how it is written: its
// style, chomping indicator, indentation indicator and header comment stay, and content lines
// whose text the edit does not touch stay byte for byte (a folded scalar keeps its line breaks
// where the words around them are unchanged, so one changed word is a one-line diff).

#include "core/params/yaml_tree.h"

#include <optional>
#include <string>
#include <string_view>

namespace portolan::params {

struct BlockHeader
{
    char style = '|';        // '|' literal or '>' folded
    char chomp = 0;          // '-' strip, '+' keep, 0 clip
    int indentIndicator = 0; // the explicit digit, 0 when none
    std::size_t end = 0;     // one past the indicators
    std::string comment;     // the rest of the header line (blanks and a comment), verbatim
};

// Reads the header at `pos` (the `|` or `>`).
BlockHeader parseBlockHeader(std::string_view text, std::size_t pos);

// The replacement for bytes [node.valueBegin, node.end) of block scalar `node` that reads back as
// `value`, in the node's own style; nullopt when that style cannot hold the value (then the caller
// picks another style). `parentIndent` is the indentation of the collection holding the node
// (-1 at top level); `br` the document's line break. `style` ('|' or '>') overrides the node's
// style; 0 keeps it.
std::optional<std::string> renderBlockEdit(std::string_view text, const YamlNode& node,
                                           std::string_view value, int parentIndent,
                                           const std::string& br, char style = 0);

// Shell command substitution (`"$(portolan-cli params get ...)"`) strips final line breaks. When
// `node` is a block scalar whose value ends in line breaks and `value` ends in none, returns
// `value` with the node's final breaks, so that setting what `get` printed changes nothing.
std::string restoreFinalBreaks(const YamlNode& node, std::string_view value);

// The value a block scalar written as `header` plus `content` (the text after the header line,
// up to the end of its last content line) reads as.
std::string readBlock(const BlockHeader& header, std::string_view content, int indent,
                      int trailingBreaks);

} // namespace portolan::params
