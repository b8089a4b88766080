#pragma once

// Internal to core/python: the walker behind indexSource() (index.h). Its general part (helpers
// and the walk over node kinds) is in index.cpp; what it records of each statement (classes,
// functions, parameters, imports, calls, attributes, subscripts, assignments, returns) is in
// index_statements.cpp.
#include "core/python/index.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tree_sitter/api.h>
#include <utility>
#include <vector>

namespace portolan::python::detail {

struct ParserDeleter
{
    void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter
{
    void operator()(TSTree* t) const { ts_tree_delete(t); }
};

// Deeper than this, the walk stops descending (a generated or hostile file could otherwise
// exhaust the stack); the file is marked truncated.
constexpr int MaxDepth = 400;
constexpr std::size_t MaxValueText = 240;

class Indexer
{
public:
    Indexer(std::string_view src, PyIndex& out);

    void run(TSNode root) { walk(root, 0); }

private:
    // --- helpers -------------------------------------------------------------------------------
    std::string_view type(TSNode n) const { return ts_node_type(n); }
    std::string text(TSNode n) const;
    std::string shortText(TSNode n) const;
    // Parentheses do not change a value: (x) is x.
    TSNode unwrap(TSNode n) const;
    ValueKind valueKind(TSNode n) const;
    Span span(TSNode n) const;
    TSNode field(TSNode n, const char* name) const;
    template <typename Fn> void children(TSNode n, Fn&& fn) const
    {
        TSTreeCursor c = ts_tree_cursor_new(n);
        if (ts_tree_cursor_goto_first_child(&c)) {
            do {
                const char* f = ts_tree_cursor_current_field_name(&c);
                fn(ts_tree_cursor_current_node(&c), f ? std::string_view(f) : std::string_view());
            } while (ts_tree_cursor_goto_next_sibling(&c));
        }
        ts_tree_cursor_delete(&c);
    }
    Scope& scope() { return m_out.scopes[PyIndex::scopeSlot(m_function)]; }

    void define(TSNode n) { scope().defined.push_back({text(n), span(n)}); }
    void defineName(const std::string& name, TSNode at);

    // Dotted text of an expression made of identifiers, attributes and calls: "a.b().c".
    std::string dotted(TSNode n) const;

    // The value of a plain string literal (no interpolation); false otherwise.
    bool stringValue(TSNode n, std::string& out) const;

    // params["a"]["b"] -> base "params", keys {a, b}; through aliases of the current function.
    bool keyChain(TSNode n, std::string& base, std::vector<std::string>& keys,
                  bool& viaAlias) const;
    // A membership test `"k" in m["a"]` (positive) or `"k" not in m` (negative), as the key
    // path it proves present in one branch: {base, keys..., "k"}.
    struct Guard
    {
        std::pair<std::string, std::vector<std::string>> path;
        bool positive = true;
    };
    std::optional<Guard> membershipGuard(TSNode n) const;
    // A read whose path starts with a guarded path handles the key's absence.
    bool guarded(const std::string& base, const std::vector<std::string>& keys) const;
    std::string aliasKey(const std::string& name) const;

    // --- walk ----------------------------------------------------------------------------------
    void walk(TSNode n, int depth);
    void tooDeep(TSNode n);
    void forLoop(TSNode n, int depth);
    void branches(TSNode n, std::string_view kind, int depth);
    void binding(TSNode n, std::string_view kind, int depth);
    void lambda(TSNode n, int depth);

    void walkChildren(TSNode n, int depth);

    // Names bound by an assignment target; attributes and subscripts in targets are uses.
    void target(TSNode n, int depth);

    // `with open(path) as f:` binds f to (what the context manager gives for) the call; it is
    // recorded as an assignment so that values can be followed through it.
    void withItem(TSNode n, int depth);

    void decorated(TSNode n, int depth);

    void classDef(TSNode n, int depth);

    void functionDef(TSNode n, int depth);

    // Parameters: names go to the new function's scope, defaults and annotations to the current.
    void parameters(TSNode n, std::vector<Parameter>* out, int depth, FunctionId into = -2);

    void importStmt(TSNode n);

    void call(TSNode n, int depth);

    void attribute(TSNode n, int depth, bool inner);

    void subscript(TSNode n, int depth, bool inner);

    // The mapping a value is a view or a copy of: params["model"], params["model"].copy(),
    // copy.deepcopy(params), dict(params["model"]).
    bool aliasSource(TSNode v, std::string& base, std::vector<std::string>& keys) const;

    void assignment(TSNode n, int depth);

    void returnStmt(TSNode n, int depth);

    std::string_view m_src;
    PyIndex& m_out;
    FunctionId m_function = ModuleLevel;
    std::string m_class;
    std::size_t m_classIndex = 0;
    FunctionId m_classFunction = ModuleLevel;
    int m_inError = 0;
    int m_conditional = 0; // depth of conditions, loops and handlers around the current node
    // Key paths proved present by the membership tests around the current node.
    std::vector<std::pair<std::string, std::vector<std::string>>> m_guards;
    bool m_nextIsObject = false;
    std::vector<std::string> m_pendingDecorators;
    std::vector<std::pair<int, std::string>> m_argStack;
    std::map<std::string, std::pair<std::string, std::vector<std::string>>> m_aliases;
};

} // namespace portolan::python::detail
