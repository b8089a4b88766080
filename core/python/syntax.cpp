#include "core/python/syntax.h"

#include <memory>
#include <tree_sitter/api.h>

extern "C" const TSLanguage* tree_sitter_python();

namespace portolan::python {

std::string_view grammarVersion()
{
    return "0.21.0";
}

int grammarLanguageVersion()
{
    return static_cast<int>(ts_language_version(tree_sitter_python()));
}

namespace {

struct ParserDeleter
{
    void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter
{
    void operator()(TSTree* t) const { ts_tree_delete(t); }
};

// A hostile file can nest thousands of levels; past this depth errors are not looked for.
constexpr int MaxDepth = 400;
// A file full of mistakes is reported by its first errors; the rest add nothing.
constexpr std::size_t MaxErrors = 200;

void collect(TSNode node, const std::string& file, std::vector<Diagnostic>& out, int depth)
{
    if (!ts_node_has_error(node) || depth > MaxDepth || out.size() >= MaxErrors)
        return;
    const bool missing = ts_node_is_missing(node);
    if (missing || std::string_view(ts_node_type(node)) == "ERROR") {
        const TSPoint p = ts_node_start_point(node);
        Diagnostic d;
        d.code = "python.syntax";
        d.message = missing ? "syntax error: missing " + std::string(ts_node_type(node))
                            : std::string("syntax error");
        d.location = {file, static_cast<int>(p.row) + 1, static_cast<int>(p.column) + 1};
        out.push_back(std::move(d));
        if (!missing)
            return; // the children of an ERROR node add nothing a reader can use
    }
    TSTreeCursor c = ts_tree_cursor_new(node);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            collect(ts_tree_cursor_current_node(&c), file, out, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
}

} // namespace

std::vector<Diagnostic> syntaxErrors(const TSTree* tree, const std::string& fileName)
{
    std::vector<Diagnostic> out;
    if (tree)
        collect(ts_tree_root_node(tree), fileName, out, 0);
    return out;
}

std::vector<Diagnostic> syntaxErrors(std::string_view source, const std::string& fileName)
{
    std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
    ts_parser_set_language(parser.get(), tree_sitter_python());
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(
        parser.get(), nullptr, source.data(), static_cast<uint32_t>(source.size())));
    return syntaxErrors(tree.get(), fileName);
}

} // namespace portolan::python
