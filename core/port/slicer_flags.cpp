// The Slicer's flags: the argparse statements the port carries with the parser (sub-command
// parsers and argument groups included), and a flag set from the flags before training.
#include "core/port/generate_internal.h"

#include <algorithm>
#include <functional>
#include <string_view>

namespace portolan::port::detail {

// `args.x = <expression of the flags>` for a flag x, outside any branch: the value the original
// trains with.
bool Slicer::setsFlagFromFlags(const Stmt& s) const
{
    if (m_plan.argsName.empty() || s.type != "expression_statement" || s.uses.size() != 1 ||
        !s.uses.count(m_plan.argsName))
        return false;
    const TSNode a = ts_node_named_child(s.node, 0);
    if (ts_node_is_null(a) || std::string_view(ts_node_type(a)) != "assignment")
        return false;
    const TSNode left = ts_node_child_by_field_name(a, "left", 4);
    if (ts_node_is_null(left) || std::string_view(ts_node_type(left)) != "attribute")
        return false;
    const TSNode object = ts_node_child_by_field_name(left, "object", 6);
    const TSNode attribute = ts_node_child_by_field_name(left, "attribute", 9);
    // A flag of the parser given a new value; a value the code derives under a name of its
    // own (`args.distributed = ...`) is for branches the port resolves (StaticBranches).
    return !ts_node_is_null(object) && !ts_node_is_null(attribute) &&
           m_src->text(object) == m_plan.argsName && m_plan.flag(m_src->text(attribute));
}

std::vector<const Stmt*> Slicer::argparseStatements() const
{
    std::vector<const Stmt*> out;
    if (!m_src || m_parser.empty())
        return out;
    std::set<std::string> parsers{m_parser};
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& v) {
        for (const auto& s : v) {
            if (s.isComment())
                continue;
            // `import argparse` inside the main block or main(): the parser's statements need
            // it where they move (module-level imports are carried as imports).
            if ((s.type == "import_statement" || s.type == "import_from_statement") &&
                &v != &m_src->statements() && s.defines.count("argparse")) {
                out.push_back(&s);
                continue;
            }
            // The `if __name__ == "__main__":` block is a scope of its own, as main() is: its
            // argparse statements are found one by one, not the block as a whole.
            if (s.type == "function_definition" || s.type == "decorated_definition" ||
                s.type == "class_definition" ||
                (s.type == "if_statement" &&
                 m_src->text(s.condition).find("__name__") != std::string::npos)) {
                walk(s.body);
                continue;
            }
            const bool parserPart =
                std::any_of(parsers.begin(), parsers.end(), [&](const std::string& p) {
                    return s.defines.count(p) || s.uses.count(p);
                });
            if (!parserPart) {
                // A flag set from the flags before training (`args.lr = args.lr * args.scale`)
                // is part of what the flags are: it runs with the parser.
                if (setsFlagFromFlags(s))
                    out.push_back(&s);
                continue;
            }
            out.push_back(&s);
            // What a kept statement builds from the parser is part of it: the sub-command
            // parsers of `add_subparsers().add_parser("train")` and argument groups get flags
            // of their own. The parsed namespace is not: it is the flags, not a parser.
            static const char* const builders[] = {".add_subparsers(", ".add_parser(",
                                                   ".add_argument_group(",
                                                   ".add_mutually_exclusive_group("};
            const std::string text = m_src->text(s.start, s.end);
            if (std::any_of(std::begin(builders), std::end(builders),
                            [&](const char* b) { return text.find(b) != std::string::npos; }))
                parsers.insert(s.defines.begin(), s.defines.end());
        }
    };
    walk(m_src->statements());
    return out;
}

} // namespace portolan::port::detail
