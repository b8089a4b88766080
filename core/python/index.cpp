// The Python index: one cursor walk over tree-sitter's tree that records what the guides check
// (definitions, imports, calls, config key reads, name scopes). Everything is positioned, and the
// walk goes on through ERROR nodes so that a file with a typo is still mostly indexed.
#include "core/python/index.h"

#include "core/python/indexer.h"
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
namespace detail {

Indexer::Indexer(std::string_view src, PyIndex& out) : m_src(src), m_out(out)
{
    m_out.scopes.push_back(Scope{ModuleLevel, {}, {}, false});
}

std::string Indexer::text(TSNode n) const
{
    const uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (s >= e || e > m_src.size())
        return {};
    return std::string(m_src.substr(s, e - s));
}

std::string Indexer::shortText(TSNode n) const
{
    std::string t = text(n);
    if (t.size() > MaxValueText) {
        t.resize(MaxValueText);
        t += "...";
    }
    return t;
}

// Parentheses do not change a value: (x) is x.
TSNode Indexer::unwrap(TSNode n) const
{
    while (!ts_node_is_null(n) && type(n) == "parenthesized_expression" &&
           ts_node_named_child_count(n) == 1)
        n = ts_node_named_child(n, 0);
    return n;
}

ValueKind Indexer::valueKind(TSNode n) const
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

Span Indexer::span(TSNode n) const
{
    const TSPoint a = ts_node_start_point(n), b = ts_node_end_point(n);
    return {static_cast<int>(a.row) + 1, static_cast<int>(a.column) + 1,
            static_cast<int>(b.row) + 1, static_cast<int>(b.column) + 1,
            ts_node_start_byte(n),       ts_node_end_byte(n)};
}

TSNode Indexer::field(TSNode n, const char* name) const
{
    return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::strlen(name)));
}

void Indexer::defineName(const std::string& name, TSNode at)
{
    scope().defined.push_back({name, span(at)});
}

// Dotted text of an expression made of identifiers, attributes and calls: "a.b().c".
std::string Indexer::dotted(TSNode n) const
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
bool Indexer::stringValue(TSNode n, std::string& out) const
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
bool Indexer::keyChain(TSNode n, std::string& base, std::vector<std::string>& keys,
                       bool& viaAlias) const
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

std::optional<Indexer::Guard> Indexer::membershipGuard(TSNode n) const
{
    if (ts_node_is_null(n) || type(n) != "comparison_operator" || ts_node_named_child_count(n) != 2)
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
bool Indexer::guarded(const std::string& base, const std::vector<std::string>& keys) const
{
    for (const auto& [gb, gk] : m_guards)
        if (gb == base && gk.size() <= keys.size() &&
            std::equal(gk.begin(), gk.end(), keys.begin()))
            return true;
    return false;
}

std::string Indexer::aliasKey(const std::string& name) const
{
    return std::to_string(m_function) + ":" + name;
}

// --- walk ----------------------------------------------------------------------------------
// One dispatch over the node kinds the index cares about: each branch routes a kind to its
// recorder (here or in index_statements.cpp), so that reading them side by side shows that no
// kind is walked twice or skipped. The kinds whose children are walked in a particular way
// (conditionally, as a target) have their own function below.
void Indexer::walk(TSNode n, int depth)
{
    if (depth > MaxDepth)
        return tooDeep(n);
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
    if (t == "import_statement" || t == "import_from_statement" || t == "future_import_statement")
        return importStmt(n);
    if (t == "call")
        return call(n, depth);
    if (t == "attribute")
        return attribute(n, depth, asObject);
    if (t == "subscript")
        return subscript(n, depth, asObject);
    if (t == "assignment" || t == "augmented_assignment")
        return assignment(n, depth);
    if (t == "for_statement" || t == "for_in_clause")
        return forLoop(n, depth);
    if (t == "if_statement" || t == "while_statement" || t == "conditional_expression" ||
        t == "boolean_operator")
        return branches(n, t, depth);
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
    if (t == "as_pattern" || t == "named_expression" || t == "keyword_argument" ||
        t == "global_statement" || t == "nonlocal_statement")
        return binding(n, t, depth);
    if (t == "lambda")
        return lambda(n, depth);
    if (t == "return_statement")
        return returnStmt(n, depth);
    if (t == "case_pattern")
        return; // capture patterns bind names; not worth modelling for the checks
    walkChildren(n, depth);
}

// Past MaxDepth: said once per file, and the rest of the expression is not indexed.
void Indexer::tooDeep(TSNode n)
{
    if (m_out.truncated)
        return;
    m_out.truncated = true;
    Diagnostic d;
    d.severity = Severity::Warning;
    d.code = "python.too-deep";
    d.message = "expression nested too deeply; the rest of it is not indexed";
    const Span s = span(n);
    d.location = {m_out.file, s.line, s.column};
    m_out.syntaxErrors.push_back(std::move(d));
}

// The iterable is evaluated once; the body may run no time at all.
void Indexer::forLoop(TSNode n, int depth)
{
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
}

// if, while, `a if c else b` and `and`/`or`: everything but the first condition runs only
// sometimes.
void Indexer::branches(TSNode n, std::string_view t, int depth)
{
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
            guarded = guard && ts_node_is_named(c) && (guard->positive ? named == 0 : named == 2);
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
}

// The nodes that bind a name besides assignments: `x as name`, `name := v`, a keyword
// argument's value (its name binds nothing here), global and nonlocal.
void Indexer::binding(TSNode n, std::string_view t, int depth)
{
    if (t == "as_pattern") {
        children(n, [&](TSNode c, std::string_view f) {
            if (f == "alias")
                target(c, depth + 1);
            else
                walk(c, depth + 1);
        });
    } else if (t == "named_expression" || t == "keyword_argument") {
        const TSNode name = field(n, "name");
        if (t == "named_expression" && !ts_node_is_null(name))
            define(name);
        const TSNode value = field(n, "value");
        if (!ts_node_is_null(value))
            walk(value, depth + 1);
    } else {
        // `global x` in a function: what the function binds to x is the module's x, seen by
        // every function of the module (a class reading a value its script's main code sets).
        const bool global = t == "global_statement";
        children(n, [&](TSNode c, std::string_view) {
            if (type(c) != "identifier")
                return;
            define(c);
            if (global && m_function != ModuleLevel)
                m_out.scopes[0].defined.push_back({text(c), span(c)});
        });
    }
}

void Indexer::lambda(TSNode n, int depth)
{
    const TSNode params = field(n, "parameters");
    if (!ts_node_is_null(params))
        parameters(params, nullptr, depth + 1);
    const TSNode body = field(n, "body");
    if (!ts_node_is_null(body)) {
        ++m_conditional; // runs when (and if) it is called
        walk(body, depth + 1);
        --m_conditional;
    }
}

void Indexer::walkChildren(TSNode n, int depth)
{
    children(n, [&](TSNode c, std::string_view) { walk(c, depth + 1); });
}

// Names bound by an assignment target; attributes and subscripts in targets are uses.
void Indexer::target(TSNode n, int depth)
{
    const std::string_view t = type(n);
    if (t == "identifier") {
        define(n);
        return;
    }
    if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" ||
        t == "list_splat_pattern" || t == "parenthesized_expression" || t == "as_pattern_target" ||
        t == "tuple" || t == "list" || t == "expression_list" || t == "list_splat") {
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
void Indexer::withItem(TSNode n, int depth)
{
    const TSNode value = field(n, "value");
    if (ts_node_is_null(value))
        return walkChildren(n, depth);
    if (type(value) == "as_pattern" && ts_node_named_child_count(value) >= 1) {
        const TSNode expr = ts_node_named_child(value, 0);
        const TSNode alias = field(value, "alias");
        if (!ts_node_is_null(alias) && ts_node_named_child_count(alias) == 1 &&
            type(ts_node_named_child(alias, 0)) == "identifier") {
            Assignment a{text(ts_node_named_child(alias, 0)), shortText(expr), span(n), m_function};
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

void Indexer::decorated(TSNode n, int depth)
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

} // namespace detail

using detail::Indexer;
using detail::ParserDeleter;
using detail::TreeDeleter;

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
