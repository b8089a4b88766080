// Flags the original assigns to, for the targets that read flags through a call (issue 24).
#include "core/port/flag_writes.h"
#include "core/port/syntax.h"

#include <regex>

namespace portolan::port::detail {

namespace {

// The `<argsName>.<dest>` attributes among an assignment's targets (a pattern may hold several).
void collectTargets(const SourceFile& src, TSNode left, const std::string& argsName,
                    std::set<std::string>& out, int depth = 0)
{
    if (ts_node_is_null(left) || depth > 8)
        return;
    const std::string_view t = nodeType(left);
    if (t == "attribute") {
        const TSNode obj = ts_node_child_by_field_name(left, "object", 6);
        const TSNode attr = ts_node_child_by_field_name(left, "attribute", 9);
        if (nodeType(obj) == "identifier" && src.text(obj) == argsName && !ts_node_is_null(attr))
            out.insert(src.text(attr));
        return;
    }
    if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" ||
        t == "expression_list" || t == "tuple" || t == "list")
        for (uint32_t i = 0; i < ts_node_named_child_count(left); ++i)
            collectTargets(src, ts_node_named_child(left, i), argsName, out, depth + 1);
}

// An expression statement's assignment, chained ones (`a = args.x = 1`) included.
void collectAssignment(const SourceFile& src, TSNode n, const std::string& argsName,
                       std::set<std::string>& out, int depth = 0)
{
    const std::string_view t = nodeType(n);
    if ((t != "assignment" && t != "augmented_assignment") || depth > 8)
        return;
    collectTargets(src, ts_node_child_by_field_name(n, "left", 4), argsName, out);
    collectAssignment(src, ts_node_child_by_field_name(n, "right", 5), argsName, out, depth + 1);
}

void walk(const SourceFile& src, const std::vector<Stmt>& stmts, const std::string& argsName,
          std::set<std::string>& out)
{
    for (const auto& s : stmts) {
        if (s.type == "expression_statement")
            for (uint32_t i = 0; i < ts_node_named_child_count(s.node); ++i)
                collectAssignment(src, ts_node_named_child(s.node, i), argsName, out);
        walk(src, s.body, argsName, out);
        walk(src, s.other, argsName, out);
    }
}

} // namespace

std::set<std::string> assignedFlags(const SourceFile& src, const std::string& argsName)
{
    std::set<std::string> out;
    if (!argsName.empty())
        walk(src, src.statements(), argsName, out);
    return out;
}

std::set<std::string> holdAssignedFlags(const std::set<std::string>& keys,
                                        const std::vector<std::string*>& texts, std::string& init)
{
    std::set<std::string> held;
    for (const auto& key : keys) {
        const std::string call = "self.context.get_hparam(\"" + key + "\")";
        // The call as an assignment's target: `= ...` (not `==`) or an augmented operator.
        const std::regex target(std::regex_replace(call, std::regex(R"([.()\[\]])"), R"(\$&)") +
                                R"(\s*([-+*/%@&|^]|//|\*\*|>>|<<)?=(?!=))");
        bool assigned = false;
        for (const std::string* t : texts)
            assigned = assigned || std::regex_search(*t, target);
        if (!assigned)
            continue;
        held.insert(key);
        for (std::string* t : texts)
            for (auto at = t->find(call); at != std::string::npos;
                 at = t->find(call, at + key.size()))
                t->replace(at, call.size(), "self.hp_" + key);
    }
    if (held.empty())
        return held;
    std::string reads =
        "        # Flags the original assigns to: read once, then read and assigned "
        "as the\n        # original does.\n";
    for (const auto& key : held)
        reads += "        self.hp_" + key + " = self.context.get_hparam(\"" + key + "\")\n";
    const std::string at = "        self.context = context\n";
    const auto where = init.find(at);
    init.insert(where == std::string::npos ? 0 : where + at.size(), reads);
    return held;
}

} // namespace portolan::port::detail
