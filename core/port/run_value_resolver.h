#pragma once
// Following a text of the original to a number (run_values.cpp, run_values_loop.cpp): a flag,
// a literal, a name assigned a value, `self.x` set from one, a parameter's default, what the
// callers or a trainer's instantiation give it; and the loop around the batch loop whose count
// is the epochs. Not a public header.
#include "core/port/run_values.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace portolan::port::detail {

bool isCount(const std::string& t);

// `path:line` of a node, for a value's comment.
std::string at(const SourceFile& src, TSNode n);

// The statements of a file that assign `target` (`x = ...`, `self.x = ...`), in source order,
// with the value each assigns.
std::vector<std::pair<const Stmt*, TSNode>> assignments(const SourceFile& src,
                                                        const std::string& target);

// `range(n)`, `range(a, b)`, `range(1, n + 1)`, or either wrapped in one call (`tqdm(range(n))`,
// `trange(n)`): the count's pieces as texts; false when it is none of them.
bool rangeCount(const SourceFile& src, TSNode iter, std::string* from, std::string* to);

// The `for` around the batch loop (or around a call of the function that holds it) whose
// count is the epochs; null when the batch loop has no loop around it.
struct EpochLoop
{
    const SourceFile* src = nullptr;
    const Stmt* loop = nullptr;
    const Stmt* statement = nullptr; // the `for` or `while` itself
    bool found = false; // a loop is around it (loop null: not a `for`, its count unknown)
};

// A dict written in the code: a literal (`{"rate": 0.01}`, `{**base, "k": v}`) or a
// `dict(...)` call.
bool isDictExpression(const SourceFile& src, TSNode value);

// `d["key"]` or `d.get("key", default)` read at byte `pos`, with d a dict written in the code
// (a literal or `dict(...)`, bound to d, given for d by the callers, or d's default): the
// entry's value as written (empty when the code does not say it). nullopt when `text` is not
// such a read.
struct DictEntry
{
    std::string key;
    std::string text;       // the value as written, "" when not known
    std::uint32_t at = 0;   // where it is written
    std::string dict;       // `path:line` of the dict, "" when none was found
    bool byDefault = false; // the key is not in the dict: get()'s default
};
// With `plan`, a dict loaded from a YAML file of the project (`cfg = yaml.safe_load(f)` in
// `with open(args.config) as f:`) gives the file's entry.
std::optional<DictEntry> dictEntryOf(const SourceFile& src, const std::string& text,
                                     std::uint32_t pos, const PortPlan* plan = nullptr);

class Resolver
{
public:
    Resolver(const PortPlan& plan, const std::map<std::string, Hyper>& hp) : m_plan(plan), m_hp(hp)
    {}

    // The value of `text` as read at byte `pos` of `src`.
    RunValue resolve(const SourceFile& src, std::string text, std::uint32_t pos,
                     int depth = 0) const;

    EpochLoop epochLoop() const;

private:
    // `d["key"]`, `d.get("key", default)` with d a dict written in the code
    // (run_value_resolver.cpp).
    std::optional<RunValue> dictEntry(const SourceFile& src, const std::string& text,
                                      std::uint32_t pos, int depth) const;
    bool aroundLoop(const SourceFile& src, std::uint32_t start, std::uint32_t end,
                    EpochLoop& e) const;
    bool callInLoop(const SourceFile& src, const std::string& function, EpochLoop& e,
                    std::string* caller) const;

    const PortPlan& m_plan;
    const std::map<std::string, Hyper>& m_hp;
};

} // namespace portolan::port::detail
