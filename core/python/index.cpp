// The Python index: one cursor walk over tree-sitter's tree that records what the guides check
// (definitions, imports, calls, config key reads, name scopes). Everything is positioned, and the
// walk goes on through ERROR nodes so that a file with a typo is still mostly indexed.
#include "core/python/index.h"

#include "core/python/syntax.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <tree_sitter/api.h>
#include <unordered_set>

extern "C" const TSLanguage* tree_sitter_python();

namespace portolan::python {

std::string Import::boundName() const
{
    if (!alias.empty())
        return alias;
    if (!name.empty())
        return name;
    return module.substr(0, module.find('.'));
}

std::string Import::target() const
{
    if (!name.empty())
        return module.empty() ? name : module + "." + name;
    if (!alias.empty())
        return module;
    return module.substr(0, module.find('.'));
}

const Argument* Call::keyword(std::string_view name) const
{
    for (const auto& a : arguments)
        if (a.keyword == name)
            return &a;
    return nullptr;
}

std::string KeyRead::path() const
{
    std::string out;
    for (const auto& k : keys) {
        if (!out.empty())
            out += '.';
        out += k;
    }
    return out;
}

const ClassDef* PyIndex::findClass(std::string_view name) const
{
    for (const auto& c : classes)
        if (c.name == name)
            return &c;
    return nullptr;
}

const FunctionDef* PyIndex::findFunction(std::string_view qualifiedName) const
{
    for (const auto& f : functions)
        if (f.qualifiedName == qualifiedName)
            return &f;
    return nullptr;
}

std::string PyIndex::resolve(std::string_view dotted) const
{
    const std::string_view head = dotted.substr(0, dotted.find('.'));
    const std::string_view rest = dotted.size() > head.size() ? dotted.substr(head.size()) : "";
    // The last import binding a name wins, as at run time.
    for (auto it = imports.rbegin(); it != imports.rend(); ++it) {
        if (it->name == "*")
            continue;
        if (it->boundName() == head)
            return it->target() + std::string(rest);
    }
    return std::string(dotted);
}

std::string_view valueKindName(ValueKind k)
{
    switch (k) {
    case ValueKind::Other:
        return "expression";
    case ValueKind::Call:
        return "call";
    case ValueKind::Name:
        return "name";
    case ValueKind::Attribute:
        return "attribute";
    case ValueKind::Subscript:
        return "subscript";
    case ValueKind::List:
        return "list";
    case ValueKind::Tuple:
        return "tuple";
    case ValueKind::Dict:
        return "dict";
    case ValueKind::Set:
        return "set";
    case ValueKind::Comprehension:
        return "comprehension";
    case ValueKind::String:
        return "string";
    case ValueKind::Number:
        return "number";
    case ValueKind::Bool:
        return "bool";
    case ValueKind::None:
        return "None";
    }
    return "expression";
}

bool isBuiltinName(std::string_view name)
{
    static const std::unordered_set<std::string_view> builtins{
        "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray",
        "bytes", "callable", "chr", "classmethod", "compile", "complex", "copyright", "credits",
        "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit", "filter", "float",
        "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
        "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals",
        "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print",
        "property", "quit", "range", "repr", "reversed", "round", "set", "setattr", "slice",
        "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip",
        "__import__", "__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__",
        "__package__", "__debug__", "__path__", "__dict__", "__annotations__", "__class__",
        "NotImplemented", "Ellipsis", "True", "False", "None", "self", "cls",
        // exceptions and warnings
        "BaseException", "Exception", "ArithmeticError", "AssertionError", "AttributeError",
        "BlockingIOError", "BrokenPipeError", "BufferError", "ChildProcessError",
        "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError",
        "ConnectionResetError", "EOFError", "EnvironmentError", "FileExistsError",
        "FileNotFoundError", "FloatingPointError", "GeneratorExit", "IOError", "ImportError",
        "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError", "KeyError",
        "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError",
        "NotADirectoryError", "NotImplementedError", "OSError", "OverflowError", "PermissionError",
        "ProcessLookupError", "RecursionError", "ReferenceError", "RuntimeError",
        "StopAsyncIteration", "StopIteration", "SyntaxError", "SystemError", "SystemExit",
        "TabError", "TimeoutError", "TypeError", "UnboundLocalError", "UnicodeDecodeError",
        "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "ValueError",
        "ZeroDivisionError", "ExceptionGroup", "BaseExceptionGroup", "Warning", "UserWarning",
        "DeprecationWarning", "PendingDeprecationWarning", "SyntaxWarning", "RuntimeWarning",
        "FutureWarning", "ImportWarning", "UnicodeWarning", "BytesWarning", "ResourceWarning",
        "EncodingWarning"};
    return builtins.count(name) > 0;
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

// Deeper than this, the walk stops descending (a generated or hostile file could otherwise
// exhaust the stack); the file is marked truncated.
constexpr int MaxDepth = 400;
constexpr std::size_t MaxValueText = 240;

class Indexer
{
public:
    Indexer(std::string_view src, PyIndex& out) : m_src(src), m_out(out)
    {
        m_out.scopes.push_back(Scope{ModuleLevel, {}, {}, false});
    }

    void run(TSNode root) { walk(root, 0); }

private:
    // --- helpers -------------------------------------------------------------------------------
    std::string_view type(TSNode n) const { return ts_node_type(n); }
    std::string text(TSNode n) const
    {
        const uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        if (s >= e || e > m_src.size())
            return {};
        return std::string(m_src.substr(s, e - s));
    }
    std::string shortText(TSNode n) const
    {
        std::string t = text(n);
        if (t.size() > MaxValueText) {
            t.resize(MaxValueText);
            t += "...";
        }
        return t;
    }
    // Parentheses do not change a value: (x) is x.
    TSNode unwrap(TSNode n) const
    {
        while (!ts_node_is_null(n) && type(n) == "parenthesized_expression" &&
               ts_node_named_child_count(n) == 1)
            n = ts_node_named_child(n, 0);
        return n;
    }
    ValueKind valueKind(TSNode n) const
    {
        static const std::map<std::string_view, ValueKind> kinds{
            {"call", ValueKind::Call},
            {"identifier", ValueKind::Name},
            {"attribute", ValueKind::Attribute},
            {"subscript", ValueKind::Subscript},
            {"list", ValueKind::List},
            {"tuple", ValueKind::Tuple},
            {"expression_list", ValueKind::Tuple},
            {"dictionary", ValueKind::Dict},
            {"set", ValueKind::Set},
            {"list_comprehension", ValueKind::Comprehension},
            {"dictionary_comprehension", ValueKind::Comprehension},
            {"set_comprehension", ValueKind::Comprehension},
            {"generator_expression", ValueKind::Comprehension},
            {"string", ValueKind::String},
            {"concatenated_string", ValueKind::String},
            {"integer", ValueKind::Number},
            {"float", ValueKind::Number},
            {"true", ValueKind::Bool},
            {"false", ValueKind::Bool},
            {"none", ValueKind::None},
        };
        const auto it = kinds.find(type(unwrap(n)));
        return it == kinds.end() ? ValueKind::Other : it->second;
    }
    Span span(TSNode n) const
    {
        const TSPoint a = ts_node_start_point(n), b = ts_node_end_point(n);
        return {static_cast<int>(a.row) + 1, static_cast<int>(a.column) + 1,
                static_cast<int>(b.row) + 1, static_cast<int>(b.column) + 1,
                ts_node_start_byte(n),       ts_node_end_byte(n)};
    }
    TSNode field(TSNode n, const char* name) const
    {
        return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::strlen(name)));
    }
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
    void defineName(const std::string& name, TSNode at)
    {
        scope().defined.push_back({name, span(at)});
    }

    // Dotted text of an expression made of identifiers, attributes and calls: "a.b().c".
    std::string dotted(TSNode n) const
    {
        const std::string_view t = type(n);
        if (t == "identifier")
            return text(n);
        if (t == "attribute") {
            const TSNode obj = field(n, "object"), attr = field(n, "attribute");
            if (ts_node_is_null(obj) || ts_node_is_null(attr))
                return {};
            const std::string o = dotted(obj);
            return (o.empty() ? "?" : o) + "." + text(attr);
        }
        if (t == "call") {
            const std::string f = dotted(field(n, "function"));
            return (f.empty() ? "?" : f) + "()";
        }
        if (t == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
            return dotted(ts_node_named_child(n, 0));
        return {};
    }

    // The value of a plain string literal (no interpolation); false otherwise.
    bool stringValue(TSNode n, std::string& out) const
    {
        if (type(n) != "string")
            return false;
        out.clear();
        bool plain = true;
        children(n, [&](TSNode c, std::string_view) {
            const std::string_view t = type(c);
            if (t == "interpolation")
                plain = false;
            else if (t == "string_content")
                out += text(c);
        });
        return plain;
    }

    // params["a"]["b"] -> base "params", keys {a, b}; through aliases of the current function.
    bool keyChain(TSNode n, std::string& base, std::vector<std::string>& keys, bool& viaAlias) const
    {
        const std::string_view t = type(n);
        if (t == "subscript") {
            const TSNode value = field(n, "value");
            const TSNode sub = field(n, "subscript");
            if (ts_node_is_null(value) || ts_node_is_null(sub))
                return false;
            if (!keyChain(value, base, keys, viaAlias))
                return false;
            std::string key;
            // Only the first subscript child counts: `x["a", "b"]` is not a key path.
            if (ts_node_named_child_count(n) != 2 || !stringValue(sub, key))
                return false;
            keys.push_back(std::move(key));
            return true;
        }
        if (t == "identifier" || t == "attribute") {
            base = dotted(n);
            if (base.empty())
                return false;
            const auto it = m_aliases.find(aliasKey(base));
            if (it != m_aliases.end()) {
                base = it->second.first;
                keys = it->second.second;
                viaAlias = true;
            }
            return true;
        }
        return false;
    }
    // A membership test `"k" in m["a"]` (positive) or `"k" not in m` (negative), as the key
    // path it proves present in one branch: {base, keys..., "k"}.
    struct Guard
    {
        std::pair<std::string, std::vector<std::string>> path;
        bool positive = true;
    };
    std::optional<Guard> membershipGuard(TSNode n) const
    {
        if (ts_node_is_null(n) || type(n) != "comparison_operator" ||
            ts_node_named_child_count(n) != 2)
            return std::nullopt;
        bool positive = true;
        bool found = false;
        for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
            const TSNode c = ts_node_child(n, i);
            if (ts_node_is_named(c))
                continue;
            const std::string_view op = type(c);
            if (op == "in" || op == "not in") {
                positive = op == "in";
                found = true;
            }
        }
        std::string key;
        Guard g;
        g.positive = positive;
        bool viaAlias = false;
        if (!found || !stringValue(ts_node_named_child(n, 0), key) ||
            !keyChain(ts_node_named_child(n, 1), g.path.first, g.path.second, viaAlias))
            return std::nullopt;
        g.path.second.push_back(std::move(key));
        return g;
    }
    // A read whose path starts with a guarded path handles the key's absence.
    bool guarded(const std::string& base, const std::vector<std::string>& keys) const
    {
        for (const auto& [gb, gk] : m_guards)
            if (gb == base && gk.size() <= keys.size() &&
                std::equal(gk.begin(), gk.end(), keys.begin()))
                return true;
        return false;
    }
    std::string aliasKey(const std::string& name) const
    {
        return std::to_string(m_function) + ":" + name;
    }

    // --- walk ----------------------------------------------------------------------------------
    void walk(TSNode n, int depth)
    {
        if (depth > MaxDepth) {
            if (!m_out.truncated) {
                m_out.truncated = true;
                Diagnostic d;
                d.severity = Severity::Warning;
                d.code = "python.too-deep";
                d.message = "expression nested too deeply; the rest of it is not indexed";
                const Span s = span(n);
                d.location = {m_out.file, s.line, s.column};
                m_out.syntaxErrors.push_back(std::move(d));
            }
            return;
        }
        const std::string_view t = type(n);
        // Whether this node is the object of an attribute or the value of a subscript: known
        // from the caller, because ts_node_parent walks down from the root (quadratic).
        const bool asObject = m_nextIsObject;
        m_nextIsObject = false;
        if (t == "ERROR") {
            ++m_inError;
            walkChildren(n, depth);
            --m_inError;
            return;
        }
        if (t == "identifier") {
            if (!m_inError)
                scope().used.push_back({text(n), span(n)});
            return;
        }
        if (t == "comment" || t == "string_content" || t == "escape_sequence")
            return;
        if (t == "class_definition")
            return classDef(n, depth);
        if (t == "function_definition")
            return functionDef(n, depth);
        if (t == "decorated_definition")
            return decorated(n, depth);
        if (t == "import_statement" || t == "import_from_statement" ||
            t == "future_import_statement")
            return importStmt(n);
        if (t == "call")
            return call(n, depth);
        if (t == "attribute")
            return attribute(n, depth, asObject);
        if (t == "subscript")
            return subscript(n, depth, asObject);
        if (t == "assignment" || t == "augmented_assignment")
            return assignment(n, depth);
        if (t == "for_statement" || t == "for_in_clause") {
            // The iterable is evaluated once; the body may run no time at all.
            const TSNode left = field(n, "left");
            children(n, [&](TSNode c, std::string_view f) {
                if (f == "left")
                    target(c, depth + 1);
                else if (f == "right" || ts_node_eq(c, left))
                    walk(c, depth + 1);
                else {
                    ++m_conditional;
                    walk(c, depth + 1);
                    --m_conditional;
                }
            });
            return;
        }
        // Everything but the first condition of these runs only sometimes.
        if (t == "if_statement" || t == "while_statement" || t == "conditional_expression" ||
            t == "boolean_operator") {
            // `"k" in m` as the condition guards the branch it selects: there a read of m["k"]
            // handles the key's absence (`mp = p["model"] if "model" in p else p`).
            TSNode condition = field(n, "condition");
            if (t == "conditional_expression" && ts_node_named_child_count(n) == 3)
                condition = ts_node_named_child(n, 1);
            if (t == "boolean_operator")
                condition = field(n, "left");
            auto guard = membershipGuard(condition);
            // `"k" in m and m["k"]`, `"k" not in m or m["k"]`: the right side is guarded.
            if (guard && t == "boolean_operator") {
                const TSNode op = field(n, "operator");
                const bool isAnd = !ts_node_is_null(op) && type(op) == "and";
                if (isAnd != guard->positive)
                    guard.reset();
                else
                    guard->positive = true;
            }
            int named = 0;
            children(n, [&](TSNode c, std::string_view f) {
                bool always = false;
                bool guarded = false;
                if (t == "boolean_operator") {
                    always = f == "left";
                    guarded = guard && !always;
                } else if (t == "conditional_expression") {
                    always = ts_node_is_named(c) && named == 1; // a if COND else b
                    guarded =
                        guard && ts_node_is_named(c) && (guard->positive ? named == 0 : named == 2);
                } else {
                    always = f == "condition";
                    guarded = guard && (guard->positive ? f == "consequence" : f == "alternative");
                }
                if (ts_node_is_named(c))
                    ++named;
                if (!always)
                    ++m_conditional;
                if (guarded)
                    m_guards.push_back(guard->path);
                walk(c, depth + 1);
                if (guarded)
                    m_guards.pop_back();
                if (!always)
                    --m_conditional;
            });
            return;
        }
        if (t == "try_statement" || t == "match_statement" || t == "list_comprehension" ||
            t == "dictionary_comprehension" || t == "set_comprehension" ||
            t == "generator_expression") {
            ++m_conditional;
            walkChildren(n, depth);
            --m_conditional;
            return;
        }
        if (t == "with_item")
            return withItem(n, depth);
        if (t == "as_pattern") {
            children(n, [&](TSNode c, std::string_view f) {
                if (f == "alias")
                    target(c, depth + 1);
                else
                    walk(c, depth + 1);
            });
            return;
        }
        if (t == "named_expression") {
            const TSNode name = field(n, "name");
            if (!ts_node_is_null(name))
                define(name);
            const TSNode value = field(n, "value");
            if (!ts_node_is_null(value))
                walk(value, depth + 1);
            return;
        }
        if (t == "keyword_argument") {
            const TSNode value = field(n, "value");
            if (!ts_node_is_null(value))
                walk(value, depth + 1);
            return;
        }
        if (t == "global_statement" || t == "nonlocal_statement") {
            children(n, [&](TSNode c, std::string_view) {
                if (type(c) == "identifier")
                    define(c);
            });
            return;
        }
        if (t == "lambda") {
            const TSNode params = field(n, "parameters");
            if (!ts_node_is_null(params))
                parameters(params, nullptr, depth + 1);
            const TSNode body = field(n, "body");
            if (!ts_node_is_null(body)) {
                ++m_conditional; // runs when (and if) it is called
                walk(body, depth + 1);
                --m_conditional;
            }
            return;
        }
        if (t == "return_statement")
            return returnStmt(n, depth);
        if (t == "case_pattern")
            return; // capture patterns bind names; not worth modelling for the checks
        walkChildren(n, depth);
    }

    void walkChildren(TSNode n, int depth)
    {
        children(n, [&](TSNode c, std::string_view) { walk(c, depth + 1); });
    }

    // Names bound by an assignment target; attributes and subscripts in targets are uses.
    void target(TSNode n, int depth)
    {
        const std::string_view t = type(n);
        if (t == "identifier") {
            define(n);
            return;
        }
        if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" ||
            t == "list_splat_pattern" || t == "parenthesized_expression" ||
            t == "as_pattern_target" || t == "tuple" || t == "list" || t == "expression_list" ||
            t == "list_splat") {
            children(n, [&](TSNode c, std::string_view) { target(c, depth + 1); });
            return;
        }
        if (t == "attribute" || t == "subscript") {
            walk(n, depth + 1);
            return;
        }
        if (ts_node_is_named(n))
            walk(n, depth + 1);
    }

    // `with open(path) as f:` binds f to (what the context manager gives for) the call; it is
    // recorded as an assignment so that values can be followed through it.
    void withItem(TSNode n, int depth)
    {
        const TSNode value = field(n, "value");
        if (ts_node_is_null(value))
            return walkChildren(n, depth);
        if (type(value) == "as_pattern" && ts_node_named_child_count(value) >= 1) {
            const TSNode expr = ts_node_named_child(value, 0);
            const TSNode alias = field(value, "alias");
            if (!ts_node_is_null(alias) && ts_node_named_child_count(alias) == 1 &&
                type(ts_node_named_child(alias, 0)) == "identifier") {
                Assignment a{text(ts_node_named_child(alias, 0)), shortText(expr), span(n),
                             m_function};
                a.kind = valueKind(expr);
                const std::size_t index = m_out.assignments.size();
                m_out.assignments.push_back(std::move(a));
                const std::size_t before = m_out.calls.size();
                walk(value, depth + 1);
                if (type(unwrap(expr)) == "call" && before < m_out.calls.size())
                    m_out.assignments[index].call = static_cast<int>(before);
                return;
            }
        }
        walk(value, depth + 1);
    }

    void decorated(TSNode n, int depth)
    {
        std::vector<std::string> decorators;
        TSNode def{};
        bool haveDef = false;
        children(n, [&](TSNode c, std::string_view f) {
            if (type(c) == "decorator") {
                decorators.push_back(text(c));
                walkChildren(c, depth + 1);
            } else if (f == "definition") {
                def = c;
                haveDef = true;
            }
        });
        if (!haveDef)
            return;
        m_pendingDecorators = std::move(decorators);
        walk(def, depth + 1);
    }

    void classDef(TSNode n, int depth)
    {
        ClassDef cls;
        const TSNode name = field(n, "name");
        if (!ts_node_is_null(name)) {
            cls.name = text(name);
            cls.nameSpan = span(name);
            define(name);
        }
        cls.span = span(n);
        cls.function = m_function;
        cls.nested = !m_class.empty() && m_classFunction == m_function;
        m_pendingDecorators.clear();
        const TSNode supers = field(n, "superclasses");
        if (!ts_node_is_null(supers)) {
            children(supers, [&](TSNode c, std::string_view) {
                if (ts_node_is_named(c) && type(c) != "keyword_argument" && type(c) != "comment")
                    cls.bases.push_back(text(c));
            });
            walk(supers, depth + 1);
        }
        const std::size_t index = m_out.classes.size();
        m_out.classes.push_back(std::move(cls));
        const std::string saved = m_class;
        const std::size_t savedIndex = m_classIndex;
        const FunctionId savedClassFunction = m_classFunction;
        m_class = m_out.classes[index].name;
        m_classIndex = index;
        m_classFunction = m_function;
        const TSNode body = field(n, "body");
        if (!ts_node_is_null(body))
            walk(body, depth + 1);
        m_class = saved;
        m_classIndex = savedIndex;
        m_classFunction = savedClassFunction;
    }

    void functionDef(TSNode n, int depth)
    {
        FunctionDef fn;
        const TSNode name = field(n, "name");
        if (!ts_node_is_null(name)) {
            fn.name = text(name);
            fn.nameSpan = span(name);
            define(name);
        }
        fn.span = span(n);
        fn.decorators = std::move(m_pendingDecorators);
        m_pendingDecorators.clear();
        fn.parent = m_function;
        // A def directly in a class body is a method; one inside a method is a nested function.
        const bool method = !m_class.empty() && m_classFunction == m_function;
        if (method) {
            fn.className = m_class;
            fn.qualifiedName = m_class + "." + fn.name;
            m_out.classes[m_classIndex].methods.push_back(fn.name);
        } else if (m_function != ModuleLevel) {
            fn.qualifiedName =
                m_out.functions[static_cast<std::size_t>(m_function)].qualifiedName + "." + fn.name;
        } else {
            fn.qualifiedName = fn.name;
        }
        // Annotations and defaults are evaluated in the enclosing scope.
        const TSNode params = field(n, "parameters");
        const TSNode returns = field(n, "return_type");
        if (!ts_node_is_null(returns))
            walk(returns, depth + 1);

        const FunctionId id = static_cast<FunctionId>(m_out.functions.size());
        m_out.functions.push_back(std::move(fn));
        m_out.scopes.push_back(Scope{id, {}, {}, false});

        const FunctionId savedFunction = m_function;
        const std::string savedClass = m_class;
        const FunctionId savedClassFunction = m_classFunction;
        std::vector<Parameter> parsed;
        if (!ts_node_is_null(params))
            parameters(params, &parsed, depth + 1, id);
        m_out.functions[static_cast<std::size_t>(id)].parameters = std::move(parsed);
        m_function = id;
        m_class.clear(); // a class defined inside a function starts its own context
        const int savedConditional = m_conditional;
        m_conditional = 0; // a body runs in full as far as its own reads are concerned
        const TSNode body = field(n, "body");
        if (!ts_node_is_null(body))
            walk(body, depth + 1);
        m_conditional = savedConditional;
        m_function = savedFunction;
        m_class = savedClass;
        m_classFunction = savedClassFunction;
    }

    // Parameters: names go to the new function's scope, defaults and annotations to the current.
    void parameters(TSNode n, std::vector<Parameter>* out, int depth, FunctionId into = -2)
    {
        bool keywordOnly = false;
        children(n, [&](TSNode c, std::string_view) {
            const std::string_view t = type(c);
            Parameter p;
            p.span = span(c);
            p.keywordOnly = keywordOnly;
            if (t == "keyword_separator") {
                keywordOnly = true;
                return;
            }
            if (t == "list_splat_pattern") {
                p.star = 1;
                keywordOnly = true;
            } else if (t == "dictionary_splat_pattern") {
                p.star = 2;
            } else if (t == "typed_parameter") {
                children(c, [&](TSNode g, std::string_view) {
                    if (type(g) == "list_splat_pattern") {
                        p.star = 1;
                        keywordOnly = true;
                    } else if (type(g) == "dictionary_splat_pattern")
                        p.star = 2;
                });
            }
            TSNode nameNode{};
            bool haveName = false;
            if (t == "identifier") {
                nameNode = c;
                haveName = true;
            } else if (t == "default_parameter" || t == "typed_default_parameter") {
                nameNode = field(c, "name");
                haveName = !ts_node_is_null(nameNode);
                const TSNode value = field(c, "value");
                if (!ts_node_is_null(value)) {
                    p.defaultText = shortText(value);
                    walk(value, depth + 1);
                }
                const TSNode ty = field(c, "type");
                if (!ts_node_is_null(ty)) {
                    p.annotation = text(ty);
                    walk(ty, depth + 1);
                }
            } else if (t == "typed_parameter") {
                const TSNode ty = field(c, "type");
                if (!ts_node_is_null(ty)) {
                    p.annotation = text(ty);
                    walk(ty, depth + 1);
                }
                children(c, [&](TSNode g, std::string_view) {
                    const std::string_view gt = type(g);
                    if (gt == "identifier" && !haveName) {
                        nameNode = g;
                        haveName = true;
                    } else if ((gt == "list_splat_pattern" || gt == "dictionary_splat_pattern") &&
                               ts_node_named_child_count(g) > 0) {
                        nameNode = ts_node_named_child(g, 0);
                        haveName = true;
                    }
                });
            } else if (t == "list_splat_pattern" || t == "dictionary_splat_pattern") {
                if (ts_node_named_child_count(c) > 0) {
                    nameNode = ts_node_named_child(c, 0);
                    haveName = true;
                }
            }
            if (!haveName)
                return;
            p.name = text(nameNode);
            const FunctionId target = into == -2 ? m_function : into;
            m_out.scopes[PyIndex::scopeSlot(target)].defined.push_back({p.name, span(nameNode)});
            if (out)
                out->push_back(std::move(p));
        });
    }

    void importStmt(TSNode n)
    {
        const std::string_view t = type(n);
        std::string module;
        if (t == "import_from_statement") {
            const TSNode m = field(n, "module_name");
            if (!ts_node_is_null(m))
                module = text(m);
        } else if (t == "future_import_statement") {
            module = "__future__";
        }
        children(n, [&](TSNode c, std::string_view f) {
            const std::string_view ct = type(c);
            Import imp;
            imp.span = span(c);
            imp.function = m_function;
            if (ct == "wildcard_import") {
                imp.module = module;
                imp.name = "*";
                imp.span = span(n);
                scope().hasStarImport = true;
                m_out.imports.push_back(std::move(imp));
                return;
            }
            if (f == "module_name")
                return;
            if (ct == "dotted_name") {
                if (t == "import_statement")
                    imp.module = text(c);
                else {
                    imp.module = module;
                    imp.name = text(c);
                }
            } else if (ct == "aliased_import") {
                const TSNode name = field(c, "name"), alias = field(c, "alias");
                if (ts_node_is_null(name))
                    return;
                if (t == "import_statement")
                    imp.module = text(name);
                else {
                    imp.module = module;
                    imp.name = text(name);
                }
                if (!ts_node_is_null(alias))
                    imp.alias = text(alias);
            } else {
                return;
            }
            defineName(imp.boundName(), c);
            m_out.imports.push_back(std::move(imp));
        });
    }

    void call(TSNode n, int depth)
    {
        Call c;
        const TSNode fn = field(n, "function");
        c.span = span(n);
        c.function = m_function;
        if (!m_argStack.empty()) {
            c.parentCall = m_argStack.back().first;
            c.parentKeyword = m_argStack.back().second;
        }
        if (!ts_node_is_null(fn)) {
            c.callee = dotted(fn);
            c.calleeSpan = span(fn);
            TSNode last = fn;
            if (type(fn) == "attribute") {
                const TSNode a = field(fn, "attribute");
                if (!ts_node_is_null(a))
                    last = a;
            }
            c.nameSpan = span(last);
        }
        if (!c.callee.empty())
            c.resolved = m_out.resolve(c.callee);
        const int index = static_cast<int>(m_out.calls.size());
        const TSNode args = field(n, "arguments");
        if (!ts_node_is_null(args) && type(args) == "argument_list") {
            children(args, [&](TSNode a, std::string_view) {
                if (!ts_node_is_named(a) || type(a) == "comment")
                    return;
                Argument arg;
                arg.span = span(a);
                TSNode value = a;
                if (type(a) == "keyword_argument") {
                    const TSNode k = field(a, "name"), v = field(a, "value");
                    if (!ts_node_is_null(k))
                        arg.keyword = text(k);
                    if (!ts_node_is_null(v))
                        value = v;
                }
                arg.text = shortText(value);
                arg.valueSpan = span(value);
                arg.isString = stringValue(value, arg.stringValue);
                c.arguments.push_back(std::move(arg));
            });
        }
        // get_hparam("lr") and X.get("key") / X.setdefault("key", ...) on a config mapping.
        if (!c.arguments.empty() && c.arguments[0].keyword.empty() && c.arguments[0].isString) {
            const std::string& callee = c.callee;
            if (callee == "get_hparam" || callee.ends_with(".get_hparam")) {
                m_out.hparams.push_back(
                    {c.arguments[0].stringValue, c.arguments[0].valueSpan, m_function});
            } else if ((callee.ends_with(".get") || callee.ends_with(".setdefault") ||
                        callee.ends_with(".pop")) &&
                       type(fn) == "attribute") {
                std::string base;
                std::vector<std::string> keys;
                bool viaAlias = false;
                const TSNode obj = field(fn, "object");
                if (!ts_node_is_null(obj) && keyChain(obj, base, keys, viaAlias)) {
                    keys.push_back(c.arguments[0].stringValue);
                    // pop("k") without a default fails on a missing key, like ["k"].
                    const bool optional = !callee.ends_with(".pop") || c.arguments.size() > 1;
                    KeyRead k{base, std::move(keys), c.span, m_function, viaAlias, optional};
                    k.conditional = m_conditional > 0;
                    m_out.keyReads.push_back(std::move(k));
                }
            }
        }
        m_out.calls.push_back(std::move(c));

        if (!ts_node_is_null(fn))
            walk(fn, depth + 1);
        if (!ts_node_is_null(args)) {
            if (type(args) == "argument_list") {
                children(args, [&](TSNode a, std::string_view) {
                    std::string kw;
                    if (type(a) == "keyword_argument") {
                        const TSNode k = field(a, "name");
                        if (!ts_node_is_null(k))
                            kw = text(k);
                    }
                    m_argStack.emplace_back(index, kw);
                    walk(a, depth + 1);
                    m_argStack.pop_back();
                });
            } else {
                m_argStack.emplace_back(index, std::string());
                walk(args, depth + 1);
                m_argStack.pop_back();
            }
        }
    }

    void attribute(TSNode n, int depth, bool inner)
    {
        // Only the outermost chain of identifiers is recorded: "self.context.backward", once.
        if (!inner) {
            const std::string chain = dotted(n);
            if (!chain.empty() && chain.find('(') == std::string::npos && chain[0] != '?') {
                AttributeUse u;
                u.base = chain.substr(0, chain.find('.'));
                u.chain = chain;
                u.span = span(n);
                u.function = m_function;
                m_out.attributes.push_back(std::move(u));
            }
        }
        const TSNode obj = field(n, "object");
        if (!ts_node_is_null(obj) && type(obj) == "attribute") {
            m_nextIsObject = true;
            walk(obj, depth + 1);
        } else if (!ts_node_is_null(obj)) {
            walk(obj, depth + 1); // the attribute name itself is not a use of a variable
        }
    }

    void subscript(TSNode n, int depth, bool inner)
    {
        if (!inner) {
            std::string base;
            std::vector<std::string> keys;
            bool viaAlias = false;
            if (keyChain(n, base, keys, viaAlias) && !keys.empty()) {
                const bool handled = guarded(base, keys);
                m_out.keyReads.push_back(
                    {base, std::move(keys), span(n), m_function, viaAlias, handled});
                m_out.keyReads.back().conditional = m_conditional > 0;
            } else {
                // params["model"][i]: keep the string prefix.
                TSNode cur = n;
                while (type(cur) == "subscript") {
                    const TSNode v = field(cur, "value");
                    if (ts_node_is_null(v))
                        break;
                    cur = v;
                    if (type(cur) == "subscript") {
                        base.clear();
                        keys.clear();
                        viaAlias = false;
                        if (keyChain(cur, base, keys, viaAlias) && !keys.empty()) {
                            const bool handled = guarded(base, keys);
                            m_out.keyReads.push_back(
                                {base, std::move(keys), span(cur), m_function, viaAlias, handled});
                            m_out.keyReads.back().conditional = m_conditional > 0;
                            break;
                        }
                    }
                }
            }
        }
        const TSNode value = field(n, "value");
        children(n, [&](TSNode c, std::string_view) {
            m_nextIsObject = type(c) == "subscript" && ts_node_eq(c, value);
            walk(c, depth + 1);
        });
    }

    // The mapping a value is a view or a copy of: params["model"], params["model"].copy(),
    // copy.deepcopy(params), dict(params["model"]).
    bool aliasSource(TSNode v, std::string& base, std::vector<std::string>& keys) const
    {
        v = unwrap(v);
        bool viaAlias = false;
        if (type(v) == "subscript")
            return keyChain(v, base, keys, viaAlias) && !keys.empty();
        if (type(v) != "call")
            return false;
        const TSNode fn = field(v, "function");
        const TSNode args = field(v, "arguments");
        if (ts_node_is_null(fn) || ts_node_is_null(args))
            return false;
        if (type(fn) == "attribute" && text(field(fn, "attribute")) == "copy" &&
            ts_node_named_child_count(args) == 0) {
            const TSNode obj = unwrap(field(fn, "object"));
            return (type(obj) == "subscript" || type(obj) == "identifier" ||
                    type(obj) == "attribute") &&
                   keyChain(obj, base, keys, viaAlias);
        }
        const std::string f = dotted(fn);
        if ((f == "dict" || f == "deepcopy" || f == "copy.deepcopy" || f == "copy.copy") &&
            ts_node_named_child_count(args) == 1) {
            const TSNode a = unwrap(ts_node_named_child(args, 0));
            return (type(a) == "subscript" || type(a) == "identifier" || type(a) == "attribute") &&
                   keyChain(a, base, keys, viaAlias);
        }
        return false;
    }

    void assignment(TSNode n, int depth)
    {
        const TSNode left = field(n, "left");
        const TSNode right = field(n, "right");
        // Directly in a class body: a field of the class (annotated or assigned).
        if (!m_class.empty() && m_classFunction == m_function && !ts_node_is_null(left) &&
            type(left) == "identifier" && type(n) == "assignment") {
            const TSNode annotation = field(n, "type");
            m_out.classes[m_classIndex].fields.push_back(
                {text(left), ts_node_is_null(annotation) ? std::string() : text(annotation),
                 span(left)});
        }
        std::size_t assignmentIndex = m_out.assignments.size();
        if (!ts_node_is_null(left) && !ts_node_is_null(right)) {
            Assignment a{shortText(left), shortText(right), span(n), m_function};
            a.kind = valueKind(right);
            a.augmented = type(n) == "augmented_assignment";
            m_out.assignments.push_back(std::move(a));
        } else {
            assignmentIndex = std::size_t(-1);
        }
        // The value first: `x = x + 1` uses x before it binds it.
        if (!ts_node_is_null(right)) {
            const std::size_t before = m_out.calls.size();
            walk(right, depth + 1);
            if (type(unwrap(right)) == "call" && before < m_out.calls.size()) {
                if (!ts_node_is_null(left))
                    m_out.calls[before].assignedTo = text(left);
                if (assignmentIndex != std::size_t(-1))
                    m_out.assignments[assignmentIndex].call = static_cast<int>(before);
            }
        }
        if (!ts_node_is_null(left)) {
            if (type(n) == "augmented_assignment")
                walk(left, depth + 1);
            const std::size_t readsBefore = m_out.keyReads.size();
            target(left, depth + 1);
            // params["model"]["x"] = v provides the key rather than reading it.
            if (type(n) == "assignment")
                for (std::size_t i = readsBefore; i < m_out.keyReads.size(); ++i)
                    if (m_out.keyReads[i].span.startByte == ts_node_start_byte(left) &&
                        m_out.keyReads[i].span.endByte == ts_node_end_byte(left))
                        m_out.keyReads[i].isWrite = true;
            // mp = params["model"]: later mp["depth"] reads model.depth.
            if (type(n) == "assignment" && !ts_node_is_null(right) &&
                (type(left) == "identifier" || type(left) == "attribute")) {
                std::string base;
                std::vector<std::string> keys;
                const std::string name = dotted(left);
                if (aliasSource(right, base, keys) && base != name) {
                    m_aliases[aliasKey(name)] = {base, keys};
                    m_out.aliases.push_back({name, base, keys, span(n), m_function});
                } else
                    m_aliases.erase(aliasKey(name));
            }
        }
        const TSNode ty = field(n, "type");
        if (!ts_node_is_null(ty))
            walk(ty, depth + 1);
    }

    void returnStmt(TSNode n, int depth)
    {
        Return r;
        r.span = span(n);
        r.function = m_function;
        const std::size_t callsBefore = m_out.calls.size();
        if (ts_node_named_child_count(n) > 0) {
            const TSNode v = unwrap(ts_node_named_child(n, 0));
            r.text = shortText(v);
            r.kind = valueKind(v);
            r.valueSpan = span(v);
            if (type(v) == "call") {
                r.callee = dotted(field(v, "function"));
                const TSNode args = field(v, "arguments");
                if (!ts_node_is_null(args))
                    children(args, [&](TSNode a, std::string_view) {
                        if (type(a) == "keyword_argument") {
                            const TSNode k = field(a, "name");
                            if (!ts_node_is_null(k))
                                r.keywords.push_back(text(k));
                        }
                    });
            }
        }
        const std::size_t index = m_out.returns.size();
        const bool isCall = r.kind == ValueKind::Call;
        m_out.returns.push_back(std::move(r));
        walkChildren(n, depth);
        if (isCall && callsBefore < m_out.calls.size())
            m_out.returns[index].call = static_cast<int>(callsBefore);
    }

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

} // namespace

PyIndex indexSource(std::string_view source, const std::string& fileName)
{
    PyIndex out;
    out.file = fileName;
    if (source.size() > 0xFFFFFFF0u) {
        Diagnostic d;
        d.code = "python.too-large";
        d.message = "file too large to parse";
        d.location.file = fileName;
        out.syntaxErrors.push_back(std::move(d));
        out.scopes.push_back({});
        return out;
    }
    std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
    ts_parser_set_language(parser.get(), tree_sitter_python());
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(
        parser.get(), nullptr, source.data(), static_cast<uint32_t>(source.size())));
    if (!tree) {
        out.scopes.push_back({});
        return out;
    }
    out.syntaxErrors = syntaxErrors(tree.get(), fileName);
    Indexer indexer(source, out);
    indexer.run(ts_tree_root_node(tree.get()));
    return out;
}

} // namespace portolan::python
