#include "core/params/edit_ops.h"

#include "core/params/block_scalar.h"
#include "core/params/scalar_text.h"

#include <algorithm>

namespace portolan::params {

namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

std::size_t lineStart(std::string_view t, std::size_t pos)
{
    while (pos > 0 && t[pos - 1] != '\n')
        --pos;
    return pos;
}
std::size_t lineEnd(std::string_view t, std::size_t pos)
{
    while (pos < t.size() && t[pos] != '\n' && t[pos] != '\r')
        ++pos;
    return pos;
}
std::size_t nextLine(std::string_view t, std::size_t pos)
{
    pos = lineEnd(t, pos);
    if (pos < t.size() && t[pos] == '\r')
        ++pos;
    if (pos < t.size() && t[pos] == '\n')
        ++pos;
    return pos;
}
bool onlyBlanksBefore(std::string_view t, std::size_t pos)
{
    for (std::size_t i = lineStart(t, pos); i < pos; ++i)
        if (!isBlank(t[i]))
            return false;
    return true;
}

Diagnostic editError(const YamlTree& tree, int node, std::string code, std::string message)
{
    Diagnostic d;
    d.code = std::move(code);
    d.message = std::move(message);
    if (node >= 0) {
        d.location.line = tree.at(node).line;
        d.location.column = tree.at(node).column;
    }
    return d;
}

TextEdit replace(std::string_view text, std::size_t from, std::size_t to, std::string inserted)
{
    TextEdit e;
    e.offset = from;
    e.removed = std::string(text.substr(from, to - from));
    e.inserted = std::move(inserted);
    return e;
}

std::string renderNew(std::string_view value, bool inFlow, ValueHint hint)
{
    if (hint == ValueHint::Raw)
        return std::string(value);
    return renderInlineScalar(value, ScalarStyle::Plain, inFlow, hint == ValueHint::String);
}

std::string renderKey(std::string_view key, bool inFlow);

// `key: value`, or `key:` alone when the value is empty (a mapping filled in next).
std::string renderEntry(std::string_view key, std::string_view value, bool inFlow, ValueHint hint)
{
    const std::string v = renderNew(value, inFlow, hint);
    return renderKey(key, inFlow) + ":" + (v.empty() ? "" : " " + v);
}

std::string renderKey(std::string_view key, bool inFlow)
{
    return plainAllowed(key, inFlow) && resolvePlain(key) == PlainType::String
               ? std::string(key)
               : quoteScalar(key, ScalarStyle::DoubleQuoted);
}

// The indentation children of `node` get when it turns from a null into a collection: two more
// than the mapping or sequence holding it.
int childIndent(const YamlTree& tree, int node)
{
    const int parent = tree.at(node).parent;
    if (parent < 0)
        return 0;
    return std::max(tree.at(parent).indent, 0) + 2;
}

// Setting a value to what it already is changes no byte: the file keeps its spelling (`1.0`,
// `>-` folding, quotes) rather than being rewritten in Portolan's.
bool isSameValue(const YamlNode& n, std::string_view value, ValueHint hint)
{
    if (hint == ValueHint::Raw || n.value != value)
        return false;
    if (n.empty) // `key:` is null; an empty string would need quotes
        return hint == ValueHint::Auto;
    if (hint == ValueHint::Auto)
        return true;
    // As a string: only when the text already reads as one.
    return n.style != ScalarStyle::Plain || n.tag == "tag:yaml.org,2002:str" ||
           (n.kind == NodeKind::Scalar && resolvePlain(n.value) == PlainType::String);
}

} // namespace

TextEdit diffEdit(std::string_view before, std::string_view after)
{
    std::size_t prefix = 0;
    const std::size_t maxPrefix = std::min(before.size(), after.size());
    while (prefix < maxPrefix && before[prefix] == after[prefix])
        ++prefix;
    std::size_t suffix = 0;
    while (suffix < maxPrefix - prefix &&
           before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
        ++suffix;
    TextEdit e;
    e.offset = prefix;
    e.removed = std::string(before.substr(prefix, before.size() - prefix - suffix));
    e.inserted = std::string(after.substr(prefix, after.size() - prefix - suffix));
    return e;
}

Result<TextEdit> planSetScalar(std::string_view text, const YamlTree& tree, int node,
                               std::string_view value, ValueHint hint)
{
    if (node < 0)
        return Result<TextEdit>::fail(editError(tree, node, "params.no-node", "no such value"));
    const YamlNode& n = tree.at(node);
    if (!n.isScalarLike())
        return Result<TextEdit>::fail(
            editError(tree, node, "params.not-scalar",
                      "this value is a " +
                          std::string(n.kind == NodeKind::Mapping    ? "mapping"
                                      : n.kind == NodeKind::Sequence ? "list"
                                                                     : "alias") +
                          "; only single values can be set"));
    if (!n.verified)
        return Result<TextEdit>::fail(
            editError(tree, node, "params.unlocated",
                      "the text of this value could not be located exactly, so it is not edited"));
    const std::string br = tree.crlf ? "\r\n" : "\n";
    if (isSameValue(n, value, hint))
        return Result<TextEdit>::ok(TextEdit{n.valueBegin, {}, {}, {}});
    if (hint == ValueHint::Raw)
        return Result<TextEdit>::ok(
            replace(text, n.valueBegin, n.end, (n.empty ? " " : "") + std::string(value)));
    if (n.empty)
        return Result<TextEdit>::ok(
            replace(text, n.valueBegin, n.end, " " + renderNew(value, n.flow, hint)));
    if (n.style == ScalarStyle::Literal || n.style == ScalarStyle::Folded) {
        // Keep the block's own style; a folded block that cannot hold the value (lines that
        // start with blanks) becomes literal, and only what no block can hold is quoted.
        const int parentIndent = n.parent >= 0 ? tree.at(n.parent).indent : -1;
        for (const char style : {'\0', '|'})
            if (auto block = renderBlockEdit(text, n, value, parentIndent, br, style))
                return Result<TextEdit>::ok(replace(text, n.valueBegin, n.end, *block));
        return Result<TextEdit>::ok(
            replace(text, n.valueBegin, n.end, quoteScalar(value, ScalarStyle::DoubleQuoted)));
    }
    // Explicitly tagged `!!str` values stay strings whatever they look like.
    const bool forceString = hint == ValueHint::String || n.tag == "tag:yaml.org,2002:str";
    const ScalarStyle style = n.kind == NodeKind::Null ? ScalarStyle::Plain : n.style;
    return Result<TextEdit>::ok(
        replace(text, n.valueBegin, n.end, renderInlineScalar(value, style, n.flow, forceString)));
}

Result<TextEdit> planAddKey(std::string_view text, const YamlTree& tree, int map,
                            std::string_view key, std::string_view value, ValueHint hint)
{
    const std::string br = tree.crlf ? "\r\n" : "\n";
    if (map < 0) { // empty document: the key becomes the first line
        std::string ins;
        if (!text.empty() && text.back() != '\n')
            ins += br;
        ins += renderEntry(key, value, false, hint) + br;
        TextEdit e;
        e.offset = text.size();
        e.inserted = ins;
        return Result<TextEdit>::ok(e);
    }
    const YamlNode& m = tree.at(map);
    if (m.kind == NodeKind::Null) {
        if (m.flow)
            return Result<TextEdit>::ok(
                replace(text, m.valueBegin, m.end,
                        (m.empty ? " {" : "{") + renderEntry(key, value, true, hint) + "}"));
        const std::string pad(std::size_t(childIndent(tree, map)), ' ');
        return Result<TextEdit>::ok(
            replace(text, m.valueBegin, m.end, br + pad + renderEntry(key, value, false, hint)));
    }
    if (m.kind != NodeKind::Mapping)
        return Result<TextEdit>::fail(
            editError(tree, map, "params.not-mapping", "keys can only be added to a mapping"));
    if (tree.keyIndex(map, key) >= 0)
        return Result<TextEdit>::fail(
            editError(tree, map, "params.duplicate-key",
                      "the key '" + std::string(key) + "' already exists here"));
    if (m.flow) {
        const std::size_t close = m.end - 1; // the closing brace
        std::string ins = renderEntry(key, value, true, hint);
        if (m.keys.empty()) {
            return Result<TextEdit>::ok(replace(text, close, close, ins));
        }
        const int last = m.children.size() == m.keys.size() ? m.children.back() : m.keys.back();
        const std::size_t at = tree.at(last).end;
        return Result<TextEdit>::ok(replace(text, at, at, ", " + ins));
    }
    const std::size_t at = lineEnd(text, m.end);
    const std::string pad(std::size_t(std::max(m.indent, 0)), ' ');
    return Result<TextEdit>::ok(
        replace(text, at, at, br + pad + renderEntry(key, value, false, hint)));
}

Result<TextEdit> planRemoveEntry(std::string_view text, const YamlTree& tree, int coll, int entry)
{
    const YamlNode& c = tree.at(coll);
    const bool isMap = c.kind == NodeKind::Mapping;
    const std::size_t count = isMap ? c.keys.size() : c.children.size();
    if (entry < 0 || std::size_t(entry) >= count)
        return Result<TextEdit>::fail(editError(tree, coll, "params.no-node", "no such entry"));
    const std::size_t e = std::size_t(entry);
    const int valueNode = e < c.children.size() ? c.children[e] : -1;
    const std::size_t first =
        isMap ? tree.at(c.keys[e]).begin : (c.flow ? tree.at(valueNode).begin : c.itemStarts[e]);
    const std::size_t last = valueNode >= 0 ? tree.at(valueNode).end : tree.at(c.keys[e]).end;
    if (c.flow) {
        if (count == 1)
            return Result<TextEdit>::ok(replace(text, c.valueBegin + 1, c.end - 1, ""));
        if (e + 1 < count) { // up to the next entry, eating the comma after this one
            const std::size_t next =
                isMap ? tree.at(c.keys[e + 1]).begin : tree.at(c.children[e + 1]).begin;
            return Result<TextEdit>::ok(replace(text, first, next, ""));
        }
        const std::size_t prevEnd =
            isMap ? (e < c.children.size() && e > 0 ? tree.at(c.children[e - 1]).end
                                                    : tree.at(c.keys[e - 1]).end)
                  : tree.at(c.children[e - 1]).end;
        return Result<TextEdit>::ok(replace(text, prevEnd, last, ""));
    }
    if (onlyBlanksBefore(text, first)) {
        if (count == 1 && !isMap) // an empty block list is written `[]`
            return Result<TextEdit>::ok(replace(text, first, lineEnd(text, last), "[]"));
        return Result<TextEdit>::ok(
            replace(text, lineStart(text, first), nextLine(text, last), ""));
    }
    // The entry shares its line with what holds it (`- key: v`): the next entry moves up.
    if (e + 1 < count) {
        const std::size_t next = isMap ? tree.at(c.keys[e + 1]).begin : c.itemStarts[e + 1];
        return Result<TextEdit>::ok(replace(text, first, next, ""));
    }
    return Result<TextEdit>::ok(replace(text, first, lineEnd(text, last), isMap ? "{}" : "[]"));
}

Result<TextEdit> planAppendItem(std::string_view text, const YamlTree& tree, int seq,
                                std::string_view value, ValueHint hint)
{
    const std::string br = tree.crlf ? "\r\n" : "\n";
    const YamlNode& s = tree.at(seq);
    if (s.kind == NodeKind::Null) {
        if (s.flow)
            return Result<TextEdit>::ok(
                replace(text, s.valueBegin, s.end, "[" + renderNew(value, true, hint) + "]"));
        const std::string pad(std::size_t(childIndent(tree, seq)), ' ');
        return Result<TextEdit>::ok(
            replace(text, s.valueBegin, s.end, br + pad + "- " + renderNew(value, false, hint)));
    }
    if (s.kind != NodeKind::Sequence)
        return Result<TextEdit>::fail(
            editError(tree, seq, "params.not-list", "items can only be added to a list"));
    if (s.flow) {
        const std::string item = renderNew(value, true, hint);
        if (s.children.empty())
            return Result<TextEdit>::ok(replace(text, s.end - 1, s.end - 1, item));
        const std::size_t at = tree.at(s.children.back()).end;
        return Result<TextEdit>::ok(replace(text, at, at, ", " + item));
    }
    const std::size_t at = lineEnd(text, s.end);
    const std::string pad(std::size_t(std::max(s.indent, 0)), ' ');
    return Result<TextEdit>::ok(
        replace(text, at, at, br + pad + "- " + renderNew(value, false, hint)));
}

} // namespace portolan::params
