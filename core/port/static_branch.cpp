#include "core/port/static_branch.h"

#include "core/port/syntax.h"

#include <cstdlib>
#include <cstring>

namespace portolan::port {

namespace {

// Also without a line continuation's backslash at either end.
std::string trimmedLine(std::string s)
{
    const auto b = s.find_first_not_of(" \t\n\\");
    const auto e = s.find_last_not_of(" \t\n\\");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Flags that say where the run goes: the device, the processes of a distributed run.
bool environmentalFlag(const std::string& dest)
{
    static const char* const words[] = {"gpu",  "cuda",       "distributed", "world_size",
                                        "rank", "multiproc",  "dist_",       "ngpu",
                                        "mps",  "local_rank", "device",      "accelerator"};
    for (const char* w : words)
        if (dest.find(w) != std::string::npos)
            return true;
    return false;
}

// One clause of an if chain: its condition (null for else) and its block.
struct Clause
{
    TSNode condition{};
    TSNode block{};
};

std::vector<Clause> clausesOf(TSNode ifNode)
{
    std::vector<Clause> out{{fieldOf(ifNode, "condition"), fieldOf(ifNode, "consequence")}};
    for (uint32_t i = 0; i < ts_node_named_child_count(ifNode); ++i) {
        const TSNode c = ts_node_named_child(ifNode, i);
        if (nodeType(c) == "elif_clause")
            out.push_back({fieldOf(c, "condition"), fieldOf(c, "consequence")});
        else if (nodeType(c) == "else_clause")
            out.push_back({TSNode{}, fieldOf(c, "body")});
    }
    return out;
}

// The statement `target = value` of an expression statement, or null nodes.
std::pair<TSNode, TSNode> assignmentOf(const Stmt& s)
{
    if (s.type != "expression_statement")
        return {};
    const TSNode a = ts_node_named_child(s.node, 0);
    if (nodeType(a) != "assignment" || ts_node_is_null(fieldOf(a, "right")))
        return {};
    return {fieldOf(a, "left"), fieldOf(a, "right")};
}

void eachStatement(const std::vector<Stmt>& v, const std::function<void(const Stmt&)>& f)
{
    for (const auto& s : v) {
        f(s);
        eachStatement(s.body, f);
        eachStatement(s.other, f);
    }
}

} // namespace

std::optional<bool> StaticBranches::Value::truth() const
{
    switch (kind) {
    case Kind::Unknown:
        return std::nullopt;
    case Kind::None:
        return false;
    case Kind::Bool:
    case Kind::Number:
        return number != 0;
    case Kind::String:
        return !text.empty();
    }
    return std::nullopt;
}

StaticBranches::StaticBranches(const PortPlan& plan, const SourceFile& src)
    : m_plan(plan), m_src(src)
{}

std::optional<std::vector<const Stmt*>> StaticBranches::taken(const Stmt& s) const
{
    if (s.type != "if_statement")
        return std::nullopt;
    Eval e;
    const auto clauses = clausesOf(s.node);
    std::optional<std::size_t> chosen;
    for (std::size_t i = 0; i < clauses.size() && !chosen; ++i) {
        if (ts_node_is_null(clauses[i].condition)) {
            chosen = i;
            break;
        }
        const auto t = evaluate(clauses[i].condition, s.start, e).truth();
        if (!t)
            return std::nullopt;
        if (*t)
            chosen = i;
    }
    if (!e.environmental)
        return std::nullopt;
    std::vector<const Stmt*> out;
    if (!chosen)
        return out;
    if (*chosen == 0) {
        for (const auto& b : s.body)
            out.push_back(&b);
        return out;
    }
    const TSNode block = clauses[*chosen].block;
    for (const auto& b : s.other)
        if (b.start >= ts_node_start_byte(block) && b.end <= ts_node_end_byte(block))
            out.push_back(&b);
    return out;
}

std::optional<std::string> StaticBranches::stringValue(TSNode n) const
{
    Eval e;
    const Value v = evaluate(n, ts_node_start_byte(n), e);
    if (v.kind != Value::Kind::String)
        return std::nullopt;
    return v.text;
}

std::optional<bool> StaticBranches::holds(TSNode condition) const
{
    Eval e;
    return evaluate(condition, ts_node_start_byte(condition), e).truth();
}

StaticBranches::Value StaticBranches::literal(const std::string& raw) const
{
    Value v;
    const std::string t = trimmedLine(raw);
    if (t == "None") {
        v.kind = Value::Kind::None;
    } else if (t == "True" || t == "False") {
        v.kind = Value::Kind::Bool;
        v.number = t == "True" ? 1 : 0;
    } else if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front()) {
        v.kind = Value::Kind::String;
        v.text = t.substr(1, t.size() - 2);
    } else if (!t.empty()) {
        char* end = nullptr;
        const double d = std::strtod(t.c_str(), &end);
        if (end && *end == '\0') {
            v.kind = Value::Kind::Number;
            v.number = d;
        }
    }
    return v;
}

// The run's devices and processes: no accelerator, no process group.
StaticBranches::Value StaticBranches::callValue(TSNode call, Eval& e) const
{
    const std::string fn = m_src.text(fieldOf(call, "function"));
    Value v;
    const auto is = [&](const char* suffix) {
        return fn.ends_with(suffix);
    };
    if (is("cuda.is_available") || is("mps.is_available") || is("is_initialized") ||
        is("xpu.is_available")) {
        e.environmental = true;
        v.kind = Value::Kind::Bool;
        return v;
    }
    if (is("cuda.device_count")) {
        e.environmental = true;
        v.kind = Value::Kind::Number;
        return v;
    }
    const TSNode args = fieldOf(call, "arguments");
    if ((fn == "int" || fn == "bool") && ts_node_named_child_count(args) == 1) {
        v = evaluate(ts_node_named_child(args, 0), ts_node_start_byte(call), e);
        if (v.kind == Value::Kind::Number || v.kind == Value::Kind::Bool) {
            v.number = fn == "int" ? static_cast<double>(static_cast<long long>(v.number))
                                   : (v.number != 0);
            v.kind = fn == "int" ? Value::Kind::Number : Value::Kind::Bool;
            return v;
        }
    }
    return Value{};
}

// Whether the if chains around a statement (inside its function) let it run.
std::optional<bool> StaticBranches::branchRuns(const Stmt& inner, Eval& e) const
{
    for (const Stmt* s : m_src.chainAt(inner.start, inner.end)) {
        if (s == &inner || s->type != "if_statement" || inner.start < s->start ||
            inner.end > s->end)
            continue;
        if (s->type == "function_definition")
            continue;
        for (const auto& c : clausesOf(s->node)) {
            const bool here = inner.start >= ts_node_start_byte(c.block) &&
                              inner.end <= ts_node_end_byte(c.block);
            if (ts_node_is_null(c.condition)) {
                if (!here)
                    return false;
                break;
            }
            const auto t = evaluate(c.condition, s->start, e).truth();
            if (!t)
                return std::nullopt;
            if (here && !*t)
                return false;
            if (here)
                break;
            if (*t)
                return false; // an earlier clause runs
        }
    }
    return true;
}

// `args.x`: assigned in the code before `at` in the same function (a derived value), else set
// by another function that runs first (`args.distributed = ...` in main()), else the flag's
// value on the original's command line or its default.
StaticBranches::Value StaticBranches::flagValue(const std::string& dest, std::uint32_t at,
                                                Eval& e) const
{
    const std::string target = m_plan.argsName + "." + dest;
    const auto functionOf = [&](std::uint32_t start, std::uint32_t end) {
        const Stmt* fn = nullptr;
        for (const Stmt* s : m_src.chainAt(start, end))
            if (s->type == "function_definition")
                fn = s;
        return fn;
    };
    const Stmt* here = functionOf(at, at + 1);
    const Stmt* sameFunction = nullptr;
    std::vector<const Stmt*> elsewhere;
    eachStatement(m_src.statements(), [&](const Stmt& s) {
        const auto [left, right] = assignmentOf(s);
        if (ts_node_is_null(left) || m_src.text(left) != target)
            return;
        if (functionOf(s.start, s.end) == here) {
            if (s.start < at)
                sameFunction = &s;
        } else {
            elsewhere.push_back(&s);
        }
    });
    const auto valueOf = [&](const Stmt& s) -> Value {
        const auto runs = branchRuns(s, e);
        if (!runs)
            return Value{};
        if (!*runs)
            return Value{Value::Kind::None, 0, "not-run"};
        e.environmental = true;
        return evaluate(assignmentOf(s).second, s.start, e);
    };
    if (sameFunction) {
        const Value v = valueOf(*sameFunction);
        if (v.text != "not-run" || v.kind != Value::Kind::None)
            return v;
    }
    const auto* f = m_plan.flag(dest);
    if (!f) {
        // A derived value the flags do not have: the one assignment that runs decides.
        std::optional<Value> found;
        for (const Stmt* s : elsewhere) {
            const Value v = valueOf(*s);
            if (v.kind == Value::Kind::None && v.text == "not-run")
                continue;
            if (found)
                return Value{};
            found = v;
        }
        return found ? *found : Value{};
    }
    if (environmentalFlag(dest))
        e.environmental = true;
    Value v;
    for (const auto& o : f->options) {
        const auto it = m_plan.commandLine.find(o);
        if (it == m_plan.commandLine.end())
            continue;
        if (f->action == "store_true" || f->action == "store_false") {
            v.kind = Value::Kind::Bool;
            v.number = f->action == "store_true" ? 1 : 0;
            return v;
        }
        v = literal(f->action == "store_const" ? f->constText : it->second);
        if (!v.known()) {
            v.kind = Value::Kind::String;
            v.text = it->second;
        }
        return v;
    }
    if (f->action == "store_true" || f->action == "store_false") {
        v.kind = Value::Kind::Bool;
        v.number = f->action == "store_false" ? 1 : 0;
        return v;
    }
    if (f->defaultText.empty()) {
        v.kind = Value::Kind::None;
        return v;
    }
    return literal(f->defaultText);
}

std::optional<StaticBranches::Rebound> StaticBranches::reboundFlag(const std::string& dest,
                                                                   std::uint32_t at) const
{
    if (m_plan.argsName.empty())
        return std::nullopt;
    const Stmt* fn = nullptr;
    for (const Stmt* s : m_src.chainAt(at, at + 1))
        if (s->type == "function_definition")
            fn = s;
    const std::vector<Stmt>& scope = fn ? fn->body : m_src.statements();
    const std::string target = m_plan.argsName + "." + dest;
    const Stmt* last = nullptr;
    for (const auto& s : scope) {
        if (s.start >= at)
            break;
        const auto [left, right] = assignmentOf(s);
        if (!ts_node_is_null(left) && !ts_node_is_null(right) && m_src.text(left) == target)
            last = &s;
    }
    if (!last)
        return std::nullopt;
    Eval e;
    return Rebound{last, evaluate(assignmentOf(*last).second, last->start, e)};
}

// A name read at `at`: the plain assignment before it in its function, else the parameter's
// value at every direct call of the function (`main_worker(args.gpu, ...)`).
StaticBranches::Value StaticBranches::parameterValue(const std::string& name, std::uint32_t at,
                                                     Eval& e) const
{
    const Stmt* fn = nullptr;
    for (const Stmt* s : m_src.chainAt(at, at + 1))
        if (s->type == "function_definition")
            fn = s;
    const std::vector<Stmt>& scope = fn ? fn->body : m_src.statements();
    const Stmt* last = nullptr;
    for (const auto& s : scope)
        if (s.start < at && s.defines.count(name))
            last = &s;
    if (last) {
        const auto [left, right] = assignmentOf(*last);
        if (ts_node_is_null(left) || m_src.text(left) != name)
            return Value{};
        return evaluate(right, last->start, e);
    }
    if (!fn)
        return Value{};
    const TSNode params = fieldOf(fn->node, "parameters");
    int position = -1;
    for (uint32_t i = 0; i < ts_node_named_child_count(params); ++i)
        if (m_src.text(ts_node_named_child(params, i)) == name)
            position = static_cast<int>(i);
    if (position < 0)
        return Value{};
    std::optional<Value> found;
    bool unknown = false;
    std::function<void(TSNode)> walk = [&](TSNode n) {
        if (nodeType(n) == "call" && m_src.text(fieldOf(n, "function")) == fn->name) {
            const TSNode args = fieldOf(n, "arguments");
            if (static_cast<uint32_t>(position) >= ts_node_named_child_count(args)) {
                unknown = true;
                return;
            }
            const TSNode arg = ts_node_named_child(args, static_cast<uint32_t>(position));
            const Value v = nodeType(arg) == "keyword_argument"
                                ? Value{}
                                : evaluate(arg, ts_node_start_byte(n), e);
            if (!v.known() || (found && (found->kind != v.kind || found->number != v.number ||
                                         found->text != v.text)))
                unknown = true;
            found = v;
        }
        for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
            walk(ts_node_named_child(n, i));
    };
    for (const auto& s : m_src.statements())
        walk(s.node);
    return unknown || !found ? Value{} : *found;
}

StaticBranches::Value StaticBranches::evaluate(TSNode n, std::uint32_t at, Eval& e) const
{
    if (ts_node_is_null(n) || e.depth > 16)
        return Value{};
    struct Depth
    {
        Eval& e;
        explicit Depth(Eval& x) : e(x) { ++e.depth; }
        ~Depth() { --e.depth; }
    } guard(e);
    const auto t = nodeType(n);
    if (t == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
        return evaluate(ts_node_named_child(n, 0), at, e);
    if (t == "not_operator") {
        const auto v = evaluate(fieldOf(n, "argument"), at, e).truth();
        return v ? Value{Value::Kind::Bool, *v ? 0.0 : 1.0, {}} : Value{};
    }
    if (t == "boolean_operator") {
        const bool isAnd = m_src.text(fieldOf(n, "operator")) == "and";
        const Value l = evaluate(fieldOf(n, "left"), at, e);
        const Value r = evaluate(fieldOf(n, "right"), at, e);
        const auto lt = l.truth();
        if (lt)
            return *lt == isAnd ? r : l;
        const auto rt = r.truth();
        if (rt && *rt != isAnd) // x and <false>, x or <true>: decided by the right side
            return Value{Value::Kind::Bool, isAnd ? 0.0 : 1.0, {}};
        return Value{};
    }
    if (t == "comparison_operator" && ts_node_named_child_count(n) == 2) {
        const TSNode a = ts_node_named_child(n, 0), b = ts_node_named_child(n, 1);
        const std::string op = trimmedLine(m_src.text(ts_node_end_byte(a), ts_node_start_byte(b)));
        const Value l = evaluate(a, at, e), r = evaluate(b, at, e);
        if (!l.known() || !r.known())
            return Value{};
        const bool numbers = l.kind != Value::Kind::String && l.kind != Value::Kind::None &&
                             r.kind != Value::Kind::String && r.kind != Value::Kind::None;
        bool same = l.kind == r.kind && l.number == r.number && l.text == r.text;
        if (numbers)
            same = l.number == r.number;
        std::optional<bool> out;
        if (op == "is" || op == "==")
            out = same;
        else if (op == "is not" || op == "!=")
            out = !same;
        else if (numbers && op == ">")
            out = l.number > r.number;
        else if (numbers && op == "<")
            out = l.number < r.number;
        else if (numbers && op == ">=")
            out = l.number >= r.number;
        else if (numbers && op == "<=")
            out = l.number <= r.number;
        return out ? Value{Value::Kind::Bool, *out ? 1.0 : 0.0, {}} : Value{};
    }
    if (t == "binary_operator") {
        const Value l = evaluate(fieldOf(n, "left"), at, e);
        const Value r = evaluate(fieldOf(n, "right"), at, e);
        const std::string op = m_src.text(fieldOf(n, "operator"));
        if (l.kind != Value::Kind::Number || r.kind != Value::Kind::Number)
            return Value{};
        Value v{Value::Kind::Number, 0, {}};
        if (op == "*")
            v.number = l.number * r.number;
        else if (op == "+")
            v.number = l.number + r.number;
        else if (op == "-")
            v.number = l.number - r.number;
        else
            return Value{};
        return v;
    }
    if (t == "true" || t == "false" || t == "none" || t == "integer" || t == "float" ||
        t == "string")
        return literal(m_src.text(n));
    if (t == "unary_operator") {
        Value v = evaluate(fieldOf(n, "argument"), at, e);
        if (v.kind == Value::Kind::Number && m_src.text(n).starts_with("-"))
            v.number = -v.number;
        return v;
    }
    if (t == "attribute" && !m_plan.argsName.empty() &&
        m_src.text(fieldOf(n, "object")) == m_plan.argsName)
        return flagValue(m_src.text(fieldOf(n, "attribute")), at, e);
    if (t == "call")
        return callValue(n, e);
    if (t == "identifier")
        return parameterValue(m_src.text(n), at, e);
    return Value{};
}

} // namespace portolan::port
