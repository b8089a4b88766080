// Text rewrites of the Determined port (generate_determined.cpp): gradient clipping moved into
// step_optimizer's clip_grads, the flags namespace passed to the functions that read it, and
// const.yaml's records per epoch.
#include "core/port/cerebras_schedule.h"
#include "core/port/generate_internal.h"
#include "core/port/syntax.h"

#include <algorithm>
#include <cctype>

namespace portolan::port::detail {

// Gradient clipping of the model's parameters between backward and the step
// (`clip_grad_norm_(self.model.parameters(), max)`, rendered): Determined's documented form is
// step_optimizer's clip_grads, which clips the parameters of the optimizer it steps, the same
// parameters when that optimizer is built on the model's. Returns the clip_grads value and takes
// the call out of `between` (its comments stay); "" when `between` is not such one call.
std::string clipGrads(std::string& between)
{
    static const std::string params = "(self.model.parameters()";
    std::string kept, call;
    std::size_t at = 0;
    while (at < between.size()) {
        auto e = between.find('\n', at);
        if (e == std::string::npos)
            e = between.size();
        const std::string line = between.substr(at, e - at);
        const auto first = line.find_first_not_of(' ');
        if (first != std::string::npos && line[first] != '#') {
            if (!call.empty())
                return {};
            call = line.substr(first);
        } else {
            kept += line + "\n";
        }
        at = e + 1;
    }
    const auto p = call.find(params);
    const bool clip = call.find("clip_grad_norm_(") != std::string::npos ||
                      call.find("clip_grad_value_(") != std::string::npos;
    if (!clip || p == std::string::npos || !call.ends_with(")"))
        return {};
    between = kept;
    return "lambda params: " + call.substr(0, p + 1) + "params" + call.substr(p + params.size());
}

// `text` with every call of `function` (not an attribute's, not a definition) given `extra` as its
// last positional argument: `get_batch(src, i)` -> `get_batch(src, i, args)`.
std::string passToCalls(const std::string& text, const std::string& function,
                        const std::string& extra)
{
    const auto isId = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    std::string out;
    std::size_t from = 0;
    for (std::size_t at = text.find(function + "("); at != std::string::npos;
         at = text.find(function + "(", at + 1)) {
        if (at > 0 && (isId(text[at - 1]) || text[at - 1] == '.'))
            continue;
        if (at >= 4 && text.compare(at - 4, 4, "def ") == 0)
            continue;
        std::size_t i = at + function.size() + 1;
        int depth = 1;
        for (; i < text.size() && depth > 0; ++i)
            depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
        if (depth != 0)
            break;
        const std::size_t close = i - 1;
        const std::string inside =
            text.substr(at + function.size() + 1, close - at - function.size() - 1);
        const bool empty = inside.find_first_not_of(" \n") == std::string::npos;
        out += text.substr(from, close - from) + (empty ? extra : ", " + extra);
        from = close;
    }
    return out + text.substr(from);
}

std::string withNamespaceParameters(std::string module, const std::set<const Stmt*>& passes,
                                    const SourceFile& src, const std::string& argsName)
{
    for (const Stmt* s : passes) {
        const TSNode params = ts_node_child_by_field_name(s->node, "parameters", 10);
        if (ts_node_is_null(params))
            continue;
        const std::string header = src.text(s->start, ts_node_end_byte(params));
        const auto at = module.find(header);
        if (at == std::string::npos || !header.ends_with(")"))
            continue;
        const bool none = header.ends_with("()");
        module.insert(at + header.size() - 1, (none ? "" : ", ") + argsName);
    }
    for (const Stmt* s : passes)
        module = passToCalls(module, s->name, argsName);
    return module;
}

std::string yamlComment(std::string s)
{
    s = oneLine(s);
    return s.empty() ? std::string() : "  # " + s;
}

// The records of an epoch, which epochs in the searcher and the validation period count in.
// Unknown: the key is left out (epochs then need it written by hand), with a note that says so.
std::string recordsPerEpochYaml(const PortPlan& plan, const SourceFile& src,
                                const std::map<std::string, Hyper>& hp,
                                std::vector<std::string>& notes)
{
    std::string why;
    bool synthetic = false;
    const auto n = epochSamples(plan, src, hp, &why, &synthetic);
    if (!n) {
        notes.push_back("records_per_epoch is not written in const.yaml: the samples of an "
                        "epoch of the train data are not known from the code (portolan-cli "
                        "port --verify takes them from the original's dry run)");
        return {};
    }
    if (synthetic)
        notes.push_back("records_per_epoch in const.yaml is the size of the data the dry run "
                        "made up (" +
                        std::to_string(*n) + " samples): set it to the real data's");
    return "records_per_epoch: " + std::to_string(*n) + yamlComment(why) + "\n";
}

bool bindNamespaceAtFirstUse(std::string& piece, const std::string& name, const std::string& value)
{
    if (name.empty())
        return false;
    const auto isId = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    };
    std::string done;
    std::size_t statementAt = 0; // where in `done` the current statement's first line begins
    std::string statementIndent;
    int depth = 0; // open brackets at the start of the line (strings are not told apart)
    bool given = false;
    std::size_t ls = 0;
    while (ls < piece.size()) {
        std::size_t le = piece.find('\n', ls);
        if (le == std::string::npos)
            le = piece.size();
        const std::string line = piece.substr(ls, le - ls);
        const auto first = line.find_first_not_of(' ');
        const bool comment = first == std::string::npos || line[first] == '#';
        if (depth == 0 && !comment) {
            statementAt = done.size();
            statementIndent = line.substr(0, first);
        }
        bool bare = false;
        for (std::size_t at = line.find(name); at != std::string::npos;
             at = line.find(name, at + 1)) {
            const std::size_t end = at + name.size();
            bare =
                bare || !((at > 0 && isId(line[at - 1])) || (end < line.size() && isId(line[end])));
        }
        if (bare && !given && !comment && !line.starts_with("    def ")) {
            done.insert(statementAt, statementIndent + name + " = " + value + "\n");
            given = true;
        }
        for (char c : line.substr(0, line.find('#'))) {
            depth += (c == '(' || c == '[' || c == '{') ? 1 : 0;
            depth -= (c == ')' || c == ']' || c == '}') ? 1 : 0;
        }
        depth = std::max(depth, 0);
        done += line + (le < piece.size() ? "\n" : "");
        ls = le + 1;
    }
    piece = done;
    return given;
}

} // namespace portolan::port::detail
