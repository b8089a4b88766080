#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace portolan {

// What a stretch of Python source is, for syntax colouring in the code view.
enum class TokenClass : std::uint8_t {
    Keyword,
    String,
    Comment,
    Number,
    Function,  // the name in a def, or a called name
    Class,     // the name in a class statement
    Decorator,
    Constant,  // True, False, None
    Builtin,   // self, cls, print, len, ...
    Error,     // a syntax error
};

// A byte range [begin, end) of the source with its class. Spans are sorted by begin and do not
// overlap.
struct HighlightSpan
{
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    TokenClass cls = TokenClass::Keyword;
};

// Classifies the tokens of a Python source with the tree-sitter grammar. Never fails: text the
// parser cannot make sense of is marked as Error and the rest is still classified.
std::vector<HighlightSpan> highlightPython(std::string_view source);

} // namespace portolan
