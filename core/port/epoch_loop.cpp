// The original's epoch loop as a target that writes its own loop over epochs reads it.
#include "core/port/epoch_loop.h"

#include <cctype>

namespace portolan::port::detail {

const Stmt* epochLoopStatement(const PortPlan& plan, const SourceFile& src)
{
    // The plan's epoch loop (run_values' finder, which the configuration's epoch count reads
    // too), so every target and the count agree on which loop it is; here only when it is in
    // this file.
    if (!plan.loop || !plan.loop->epochLoop.valid() || plan.loop->epochLoop.file != src.path())
        return nullptr;
    const CodeRef& e = plan.loop->epochLoop;
    for (const Stmt* s : src.chainAt(e.start, e.end))
        if (s->start == e.start && s->end == e.end)
            return s;
    return nullptr;
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
