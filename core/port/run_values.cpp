// The batch size, epochs and steps of the original's run, for every target's configuration
// (see run_values.h). Each is followed from the text the original uses to a number: a flag, a
// literal, a name assigned a value, `self.x` set from one, a parameter's default.
#include "core/port/run_values.h"

#include "core/port/cerebras_schedule.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <set>

namespace portolan::port::detail {

namespace {

std::string typeOf(TSNode n)
{
    return ts_node_is_null(n) ? std::string() : std::string(ts_node_type(n));
}

TSNode field(TSNode n, const char* name)
{
    return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::strlen(name)));
}

std::string trim(std::string t)
{
    t.erase(0, t.find_first_not_of(" \n\t"));
    t.erase(t.find_last_not_of(" \n\t") + 1);
    return t;
}

bool isCount(const std::string& t)
{
    return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
}

std::string at(const SourceFile& src, TSNode n)
{
    return src.path() + ":" + std::to_string(ts_node_start_point(n).row + 1);
}

// The statements of a file that assign `target` (`x = ...`, `self.x = ...`), in source order,
// with the value each assigns.
std::vector<std::pair<const Stmt*, TSNode>> assignments(const SourceFile& src,
                                                        const std::string& target)
{
    std::vector<std::pair<const Stmt*, TSNode>> found;
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& stmts) {
        for (const auto& s : stmts) {
            if (s.type == "expression_statement") {
                const TSNode a = ts_node_named_child(s.node, 0);
                if (typeOf(a) == "assignment" && src.text(field(a, "left")) == target &&
                    !ts_node_is_null(field(a, "right")))
                    found.emplace_back(&s, field(a, "right"));
            }
            walk(s.body);
            walk(s.other);
        }
    };
    walk(src.statements());
    return found;
}

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
        const TSNode params = field((*it)->node, "parameters");
        for (uint32_t i = 0; i < ts_node_named_child_count(params); ++i) {
            const TSNode p = ts_node_named_child(params, i);
            const std::string t = typeOf(p);
            if ((t == "default_parameter" || t == "typed_default_parameter") &&
                src.text(field(p, "name")) == name) {
                *function = (*it)->name;
                return field(p, "value");
            }
        }
        return TSNode{}; // the innermost function decides: an outer one's is another name
    }
    return TSNode{};
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
    const auto index = std::find(params.begin(), params.end(), name) - params.begin();
    if (index == static_cast<std::ptrdiff_t>(params.size()))
        return std::nullopt;
    std::optional<CallerValue> found;
    const std::string& text = src.text();
    const std::string called = def->name + "(";
    for (auto p = text.find(called); p != std::string::npos; p = text.find(called, p + 1)) {
        const char before = p > 0 ? text[p - 1] : ' ';
        if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '.' ||
            (p >= 4 && text.compare(p - 4, 4, "def ") == 0))
            continue; // another name, a method of something else, or the definition
        TSNode call = src.nodeAt(static_cast<std::uint32_t>(p),
                                 static_cast<std::uint32_t>(p + def->name.size()));
        while (!ts_node_is_null(call) && typeOf(call) != "call")
            call = ts_node_parent(call);
        const auto given =
            ts_node_is_null(call) ? std::nullopt : callArguments(src, call, def->name);
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

class Resolver
{
public:
    Resolver(const PortPlan& plan, const std::map<std::string, Hyper>& hp) : m_plan(plan), m_hp(hp)
    {}

    // The value of `text` as read at byte `pos` of `src`.
    RunValue resolve(const SourceFile& src, std::string text, std::uint32_t pos,
                     int depth = 0) const
    {
        RunValue v;
        text = trim(text);
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
        const bool attribute = text.starts_with("self.") &&
                               text.substr(5).find_first_not_of(word) == std::string::npos;
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
            RunValue inner =
                resolve(src, src.text(chosen->second), chosen->first->start, depth + 1);
            if (!inner.value.empty() && inner.from.empty())
                inner.from = "`" + trim(src.text(chosen->first->start, chosen->first->end)) +
                             "` (" + at(src, chosen->first->node) + ")";
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

    // The `for` around the batch loop (or around a call of the function that holds it) whose
    // count is the epochs; null when the batch loop has no loop around it.
    struct EpochLoop
    {
        const SourceFile* src = nullptr;
        const Stmt* loop = nullptr;
        const Stmt* statement = nullptr; // the `for` or `while` itself
        bool found = false; // a loop is around it (loop null: not a `for`, its count unknown)
    };
    EpochLoop epochLoop() const
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

private:
    bool aroundLoop(const SourceFile& src, std::uint32_t start, std::uint32_t end,
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
    bool callInLoop(const SourceFile& src, const std::string& function, EpochLoop& e,
                    std::string* caller) const
    {
        const std::string& text = src.text();
        for (std::size_t p = text.find(function + "("); p != std::string::npos;
             p = text.find(function + "(", p + 1)) {
            if (p > 0 &&
                (std::isalnum(static_cast<unsigned char>(text[p - 1])) || text[p - 1] == '_'))
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

    const PortPlan& m_plan;
    const std::map<std::string, Hyper>& m_hp;
};

// `range(n)`, `range(a, b)`, `range(1, n + 1)`, or either wrapped in one call (`tqdm(range(n))`,
// `trange(n)`): the count's pieces as texts, {"", ""} when it is none of them.
bool rangeCount(const SourceFile& src, TSNode iter, std::string* from, std::string* to)
{
    TSNode call = iter;
    for (int i = 0; i < 2 && typeOf(call) == "call"; ++i) {
        const std::string f = src.text(field(call, "function"));
        const TSNode args = field(call, "arguments");
        std::vector<TSNode> positional;
        for (uint32_t k = 0; k < ts_node_named_child_count(args); ++k)
            if (typeOf(ts_node_named_child(args, k)) != "keyword_argument" &&
                typeOf(ts_node_named_child(args, k)) != "comment")
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

// The batch loop's own statement, null when it is not a `for` of the plan's sources.
const Stmt* batchLoop(const PortPlan& plan, const SourceFile** srcOut)
{
    if (!plan.loop || plan.train.isDataLoader)
        return nullptr;
    const SourceFile* src = plan.source(plan.loop->loop.file);
    if (!src)
        return nullptr;
    for (const Stmt* s : src->chainAt(plan.loop->loop.start, plan.loop->loop.end))
        if (s->start == plan.loop->loop.start && s->type == "for_statement") {
            *srcOut = src;
            return s;
        }
    return nullptr;
}

// The names a block reads, and those it binds.
void namesOf(const std::vector<Stmt>& block, std::set<std::string>& uses,
             std::set<std::string>& defines)
{
    for (const auto& s : block) {
        uses.insert(s.uses.begin(), s.uses.end());
        defines.insert(s.defines.begin(), s.defines.end());
        namesOf(s.body, uses, defines);
        namesOf(s.other, uses, defines);
    }
}

// The rows of a tensor built with a static shape (`torch.randn(40, 3)`, `torch.zeros((40, 3))`,
// `torch.randint(0, 3, (40,))`): the text of its first dimension, "" for any other value.
std::string firstDimension(const SourceFile& src, TSNode value)
{
    static const std::set<std::string> shaped = {"torch.randn", "torch.rand",  "torch.zeros",
                                                 "torch.ones",  "torch.empty", "torch.randint"};
    if (typeOf(value) != "call" || !shaped.count(src.text(field(value, "function"))))
        return {};
    const TSNode args = field(value, "arguments");
    std::vector<TSNode> positional;
    for (uint32_t k = 0; k < ts_node_named_child_count(args); ++k) {
        const TSNode a = ts_node_named_child(args, k);
        if (typeOf(a) == "keyword_argument" && src.text(field(a, "name")) == "size")
            positional.insert(positional.begin(), field(a, "value"));
        else if (typeOf(a) != "keyword_argument" && typeOf(a) != "comment")
            positional.push_back(a);
    }
    const bool randint = src.text(field(value, "function")) == "torch.randint";
    // randint(high, size) or randint(low, high, size): the size is the last positional.
    TSNode dim = positional.empty() ? TSNode{} : randint ? positional.back() : positional.front();
    if (ts_node_is_null(dim) || (randint && positional.size() < 2))
        return {};
    if (typeOf(dim) == "tuple" || typeOf(dim) == "list")
        dim = ts_node_named_child(dim, 0);
    return ts_node_is_null(dim) ? std::string() : src.text(dim);
}

} // namespace

std::string runValueComment(const RunValue& v)
{
    if (v.from.empty())
        return {};
    return "  # " + v.from;
}

RunValue trainBatchSize(const PortPlan& plan, const std::map<std::string, Hyper>& hp,
                        const std::string& fallback)
{
    const std::string text = trim(plan.train.batchSize);
    const std::string file =
        plan.train.construction.valid() ? plan.train.construction.file : plan.entry;
    RunValue v;
    if (const SourceFile* src = plan.source(file); src && !text.empty()) {
        v = Resolver(plan, hp).resolve(*src, text, plan.train.construction.start);
        if (!v.value.empty() && v.from.empty())
            v.from = "batch_size=" + text + " in the training DataLoader (" + file + ":" +
                     std::to_string(plan.train.construction.line) + ")";
    }
    if (!v.value.empty() && v.value != "0")
        return v;
    v = RunValue{};
    v.value = fallback;
    v.madeUp = true;
    v.from = "made up by the port: the training loader's batch size" +
             (text.empty() ? std::string(" is not given in the code")
                           : " (`" + text + "`) is not known from the code") +
             "; set the original's";
    return v;
}

CodeRef epochLoopOf(const PortPlan& plan)
{
    CodeRef out;
    if (!plan.loop)
        return out;
    static const std::map<std::string, Hyper> noValues;
    const auto e = Resolver(plan, noValues).epochLoop();
    if (!e.found || !e.src || !e.statement)
        return out;
    out.file = e.src->path();
    out.start = e.statement->start;
    out.end = e.statement->end;
    out.line = e.statement->line;
    out.column = e.statement->column;
    // The loop's head, not its body: what the plan shows and cites.
    const std::string text = e.src->text(e.statement->start, e.statement->end);
    out.text = text.substr(0, text.find('\n'));
    return out;
}

RunValue trainEpochs(const PortPlan& plan, const std::map<std::string, Hyper>& hp)
{
    RunValue v;
    if (plan.loop) {
        const Resolver r(plan, hp);
        const auto e = r.epochLoop();
        if (!e.found) {
            v.value = "1";
            v.from = "one pass over the data: the batch loop (" + plan.loop->loop.where() +
                     ") has no epoch loop around it";
            return v;
        }
        std::string from, to;
        if (e.loop && rangeCount(*e.src, e.loop->forIter, &from, &to)) {
            const std::uint32_t pos = e.loop->start;
            // range(1, n + 1): n epochs, n being the end less one.
            std::string end = trim(to);
            bool plusOne = false;
            if (end.size() > 4 && end.ends_with("+ 1")) {
                end = trim(end.substr(0, end.size() - 3));
                plusOne = true;
            } else if (end.size() > 2 && end.ends_with("+1")) {
                end = trim(end.substr(0, end.size() - 2));
                plusOne = true;
            }
            const RunValue a = r.resolve(*e.src, from, pos);
            const RunValue b = r.resolve(*e.src, end, pos);
            if (!a.value.empty() && !b.value.empty()) {
                const long count = std::stol(b.value) + (plusOne ? 1 : 0) - std::stol(a.value);
                if (count > 0) {
                    v = b;
                    v.value = std::to_string(count);
                    if (count != std::stol(b.value))
                        v.flag.clear(); // not the flag's own value
                    const std::string loop = "`for " + e.src->text(e.loop->forTarget) + " in " +
                                             trim(e.src->text(e.loop->forIter)) + "` (" +
                                             at(*e.src, e.loop->node) + ")";
                    v.from = b.from.empty() ? loop : loop + ", " + b.from;
                    return v;
                }
            }
        }
    }
    // The loop's count is not known from the code: a flag named for epochs, else one made up.
    for (const auto& [dest, h] : hp)
        if ((dest == "epochs" || dest == "num_epochs" || dest == "niter" || dest == "n_epochs") &&
            isCount(h.value)) {
            const auto* f = plan.flag(dest);
            v.value = h.value;
            v.flag = dest;
            v.byName = true;
            v.from = "the flag " + (f && !f->options.empty() ? f->options.front() : dest);
            return v;
        }
    v.value = "1";
    v.madeUp = true;
    v.from = "made up by the port: the count of the original's epoch loop is not known from the "
             "code; set the original's";
    return v;
}

RunValue boundSteps(const PortPlan& plan, const std::map<std::string, Hyper>& hp)
{
    RunValue v;
    if (!plan.loop || plan.loop->stepBound.empty())
        return v;
    const LoopPlan& lp = *plan.loop;
    const SourceFile* src = plan.source(lp.loop.file);
    if (!src)
        return v;
    v = Resolver(plan, hp).resolve(*src, lp.stepBound, lp.loop.start);
    if (v.value.empty() || v.value == "0") {
        v = RunValue{};
        v.value = "100";
        v.madeUp = true;
        v.from = "made up by the port: the bound `" + lp.stepBound +
                 "` of the loop drawing its batches (" + lp.loop.where() +
                 ") is not known from the code; set the original's";
        return v;
    }
    const std::string loop = "the bound `" + lp.stepBound + "` of the loop drawing its batches (" +
                             lp.loop.where() + ")";
    v.from = v.from.empty() ? loop : loop + ", " + v.from;
    return v;
}

RunValue trainSteps(const PortPlan& plan, const std::map<std::string, Hyper>& hp,
                    const std::string& fallback)
{
    if (RunValue bound = boundSteps(plan, hp); !bound.value.empty())
        return bound;
    const RunValue epochs = trainEpochs(plan, hp);
    // A loop over values written in the code (a list, a range): one step per value.
    // Not with epochs guessed from a flag's name: the loop over values may be that very count.
    if (const RunValue values = loopValueCount(plan, hp);
        !values.value.empty() && !epochs.madeUp && !epochs.byName) {
        RunValue v;
        v.value = std::to_string(std::stol(values.value) * std::stol(epochs.value));
        v.from = epochs.value + (epochs.value == "1" ? " epoch (" : " epochs (") + epochs.from +
                 ") x " + values.value + " steps: " + values.from;
        return v;
    }
    const RunValue batch = trainBatchSize(plan, hp);
    std::string why;
    bool synthetic = false;
    const SourceFile* src =
        plan.source(plan.train.construction.valid() ? plan.train.construction.file : plan.entry);
    const auto samples = src ? epochSamples(plan, *src, hp, &why, &synthetic) : std::nullopt;
    RunValue v;
    if (!batch.madeUp && !epochs.madeUp && samples && !synthetic && std::stol(batch.value) > 0) {
        const long perEpoch = *samples / std::stol(batch.value);
        if (perEpoch > 0) {
            v.value = std::to_string(perEpoch * std::stol(epochs.value));
            v.from = epochs.value + (epochs.value == "1" ? " epoch (" : " epochs (") + epochs.from +
                     ") x " + std::to_string(perEpoch) + " steps: " + why + " // batch size " +
                     batch.value;
            return v;
        }
    }
    v.value = fallback;
    v.madeUp = true;
    v.from = std::string("made up by the port: the original's steps (epochs x samples // batch "
                         "size) are not known from the code") +
             (epochs.madeUp
                  ? ""
                  : "; it trains " + epochs.value + (epochs.value == "1" ? " epoch" : " epochs")) +
             "; set them";
    return v;
}

RunValue loopValueCount(const PortPlan& plan, const std::map<std::string, Hyper>& hp)
{
    RunValue v;
    const SourceFile* src = nullptr;
    const Stmt* loop = batchLoop(plan, &src);
    if (!loop)
        return v;
    TSNode iter = loop->forIter;
    if (typeOf(iter) == "call" && src->text(field(iter, "function")) == "enumerate")
        iter = ts_node_named_child(field(iter, "arguments"), 0);
    const std::string written = trim(src->text(iter));
    const std::string where = "`for " + src->text(loop->forTarget) + " in " +
                              trim(src->text(loop->forIter)) + "` (" + at(*src, loop->node) + ")";
    std::string from, to;
    const Resolver r(plan, hp);
    if (rangeCount(*src, iter, &from, &to)) {
        const RunValue a = r.resolve(*src, from, loop->start);
        const RunValue b = r.resolve(*src, to, loop->start);
        if (!a.value.empty() && !b.value.empty() && std::stol(b.value) > std::stol(a.value)) {
            v.value = std::to_string(std::stol(b.value) - std::stol(a.value));
            v.from = where + (b.from.empty() ? "" : ", " + b.from);
        }
        return v;
    }
    // A list or tuple written out: its elements, one per step.
    TSNode literal = iter;
    std::string assigned;
    if (typeOf(iter) == "identifier") {
        const Stmt* here = nullptr;
        for (const auto& [stmt, value] : assignments(*src, written))
            if (stmt->start < loop->start) {
                literal = value;
                here = stmt;
            }
        if (here)
            assigned = ", `" + written + "` assigned at " + at(*src, here->node);
        else
            return v;
    }
    if (typeOf(literal) != "list" && typeOf(literal) != "tuple")
        return v;
    long n = 0;
    for (uint32_t k = 0; k < ts_node_named_child_count(literal); ++k)
        n += typeOf(ts_node_named_child(literal, k)) != "comment";
    if (n == 0)
        return v;
    v.value = std::to_string(n);
    v.from = where + ": the " + v.value + " values written in the code" + assigned;
    return v;
}

RunValue loopValuesBatch(const PortPlan& plan, const std::map<std::string, Hyper>& hp)
{
    RunValue v;
    const SourceFile* src = nullptr;
    const Stmt* loop = batchLoop(plan, &src);
    if (!loop)
        return v;
    std::set<std::string> uses, defines;
    namesOf(loop->body, uses, defines);
    const std::string iterable = trim(src->text(loop->forIter));
    // Per value when the step's forward reads the loop's value (a print of the epoch number
    // does not make the value the batch).
    std::set<std::string> forward;
    for (const auto& ref : plan.loop->forward)
        for (const auto& n : identifiersOf(ref.text))
            forward.insert(n);
    const bool perValue = std::any_of(plan.loop->batchNames.begin(), plan.loop->batchNames.end(),
                                      [&](const std::string& n) { return forward.count(n) > 0; });
    if (perValue) {
        v.value = "1";
        v.from = "one value of `" + iterable +
                 "` per step, as the original's loop takes them: the port's loader gives the step "
                 "that value and the step builds its batch from it as the loop's body did";
        return v;
    }
    // The whole data every step: the rows of a tensor the body reads and does not bind, when
    // its shape is written in the code.
    const Resolver r(plan, hp);
    std::vector<std::string> read;
    for (const auto& n : uses)
        if (!defines.count(n))
            read.push_back(n);
    for (const auto& name : read) {
        const std::pair<const Stmt*, TSNode>* last = nullptr;
        const auto all = assignments(*src, name);
        for (const auto& a : all)
            if (a.first->start < loop->start)
                last = &a;
        if (!last)
            continue;
        const std::string dim = firstDimension(*src, last->second);
        if (dim.empty())
            continue;
        const RunValue rows = r.resolve(*src, dim, last->first->start);
        if (rows.value.empty())
            continue;
        v = rows;
        v.from = "the whole `" + name + "` (" + rows.value + " rows, `" +
                 trim(src->text(last->first->start, last->first->end)) + "` at " +
                 at(*src, last->first->node) + ") every step: the original's loop (`" + iterable +
                 "`) does not batch it";
        return v;
    }
    v.madeUp = true;
    v.from = "not known from the code: each step of the original's loop (`" + iterable +
             "`) builds or reads its whole batch itself, and its size is not written in the "
             "code; set it";
    return v;
}

} // namespace portolan::port::detail
