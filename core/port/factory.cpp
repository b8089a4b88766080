// Factories of the script taken apart for the targets: see factory.h.
#include "core/port/factory.h"

#include "core/port/cerebras_schedule.h"
#include "core/port/run_value_resolver.h"
#include "core/port/syntax.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

namespace portolan::port::detail {

namespace {

// parameter -> the argument node a call gives it; nullopt when the call splats its arguments.
std::optional<std::map<std::string, TSNode>> argumentsOf(const SourceFile& src, TSNode call,
                                                         const std::vector<std::string>& params)
{
    std::map<std::string, TSNode> out;
    const TSNode args = fieldOf(call, "arguments");
    std::size_t positional = 0;
    for (std::uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); ++i) {
        const TSNode a = ts_node_named_child(args, i);
        const auto t = nodeType(a);
        if (t == "list_splat" || t == "dictionary_splat" || t == "comment")
            return t == "comment" ? std::optional(out) : std::nullopt;
        if (t == "keyword_argument")
            out[src.text(fieldOf(a, "name"))] = fieldOf(a, "value");
        else if (positional < params.size())
            out[params[positional++]] = a;
    }
    return out;
}

// The function definition at the module level of `src` that holds `at`, nullptr when none.
const Stmt* topFunctionAt(const SourceFile& src, std::uint32_t at)
{
    const auto chain = src.chainAt(at, at + 1);
    if (chain.empty() || chain.front()->type != "function_definition")
        return nullptr;
    return chain.front();
}

bool hasReturnInside(const std::vector<Stmt>& body)
{
    for (const auto& s : body)
        if (s.type == "return_statement" || s.type == "function_definition" ||
            s.type == "class_definition" || hasReturnInside(s.body) || hasReturnInside(s.other))
            return true;
    return false;
}

std::string joined(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "`" : ", `") + n + "`";
    return out;
}

// What one statement that unpacks a factory's tuple needs of it: the factory, its statements for
// the targets `wanted` reads, their renames (parameters -> the call's arguments) and the targets'
// bindings. Empty `kept` and `bind` when the statement is not such a use.
struct FactoryUse
{
    const Stmt* factory = nullptr;
    std::vector<const Stmt*> kept;
    std::map<std::string, std::string> rename;
    std::vector<std::pair<std::string, TSNode>> bind; // target -> the returned element
    std::vector<std::string> targets, wanted;
};

std::optional<FactoryUse> factoryUse(const SourceFile& src, const Stmt& s,
                                     const std::set<std::string>& reads, const RenderRules& rules)
{
    if (s.type != "expression_statement" || ts_node_named_child_count(s.node) != 1)
        return std::nullopt;
    const TSNode assign = ts_node_named_child(s.node, 0);
    if (nodeType(assign) != "assignment")
        return std::nullopt;
    const TSNode left = fieldOf(assign, "left"), right = fieldOf(assign, "right");
    if (nodeType(right) != "call" || nodeType(fieldOf(right, "function")) != "identifier")
        return std::nullopt;
    FactoryUse u;
    u.targets = targetNames(src, left);
    u.factory = src.topDefinition(src.text(fieldOf(right, "function")));
    if (u.targets.size() < 2 || !u.factory || u.factory->type != "function_definition" ||
        u.factory->body.empty())
        return std::nullopt;
    // One return, the last statement, of a tuple as long as the targets.
    const auto& body = u.factory->body;
    const Stmt& ret = body.back();
    if (ret.type != "return_statement" ||
        hasReturnInside(std::vector<Stmt>(body.begin(), body.end() - 1)) ||
        ts_node_named_child_count(ret.node) != 1)
        return std::nullopt;
    TSNode tuple = ts_node_named_child(ret.node, 0);
    if (nodeType(tuple) == "parenthesized_expression" && ts_node_named_child_count(tuple) == 1)
        tuple = ts_node_named_child(tuple, 0);
    if ((nodeType(tuple) != "expression_list" && nodeType(tuple) != "tuple") ||
        ts_node_named_child_count(tuple) != u.targets.size())
        return std::nullopt;
    std::set<std::string> want;
    for (std::size_t i = 0; i < u.targets.size(); ++i)
        if (reads.count(u.targets[i])) {
            const TSNode element = ts_node_named_child(tuple, static_cast<std::uint32_t>(i));
            u.wanted.push_back(u.targets[i]);
            u.bind.emplace_back(u.targets[i], element);
            for (const auto& n : usedNames(src, element))
                want.insert(n);
        }
    if (u.wanted.empty() || u.wanted.size() == u.targets.size())
        return std::nullopt; // all of it, or none: the statement as written
    // The factory's statements the wanted elements need, in order.
    std::set<std::string> bound;
    for (std::size_t i = body.size() - 1; i-- > 0;) {
        const Stmt& b = body[i];
        if (b.isComment())
            continue;
        const bool defines = std::any_of(b.defines.begin(), b.defines.end(),
                                         [&](const auto& d) { return want.count(d) > 0; });
        const bool fills =
            b.defines.empty() && std::any_of(b.uses.begin(), b.uses.end(),
                                             [&](const auto& n) { return want.count(n) > 0; });
        if (!defines && !fills)
            continue;
        u.kept.insert(u.kept.begin(), &b);
        bound.insert(b.defines.begin(), b.defines.end());
        want.insert(b.uses.begin(), b.uses.end());
    }
    // A local of the factory that the caller's code reads under the same name would be clobbered.
    for (const auto& d : bound)
        if (reads.count(d) && std::find(u.wanted.begin(), u.wanted.end(), d) == u.wanted.end() &&
            std::none_of(u.bind.begin(), u.bind.end(),
                         [&](const auto& b) { return src.text(b.second) == d; }))
            return std::nullopt;
    // The parameters the kept statements read are the call's arguments (a default the call
    // leaves: the statement as written).
    const auto params = parameterNames(src, *u.factory);
    const auto args = argumentsOf(src, right, params);
    if (!args)
        return std::nullopt;
    for (const auto& p : params) {
        if (p.empty() || !want.count(p) || bound.count(p))
            continue;
        const auto it = args->find(p);
        if (it == args->end())
            return std::nullopt;
        std::string text = render(src, it->second, rules);
        if (nodeType(it->second) != "identifier" && nodeType(it->second) != "attribute" &&
            nodeType(it->second) != "integer" && nodeType(it->second) != "float")
            text = "(" + text + ")";
        if (text != p)
            u.rename[p] = text;
    }
    return u;
}

} // namespace

std::vector<TSNode> callsOf(const SourceFile& src, const std::string& function)
{
    std::vector<TSNode> out, stack{src.nodeAt(0, static_cast<std::uint32_t>(src.text().size()))};
    while (!stack.empty()) {
        const TSNode n = stack.back();
        stack.pop_back();
        if (nodeType(n) == "call") {
            const TSNode f = fieldOf(n, "function");
            if (function.empty() || (nodeType(f) == "identifier" && src.text(f) == function))
                out.push_back(n);
        }
        for (std::uint32_t i = ts_node_named_child_count(n); i-- > 0;)
            stack.push_back(ts_node_named_child(n, i));
    }
    return out;
}

namespace {

// Every call node of the file that calls a method named `method` on some receiver.
std::vector<TSNode> methodCallsOf(const SourceFile& src, const std::string& method)
{
    std::vector<TSNode> out;
    for (const TSNode call : callsOf(src, ""))
        if (const TSNode f = fieldOf(call, "function");
            nodeType(f) == "attribute" && src.text(fieldOf(f, "attribute")) == method)
            out.push_back(call);
    return out;
}

} // namespace

std::string argumentPassed(const SourceFile& src, const std::string& name, std::uint32_t at)
{
    const Stmt* def = topFunctionAt(src, at);
    // A method of a class at module level (`def configure_optimizers(self, rate)`), called on
    // its instances (`net.configure_optimizers(0.01)`): the receiver is not an argument.
    const auto chain = src.chainAt(at, at + 1);
    const bool method = !def && chain.size() > 1 && chain[0]->type == "class_definition" &&
                        chain[1]->type == "function_definition";
    if (method)
        def = chain[1];
    if (!def)
        return {};
    auto params = parameterNames(src, *def);
    if (method && !params.empty())
        params.erase(params.begin());
    if (std::find(params.begin(), params.end(), name) == params.end())
        return {};
    std::string passed;
    for (const TSNode call : method ? methodCallsOf(src, def->name) : callsOf(src, def->name)) {
        const auto args = argumentsOf(src, call, params);
        if (!args || !args->count(name))
            return {};
        const std::string text = src.text(args->at(name));
        if (!passed.empty() && text != passed)
            return {};
        passed = text;
    }
    return passed;
}

std::string spreadEntry(const SourceFile& src, const std::string& text, std::uint32_t at)
{
    const Stmt* def = topFunctionAt(src, at);
    const auto open = text.find('[');
    if (!def || open == std::string::npos || !text.ends_with("]"))
        return {};
    const std::string kw = keywordsParameter(src, *def);
    if (kw.empty() || text.substr(0, open) != kw)
        return {};
    std::string spread, value;
    for (const TSNode call : callsOf(src, def->name)) {
        const TSNode args = fieldOf(call, "arguments");
        std::string here;
        for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
            const TSNode a = ts_node_named_child(args, i);
            if (nodeType(a) == "dictionary_splat" && ts_node_named_child_count(a) == 1)
                here = src.text(ts_node_named_child(a, 0));
        }
        if (here.empty() || (!spread.empty() && here != spread))
            return {};
        spread = here;
        // The dict as it is where the call is (bound in the caller, after the function).
        const auto entry = dictEntryOf(src, spread + text.substr(open), ts_node_start_byte(call));
        if (!entry || entry->text.empty() || (!value.empty() && entry->text != value))
            return {};
        value = entry->text;
    }
    return value;
}

namespace {

// The fields of a class of the script that holds its settings, in order, each with its default
// as written ("" when none): a dataclass's annotated or assigned names in its body, else the
// parameters of its constructor that it stores under the same name (`self.rate = rate`).
std::vector<std::pair<std::string, std::string>> settingsFields(const SourceFile& src,
                                                                const Stmt& cls)
{
    std::vector<std::pair<std::string, std::string>> fields;
    const Stmt* init = nullptr;
    for (const auto& s : cls.body) {
        if (s.type == "function_definition" && s.name == "__init__")
            init = &s;
        if (s.type != "expression_statement")
            continue;
        const TSNode a = ts_node_named_child(s.node, 0);
        if (nodeType(a) != "assignment" || nodeType(fieldOf(a, "left")) != "identifier")
            continue;
        fields.emplace_back(src.text(fieldOf(a, "left")), src.text(fieldOf(a, "right")));
    }
    if (!init)
        return fields;
    fields.clear();
    const TSNode node = init->node;
    const TSNode params = fieldOf(node, "parameters");
    for (std::uint32_t i = 1; !ts_node_is_null(params) && i < ts_node_named_child_count(params);
         ++i) {
        const TSNode p = ts_node_named_child(params, i);
        const auto t = nodeType(p);
        if (t == "identifier")
            fields.emplace_back(src.text(p), "");
        else if (t == "default_parameter" || t == "typed_default_parameter")
            fields.emplace_back(src.text(fieldOf(p, "name")), src.text(fieldOf(p, "value")));
        else if (t == "typed_parameter" && ts_node_named_child_count(p) > 0)
            fields.emplace_back(src.text(ts_node_named_child(p, 0)), "");
        else
            break; // *args, **kwargs: the rest is not known by position
    }
    const std::string text = src.text(init->start, init->end);
    std::erase_if(fields, [&](const auto& f) {
        return text.find("self." + f.first + " = " + f.first) == std::string::npos;
    });
    return fields;
}

} // namespace

std::string settingValue(const SourceFile& src, const std::string& text, std::uint32_t at)
{
    const auto dot = text.find('.');
    static const std::string word =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
    if (dot == std::string::npos || text.find_first_not_of(word, dot + 1) != std::string::npos ||
        text.substr(0, dot).find_first_not_of(word) != std::string::npos)
        return {};
    std::string object = text.substr(0, dot);
    const std::string field = text.substr(dot + 1);
    std::uint32_t before = at;
    // A parameter of the factory (`def configure_optimizers(self, settings)`): the object every
    // call hands it, bound where the calls are (after the factory's definition).
    if (const std::string passed = argumentPassed(src, object, at); !passed.empty()) {
        if (passed.find_first_not_of(word) != std::string::npos)
            return {};
        object = passed;
        before = std::uint32_t(src.text().size());
    }
    const TSNode value = assignedValue(src, object, before);
    if (nodeType(value) != "call")
        return {};
    // `@dataclass class Settings`: the decorated statement, whose body is the class's.
    const Stmt* cls = src.topDefinition(src.text(fieldOf(value, "function")));
    const TSNode definition =
        cls && cls->type == "decorated_definition" ? fieldOf(cls->node, "definition") : TSNode{};
    if (!cls || (cls->type != "class_definition" && nodeType(definition) != "class_definition"))
        return {};
    const auto fields = settingsFields(src, *cls);
    std::vector<std::string> names;
    for (const auto& f : fields)
        names.push_back(f.first);
    const auto given = argumentsOf(src, value, names);
    if (!given)
        return {};
    if (const auto it = given->find(field); it != given->end())
        return src.text(it->second);
    for (const auto& [name, fallback] : fields)
        if (name == field)
            return fallback;
    return {};
}

void dropFactoryOptimizers(const PortPlan& plan, const Slicer& slicer, const std::string& builtBy,
                           RenderRules& rules)
{
    const SourceFile& src = slicer.source();
    for (const auto& o : plan.optimizers) {
        if (o.synthesized || !o.construction.valid() || o.construction.file != plan.entry)
            continue;
        const auto chain = src.chainAt(o.construction.start, o.construction.end);
        // A method that builds and returns it (`model.configure_optimizers()`) goes with the
        // class the port carries whole; a function, with the definitions the port carries.
        const Stmt* def = o.madeBy.valid() ? nullptr : topFunctionAt(src, o.construction.start);
        for (const Stmt* s : chain)
            if (o.madeBy.valid() && s->type == "function_definition")
                def = s;
        // The loop's own function builds it where the target's structure takes it apart.
        if (!def || def == slicer.loopFunction() ||
            (plan.loop && def->start <= plan.loop->loop.start && plan.loop->loop.end <= def->end))
            continue;
        const Stmt* st = nullptr;
        bool returned = false;
        for (const Stmt* s : chain)
            if (s->start > def->start &&
                (s->defines.size() == 1 || s->type == "return_statement")) {
                st = s;
                returned = s->type == "return_statement";
            }
        if (!st)
            continue;
        rules.replace[{st->start, st->end}] =
            (returned ? std::string("return") : *st->defines.begin() + " =") + " None  # " +
            builtBy +
            " (the original's: " + oneLine(src.text(o.construction.start, o.construction.end)) +
            ")";
    }
}

std::string renderTrimmingFactories(const Slicer& slicer, const std::vector<const Stmt*>& local,
                                    const std::set<std::string>& reads,
                                    std::vector<const Stmt*>& module, const RenderRules& rules,
                                    const std::string& indent)
{
    const SourceFile& src = slicer.source();
    std::string out;
    std::set<const Stmt*> trimmed;
    std::set<std::string> stillRead;
    for (std::size_t i = 0; i < local.size(); ++i) {
        std::set<std::string> later = reads;
        const auto more =
            slicer.freeNames(std::vector<const Stmt*>(local.begin() + i + 1, local.end()));
        later.insert(more.begin(), more.end());
        const auto use = factoryUse(src, *local[i], later, rules);
        if (!use) {
            out += renderLocal(slicer, {local[i]}, rules, indent);
            stillRead.insert(local[i]->uses.begin(), local[i]->uses.end());
            continue;
        }
        trimmed.insert(use->factory);
        out += indent + "# " + use->factory->name + "() builds " + joined(use->targets) + " (" +
               src.path() + ":" + std::to_string(local[i]->line) + "); the data needs only " +
               joined(use->wanted) + ": the factory's statements for " +
               (use->wanted.size() == 1 ? "it" : "them") + "\n";
        RenderRules inner = rules;
        for (const auto& [p, a] : use->rename)
            inner.rename[p] = a;
        out += renderStatements(src, use->kept, inner, indent, &use->factory->body);
        for (const auto& [target, element] : use->bind)
            if (const std::string value = render(src, element, inner); value != target)
                out += indent + target + " = " + value + "\n";
        for (const Stmt* k : use->kept)
            stillRead.insert(k->uses.begin(), k->uses.end());
    }
    // A factory that the kept code no longer calls is not carried for it.
    for (const Stmt* m : module)
        if (!trimmed.count(m))
            stillRead.insert(m->uses.begin(), m->uses.end());
    std::erase_if(module,
                  [&](const Stmt* m) { return trimmed.count(m) > 0 && !stillRead.count(m->name); });
    return out;
}

} // namespace portolan::port::detail
