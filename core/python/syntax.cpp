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

void collect(TSNode node, const std::string& file, std::vector<Diagnostic>& out)
{
    if (!ts_node_has_error(node))
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
    const uint32_t n = ts_node_child_count(node);
    for (uint32_t i = 0; i < n; ++i)
        collect(ts_node_child(node, i), file, out);
}

} // namespace

std::vector<Diagnostic> syntaxErrors(std::string_view source, const std::string& fileName)
{
    std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
    ts_parser_set_language(parser.get(), tree_sitter_python());
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(
        parser.get(), nullptr, source.data(), static_cast<uint32_t>(source.size())));
    std::vector<Diagnostic> out;
    if (tree)
        collect(ts_tree_root_node(tree.get()), fileName, out);
    return out;
}

} // namespace portolan::python
