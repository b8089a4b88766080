#include "core/port/source.h"

#include "core/port/syntax.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>

extern "C" const TSLanguage* tree_sitter_python();

namespace portolan::port {

namespace {

template <typename Fn> void eachChild(TSNode n, Fn&& fn)
{
    const uint32_t count = ts_node_child_count(n);
    for (uint32_t i = 0; i < count; ++i)
        fn(ts_node_child(n, i), i);
}

template <typename Fn> void eachNamed(TSNode n, Fn&& fn)
{
    const uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; ++i)
        fn(ts_node_named_child(n, i));
}

bool isStatementType(std::string_view t)
{
    return t.ends_with("_statement") || t == "function_definition" || t == "class_definition" ||
           t == "decorated_definition" || t == "comment" || t == "future_import_statement";
}

constexpr int MaxDepth = kMaxSyntaxDepth;

} // namespace

struct SourceFile::Tree
{
    TSParser* parser = nullptr;
    TSTree* tree = nullptr;
    ~Tree()
    {
        if (tree)
            ts_tree_delete(tree);
        if (parser)
            ts_parser_delete(parser);
    }
};

namespace {

class Builder
{
public:
    explicit Builder(const SourceFile& f) : m_f(f) {}

    void collectTargets(TSNode n, std::set<std::string>& out, int depth = 0) const
    {
        if (ts_node_is_null(n) || depth > MaxDepth)
            return;
        const auto t = nodeType(n);
        if (t == "identifier") {
            out.insert(m_f.text(n));
            return;
        }
        if (t == "attribute" || t == "subscript")
            return;
        eachNamed(n, [&](TSNode c) { collectTargets(c, out, depth + 1); });
    }

    // Names a statement binds in its scope (not inside nested functions or classes).
    void defines(TSNode n, std::set<std::string>& out, int depth = 0) const
    {
        if (ts_node_is_null(n) || depth > MaxDepth)
            return;
        const auto t = nodeType(n);
        if (t == "function_definition" || t == "class_definition") {
            out.insert(m_f.text(fieldOf(n, "name")));
            return;
        }
        if (t == "lambda" || t == "list_comprehension" || t == "dictionary_comprehension" ||
            t == "set_comprehension" || t == "generator_expression")
            return;
        if (t == "assignment" || t == "augmented_assignment") {
            collectTargets(fieldOf(n, "left"), out);
            defines(fieldOf(n, "right"), out, depth + 1);
            return;
        }
        if (t == "for_statement") {
            collectTargets(fieldOf(n, "left"), out);
        } else if (t == "as_pattern_target" || t == "named_expression") {
            if (t == "named_expression")
                collectTargets(fieldOf(n, "name"), out);
            else
                collectTargets(n, out);
        } else if (t == "import_statement") {
            eachNamed(n, [&](TSNode c) {
                if (nodeType(c) == "aliased_import")
                    out.insert(m_f.text(fieldOf(c, "alias")));
                else if (nodeType(c) == "dotted_name") {
                    const std::string s = m_f.text(c);
                    out.insert(s.substr(0, s.find('.')));
                }
            });
            return;
        } else if (t == "import_from_statement") {
            const TSNode module = fieldOf(n, "module_name");
            eachNamed(n, [&](TSNode c) {
                if (ts_node_eq(c, module))
                    return;
                if (nodeType(c) == "aliased_import")
                    out.insert(m_f.text(fieldOf(c, "alias")));
                else if (nodeType(c) == "dotted_name") {
                    const std::string s = m_f.text(c);
                    out.insert(s.substr(s.rfind('.') + 1));
                }
            });
            return;
        }
        eachNamed(n, [&](TSNode c) { defines(c, out, depth + 1); });
    }

    Stmt make(TSNode n, int depth)
    {
        Stmt s;
        s.node = n;
        s.type = std::string(nodeType(n));
        s.start = ts_node_start_byte(n);
        s.end = ts_node_end_byte(n);
        const TSPoint p = ts_node_start_point(n);
        s.line = static_cast<int>(p.row) + 1;
        s.column = static_cast<int>(p.column);
        if (s.isComment())
            return s;
        TSNode def = n;
        if (s.type == "decorated_definition")
            def = fieldOf(n, "definition");
        if (nodeType(def) == "function_definition" || nodeType(def) == "class_definition") {
            s.name = m_f.text(fieldOf(def, "name"));
            s.defines.insert(s.name);
            s.uses = usedNames(m_f, def);
            if (depth < MaxDepth) {
                s.body = block(fieldOf(def, "body"), depth + 1);
                s.uses = outerNames(def, s.body);
                // `@dataclass`, `@torch.no_grad()`: read where the definition runs.
                if (s.type == "decorated_definition")
                    eachNamed(n, [&](TSNode c) {
                        if (nodeType(c) == "decorator")
                            for (const auto& u : usedNames(m_f, c))
                                s.uses.insert(u);
                    });
            }
            return s;
        }
        defines(n, s.defines);
        s.uses = usedNames(m_f, n);
        if (depth >= MaxDepth)
            return s;
        if (s.type == "for_statement") {
            s.forTarget = fieldOf(n, "left");
            s.forIter = fieldOf(n, "right");
            s.body = block(fieldOf(n, "body"), depth + 1);
            const TSNode alt = fieldOf(n, "alternative");
            if (!ts_node_is_null(alt))
                s.other = block(fieldOf(alt, "body"), depth + 1);
        } else if (s.type == "while_statement") {
            s.condition = fieldOf(n, "condition");
            s.body = block(fieldOf(n, "body"), depth + 1);
        } else if (s.type == "if_statement") {
            s.condition = fieldOf(n, "condition");
            s.body = block(fieldOf(n, "consequence"), depth + 1);
            eachNamed(n, [&](TSNode c) {
                const auto t = nodeType(c);
                if (t == "elif_clause") {
                    auto b = block(fieldOf(c, "consequence"), depth + 1);
                    s.other.insert(s.other.end(), b.begin(), b.end());
                } else if (t == "else_clause") {
                    auto b = block(fieldOf(c, "body"), depth + 1);
                    s.other.insert(s.other.end(), b.begin(), b.end());
                }
            });
        } else if (s.type == "with_statement") {
            s.body = block(fieldOf(n, "body"), depth + 1);
        } else if (s.type == "try_statement") {
            s.body = block(fieldOf(n, "body"), depth + 1);
            eachNamed(n, [&](TSNode c) {
                const auto t = nodeType(c);
                if (t == "except_clause" || t == "finally_clause" || t == "else_clause") {
                    eachNamed(c, [&](TSNode b) {
                        if (nodeType(b) == "block") {
                            auto st = block(b, depth + 1);
                            s.other.insert(s.other.end(), st.begin(), st.end());
                        }
                    });
                }
            });
        }
        return s;
    }

    // What a definition reads from outside itself. Not a function's parameters, nor the names
    // its body binds, which Python makes local to it unless it declares them global or
    // nonlocal; a class reads what its methods read so, and what its bases and class-level
    // statements read.
    std::set<std::string> outerNames(TSNode def, const std::vector<Stmt>& body) const
    {
        if (nodeType(def) == "class_definition") {
            std::set<std::string> out;
            if (const TSNode bases = fieldOf(def, "superclasses"); !ts_node_is_null(bases))
                out = usedNames(m_f, bases);
            for (const auto& b : body)
                out.insert(b.uses.begin(), b.uses.end());
            return out;
        }
        std::set<std::string> local, declared;
        for (const auto& b : body)
            local.insert(b.defines.begin(), b.defines.end());
        // The parameters: `x`, `x=1`, `x: int`, `x: int = 1`, `*rest`, `**named`.
        eachNamed(fieldOf(def, "parameters"), [&](TSNode p) {
            TSNode n = p;
            if (nodeType(p) == "default_parameter" || nodeType(p) == "typed_default_parameter")
                n = fieldOf(p, "name");
            else if (nodeType(p) != "identifier" && ts_node_named_child_count(p) > 0)
                n = ts_node_named_child(p, 0);
            if (nodeType(n) == "identifier")
                local.insert(m_f.text(n));
        });
        std::function<void(TSNode, int)> walk = [&](TSNode n, int depth) {
            const auto t = nodeType(n);
            if (depth > MaxDepth || t == "function_definition" || t == "class_definition" ||
                t == "lambda")
                return;
            if (t == "global_statement" || t == "nonlocal_statement") {
                eachNamed(n, [&](TSNode c) { declared.insert(m_f.text(c)); });
                return;
            }
            eachNamed(n, [&](TSNode c) { walk(c, depth + 1); });
        };
        eachNamed(fieldOf(def, "body"), [&](TSNode c) { walk(c, 0); });
        // What the body's statements read (a nested definition: what it reads from outside
        // itself), the return annotation and the parameters' defaults, which are read where the
        // definition runs.
        std::set<std::string> read;
        for (const auto& b : body)
            read.insert(b.uses.begin(), b.uses.end());
        const auto add = [&](TSNode n) {
            if (!ts_node_is_null(n))
                for (const auto& u : usedNames(m_f, n))
                    read.insert(u);
        };
        add(fieldOf(def, "return_type"));
        eachNamed(fieldOf(def, "parameters"), [&](TSNode p) {
            if (nodeType(p) == "default_parameter" || nodeType(p) == "typed_default_parameter")
                add(fieldOf(p, "value"));
        });
        std::set<std::string> out;
        for (const auto& u : read)
            if (!local.count(u) || declared.count(u))
                out.insert(u);
        return out;
    }

    std::vector<Stmt> block(TSNode n, int depth)
    {
        std::vector<Stmt> out;
        if (ts_node_is_null(n))
            return out;
        eachNamed(n, [&](TSNode c) {
            if (isStatementType(nodeType(c)))
                out.push_back(make(c, depth));
        });
        return out;
    }

private:
    const SourceFile& m_f;
};

void chain(const std::vector<Stmt>& stmts, std::uint32_t start, std::uint32_t end,
           std::vector<const Stmt*>& out)
{
    for (const auto& s : stmts) {
        if (s.start <= start && end <= s.end && !s.isComment()) {
            out.push_back(&s);
            chain(s.body, start, end, out);
            if (out.back() == &s)
                chain(s.other, start, end, out);
            return;
        }
    }
}

void usedNamesOf(const SourceFile& f, TSNode n, std::set<std::string>& out, int depth)
{
    if (ts_node_is_null(n) || depth > MaxDepth)
        return;
    const auto t = nodeType(n);
    if (t == "identifier") {
        out.insert(f.text(n));
        return;
    }
    if (t == "attribute") {
        usedNamesOf(f, fieldOf(n, "object"), out, depth + 1);
        return;
    }
    if (t == "keyword_argument") {
        usedNamesOf(f, fieldOf(n, "value"), out, depth + 1);
        return;
    }
    if (t == "parameters" || t == "lambda_parameters" || t == "comment")
        return;
    // A string reads names only in an f-string's interpolations (`f"{ep} {cost:.4f}"`), the
    // nested ones of a format specifier (`{cost:{width}}`) included.
    if (t == "string") {
        eachNamed(n, [&](TSNode c) {
            if (nodeType(c) == "interpolation")
                usedNamesOf(f, c, out, depth + 1);
        });
        return;
    }
    if (t == "type_conversion")
        return;
    // A comprehension binds its own loop variables (`[index[w] for w in words]`): they are not
    // names the statement reads from its scope.
    if (t == "list_comprehension" || t == "set_comprehension" || t == "dictionary_comprehension" ||
        t == "generator_expression") {
        std::set<std::string> inner, bound;
        eachNamed(n, [&](TSNode c) {
            usedNamesOf(f, c, inner, depth + 1);
            if (nodeType(c) == "for_in_clause")
                for (const auto& b : targetNames(f, fieldOf(c, "left")))
                    bound.insert(b);
        });
        for (const auto& u : inner)
            if (!bound.count(u))
                out.insert(u);
        return;
    }
    if (t == "function_definition") {
        eachNamed(n, [&](TSNode c) {
            if (nodeType(c) == "parameters") {
                eachNamed(c, [&](TSNode p) {
                    const TSNode v = fieldOf(p, "value");
                    if (!ts_node_is_null(v))
                        usedNamesOf(f, v, out, depth + 1);
                });
            } else if (!ts_node_eq(c, fieldOf(n, "name"))) {
                usedNamesOf(f, c, out, depth + 1);
            }
        });
        return;
    }
    eachNamed(n, [&](TSNode c) { usedNamesOf(f, c, out, depth + 1); });
}

bool methodCall(const SourceFile& f, TSNode n, const std::string& method,
                const std::string& receiver, int depth)
{
    if (ts_node_is_null(n) || depth > MaxDepth)
        return false;
    if (nodeType(n) == "call") {
        const TSNode fn = fieldOf(n, "function");
        if (nodeType(fn) == "attribute" && f.text(fieldOf(fn, "attribute")) == method &&
            (receiver.empty() || f.text(fieldOf(fn, "object")) == receiver))
            return true;
    }
    bool found = false;
    eachNamed(n, [&](TSNode c) { found = found || methodCall(f, c, method, receiver, depth + 1); });
    return found;
}

} // namespace

SourceFile::SourceFile(std::string path, std::string text)
    : m_path(std::move(path)), m_text(std::move(text)), m_tree(std::make_unique<Tree>())
{
    m_tree->parser = ts_parser_new();
    ts_parser_set_language(m_tree->parser, tree_sitter_python());
    m_tree->tree = ts_parser_parse_string(m_tree->parser, nullptr, m_text.data(),
                                          static_cast<uint32_t>(m_text.size()));
    if (m_tree->tree) {
        Builder b(*this);
        m_statements = b.block(ts_tree_root_node(m_tree->tree), 0);
    }
}

SourceFile::~SourceFile() = default;

std::string SourceFile::text(TSNode n) const
{
    if (ts_node_is_null(n))
        return {};
    return text(ts_node_start_byte(n), ts_node_end_byte(n));
}

std::string SourceFile::text(std::uint32_t start, std::uint32_t end) const
{
    if (start >= m_text.size() || end <= start)
        return {};
    return m_text.substr(start, std::min<std::size_t>(end, m_text.size()) - start);
}

std::vector<const Stmt*> SourceFile::chainAt(std::uint32_t start, std::uint32_t end) const
{
    std::vector<const Stmt*> out;
    chain(m_statements, start, end, out);
    return out;
}

TSNode SourceFile::nodeAt(std::uint32_t start, std::uint32_t end) const
{
    if (!m_tree->tree)
        return TSNode{};
    TSNode n = ts_node_descendant_for_byte_range(ts_tree_root_node(m_tree->tree), start, end);
    // Widen to the node that covers the whole range.
    while (!ts_node_is_null(n) && ts_node_end_byte(n) < end)
        n = ts_node_parent(n);
    return n;
}

const Stmt* SourceFile::topDefinition(const std::string& name) const
{
    for (const auto& s : m_statements)
        if (!s.name.empty() && s.name == name)
            return &s;
    return nullptr;
}

std::set<std::string> usedNames(const SourceFile& file, TSNode node)
{
    std::set<std::string> out;
    usedNamesOf(file, node, out, 0);
    return out;
}

bool containsMethodCall(const SourceFile& file, TSNode node, const std::string& method,
                        const std::string& receiver)
{
    return methodCall(file, node, method, receiver, 0);
}

std::vector<std::string> targetNames(const SourceFile& file, TSNode target)
{
    std::set<std::string> seen;
    std::vector<std::string> out;
    std::function<void(TSNode)> walk = [&](TSNode n) {
        if (ts_node_is_null(n))
            return;
        if (nodeType(n) == "identifier") {
            const std::string s = file.text(n);
            if (seen.insert(s).second)
                out.push_back(s);
            return;
        }
        if (nodeType(n) == "attribute" || nodeType(n) == "subscript")
            return;
        eachNamed(n, walk);
    };
    walk(target);
    return out;
}

std::optional<std::vector<std::pair<std::string, std::string>>>
callArguments(const SourceFile& src, TSNode n, const std::string& function)
{
    if (ts_node_is_null(n))
        return std::nullopt;
    if (std::string(ts_node_type(n)) == "call" &&
        src.text(ts_node_child_by_field_name(n, "function", 8)) == function) {
        std::vector<std::pair<std::string, std::string>> out;
        const TSNode args = ts_node_child_by_field_name(n, "arguments", 9);
        for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
            const TSNode a = ts_node_named_child(args, i);
            const std::string type = ts_node_type(a);
            if (type == "comment")
                continue;
            if (type == "list_splat" || type == "dictionary_splat")
                return std::nullopt;
            if (type == "keyword_argument")
                out.emplace_back(src.text(ts_node_child_by_field_name(a, "name", 4)),
                                 src.text(ts_node_child_by_field_name(a, "value", 5)));
            else
                out.emplace_back("", src.text(a));
        }
        return out;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
        if (auto found = callArguments(src, ts_node_named_child(n, i), function))
            return found;
    return std::nullopt;
}

} // namespace portolan::port
