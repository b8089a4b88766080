#pragma once
// The readings of a tree-sitter Python node that every file of the port makes: its type, one of
// its fields, a text without its surrounding blanks. One definition, so a null node reads the
// same everywhere (an empty type, never a crash). Not a public header.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <tree_sitter/api.h>

namespace portolan::port {

// How deep a walk of a syntax tree goes: deeper nests are not code a person writes, and the
// recursion must end on a generated file.
inline constexpr int kMaxSyntaxDepth = 200;

// The node's grammar type, "" for a null node.
inline std::string_view nodeType(TSNode n)
{
    return ts_node_is_null(n) ? std::string_view() : std::string_view(ts_node_type(n));
}

inline TSNode fieldOf(TSNode n, const char* name)
{
    return ts_node_child_by_field_name(n, name, static_cast<std::uint32_t>(std::strlen(name)));
}

// The text without its leading and trailing spaces, tabs and newlines.
inline std::string trimmed(std::string t)
{
    t.erase(0, t.find_first_not_of(" \n\t"));
    t.erase(t.find_last_not_of(" \n\t") + 1);
    return t;
}

// The text on one line, each run of blanks and newlines one space: a piece of the original
// quoted in a comment or a note (`for e in range(\n        3)`) must not break the line, which
// in a YAML or Python comment would end the comment.
inline std::string oneLine(const std::string& text)
{
    std::string out;
    for (const char c : text) {
        const bool blank = c == ' ' || c == '\n' || c == '\t' || c == '\r';
        if (!blank)
            out += c;
        else if (!out.empty() && out.back() != ' ')
            out += ' ';
    }
    if (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

} // namespace portolan::port
