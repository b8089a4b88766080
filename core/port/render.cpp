// Rendering the user's code for a port (source.h): the text of a node with the rules applied
// (renames, flags read from the target's configuration, device moves and DataParallel dropped, a
// statement the rules reduce to `x = x` left out), and statements re-indented to their place.
#include "core/port/source.h"
#include "core/port/syntax.h"

#include <algorithm>
#include <regex>
#include <sstream>

namespace portolan::port {

namespace {

constexpr int MaxDepth = kMaxSyntaxDepth;

bool isDeviceArg(const SourceFile& f, TSNode arg, const RenderRules& rules)
{
    const auto t = nodeType(arg);
    if (t == "identifier")
        return rules.deviceNames.count(f.text(arg)) > 0;
    if (t == "string") {
        const std::string s = f.text(arg);
        return s.find("cuda") != std::string::npos || s.find("cpu") != std::string::npos;
    }
    if (t == "keyword_argument") {
        const std::string k = f.text(fieldOf(arg, "name"));
        if (k == "non_blocking")
            return true;
        if (k == "device")
            return isDeviceArg(f, fieldOf(arg, "value"), rules);
        return false;
    }
    if (t == "attribute")
        return f.text(arg).ends_with(".device") || f.text(arg).ends_with("device");
    if (t == "call") // torch.device("cuda") or an accelerator query
        return f.text(fieldOf(arg, "function")).find("device") != std::string::npos;
    return false;
}

// `device=where` in a call (`torch.randn(n, device=where)`), `where` a device name the rules
// neither rename nor keep: the device is dropped with the binding of `where`, as `.to(where)`
// is, and the tensor is made where the target makes it.
bool placedOnADevice(const SourceFile& f, TSNode arg, const RenderRules& rules)
{
    if (!rules.dropDeviceMoves || nodeType(arg) != "keyword_argument" ||
        f.text(fieldOf(arg, "name")) != "device")
        return false;
    const TSNode value = fieldOf(arg, "value");
    return nodeType(value) == "identifier" && rules.deviceNames.count(f.text(value)) > 0 &&
           !rules.rename.count(f.text(value));
}

// `.to(device)` / `.cuda()` / `.to(device, non_blocking=True)`: the object it moves. And
// `nn.DataParallel(model)` / `DistributedDataParallel(model, device_ids=[rank])`: the model it
// spreads over the devices, which every target does itself (Determined over its slots, the IPU
// and CS compilers over their chips).
TSNode deviceMoveObject(const SourceFile& f, TSNode call, const RenderRules& rules)
{
    TSNode none{};
    if (!rules.dropDeviceMoves || nodeType(call) != "call")
        return none;
    const TSNode fn = fieldOf(call, "function");
    const TSNode args = fieldOf(call, "arguments");
    if (f.text(fn).ends_with("DataParallel") && nodeType(args) == "argument_list" &&
        ts_node_named_child_count(args) > 0 &&
        nodeType(ts_node_named_child(args, 0)) != "keyword_argument")
        return ts_node_named_child(args, 0);
    if (nodeType(fn) != "attribute")
        return none;
    const std::string method = f.text(fieldOf(fn, "attribute"));
    if (method == "cuda")
        return fieldOf(fn, "object");
    if (method != "to" || ts_node_is_null(args) || nodeType(args) != "argument_list")
        return none;
    const uint32_t count = ts_node_named_child_count(args);
    if (count == 0)
        return none;
    for (uint32_t i = 0; i < count; ++i)
        if (!isDeviceArg(f, ts_node_named_child(args, i), rules))
            return none;
    return fieldOf(fn, "object");
}

bool isSelfAssignment(const std::string& text);
bool isEmptyIf(TSNode n, const std::string& text);
void renderInto(const SourceFile& f, TSNode n, const RenderRules& rules, std::string& out,
                int depth);

// A block's statements, but for those the rules reduce to a self-assignment (`model = model`
// from `model = nn.DataParallel(model)` under `if cuda:`), which are dropped with the line
// they were on; a block left with nothing holds `pass`.
void renderBlock(const SourceFile& f, TSNode n, const RenderRules& rules, std::string& out,
                 int depth)
{
    const std::uint32_t e = ts_node_end_byte(n);
    std::uint32_t at = ts_node_start_byte(n);
    bool first = true;
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
        const TSNode c = ts_node_child(n, i);
        std::string text;
        renderInto(f, c, rules, text, depth + 1);
        const std::string before = f.text(at, ts_node_start_byte(c));
        at = ts_node_end_byte(c);
        if ((nodeType(c) == "expression_statement" && isSelfAssignment(text)) || isEmptyIf(c, text))
            continue;
        out += (first ? "" : before) + text;
        first = false;
    }
    if (first)
        out += "pass";
    out += f.text(at, e);
}

} // namespace

std::string renderName(const std::string& identifier, const RenderRules& rules,
                       const std::map<std::string, std::string>* aliases)
{
    std::string name = identifier;
    if (aliases)
        if (const auto a = aliases->find(name); a != aliases->end())
            name = a->second;
    const auto it = rules.rename.find(name);
    const std::string text = it != rules.rename.end() ? it->second : name;
    // A parameter given a flag (`fit(lr=args.lr)`, `fit(**args)` for a dict of the flags) reads
    // the flag as the target does.
    if (rules.flag && !rules.argsName.empty())
        for (const char* quote : {"\"", "'"})
            if (const std::string open = rules.argsName + "[" + quote;
                text.starts_with(open) && text.ends_with(std::string(quote) + "]") &&
                text.size() > open.size() + 2)
                return rules.flag(text.substr(open.size(), text.size() - open.size() - 2));
    const std::string prefix = rules.argsName + ".";
    if (rules.flag && !rules.argsName.empty() && text.starts_with(prefix) &&
        text.size() > prefix.size() &&
        std::all_of(text.begin() + static_cast<std::ptrdiff_t>(prefix.size()), text.end(),
                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
        return rules.flag(text.substr(prefix.size()));
    return text;
}

namespace {

void renderInto(const SourceFile& f, TSNode n, const RenderRules& rules, std::string& out,
                int depth)
{
    const std::uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (depth > MaxDepth) {
        out += f.text(s, e);
        return;
    }
    if (!rules.replace.empty())
        if (const auto it = rules.replace.find({s, e}); it != rules.replace.end()) {
            out += it->second;
            return;
        }
    const auto t = nodeType(n);
    if (t == "identifier") {
        out += renderName(f.text(n), rules, rules.aliasesAt(s));
        return;
    }
    if (t == "attribute") {
        const TSNode obj = fieldOf(n, "object");
        if (!rules.selfAttributes.empty() && nodeType(obj) == "identifier" && f.text(obj) == "self")
            if (const auto it = rules.selfAttributes.find(f.text(fieldOf(n, "attribute")));
                it != rules.selfAttributes.end()) {
                out += it->second;
                return;
            }
        if (!rules.argsName.empty() && rules.flag && nodeType(obj) == "identifier" &&
            f.text(obj) == rules.argsName) {
            out += rules.flag(f.text(fieldOf(n, "attribute")));
            return;
        }
    }
    if (t == "call") {
        const TSNode moved = deviceMoveObject(f, n, rules);
        if (!ts_node_is_null(moved)) {
            renderInto(f, moved, rules, out, depth + 1);
            return;
        }
    }
    if (t == "keyword_argument") {
        // The keyword's name is not a variable.
        const TSNode name = fieldOf(n, "name");
        const TSNode value = fieldOf(n, "value");
        out += f.text(s, ts_node_end_byte(name));
        out += f.text(ts_node_end_byte(name), ts_node_start_byte(value));
        renderInto(f, value, rules, out, depth + 1);
        out += f.text(ts_node_end_byte(value), e);
        return;
    }
    const uint32_t count = ts_node_child_count(n);
    if (count == 0 || t == "string") {
        out += f.text(s, e);
        return;
    }
    if (t == "block") {
        renderBlock(f, n, rules, out, depth);
        return;
    }
    std::uint32_t at = s;
    for (uint32_t i = 0; i < count; ++i) {
        const TSNode c = ts_node_child(n, i);
        const std::uint32_t cs = ts_node_start_byte(c), ce = ts_node_end_byte(c);
        if (t == "argument_list" && placedOnADevice(f, c, rules)) {
            // Dropped with the comma after it; the last argument takes the one before it.
            out += f.text(at, cs);
            const TSNode next = ts_node_child(n, i + 1);
            if (i + 1 < count && nodeType(next) == ",") {
                at = ts_node_end_byte(next);
                ++i;
                const TSNode after = ts_node_child(n, i + 1);
                if (i + 1 < count && !ts_node_is_null(after))
                    at = ts_node_start_byte(after);
            } else {
                while (!out.empty() && (out.back() == ' ' || out.back() == '\n'))
                    out.pop_back();
                if (!out.empty() && out.back() == ',')
                    out.pop_back();
                at = ce;
            }
            continue;
        }
        out += f.text(at, cs);
        // The attribute name of `x.name` is not a variable either.
        if (t == "attribute" && ts_node_eq(c, fieldOf(n, "attribute")))
            out += f.text(cs, ce);
        else
            renderInto(f, c, rules, out, depth + 1);
        at = ce;
    }
    out += f.text(at, e);
}

// An `if` the rules left with nothing but `pass` in every branch (`if args.cuda:` around the
// device moves the port drops): it does nothing, and its condition may read what the port no
// longer has (a flag the original derived after parsing).
bool isEmptyIf(TSNode n, const std::string& text)
{
    if (nodeType(n) != "if_statement")
        return false;
    static const std::regex header(
        R"(^\s*(if|elif)\b.*:\s*(pass)?\s*$|^\s*else\s*:\s*(pass)?\s*$)");
    static const std::regex blank(R"(^\s*(pass)?\s*$)");
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (!std::regex_match(line, header) && !std::regex_match(line, blank))
            return false;
    return true;
}

bool isSelfAssignment(const std::string& text)
{
    const auto eq = text.find(" = ");
    if (eq == std::string::npos || text.find('\n') != std::string::npos)
        return false;
    auto trim = [](std::string s) {
        s.erase(std::remove_if(s.begin(), s.end(),
                               [](char c) { return c == ' ' || c == '(' || c == ')'; }),
                s.end());
        return s;
    };
    return trim(text.substr(0, eq)) == trim(text.substr(eq + 3));
}

} // namespace

std::string render(const SourceFile& file, TSNode node, const RenderRules& rules)
{
    std::string out;
    if (!ts_node_is_null(node))
        renderInto(file, node, rules, out, 0);
    return out;
}

std::string reindent(const std::string& text, int column, const std::string& indent)
{
    std::istringstream in(text);
    std::string line, out;
    bool first = true;
    while (std::getline(in, line)) {
        if (!first) {
            int drop = 0;
            while (drop < column && drop < static_cast<int>(line.size()) &&
                   (line[static_cast<std::size_t>(drop)] == ' ' ||
                    line[static_cast<std::size_t>(drop)] == '\t'))
                ++drop;
            line.erase(0, static_cast<std::size_t>(drop));
        }
        out += (line.empty() ? std::string() : indent) + line + "\n";
        first = false;
    }
    return out;
}

std::string renderStatements(const SourceFile& file, const std::vector<const Stmt*>& stmts,
                             const RenderRules& rules, const std::string& indent,
                             const std::vector<Stmt>* siblings)
{
    std::string out;
    for (const Stmt* s : stmts) {
        if (siblings) {
            // The comments right above the statement go with it.
            std::vector<const Stmt*> comments;
            for (const auto& sib : *siblings) {
                if (&sib == s)
                    break;
                if (sib.isComment() && sib.column == s->column)
                    comments.push_back(&sib);
                else
                    comments.clear();
            }
            for (const Stmt* c : comments)
                out += indent + file.text(c->start, c->end) + "\n";
        }
        std::string text = render(file, s->node, rules);
        if (isSelfAssignment(text) || isEmptyIf(s->node, text))
            continue;
        if (siblings) {
            // A comment at the end of the statement's last line goes with it.
            const auto endRow = ts_node_end_point(s->node).row;
            for (std::size_t i = 0; i + 1 < siblings->size(); ++i)
                if (&(*siblings)[i] == s) {
                    const Stmt& next = (*siblings)[i + 1];
                    if (next.isComment() && ts_node_start_point(next.node).row == endRow)
                        text += file.text(s->end, next.end);
                    break;
                }
        }
        out += reindent(text, s->column, indent);
    }
    return out;
}

} // namespace portolan::port
