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

constexpr int MaxDepth = 200;

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
    if (t == "parameters" || t == "lambda_parameters" || t == "comment" || t == "string")
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

bool isDeviceArg(const SourceFile& f, TSNode arg, const RenderRules& rules)
{
    const auto t = nodeType(arg);
    if (t == "identifier")
        return rules.deviceNames.count(f.text(arg)) > 0;
    if (t == "string") {
        const std::string s = f.text(arg);
        return s.find("cuda") != std::string::npos || s.find("cpu") != std::string::npos;
    }
    if (t == "keyword_argument") {
        const std::string k = f.text(fieldOf(arg, "name"));
        if (k == "non_blocking")
            return true;
        if (k == "device")
            return isDeviceArg(f, fieldOf(arg, "value"), rules);
        return false;
    }
    if (t == "attribute")
        return f.text(arg).ends_with(".device") || f.text(arg).ends_with("device");
    if (t == "call") // torch.device("cuda") or an accelerator query
        return f.text(fieldOf(arg, "function")).find("device") != std::string::npos;
    return false;
}

// `device=where` in a call (`torch.randn(n, device=where)`), `where` a device name the rules
// neither rename nor keep: the device is dropped with the binding of `where`, as `.to(where)`
// is, and the tensor is made where the target makes it.
bool placedOnADevice(const SourceFile& f, TSNode arg, const RenderRules& rules)
{
    if (!rules.dropDeviceMoves || nodeType(arg) != "keyword_argument" ||
        f.text(fieldOf(arg, "name")) != "device")
        return false;
    const TSNode value = fieldOf(arg, "value");
    return nodeType(value) == "identifier" && rules.deviceNames.count(f.text(value)) > 0 &&
           !rules.rename.count(f.text(value));
}

// `.to(device)` / `.cuda()` / `.to(device, non_blocking=True)`: the object it moves. And
// `nn.DataParallel(model)` / `DistributedDataParallel(model, device_ids=[rank])`: the model it
// spreads over the devices, which every target does itself (Determined over its slots, the IPU
// and CS compilers over their chips).
TSNode deviceMoveObject(const SourceFile& f, TSNode call, const RenderRules& rules)
{
    TSNode none{};
    if (!rules.dropDeviceMoves || nodeType(call) != "call")
        return none;
    const TSNode fn = fieldOf(call, "function");
    const TSNode args = fieldOf(call, "arguments");
    if (f.text(fn).ends_with("DataParallel") && nodeType(args) == "argument_list" &&
        ts_node_named_child_count(args) > 0 &&
        nodeType(ts_node_named_child(args, 0)) != "keyword_argument")
        return ts_node_named_child(args, 0);
    if (nodeType(fn) != "attribute")
        return none;
    const std::string method = f.text(fieldOf(fn, "attribute"));
    if (method == "cuda")
        return fieldOf(fn, "object");
    if (method != "to" || ts_node_is_null(args) || nodeType(args) != "argument_list")
        return none;
    const uint32_t count = ts_node_named_child_count(args);
    if (count == 0)
        return none;
    for (uint32_t i = 0; i < count; ++i)
        if (!isDeviceArg(f, ts_node_named_child(args, i), rules))
            return none;
    return fieldOf(fn, "object");
}

bool isSelfAssignment(const std::string& text);
void renderInto(const SourceFile& f, TSNode n, const RenderRules& rules, std::string& out,
                int depth);

// A block's statements, but for those the rules reduce to a self-assignment (`model = model`
// from `model = nn.DataParallel(model)` under `if cuda:`), which are dropped with the line
// they were on; a block left with nothing holds `pass`.
void renderBlock(const SourceFile& f, TSNode n, const RenderRules& rules, std::string& out,
                 int depth)
{
    const std::uint32_t e = ts_node_end_byte(n);
    std::uint32_t at = ts_node_start_byte(n);
    bool first = true;
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
        const TSNode c = ts_node_child(n, i);
        std::string text;
        renderInto(f, c, rules, text, depth + 1);
        const std::string before = f.text(at, ts_node_start_byte(c));
        at = ts_node_end_byte(c);
        if (nodeType(c) == "expression_statement" && isSelfAssignment(text))
            continue;
        out += (first ? "" : before) + text;
        first = false;
    }
    if (first)
        out += "pass";
    out += f.text(at, e);
}

void renderInto(const SourceFile& f, TSNode n, const RenderRules& rules, std::string& out,
                int depth)
{
    const std::uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (depth > MaxDepth) {
        out += f.text(s, e);
        return;
    }
    if (!rules.replace.empty())
        if (const auto it = rules.replace.find({s, e}); it != rules.replace.end()) {
            out += it->second;
            return;
        }
    const auto t = nodeType(n);
    if (t == "identifier") {
        const std::string name = f.text(n);
        const auto it = rules.rename.find(name);
        out += it != rules.rename.end() ? it->second : name;
        return;
    }
    if (t == "attribute") {
        const TSNode obj = fieldOf(n, "object");
        if (!rules.selfAttributes.empty() && nodeType(obj) == "identifier" && f.text(obj) == "self")
            if (const auto it = rules.selfAttributes.find(f.text(fieldOf(n, "attribute")));
                it != rules.selfAttributes.end()) {
                out += it->second;
                return;
            }
        if (!rules.argsName.empty() && rules.flag && nodeType(obj) == "identifier" &&
            f.text(obj) == rules.argsName) {
            out += rules.flag(f.text(fieldOf(n, "attribute")));
            return;
        }
    }
    if (t == "call") {
        const TSNode moved = deviceMoveObject(f, n, rules);
        if (!ts_node_is_null(moved)) {
            renderInto(f, moved, rules, out, depth + 1);
            return;
        }
    }
    if (t == "keyword_argument") {
        // The keyword's name is not a variable.
        const TSNode name = fieldOf(n, "name");
        const TSNode value = fieldOf(n, "value");
        out += f.text(s, ts_node_end_byte(name));
        out += f.text(ts_node_end_byte(name), ts_node_start_byte(value));
        renderInto(f, value, rules, out, depth + 1);
        out += f.text(ts_node_end_byte(value), e);
        return;
    }
    const uint32_t count = ts_node_child_count(n);
    if (count == 0 || t == "string") {
        out += f.text(s, e);
        return;
    }
    if (t == "block") {
        renderBlock(f, n, rules, out, depth);
        return;
    }
    std::uint32_t at = s;
    for (uint32_t i = 0; i < count; ++i) {
        const TSNode c = ts_node_child(n, i);
        const std::uint32_t cs = ts_node_start_byte(c), ce = ts_node_end_byte(c);
        if (t == "argument_list" && placedOnADevice(f, c, rules)) {
            // Dropped with the comma after it; the last argument takes the one before it.
            out += f.text(at, cs);
            const TSNode next = ts_node_child(n, i + 1);
            if (i + 1 < count && nodeType(next) == ",") {
                at = ts_node_end_byte(next);
                ++i;
                const TSNode after = ts_node_child(n, i + 1);
                if (i + 1 < count && !ts_node_is_null(after))
                    at = ts_node_start_byte(after);
            } else {
                while (!out.empty() && (out.back() == ' ' || out.back() == '\n'))
                    out.pop_back();
                if (!out.empty() && out.back() == ',')
                    out.pop_back();
                at = ce;
            }
            continue;
        }
        out += f.text(at, cs);
        // The attribute name of `x.name` is not a variable either.
        if (t == "attribute" && ts_node_eq(c, fieldOf(n, "attribute")))
            out += f.text(cs, ce);
        else
            renderInto(f, c, rules, out, depth + 1);
        at = ce;
    }
    out += f.text(at, e);
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

bool isSelfAssignment(const std::string& text)
{
    const auto eq = text.find(" = ");
    if (eq == std::string::npos || text.find('\n') != std::string::npos)
        return false;
    auto trim = [](std::string s) {
        s.erase(std::remove_if(s.begin(), s.end(),
                               [](char c) { return c == ' ' || c == '(' || c == ')'; }),
                s.end());
        return s;
    };
    return trim(text.substr(0, eq)) == trim(text.substr(eq + 3));
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

std::string render(const SourceFile& file, TSNode node, const RenderRules& rules)
{
    std::string out;
    if (!ts_node_is_null(node))
        renderInto(file, node, rules, out, 0);
    return out;
}

std::string reindent(const std::string& text, int column, const std::string& indent)
{
    std::istringstream in(text);
    std::string line, out;
    bool first = true;
    while (std::getline(in, line)) {
        if (!first) {
            int drop = 0;
            while (drop < column && drop < static_cast<int>(line.size()) &&
                   (line[static_cast<std::size_t>(drop)] == ' ' ||
                    line[static_cast<std::size_t>(drop)] == '\t'))
                ++drop;
            line.erase(0, static_cast<std::size_t>(drop));
        }
        out += (line.empty() ? std::string() : indent) + line + "\n";
        first = false;
    }
    return out;
}

std::string renderStatements(const SourceFile& file, const std::vector<const Stmt*>& stmts,
                             const RenderRules& rules, const std::string& indent,
                             const std::vector<Stmt>* siblings)
{
    std::string out;
    for (const Stmt* s : stmts) {
        if (siblings) {
            // The comments right above the statement go with it.
            std::vector<const Stmt*> comments;
            for (const auto& sib : *siblings) {
                if (&sib == s)
                    break;
                if (sib.isComment() && sib.column == s->column)
                    comments.push_back(&sib);
                else
                    comments.clear();
            }
            for (const Stmt* c : comments)
                out += indent + file.text(c->start, c->end) + "\n";
        }
        std::string text = render(file, s->node, rules);
        if (isSelfAssignment(text))
            continue;
        if (siblings) {
            // A comment at the end of the statement's last line goes with it.
            const auto endRow = ts_node_end_point(s->node).row;
            for (std::size_t i = 0; i + 1 < siblings->size(); ++i)
                if (&(*siblings)[i] == s) {
                    const Stmt& next = (*siblings)[i + 1];
                    if (next.isComment() && ts_node_start_point(next.node).row == endRow)
                        text += file.text(s->end, next.end);
                    break;
                }
        }
        out += reindent(text, s->column, indent);
    }
    return out;
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
