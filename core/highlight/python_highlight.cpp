#include "core/highlight/python_highlight.h"

#include <algorithm>
#include <memory>
#include <string>
#include <tree_sitter/api.h>
#include <unordered_set>

extern "C" const TSLanguage* tree_sitter_python();

namespace portolan {

namespace {

struct ParserDeleter
{
    void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter
{
    void operator()(TSTree* t) const { ts_tree_delete(t); }
};

bool isKeyword(std::string_view type)
{
    // Anonymous grammar nodes carry the keyword text itself as their type.
    static const std::unordered_set<std::string_view> keywords{
        "def",   "class",  "return", "if",     "elif",  "else",     "for",    "while",
        "in",    "not",    "and",    "or",     "is",    "import",   "from",   "as",
        "with",  "try",    "except", "finally", "raise", "pass",    "break",  "continue",
        "lambda", "yield", "global", "nonlocal", "assert", "del",   "async",  "await",
        "match", "case",   "print", "exec"};
    return keywords.count(type) > 0;
}

bool isBuiltin(std::string_view name)
{
    static const std::unordered_set<std::string_view> builtins{
        "self",  "cls",   "super", "print", "len",   "range", "int",    "float", "str",
        "bool",  "list",  "dict",  "set",   "tuple", "open",  "isinstance", "getattr",
        "setattr", "hasattr", "enumerate", "zip", "min", "max", "sum", "abs", "type"};
    return builtins.count(name) > 0;
}

class Highlighter
{
public:
    explicit Highlighter(std::string_view src) : m_src(src) {}

    void visit(TSNode node)
    {
        const std::string_view type = ts_node_type(node);
        const uint32_t b = ts_node_start_byte(node);
        const uint32_t e = ts_node_end_byte(node);
        if (type == "ERROR" && ts_node_child_count(node) == 0) {
            add(b, e, TokenClass::Error);
            return;
        }
        if (type == "comment") {
            add(b, e, TokenClass::Comment);
            return;
        }
        if (type == "string" || type == "concatenated_string") {
            add(b, e, TokenClass::String);
            return;
        }
        if (type == "integer" || type == "float") {
            add(b, e, TokenClass::Number);
            return;
        }
        if (type == "true" || type == "false" || type == "none") {
            add(b, e, TokenClass::Constant);
            return;
        }
        if (type == "decorator") {
            add(b, e, TokenClass::Decorator);
            return;
        }
        if (!ts_node_is_named(node) && isKeyword(type)) {
            add(b, e, TokenClass::Keyword);
            return;
        }
        if (type == "function_definition" || type == "class_definition") {
            const TSNode name = ts_node_child_by_field_name(node, "name", 4);
            if (!ts_node_is_null(name))
                add(ts_node_start_byte(name), ts_node_end_byte(name),
                    type == "class_definition" ? TokenClass::Class : TokenClass::Function);
        }
        if (type == "call") {
            TSNode fn = ts_node_child_by_field_name(node, "function", 8);
            if (!ts_node_is_null(fn) && std::string_view(ts_node_type(fn)) == "attribute")
                fn = ts_node_child_by_field_name(fn, "attribute", 9);
            if (!ts_node_is_null(fn) && std::string_view(ts_node_type(fn)) == "identifier")
                add(ts_node_start_byte(fn), ts_node_end_byte(fn), TokenClass::Function);
        }
        if (type == "identifier" && isBuiltin(m_src.substr(b, e - b))) {
            add(b, e, TokenClass::Builtin);
            return;
        }
        const uint32_t n = ts_node_child_count(node);
        for (uint32_t i = 0; i < n; ++i)
            visit(ts_node_child(node, i));
    }

    std::vector<HighlightSpan> take()
    {
        std::sort(m_spans.begin(), m_spans.end(),
                  [](const auto& a, const auto& b) { return a.begin < b.begin; });
        // A call's name is added before its children are visited; drop later overlaps.
        std::vector<HighlightSpan> out;
        for (const auto& s : m_spans)
            if (out.empty() || s.begin >= out.back().end)
                out.push_back(s);
        return out;
    }

private:
    void add(uint32_t b, uint32_t e, TokenClass c)
    {
        if (e > b)
            m_spans.push_back({b, e, c});
    }

    std::string_view m_src;
    std::vector<HighlightSpan> m_spans;
};

} // namespace

std::vector<HighlightSpan> highlightPython(std::string_view source)
{
    std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
    ts_parser_set_language(parser.get(), tree_sitter_python());
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(
        parser.get(), nullptr, source.data(), static_cast<uint32_t>(source.size())));
    if (!tree)
        return {};
    Highlighter h(source);
    h.visit(ts_tree_root_node(tree.get()));
    return h.take();
}

} // namespace portolan
