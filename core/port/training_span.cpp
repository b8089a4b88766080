// Where the training runs in the script's module-level code: what is bound after it is the
// script's leftovers (a prediction with the trained model), never a value the training reads.
#include "core/port/generate_internal.h"

#include <functional>
#include <string_view>
#include <utility>

namespace portolan::port::detail {

namespace {

bool isDefinition(const Stmt& s)
{
    return s.type == "function_definition" || s.type == "decorated_definition" ||
           s.type == "class_definition" || s.type == "import_statement" ||
           s.type == "import_from_statement" || s.type == "future_import_statement";
}

// A callee: its name, and whether it is called as an attribute (`trainer.fit()`, `self.step()`).
using Callee = std::pair<std::string, bool>;

void callees(const SourceFile& src, TSNode n, std::set<Callee>& out)
{
    if (ts_node_is_null(n))
        return;
    if (std::string_view(ts_node_type(n)) == "call") {
        const TSNode fn = ts_node_child_by_field_name(n, "function", 8);
        const std::string_view t = ts_node_is_null(fn) ? "" : ts_node_type(fn);
        if (t == "identifier")
            out.insert({src.text(fn), false});
        else if (t == "attribute")
            out.insert({src.text(ts_node_child_by_field_name(fn, "attribute", 9)), true});
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
        callees(src, ts_node_named_child(n, i), out);
}

// Every function of the file with the callees of its body; a method is called as an attribute.
void functions(const SourceFile& src, const std::vector<Stmt>& scope, bool inClass,
               std::vector<std::pair<Callee, std::set<Callee>>>& out)
{
    for (const auto& s : scope) {
        if (s.type == "class_definition") {
            functions(src, s.body, true, out);
            continue;
        }
        if (s.type != "function_definition" && s.type != "decorated_definition")
            continue;
        std::set<Callee> calls;
        for (const auto& b : s.body)
            callees(src, b.node, calls);
        out.push_back({{s.name, inClass}, calls});
        functions(src, s.body, false, out);
    }
}

} // namespace

std::uint32_t moduleTrainingStart(const SourceFile& src, const Stmt* loopFunction)
{
    if (!loopFunction || loopFunction->name.empty())
        return 0;
    std::vector<std::pair<Callee, std::set<Callee>>> all;
    functions(src, src.statements(), false, all);
    // The functions that reach the loop's function through their calls.
    std::set<Callee> reach;
    for (const auto& [f, calls] : all)
        if (f.first == loopFunction->name)
            reach.insert(f);
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& [f, calls] : all)
            if (!reach.count(f))
                for (const auto& c : calls)
                    if (reach.count(c)) {
                        reach.insert(f);
                        grew = true;
                        break;
                    }
    }
    for (const auto& s : src.statements()) {
        if (isDefinition(s))
            continue;
        std::set<Callee> calls;
        callees(src, s.node, calls);
        for (const auto& c : calls)
            if (reach.count(c))
                return s.start;
    }
    return 0;
}

} // namespace portolan::port::detail
