// The training function started in other processes or threads (`mp.Process(target=train,
// args=(rank, args, model, ...))`, `mp.spawn`, `Pool.map`, `threading.Thread`), perhaps from
// another file of the project: what the launch hands over (the model built by the launching
// script, its data set) is the port's to build.
#include "core/port/plan_internal.h"

#include <cctype>

namespace portolan::port::planning {

namespace {

bool launches(const std::string& callee)
{
    static const char* const names[] = {"Process", "Thread", "spawn", "start_processes",
                                        "map", "starmap", "imap", "apply_async", "submit"};
    const std::string last = lastPart(callee);
    for (const char* n : names)
        if (last == n)
            return true;
    return false;
}

} // namespace

// When the model reaches the loop only as a parameter that a launch hands over: one item at
// the launch, naming the function it starts and what it passes. Returns whether one was found.
bool Planner::noteLaunch()
{
    // The functions of the entry that lead to the batch loop: its own, and their direct callers.
    std::set<std::string> leading;
    if (const auto* def = idx().function(m_loopFunction))
        leading.insert(def->name);
    for (int round = 0; round < 3; ++round)
        for (const auto& c : idx().calls)
            if (leading.count(c.callee))
                if (const auto* caller = idx().function(c.function); caller && caller->className.empty())
                    leading.insert(caller->name);
    for (std::size_t f = 0; f < m_a.python.size(); ++f) {
        const auto& file = m_a.python[f];
        for (const auto& c : file.index.calls) {
            if (!launches(c.callee))
                continue;
            std::string callable;
            for (std::size_t i = 0; i < c.arguments.size(); ++i) {
                const auto& x = c.arguments[i];
                if (x.keyword == "target" || x.keyword == "fn" || x.keyword == "func" ||
                    (i == 0 && x.keyword.empty()))
                    callable = x.text;
            }
            if (!leading.count(lastPart(callable)))
                continue;
            std::string handed;
            for (const auto& x : c.arguments)
                if (x.keyword == "args")
                    for (char ch : x.text)
                        if (!std::isspace(static_cast<unsigned char>(ch)) ||
                            (!handed.empty() && handed.back() != ' '))
                            handed += std::isspace(static_cast<unsigned char>(ch)) ? ' ' : ch;
            CodeRef at;
            at.file = file.path;
            at.line = c.span.line;
            at.column = c.span.column - 1;
            const std::string where = file.path == m_p.entry ? "" : " in " + file.path;
            m_p.manual.push_back(manualFinding(
                "the training runs in `" + lastPart(callable) + "()`, started in other " +
                    (lastPart(c.callee) == "Thread" ? "threads" : "processes") + " by `" +
                    lastPart(c.callee) + "(...)`" + where +
                    (handed.empty() ? std::string() : ", which hands it `" + handed + "`") +
                    ": the port runs it in one process, but the model `" + m_p.modelVariable +
                    "`, the flags and what else the launch passes are built by the launching "
                    "code, which the port does not carry",
                at, "build the model and the data in the port, as the launching code does"));
            m_p.handedOver = true;
            return true;
        }
    }
    return false;
}

} // namespace portolan::port::planning
