// The original's epoch loop as a target that writes its own loop over epochs reads it.
#include "core/port/epoch_loop.h"

#include <cctype>

namespace portolan::port::detail {

namespace {

// The innermost `for` whose body calls `function(` (the batch loop's function).
const Stmt* loopCalling(const SourceFile& src, const std::vector<Stmt>& stmts,
                        const std::string& function)
{
    const Stmt* found = nullptr;
    for (const auto& s : stmts) {
        if (s.type == "for_statement" &&
            src.text(s.start, s.end).find(function + "(") != std::string::npos)
            found = &s;
        if (const Stmt* inner = loopCalling(src, s.body, function))
            found = inner;
        if (const Stmt* inner = loopCalling(src, s.other, function))
            found = inner;
    }
    return found;
}

} // namespace

const Stmt* epochLoopStatement(const PortPlan& plan, const SourceFile& src)
{
    if (!plan.loop || !plan.loop->loop.valid() || plan.loop->loop.file != plan.entry)
        return nullptr;
    const auto& batch = plan.loop->loop;
    // The loop around the batch loop, or around the call of the function that holds it.
    const Stmt* epoch = nullptr;
    for (const Stmt* s : src.chainAt(batch.start, batch.end))
        if (s->type == "for_statement" && s->start != batch.start)
            epoch = s;
    if (!epoch && !plan.loop->function.empty())
        epoch = loopCalling(src, src.statements(), plan.loop->function);
    return epoch;
}

std::optional<std::string> epochRange(const PortPlan& plan, const SourceFile& src)
{
    if (!plan.loop || plan.argsName.empty() || !plan.loop->loop.valid() ||
        plan.loop->loop.file != plan.entry)
        return std::nullopt;
    const Stmt* epoch = epochLoopStatement(plan, src);
    if (!epoch || ts_node_is_null(epoch->forIter))
        return std::nullopt;
    const std::string text = src.text(epoch->forIter);
    if (!text.starts_with("range(") || text.find('\n') != std::string::npos)
        return std::nullopt;
    for (const auto& n : usedNames(src, epoch->forIter))
        if (n != "range" && n != plan.argsName)
            return std::nullopt;
    // Each `args.x` it reads is a flag of the plan's parser (a namespace handed over by a launch
    // is not the port's).
    const std::string prefix = plan.argsName + ".";
    for (auto at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
        auto end = at + prefix.size();
        while (end < text.size() &&
               (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
            ++end;
        if (!plan.flag(text.substr(at + prefix.size(), end - at - prefix.size())))
            return std::nullopt;
    }
    return text;
}

} // namespace portolan::port::detail
