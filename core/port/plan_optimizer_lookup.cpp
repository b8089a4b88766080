// The optimizer class an original picks by name rather than writes: `getattr(optim,
// args.optim)(...)`, a table of classes indexed by a flag (`OPTIMIZERS[args.opt](...)`), or a
// function of the project that returns one for its parameter (`get_optimizer(cfg.optimizer)(...)`
// with `return {"adam": torch.optim.Adam}[name]`, or an `if name == "sgd": return optim.SGD`
// chain), in this file or imported. The class is the one the original's host run builds: the
// flags as given on the command line, else their defaults. A name that cannot be told without
// running (a call, an unknown condition) is not guessed.
#include "core/port/plan_internal.h"
#include "core/port/static_branch.h"

#include <algorithm>
#include <cctype>

namespace portolan::port::planning {

namespace {

using Strings = std::map<std::string, std::string>; // a function's parameters, bound to strings

class Lookup
{
public:
    Lookup(const analysis::ProjectAnalysis& a, const PortPlan& plan) : m_a(a), m_plan(plan) {}

    // The dotted name the class expression `n` of `file` evaluates to ("torch.optim.Adam"), ""
    // when it cannot be told.
    std::string classOf(int file, TSNode n, const Strings& bound, int depth) const
    {
        const SourceFile* s = source(file);
        if (!s || ts_node_is_null(n) || depth > 4)
            return {};
        const auto type = nodeType(n);
        if (type == "identifier" || type == "attribute")
            return dotted(file, s->text(n));
        if (type == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
            return classOf(file, ts_node_named_child(n, 0), bound, depth);
        if (type == "subscript")
            return entryOf(file, n, bound, depth);
        if (type != "call")
            return {};
        const TSNode fn = fieldOf(n, "function");
        const TSNode args = fieldOf(n, "arguments");
        if (s->text(fn) == "getattr") {
            if (ts_node_named_child_count(args) != 2 ||
                dotted(file, s->text(ts_node_named_child(args, 0))) != "torch.optim")
                return {};
            const auto name = string(file, ts_node_named_child(args, 1), bound);
            return name ? "torch.optim." + *name : std::string();
        }
        return returnedBy(file, n, bound, depth);
    }

private:
    const SourceFile* source(int file) const
    {
        if (file < 0 || static_cast<std::size_t>(file) >= m_a.python.size())
            return nullptr;
        const auto it = m_plan.sources.find(m_a.python[static_cast<std::size_t>(file)].path);
        return it == m_plan.sources.end() ? nullptr : it->second.get();
    }
    const PyIndex& index(int file) const
    {
        return m_a.python[static_cast<std::size_t>(file)].index;
    }

    // `optim.SGD` with `import torch.optim as optim`: "torch.optim.SGD".
    std::string dotted(int file, const std::string& text) const
    {
        const auto dot = text.find('.');
        const std::string head = text.substr(0, dot);
        for (const auto& imp : index(file).imports)
            if (imp.function == ModuleLevel && imp.boundName() == head)
                return imp.target() + (dot == std::string::npos ? "" : text.substr(dot));
        return text;
    }

    // The string `n` holds: a parameter bound to one, `name.lower()` of one, a literal, or a flag
    // (StaticBranches).
    std::optional<std::string> string(int file, TSNode n, const Strings& bound) const
    {
        const SourceFile& s = *source(file);
        if (nodeType(n) == "identifier")
            if (const auto it = bound.find(s.text(n)); it != bound.end())
                return it->second;
        if (nodeType(n) == "call" && ts_node_named_child_count(fieldOf(n, "arguments")) == 0 &&
            nodeType(fieldOf(n, "function")) == "attribute") {
            const TSNode fn = fieldOf(n, "function");
            const std::string method = s.text(fieldOf(fn, "attribute"));
            if (method == "lower" || method == "upper" || method == "strip") {
                auto v = string(file, fieldOf(fn, "object"), bound);
                if (v && method != "strip")
                    std::transform(v->begin(), v->end(), v->begin(), [&](unsigned char c) {
                        return static_cast<char>(method == "lower" ? std::tolower(c)
                                                                   : std::toupper(c));
                    });
                if (v && method == "strip")
                    *v = trimmed(*v);
                return v;
            }
        }
        return StaticBranches(m_plan, s).stringValue(n);
    }

    // `TABLE[key]` with TABLE a dict of classes written in the code, bound in the function
    // around it or at module level.
    std::string entryOf(int file, TSNode n, const Strings& bound, int depth) const
    {
        const SourceFile& s = *source(file);
        TSNode dict = fieldOf(n, "value");
        if (nodeType(dict) == "identifier")
            dict = boundDict(s, s.text(dict), ts_node_start_byte(n));
        const auto key = string(file, fieldOf(n, "subscript"), bound);
        if (nodeType(dict) != "dictionary" || !key)
            return {};
        for (uint32_t i = 0; i < ts_node_named_child_count(dict); ++i) {
            const TSNode pair = ts_node_named_child(dict, i);
            if (nodeType(pair) != "pair")
                continue;
            if (const auto k = string(file, fieldOf(pair, "key"), {}); k && *k == *key)
                return classOf(file, fieldOf(pair, "value"), bound, depth + 1);
        }
        return {};
    }

    // The dict literal `name` is bound to before byte `at`: in the function around `at` (its
    // own statements), else at module level.
    TSNode boundDict(const SourceFile& s, const std::string& name, std::uint32_t at) const
    {
        const auto dictIn = [&](const std::vector<Stmt>& body) {
            TSNode found{};
            for (const auto& st : body) {
                if (st.start >= at || st.type != "expression_statement" ||
                    ts_node_named_child_count(st.node) != 1)
                    continue;
                const TSNode as = ts_node_named_child(st.node, 0);
                if (nodeType(as) == "assignment" && s.text(fieldOf(as, "left")) == name)
                    found = fieldOf(as, "right");
            }
            return found;
        };
        const Stmt* function = nullptr;
        for (const Stmt* st : s.chainAt(at, at + 1))
            if (st->type == "function_definition")
                function = st;
        TSNode v = function ? dictIn(function->body) : TSNode{};
        return ts_node_is_null(v) ? dictIn(s.statements()) : v;
    }

    // What a call of a project function returns (`pick(cfg.optimizer)`): its body, with its
    // parameters bound to the strings the call gives them.
    std::string returnedBy(int file, TSNode call, const Strings& bound, int depth) const
    {
        const auto& calls = index(file).calls;
        const auto it = std::find_if(calls.begin(), calls.end(), [&](const Call& c) {
            return c.span.startByte == ts_node_start_byte(call) &&
                   c.span.endByte == ts_node_end_byte(call);
        });
        if (it == calls.end() || !m_a.resolver)
            return {};
        const auto sym = m_a.resolver->callee(file, static_cast<int>(it - calls.begin()));
        if (sym.kind != python::SymbolKind::Function || !sym.rest.empty() || sym.index < 0 ||
            static_cast<std::size_t>(sym.index) >= index(sym.file).functions.size())
            return {};
        const auto& def = index(sym.file).functions[static_cast<std::size_t>(sym.index)];
        const SourceFile* defSource = source(sym.file);
        if (!defSource || !def.className.empty())
            return {};
        Strings inner;
        std::size_t position = 0;
        for (const auto& arg : it->arguments) {
            std::string param;
            if (!arg.keyword.empty())
                param = arg.keyword;
            else if (position < def.parameters.size())
                param = def.parameters[position++].name;
            const TSNode value =
                source(file)->nodeAt(arg.valueSpan.startByte, arg.valueSpan.endByte);
            if (const auto v = string(file, value, bound); v && !param.empty())
                inner[param] = *v;
        }
        // A parameter the call leaves at a default written as a plain string (`name="adam"`).
        for (const auto& p : def.parameters) {
            const std::string& d = p.defaultText;
            if (!inner.count(p.name) && d.size() >= 2 && (d.front() == '"' || d.front() == '\'') &&
                d.back() == d.front() && d.find_first_of("{\\") == std::string::npos)
                inner[p.name] = d.substr(1, d.size() - 2);
        }
        const Stmt* body = nullptr;
        for (const Stmt* st : defSource->chainAt(def.span.startByte, def.span.endByte))
            if (st->type == "function_definition")
                body = st;
        return body ? returned(sym.file, fieldOf(body->node, "body"), inner, depth + 1)
                    : std::string();
    }

    // The class a block returns: its first return the run reaches, through the `if`s whose
    // conditions the bound strings decide.
    std::string returned(int file, TSNode block, Strings bound, int depth) const
    {
        const SourceFile& s = *source(file);
        for (uint32_t i = 0; i < ts_node_named_child_count(block); ++i) {
            const TSNode st = ts_node_named_child(block, i);
            const auto type = nodeType(st);
            if (type == "return_statement")
                return ts_node_named_child_count(st) == 1
                           ? classOf(file, ts_node_named_child(st, 0), bound, depth)
                           : std::string();
            if (type == "if_statement") {
                TSNode taken{};
                const auto holds = condition(file, fieldOf(st, "condition"), bound);
                if (!holds)
                    return {};
                if (*holds)
                    taken = fieldOf(st, "consequence");
                for (uint32_t k = 0; ts_node_is_null(taken) && k < ts_node_named_child_count(st);
                     ++k) {
                    const TSNode clause = ts_node_named_child(st, k);
                    if (nodeType(clause) == "else_clause") {
                        taken = fieldOf(clause, "body");
                    } else if (nodeType(clause) == "elif_clause") {
                        const auto h = condition(file, fieldOf(clause, "condition"), bound);
                        if (!h)
                            return {};
                        if (*h)
                            taken = fieldOf(clause, "consequence");
                    }
                }
                if (!ts_node_is_null(taken))
                    if (std::string q = returned(file, taken, bound, depth); !q.empty())
                        return q;
                continue;
            }
            // `name = name.lower()`: the parameter, normalised.
            if (type == "expression_statement" && ts_node_named_child_count(st) == 1) {
                const TSNode as = ts_node_named_child(st, 0);
                if (nodeType(as) == "assignment" && nodeType(fieldOf(as, "left")) == "identifier") {
                    const std::string left = s.text(fieldOf(as, "left"));
                    if (const auto v = string(file, fieldOf(as, "right"), bound))
                        bound[left] = *v;
                    else
                        bound.erase(left);
                }
            }
        }
        return {};
    }

    // `name == "sgd"`, `name != "adam"`, `name in ("adam", "adamw")`, with name bound to a
    // string; nullopt when the condition is not one of those.
    std::optional<bool> condition(int file, TSNode c, const Strings& bound) const
    {
        if (nodeType(c) != "comparison_operator" || ts_node_named_child_count(c) != 2)
            return std::nullopt;
        const SourceFile& s = *source(file);
        const TSNode left = ts_node_named_child(c, 0);
        const TSNode right = ts_node_named_child(c, 1);
        std::string op;
        for (uint32_t i = 0; i < ts_node_child_count(c); ++i)
            if (!ts_node_is_named(ts_node_child(c, i)))
                op += (op.empty() ? "" : " ") + s.text(ts_node_child(c, i));
        const auto a = string(file, left, bound);
        if (!a)
            return std::nullopt;
        if (op == "in" || op == "not in") {
            const auto t = nodeType(right);
            if (t != "tuple" && t != "list" && t != "set")
                return std::nullopt;
            bool found = false;
            for (uint32_t i = 0; i < ts_node_named_child_count(right); ++i) {
                const auto v = string(file, ts_node_named_child(right, i), bound);
                if (!v)
                    return std::nullopt;
                found = found || *v == *a;
            }
            return op == "in" ? found : !found;
        }
        const auto b = string(file, right, bound);
        if (!b || (op != "==" && op != "!="))
            return std::nullopt;
        return op == "==" ? *a == *b : *a != *b;
    }

    const analysis::ProjectAnalysis& m_a;
    const PortPlan& m_plan;
};

} // namespace

// The class the original's run builds ("torch.optim.Adam"), "" when the call does not pick its
// class by name or the name cannot be told without running.
std::string Planner::optimizerByName(const Call& c) const
{
    const TSNode call = src().nodeAt(c.span.startByte, c.span.endByte);
    if (nodeType(call) != "call")
        return {};
    const TSNode lookup = fieldOf(call, "function");
    if (nodeType(lookup) != "call" && nodeType(lookup) != "subscript")
        return {};
    const std::string q = Lookup(m_a, m_p).classOf(m_file, lookup, {}, 0);
    const std::string name = q.starts_with("torch.optim.") ? q.substr(12) : std::string();
    if (name.empty() || !std::isupper(static_cast<unsigned char>(name[0])) ||
        !std::all_of(name.begin(), name.end(),
                     [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)); }))
        return {};
    return q;
}

} // namespace portolan::port::planning
