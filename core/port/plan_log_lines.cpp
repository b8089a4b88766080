// Which statements of the training loop's body only report (planner side, see plan_loop.cpp):
// a call of print, of a logger's or a progress bar's reporting method, of a summary writer's.
#include "core/port/plan_internal.h"

#include <set>

namespace portolan::port::planning {

bool Planner::isLogLine(const Stmt& s) const
{
    if (s.type != "expression_statement" || !s.defines.empty())
        return false;
    const TSNode call = ts_node_named_child(s.node, 0);
    if (nodeType(call) != "call")
        return false;
    const std::string callee = src().text(fieldOf(call, "function"));
    if (callee == "print" || callee == "pprint")
        return true;
    // The reporting methods of logging's loggers, tqdm's bars and TensorBoard's writers. A
    // bare `log(...)`/`info(...)` is someone's own function: it may do anything.
    static const std::set<std::string> reporting{
        "debug",      "info",        "warning",       "warn",
        "error",      "write",       "set_postfix",   "set_description",
        "add_scalar", "add_scalars", "add_histogram", "add_text"};
    const auto dot = callee.rfind('.');
    return dot != std::string::npos && reporting.count(callee.substr(dot + 1)) > 0;
}

} // namespace portolan::port::planning
