// Following a text of the original to a number (see run_value_resolver.h).
#include "core/port/run_value_resolver.h"

#include "core/port/static_branch.h"
#include "core/port/syntax.h"

#include <cctype>
#include <functional>
#include <optional>
#include <yaml-cpp/yaml.h>

namespace portolan::port::detail {

namespace {

// The innermost function around byte `pos`, null at module level.
const Stmt* functionAround(const SourceFile& src, std::uint32_t pos)
{
    const auto chain = src.chainAt(pos, pos + 1);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        if ((*it)->type == "function_definition" || (*it)->type == "decorated_definition")
            return *it;
    return nullptr;
}

// The default of parameter `name` of the innermost function around byte `pos`, null when none.
TSNode parameterDefault(const SourceFile& src, const std::string& name, std::uint32_t pos,
                        std::string* function)
{
    const auto chain = src.chainAt(pos, pos + 1);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if ((*it)->type != "function_definition")
            continue;
        const TSNode params = fieldOf((*it)->node, "parameters");
        for (uint32_t i = 0; i < ts_node_named_child_count(params); ++i) {
            const TSNode p = ts_node_named_child(params, i);
            const std::string_view t = nodeType(p);
            if ((t == "default_parameter" || t == "typed_default_parameter") &&
                src.text(fieldOf(p, "name")) == name) {
                *function = (*it)->name;
                return fieldOf(p, "value");
            }
        }
        return TSNode{}; // the innermost function decides: an outer one's is another name
    }
    return TSNode{};
}

// The class a function is a method of, "" when it is not one.
std::string classAround(const SourceFile& src, const Stmt& def)
{
    const auto chain = src.chainAt(def.start, def.end);
    for (std::size_t i = chain.size(); i-- > 0;)
        if (chain[i] == &def)
            return i > 0 && chain[i - 1]->type == "class_definition" ? chain[i - 1]->name
                                                                     : std::string();
    return {};
}

// Is `receiver` an instance of class `owner`: `self` in its methods, or a name the file binds
// to `owner(...)` and nothing else, or the instance made in the call itself.
bool isInstanceOf(const SourceFile& src, const std::string& receiver, const std::string& owner,
                  std::uint32_t at)
{
    if (receiver.starts_with(owner + "(")) // made in the call itself: `Coach(net).fit(3)`
        return true;
    if (receiver == "self") {
        const Stmt* in = functionAround(src, at);
        return in && classAround(src, *in) == owner;
    }
    const auto bound = assignments(src, receiver);
    return !bound.empty() && std::all_of(bound.begin(), bound.end(), [&](const auto& a) {
        return nodeType(a.second) == "call" && src.text(fieldOf(a.second, "function")) == owner;
    });
}

// The value the calls of the function around byte `pos` give its parameter `name` (`rounds` of
// `def train(model, loader, rounds)` called as `train(net, data, args.rounds)`), with where the
// call is; nullopt when no call gives it, or two calls give it different values.
struct CallerValue
{
    std::string text;     // the argument as written
    std::uint32_t at = 0; // the call's first byte
    int line = 0;
};
std::optional<CallerValue> callerArgument(const SourceFile& src, const std::string& name,
                                          std::uint32_t pos)
{
    const Stmt* def = functionAround(src, pos);
    if (!def || def->type != "function_definition" || def->name.empty())
        return std::nullopt;
    const auto params = parameterNames(src, *def);
    auto index = std::find(params.begin(), params.end(), name) - params.begin();
    if (index == static_cast<std::ptrdiff_t>(params.size()))
        return std::nullopt;
    // A method (`def train(self, epochs)` of a trainer class) is called on `self` in its class
    // or on an instance bound in the file (`trainer = Trainer(...)`, `trainer.train(n)`); its
    // first parameter is the receiver, not an argument of the call.
    const std::string owner = classAround(src, *def);
    if (!owner.empty() && index-- == 0)
        return std::nullopt;
    std::optional<CallerValue> found;
    const std::string& text = src.text();
    const std::string called = def->name + "(";
    for (auto p = text.find(called); p != std::string::npos; p = text.find(called, p + 1)) {
        const char before = p > 0 ? text[p - 1] : ' ';
        if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' ||
            (p >= 4 && text.compare(p - 4, 4, "def ") == 0))
            continue; // another name or the definition
        TSNode call = src.nodeAt(static_cast<std::uint32_t>(p),
                                 static_cast<std::uint32_t>(p + def->name.size()));
        while (!ts_node_is_null(call) && nodeType(call) != "call")
            call = ts_node_parent(call);
        if (ts_node_is_null(call))
            return std::nullopt;
        const std::string function = src.text(fieldOf(call, "function"));
        if ((before == '.') != !owner.empty() ||
            (before == '.' && !isInstanceOf(src, function.substr(0, function.rfind('.')), owner,
                                            static_cast<std::uint32_t>(p))))
            continue; // a method of something else, or a function of the same name
        const auto given = callArguments(src, call, function);
        if (!given)
            return std::nullopt;
        std::string value;
        std::ptrdiff_t positional = 0;
        for (const auto& [keyword, argument] : *given)
            if (keyword == name || (keyword.empty() && positional++ == index))
                value = argument;
        if (value.empty())
            continue;
        if (found && found->text != value)
            return std::nullopt;
        found = CallerValue{value, ts_node_start_byte(call),
                            static_cast<int>(ts_node_start_point(call).row) + 1};
    }
    return found;
}

// Does a statement of the file change the dict bound to `name` in place (`name[k] = v`,
// `name["k"] += 1`, `name.update(...)`, `del name[k]`)? Its entries are then not what the
// literal says.
bool changedInPlace(const SourceFile& src, const std::string& name)
{
    bool changed = false;
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& stmts) {
        for (const auto& s : stmts) {
            const std::string t = src.text(s.start, s.end);
            const TSNode a =
                s.type == "expression_statement" ? ts_node_named_child(s.node, 0) : TSNode{};
            const auto at = ts_node_is_null(a) ? std::string_view() : nodeType(a);
            if (((at == "assignment" || at == "augmented_assignment") &&
                 src.text(fieldOf(a, "left")).starts_with(name + "[")) ||
                (s.type == "delete_statement" && t.find(name + "[") != std::string::npos))
                changed = true;
            for (const char* method : {".update(", ".setdefault(", ".pop(", ".clear("})
                if (s.type == "expression_statement" && t.find(name + method) == 0)
                    changed = true;
            walk(s.body);
            walk(s.other);
        }
    };
    walk(src.statements());
    return changed;
}

// The last assignment of `name` before byte `pos` in the function around `pos` or at module
// level, with its value; nullopt when there is none.
std::optional<std::pair<const Stmt*, TSNode>>
bindingBefore(const SourceFile& src, const std::string& name, std::uint32_t pos)
{
    const Stmt* here = functionAround(src, pos);
    std::optional<std::pair<const Stmt*, TSNode>> chosen;
    for (const auto& a : assignments(src, name)) {
        const Stmt* in = functionAround(src, a.first->start);
        if (a.first->start < pos && (!in || in == here))
            chosen = a;
    }
    return chosen;
}

// The dict literal (or `dict(...)` call) `name` holds where it is read at byte `pos`: its last
// assignment before the read in the same function or at module level, the argument the
// function's callers give the parameter, or the parameter's default. Null when it is none of
// these (built from a file, returned by a call).
TSNode dictOf(const SourceFile& src, const std::string& name, std::uint32_t pos, int depth)
{
    if (depth > 4 || changedInPlace(src, name))
        return TSNode{};
    const auto follow = [&](TSNode v, std::uint32_t at) {
        return isDictExpression(src, v)      ? v
               : nodeType(v) == "identifier" ? dictOf(src, src.text(v), at, depth + 1)
                                             : TSNode{};
    };
    const auto chosen = bindingBefore(src, name, pos);
    if (chosen)
        return follow(chosen->second, chosen->first->start);
    if (const auto given = callerArgument(src, name, pos)) {
        const auto p = src.text().find(given->text, given->at);
        if (p == std::string::npos)
            return TSNode{};
        TSNode v = src.nodeAt(static_cast<std::uint32_t>(p),
                              static_cast<std::uint32_t>(p + given->text.size()));
        while (!ts_node_is_null(v) && src.text(v) != given->text)
            v = ts_node_parent(v);
        return ts_node_is_null(v) ? v : follow(v, given->at);
    }
    std::string function;
    const TSNode d = parameterDefault(src, name, pos, &function);
    return ts_node_is_null(d) ? d : follow(d, ts_node_start_byte(d));
}

// The value a dict written in the code holds for `key`: the last entry that sets it, looking
// into the dicts it spreads (`{**base, "k": v}`, `dict(base, k=v)`). `known` is false when a
// part of it is not written in the code.
TSNode entryOf(const SourceFile& src, TSNode dict, const std::string& key, bool& known, int depth)
{
    if (ts_node_is_null(dict) || depth > 4) {
        known = false;
        return TSNode{};
    }
    const bool literal = nodeType(dict) == "dictionary";
    const TSNode parts = literal ? dict : fieldOf(dict, "arguments");
    for (uint32_t i = ts_node_named_child_count(parts); i-- > 0;) {
        const TSNode e = ts_node_named_child(parts, i);
        const auto t = nodeType(e);
        if (t == "pair") {
            const TSNode k = fieldOf(e, "key");
            const std::string written = src.text(k);
            if (nodeType(k) != "string") {
                known = false;
            } else if (written.size() >= 2 && written.substr(1, written.size() - 2) == key) {
                return fieldOf(e, "value");
            }
        } else if (t == "keyword_argument") {
            if (src.text(fieldOf(e, "name")) == key)
                return fieldOf(e, "value");
        } else if (t != "comment") {
            // `**base`, or dict(base): the dict it spreads
            const TSNode spread = t == "dictionary_splat" ? ts_node_named_child(e, 0) : e;
            const TSNode inner = nodeType(spread) == "identifier"
                                     ? dictOf(src, src.text(spread), ts_node_start_byte(e), 0)
                                     : spread;
            if (const TSNode v = entryOf(src, inner, key, known, depth + 1); !ts_node_is_null(v))
                return v;
        }
    }
    return TSNode{};
}

} // namespace

namespace {

// The file `open(...)` opens, relative to the project (`open("config.yaml")`, `open(args.cfg)`
// with the flag's value); "" when it cannot be told without running.
std::string openedFile(const PortPlan& plan, const SourceFile& src, TSNode open)
{
    if (nodeType(open) != "call" || src.text(fieldOf(open, "function")) != "open")
        return {};
    const TSNode args = fieldOf(open, "arguments");
    if (ts_node_named_child_count(args) == 0)
        return {};
    const auto path = StaticBranches(plan, src).stringValue(ts_node_named_child(args, 0));
    return path ? *path : std::string();
}

// `yaml.safe_load(f)` (load, full_load), f the file a `with open(...) as f:` around the call
// opens or `open(...)` itself: the file, "" when the value is not one.
std::string yamlLoaded(const PortPlan& plan, const SourceFile& src, TSNode value)
{
    if (nodeType(value) != "call")
        return {};
    const std::string fn = src.text(fieldOf(value, "function"));
    if (fn != "yaml.safe_load" && fn != "yaml.load" && fn != "yaml.full_load")
        return {};
    const TSNode args = fieldOf(value, "arguments");
    if (ts_node_named_child_count(args) == 0)
        return {};
    const TSNode stream = ts_node_named_child(args, 0);
    if (nodeType(stream) != "identifier")
        return openedFile(plan, src, stream);
    const std::string handle = src.text(stream);
    for (const Stmt* s : src.chainAt(ts_node_start_byte(value), ts_node_end_byte(value))) {
        if (s->type != "with_statement")
            continue;
        std::function<std::string(TSNode)> find = [&](TSNode n) -> std::string {
            if (nodeType(n) == "as_pattern" && src.text(fieldOf(n, "alias")) == handle &&
                ts_node_named_child_count(n) > 0)
                return openedFile(plan, src, ts_node_named_child(n, 0));
            for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
                if (nodeType(ts_node_named_child(n, i)) != "block")
                    if (std::string f = find(ts_node_named_child(n, i)); !f.empty())
                        return f;
            return {};
        };
        if (std::string f = find(s->node); !f.empty())
            return f;
    }
    return {};
}

// The YAML file of the project a dict `name` read at `pos` is loaded from, found as dictOf
// finds a dict written in the code (its binding in the function or at module level, or what the
// function's callers give it); "" when it is none.
std::string yamlDictFile(const PortPlan& plan, const SourceFile& src, const std::string& name,
                         std::uint32_t pos, int depth)
{
    if (depth > 4)
        return {};
    const auto chosen = bindingBefore(src, name, pos);
    if (chosen)
        return nodeType(chosen->second) == "identifier"
                   ? yamlDictFile(plan, src, src.text(chosen->second), chosen->first->start,
                                  depth + 1)
                   : yamlLoaded(plan, src, chosen->second);
    if (const auto given = callerArgument(src, name, pos);
        given &&
        given->text.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string::npos)
        return yamlDictFile(plan, src, given->text, given->at, depth + 1);
    return {};
}

// A YAML scalar as the Python literal yaml.safe_load reads it to: a number, a bool, None, or a
// string.
std::string pythonValue(const YAML::Node& n)
{
    const std::string t = n.Scalar();
    if (n.Tag() == "!" || t.empty())
        return "\"" + t + "\"";
    if (t == "true" || t == "True")
        return "True";
    if (t == "false" || t == "False")
        return "False";
    if (t == "null" || t == "~")
        return "None";
    char* end = nullptr;
    std::strtod(t.c_str(), &end);
    if (end && *end == '\0')
        return t;
    return "\"" + t + "\"";
}

} // namespace

std::optional<DictEntry> dictEntryOf(const SourceFile& src, const std::string& text,
                                     std::uint32_t pos, const PortPlan* plan)
{
    // d["key"] / d['key'] / d.get("key") / d.get("key", default)
    static const std::string word =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
    const auto end = text.find_first_not_of(word);
    if (end == 0 || end == std::string::npos)
        return std::nullopt;
    std::string rest = text.substr(end), fallback;
    if (rest.starts_with(".get(") && rest.ends_with(")")) {
        rest = rest.substr(5, rest.size() - 6);
        const auto comma = rest.find(',');
        if (comma != std::string::npos) {
            fallback = trimmed(rest.substr(comma + 1));
            rest = trimmed(rest.substr(0, comma));
        }
    } else if (rest.starts_with("[") && rest.ends_with("]")) {
        rest = trimmed(rest.substr(1, rest.size() - 2));
    } else {
        return std::nullopt;
    }
    if (rest.size() < 2 || (rest.front() != '"' && rest.front() != '\'') ||
        rest.back() != rest.front() || rest.find(rest.front(), 1) != rest.size() - 1)
        return std::nullopt;
    DictEntry e;
    e.key = rest.substr(1, rest.size() - 2);
    const TSNode dict = dictOf(src, text.substr(0, end), pos, 0);
    // A dict loaded from a YAML file of the project: the file's entry.
    if (ts_node_is_null(dict) && plan)
        if (const std::string file = yamlDictFile(*plan, src, text.substr(0, end), pos, 0);
            !file.empty()) {
            try {
                const YAML::Node root = YAML::LoadFile((plan->root / file).string());
                if (root.IsMap() && root[e.key] && root[e.key].IsScalar()) {
                    e.text = pythonValue(root[e.key]);
                    e.at = pos;
                    e.dict = file;
                }
            } catch (const YAML::Exception&) {
                // Not readable as YAML: the entry is not known, as for a dict built at run time.
            }
        }
    if (ts_node_is_null(dict))
        return e;
    e.dict = at(src, dict);
    bool known = true;
    const TSNode value = entryOf(src, dict, e.key, known, 0);
    if (!ts_node_is_null(value)) {
        e.text = src.text(value);
        e.at = ts_node_start_byte(value);
    } else if (known && !fallback.empty()) {
        e.text = fallback;
        e.at = pos;
        e.byDefault = true;
    }
    return e;
}

std::optional<RunValue> Resolver::dictEntry(const SourceFile& src, const std::string& text,
                                            std::uint32_t pos, int depth) const
{
    const auto e = dictEntryOf(src, text, pos, &m_plan);
    if (!e)
        return std::nullopt;
    if (e->text.empty())
        return RunValue{};
    RunValue inner = resolve(src, e->text, e->at, depth + 1);
    if (!inner.value.empty() && inner.from.empty())
        inner.from = "`" + text + "`, the entry \"" + e->key + "\" " +
                     (e->byDefault ? "missing from" : "of") + " the dict at " + e->dict;
    return inner;
}

bool isDictExpression(const SourceFile& src, TSNode value)
{
    return nodeType(value) == "dictionary" ||
           (nodeType(value) == "call" && src.text(fieldOf(value, "function")) == "dict");
}

bool isCount(const std::string& t)
{
    return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
}

std::string at(const SourceFile& src, TSNode n)
{
    return src.path() + ":" + std::to_string(ts_node_start_point(n).row + 1);
}

std::vector<std::pair<const Stmt*, TSNode>> assignments(const SourceFile& src,
                                                        const std::string& target)
{
    std::vector<std::pair<const Stmt*, TSNode>> found;
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& stmts) {
        for (const auto& s : stmts) {
            if (s.type == "expression_statement") {
                const TSNode a = ts_node_named_child(s.node, 0);
                if (nodeType(a) == "assignment" && src.text(fieldOf(a, "left")) == target &&
                    !ts_node_is_null(fieldOf(a, "right")))
                    found.emplace_back(&s, fieldOf(a, "right"));
            }
            walk(s.body);
            walk(s.other);
        }
    };
    walk(src.statements());
    return found;
}

bool rangeCount(const SourceFile& src, TSNode iter, std::string* from, std::string* to)
{
    TSNode call = iter;
    for (int i = 0; i < 2 && nodeType(call) == "call"; ++i) {
        const std::string f = src.text(fieldOf(call, "function"));
        const TSNode args = fieldOf(call, "arguments");
        std::vector<TSNode> positional;
        for (uint32_t k = 0; k < ts_node_named_child_count(args); ++k)
            if (nodeType(ts_node_named_child(args, k)) != "keyword_argument" &&
                nodeType(ts_node_named_child(args, k)) != "comment")
                positional.push_back(ts_node_named_child(args, k));
        if (f == "range" || f == "trange" || f.ends_with(".trange")) {
            if (positional.size() == 1) {
                *from = "0";
                *to = src.text(positional[0]);
                return true;
            }
            if (positional.size() == 2) {
                *from = src.text(positional[0]);
                *to = src.text(positional[1]);
                return true;
            }
            return false;
        }
        if (positional.empty())
            return false;
        call = positional[0];
    }
    return false;
}

RunValue Resolver::resolve(const SourceFile& src, std::string text, std::uint32_t pos,
                           int depth) const
{
    RunValue v;
    text = trimmed(text);
    if (depth > 4 || text.empty())
        return v;
    if (isCount(text)) {
        v.value = text;
        return v;
    }
    const std::string prefix = m_plan.argsName + ".";
    if (!m_plan.argsName.empty() && text.starts_with(prefix)) {
        const std::string dest = text.substr(prefix.size());
        const auto it = m_hp.find(dest);
        if (it != m_hp.end() && isCount(it->second.value)) {
            const auto* f = m_plan.flag(dest);
            v.value = it->second.value;
            v.flag = dest;
            v.from = "the flag " + (f && !f->options.empty() ? f->options.front() : dest);
        }
        return v;
    }
    static const std::string word =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
    if (auto entry = dictEntry(src, text, pos, depth))
        return *entry;
    const bool attribute =
        text.starts_with("self.") && text.substr(5).find_first_not_of(word) == std::string::npos;
    if (!attribute && text.find_first_not_of(word) != std::string::npos)
        return v;
    // The last assignment before the read in its own function or at module level (a name
    // of another function is another variable), else (an attribute, set in another
    // method) the first one in the file.
    const auto all = assignments(src, text);
    const Stmt* here = functionAround(src, pos);
    const std::pair<const Stmt*, TSNode>* chosen = nullptr;
    for (const auto& a : all) {
        const Stmt* in = functionAround(src, a.first->start);
        if (a.first->start < pos && (attribute || !in || in == here))
            chosen = &a;
    }
    if (!chosen && attribute && !all.empty())
        chosen = &all.front();
    if (chosen) {
        RunValue inner = resolve(src, src.text(chosen->second), chosen->first->start, depth + 1);
        if (!inner.value.empty() && inner.from.empty())
            inner.from = "`" + trimmed(src.text(chosen->first->start, chosen->first->end)) + "` (" +
                         at(src, chosen->first->node) + ")";
        return inner;
    }
    if (attribute)
        return v;
    std::string function;
    const TSNode d = parameterDefault(src, text, pos, &function);
    // A trainer class's constructor parameter that the instantiation gives a value, or a
    // parameter of the loop's function that its launch does.
    if (const std::string given = constructorValueText(m_plan, text, pos);
        !given.empty() && (ts_node_is_null(d) || src.text(d) != given)) {
        RunValue inner = resolve(src, given, pos, depth + 1);
        const bool launched = !launchValue(m_plan, text, pos).empty();
        if (!inner.value.empty() && inner.from.empty())
            inner.from = "`" + given + "`, the " + (launched ? "launch" : "instantiation") +
                         "'s argument for `" + text + "`";
        return inner;
    }
    // What the function's callers give the parameter.
    if (const auto given = callerArgument(src, text, pos)) {
        RunValue inner = resolve(src, given->text, given->at, depth + 1);
        if (!inner.value.empty() && inner.from.empty())
            inner.from = "`" + given->text + "`, given for `" + text + "` by the call at " +
                         src.path() + ":" + std::to_string(given->line);
        if (!inner.value.empty())
            return inner;
    }
    if (ts_node_is_null(d))
        return v;
    RunValue inner = resolve(src, src.text(d), ts_node_start_byte(d), depth + 1);
    if (!inner.value.empty() && inner.from.empty())
        inner.from = "the default `" + text + "=" + src.text(d) + "` of " + function + "() (" +
                     at(src, d) + ")";
    return inner;
}

EpochLoop Resolver::epochLoop() const
{
    EpochLoop e;
    const LoopPlan& lp = *m_plan.loop;
    const SourceFile* src = m_plan.source(lp.loop.file);
    if (!src)
        return e;
    if (aroundLoop(*src, lp.loop.start, lp.loop.end, e))
        return e;
    // The function holding the batch loop, called from a loop (once or twice removed).
    std::string function = lp.function;
    for (int level = 0; level < 2 && !function.empty(); ++level) {
        function = function.substr(function.rfind('.') + 1);
        std::string caller;
        for (const auto& [path, file] : m_plan.sources)
            if (callInLoop(*file, function, e, &caller))
                return e;
        function = caller;
    }
    return e;
}

bool Resolver::aroundLoop(const SourceFile& src, std::uint32_t start, std::uint32_t end,
                          EpochLoop& e) const
{
    const auto chain = src.chainAt(start, end);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const Stmt* s = *it;
        if (s->start == start && s->end == end)
            continue; // the batch loop itself
        if (s->type == "function_definition" || s->type == "class_definition")
            return false;
        if (s->type == "for_statement" || s->type == "while_statement") {
            e.src = &src;
            e.loop = s->type == "for_statement" ? s : nullptr;
            e.statement = s;
            e.found = true;
            return true;
        }
    }
    return false;
}

// A call of `function` (`f(...)`, `x.f(...)`) in `src` inside a loop; else, through
// `caller`, the function holding a call of it (to look one level further up).
bool Resolver::callInLoop(const SourceFile& src, const std::string& function, EpochLoop& e,
                          std::string* caller) const
{
    const std::string& text = src.text();
    for (std::size_t p = text.find(function + "("); p != std::string::npos;
         p = text.find(function + "(", p + 1)) {
        if (p > 0 && (std::isalnum(static_cast<unsigned char>(text[p - 1])) || text[p - 1] == '_'))
            continue;
        const auto start = static_cast<std::uint32_t>(p);
        const auto chain = src.chainAt(start, start + 1);
        if (chain.empty() ||
            (chain.back()->type == "function_definition" && chain.back()->name == function))
            continue; // the definition itself
        if (aroundLoop(src, start, start + 1, e))
            return true;
        for (auto it = chain.rbegin(); it != chain.rend(); ++it)
            if ((*it)->type == "function_definition") {
                if (caller->empty())
                    *caller = (*it)->name;
                break;
            }
    }
    return false;
}

} // namespace portolan::port::detail
