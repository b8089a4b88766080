#include "corpus_checks.h"

#include "core/params/edit_ops.h"
#include "core/params/key_path.h"
#include "core/params/params_document.h"
#include "core/params/scalar_text.h"

#include <algorithm>

using namespace portolan::params;

namespace {

std::vector<std::string_view> splitLines(std::string_view t)
{
    std::vector<std::string_view> out;
    std::size_t s = 0;
    for (;;) {
        const std::size_t n = t.find('\n', s);
        if (n == std::string_view::npos) {
            out.push_back(t.substr(s));
            return out;
        }
        out.push_back(t.substr(s, n - s));
        s = n + 1;
    }
}

int lineOfOffset(std::string_view t, std::size_t off)
{
    return 1 + int(std::count(t.begin(), t.begin() + long(std::min(off, t.size())), '\n'));
}

struct PlannedEdit
{
    TextEdit edit;
    std::string path;
    std::string value;
};

std::string newValueFor(const YamlNode& n, int i, ValueHint& hint)
{
    hint = ValueHint::Auto;
    if (n.kind == NodeKind::Scalar && n.style == ScalarStyle::Plain) {
        switch (resolvePlain(n.value)) {
        case PlainType::Int:
            return std::to_string(100000 + i);
        case PlainType::Float:
            return std::to_string(i) + ".5e-3";
        case PlainType::Bool:
            return n.value[0] == 't' || n.value[0] == 'T' ? "false" : "true";
        default:
            break;
        }
    }
    hint = ValueHint::String;
    return "edit #" + std::to_string(i) + (n.style == ScalarStyle::Literal ? "\nline 2\n" : "");
}

// One character of the block's last word changed: the header line stays byte for byte, the
// style reads back the same, and exactly one line changes.
void checkBlockStyleKept(const std::string& text, const YamlTree& tree, int node,
                         const std::string& where, EditCheckResult& r)
{
    const YamlNode& n = tree.at(node);
    std::string value = n.value;
    std::size_t last = value.find_last_not_of('\n');
    if (last == std::string::npos || value[last] == ' ')
        return;
    value[last] = value[last] == 'Z' ? 'Y' : 'Z';
    auto edit = planSetScalar(text, tree, node, value, ValueHint::String);
    if (!edit) {
        r.problems.push_back(where + ": block edit refused: " + edit.error.message);
        return;
    }
    std::string after = text;
    after.replace(edit.value->offset, edit.value->removed.size(), edit.value->inserted);
    const auto before = splitLines(text);
    const auto now = splitLines(after);
    int changed = 0;
    for (std::size_t k = 0; k < before.size() && k < now.size(); ++k)
        changed += before[k] != now[k];
    auto reparsed = parseYamlTree(after, "");
    const Resolved got = reparsed ? resolvePath(*reparsed.value, pathOf(tree, node)) : Resolved{};
    if (before.size() != now.size() || changed != 1 || got.node < 0 ||
        reparsed.value->at(got.node).style != n.style ||
        reparsed.value->at(got.node).value != value ||
        before[std::size_t(n.line - 1)] != now[std::size_t(n.line - 1)])
        r.problems.push_back(where + ": a one-character edit of a block scalar changed " +
                             std::to_string(changed) + " line(s), the header or its style");
    else
        ++r.blocks;
}

} // namespace

EditCheckResult checkEveryScalarEdit(const std::string& text, const std::string& name)
{
    EditCheckResult r;
    auto parsed = parseYamlTree(text, name);
    if (!parsed) {
        r.problems.push_back("does not parse: " + parsed.error.toString());
        return r;
    }
    const YamlTree& tree = *parsed.value;
    const auto originalLines = splitLines(text);
    std::vector<PlannedEdit> planned;
    for (int i = 0; i < int(tree.nodes.size()); ++i) {
        const YamlNode& n = tree.at(i);
        if (!n.isScalarLike())
            continue;
        if (n.parent >= 0) {
            const auto& keys = tree.at(n.parent).keys;
            if (std::find(keys.begin(), keys.end(), i) != keys.end())
                continue; // keys are names, not values
        }
        const KeyPath path = pathOf(tree, i);
        if (resolvePath(tree, path).node != i || resolvePath(tree, path).viaAlias) {
            ++r.skipped;
            continue;
        }
        ++r.scalars;
        const std::string where = name + ":" + std::to_string(n.line) + ":" +
                                  std::to_string(n.column) + " " + formatKeyPath(path);
        for (const ValueHint same : {ValueHint::Auto, ValueHint::String}) {
            const bool asString =
                n.style != ScalarStyle::Plain ||
                (n.kind == NodeKind::Scalar && resolvePlain(n.value) == PlainType::String);
            if (same == ValueHint::String && !asString)
                continue;
            auto noOp = planSetScalar(text, tree, i, n.value, same);
            if (!noOp || !noOp.value->removed.empty() || !noOp.value->inserted.empty())
                r.problems.push_back(where + ": setting it to its own value changes the text");
            else
                ++r.noOps;
        }
        if (n.style == ScalarStyle::Literal || n.style == ScalarStyle::Folded)
            checkBlockStyleKept(text, tree, i, where, r);
        ValueHint hint;
        const std::string value = newValueFor(n, i, hint);
        auto edit = planSetScalar(text, tree, i, value, hint);
        if (!edit) {
            r.problems.push_back(where + ": refused: " + edit.error.message);
            continue;
        }
        // Alone: only the lines of this value change.
        std::string after = text;
        after.replace(edit.value->offset, edit.value->removed.size(), edit.value->inserted);
        const auto afterLines = splitLines(after);
        std::size_t pre = 0;
        while (pre < originalLines.size() && pre < afterLines.size() &&
               originalLines[pre] == afterLines[pre])
            ++pre;
        std::size_t suf = 0;
        while (suf < originalLines.size() - pre && suf < afterLines.size() - pre &&
               originalLines[originalLines.size() - 1 - suf] ==
                   afterLines[afterLines.size() - 1 - suf])
            ++suf;
        const int firstChanged = int(pre) + 1;
        const int lastChanged = int(originalLines.size() - suf);
        const int valueFirst = lineOfOffset(text, n.empty ? n.valueBegin - 1 : n.valueBegin);
        const int valueLast = lineOfOffset(text, n.end > n.valueBegin ? n.end - 1 : n.end);
        if (firstChanged < valueFirst || lastChanged > valueLast)
            r.problems.push_back(where + ": the edit changed lines " +
                                 std::to_string(firstChanged) + "-" + std::to_string(lastChanged) +
                                 ", the value is on lines " + std::to_string(valueFirst) + "-" +
                                 std::to_string(valueLast));
        planned.push_back({*edit.value, formatKeyPath(path), value});
    }
    // Together, applied from the end so that offsets stay valid, then parsed again.
    std::sort(planned.begin(), planned.end(), [](const PlannedEdit& a, const PlannedEdit& b) {
        return a.edit.offset > b.edit.offset;
    });
    std::string all = text;
    for (const auto& p : planned)
        all.replace(p.edit.offset, p.edit.removed.size(), p.edit.inserted);
    auto reparsed = parseYamlTree(all, name);
    if (!reparsed) {
        r.problems.push_back("after editing every value the file no longer parses: " +
                             reparsed.error.toString());
        return r;
    }
    for (const auto& p : planned) {
        const Resolved got = resolvePath(*reparsed.value, *parseKeyPath(p.path).value);
        if (got.node < 0) {
            r.problems.push_back(name + " " + p.path + ": gone after the edit");
            continue;
        }
        std::string value = reparsed.value->at(got.node).value;
        if (value != p.value)
            r.problems.push_back(name + " " + p.path + ": reads back '" + value + "', wrote '" +
                                 p.value + "'");
    }
    return r;
}

std::string compareWithFreshParse(const std::string& text, const std::string& name,
                                  const std::vector<int>& nodesToEdit)
{
    ParamsDocument doc = ParamsDocument::fromText(text, name);
    int i = 0;
    for (int node : nodesToEdit) {
        ValueHint hint;
        const std::string value = newValueFor(doc.tree().at(node), 7 + i++, hint);
        doc.setScalarAt(node, value, hint);
    }
    auto fresh = parseYamlTree(doc.text(), name);
    if (!fresh)
        return "edited text does not parse: " + fresh.error.toString();
    const auto& a = doc.tree().nodes;
    const auto& b = fresh.value->nodes;
    if (a.size() != b.size())
        return "node count differs";
    for (std::size_t k = 0; k < a.size(); ++k) {
        const YamlNode& x = a[k];
        const YamlNode& y = b[k];
        if (x.kind != y.kind || x.value != y.value || x.begin != y.begin ||
            x.valueBegin != y.valueBegin || x.end != y.end || x.line != y.line ||
            x.column != y.column || x.style != y.style || x.itemStarts != y.itemStarts)
            return name + ": node " + std::to_string(k) + " at " + std::to_string(y.line) + ":" +
                   std::to_string(y.column) + " differs after patching ('" + x.value + "' vs '" +
                   y.value + "', end " + std::to_string(x.end) + " vs " + std::to_string(y.end) +
                   ")";
    }
    return {};
}
