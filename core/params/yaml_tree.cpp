#include "core/params/yaml_tree.h"

#include "core/common/text.h"
#include "core/params/scalar_text.h"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

namespace portolan::params {

int YamlTree::keyIndex(int map, std::string_view key) const
{
    if (map < 0 || at(map).kind != NodeKind::Mapping)
        return -1;
    const auto& keysOf = at(map).keys;
    for (std::size_t i = keysOf.size(); i-- > 0;) {
        const YamlNode& k = at(keysOf[i]);
        if (k.isScalarLike() && k.value == key)
            return int(i);
    }
    return -1;
}

int YamlTree::child(int map, std::string_view key) const
{
    const int i = keyIndex(map, key);
    return i < 0 ? -1 : at(map).children[std::size_t(i)];
}

int YamlTree::deref(int node) const
{
    for (int hops = 0; node >= 0 && at(node).kind == NodeKind::Alias && hops < 64; ++hops)
        node = at(node).aliasTarget;
    return node;
}

namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

// Builds the tree from yaml-cpp's events. Positions come from the marks; ends are computed.
class TreeBuilder : public YAML::EventHandler
{
public:
    TreeBuilder(std::string_view text, YamlTree& tree) : m_text(text), m_tree(tree)
    {
        m_lineStarts.push_back(0);
        for (std::size_t i = 0; i < text.size(); ++i)
            if (text[i] == '\n')
                m_lineStarts.push_back(i + 1);
    }

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnAnchor(const YAML::Mark&, const std::string& name) override { m_pendingAnchor = name; }

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override
    {
        const std::size_t at = std::size_t(std::max(mark.pos, 0));
        const std::size_t p = skipProperties(m_text, at);
        int id = -1;
        if (const std::size_t len = nullLiteralLength(p)) {
            id = newNode(NodeKind::Null, at, p, anchor);
            finishScalar(id, std::string(m_text.substr(p, len)));
        } else {
            const std::size_t where = emptyValuePosition(at);
            id = newNode(NodeKind::Null, where, where, anchor);
            node(id).empty = true;
            node(id).end = where;
        }
        attach(id);
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override
    {
        const std::size_t p = std::size_t(std::max(mark.pos, 0));
        const int id = newNode(NodeKind::Alias, p, p, 0);
        std::size_t e = p + 1;
        while (e < m_text.size() && !isBlank(m_text[e]) && m_text[e] != '\n' && m_text[e] != '\r' &&
               m_text[e] != ',' && m_text[e] != ']' && m_text[e] != '}')
            ++e;
        node(id).end = e;
        node(id).aliasOf = std::string(m_text.substr(p + 1, e - p - 1));
        auto it = m_anchors.find(anchor);
        node(id).aliasTarget = it == m_anchors.end() ? -1 : it->second;
        m_lastEnd = e;
        attach(id);
    }

    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& value) override
    {
        const std::size_t at = std::size_t(std::max(mark.pos, 0));
        const int id = newNode(NodeKind::Scalar, at, skipProperties(m_text, at), anchor);
        if (tag != "?" && tag != "!")
            node(id).tag = tag;
        finishScalar(id, value);
        attach(id);
    }

    void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value style) override
    {
        openCollection(NodeKind::Sequence, mark, tag, anchor, style);
    }
    void OnSequenceEnd() override { closeCollection(); }
    void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value style) override
    {
        openCollection(NodeKind::Mapping, mark, tag, anchor, style);
    }
    void OnMapEnd() override { closeCollection(); }

private:
    YamlNode& node(int id) { return m_tree.nodes[std::size_t(id)]; }

    int columnOf(std::size_t pos) const
    {
        auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), pos);
        return int(pos - *(it - 1));
    }
    int lineOf(std::size_t pos) const
    {
        return int(std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), pos) -
                   m_lineStarts.begin());
    }

    bool inFlow() const { return !m_stack.empty() && m_tree.at(m_stack.back()).flow; }
    int parentIndent() const
    {
        return m_stack.empty() ? -1 : std::max(m_tree.at(m_stack.back()).indent, -1);
    }

    int newNode(NodeKind kind, std::size_t begin, std::size_t valueBegin, YAML::anchor_t anchor)
    {
        YamlNode n;
        n.kind = kind;
        n.begin = begin;
        n.valueBegin = valueBegin;
        n.end = valueBegin;
        n.line = lineOf(valueBegin);
        n.column = columnOf(valueBegin) + 1;
        n.parent = m_stack.empty() ? -1 : m_stack.back();
        n.flow = inFlow();
        const int id = int(m_tree.nodes.size());
        if (anchor != 0) {
            n.anchor = m_pendingAnchor;
            m_anchors[anchor] = id;
        }
        m_pendingAnchor.clear();
        m_tree.nodes.push_back(std::move(n));
        return id;
    }

    void finishScalar(int id, const std::string& value)
    {
        YamlNode& n = node(id);
        const ScalarExtent e = scanScalar(m_text, n.valueBegin, n.flow, parentIndent(), value);
        n.value = value;
        n.style = e.style;
        n.end = e.end;
        n.verified = e.verified;
        if (e.unterminated && !m_unterminated)
            m_unterminated = id;
        if (e.style == ScalarStyle::Literal || e.style == ScalarStyle::Folded)
            n.indent = e.blockIndent;
        m_lastEnd = e.end;
    }

    // The length of `~`/`null` written at `p`, or 0 when the null is empty.
    std::size_t nullLiteralLength(std::size_t p) const
    {
        for (std::string_view word : {"~", "null", "Null", "NULL"}) {
            if (m_text.substr(p, word.size()) != word)
                continue;
            const std::size_t e = p + word.size();
            if (e >= m_text.size())
                return word.size();
            const char c = m_text[e];
            if (isBlank(c) || c == '\n' || c == '\r' || c == ',' || c == ']' || c == '}')
                return word.size();
        }
        return 0;
    }

    // An empty value (`key:` or a bare `-`) has no text; yaml-cpp marks the next token instead.
    // Place it right after the colon or dash that introduced it.
    std::size_t emptyValuePosition(std::size_t markPos) const
    {
        if (m_stack.empty())
            return std::min(markPos, m_text.size());
        const YamlNode& parent = m_tree.at(m_stack.back());
        if (parent.kind == NodeKind::Mapping && parent.keys.size() > parent.children.size()) {
            std::size_t i = m_tree.at(parent.keys.back()).end;
            while (i < m_text.size() && isBlank(m_text[i]))
                ++i;
            if (i < m_text.size() && m_text[i] == ':')
                return i + 1;
            return std::min(markPos, m_text.size());
        }
        if (parent.kind == NodeKind::Sequence && !parent.flow) {
            std::size_t i = parent.children.empty() ? parent.valueBegin : m_lastEnd;
            while (i < m_text.size() && m_text[i] != '-') {
                if (m_text[i] == '#')
                    while (i < m_text.size() && m_text[i] != '\n')
                        ++i;
                else
                    ++i;
            }
            return std::min(i + 1, m_text.size());
        }
        return std::min(markPos, m_text.size());
    }

    void attach(int id)
    {
        if (m_stack.empty()) {
            if (m_tree.root < 0)
                m_tree.root = id;
            return;
        }
        YamlNode& parent = node(m_stack.back());
        if (parent.kind == NodeKind::Mapping) {
            if (parent.keys.size() == parent.children.size())
                parent.keys.push_back(id);
            else
                parent.children.push_back(id);
            return;
        }
        parent.children.push_back(id);
        if (!parent.flow) {
            const YamlNode& item = m_tree.at(id);
            std::size_t dash = item.begin;
            if (!item.empty) {
                while (dash > 0 && m_text[dash - 1] != '-' && isBlank(m_text[dash - 1]))
                    --dash;
                if (dash > 0 && m_text[dash - 1] == '-')
                    --dash;
            } else if (dash > 0) {
                --dash;
            }
            node(m_stack.back()).itemStarts.push_back(dash);
        }
    }

    void openCollection(NodeKind kind, const YAML::Mark& mark, const std::string& tag,
                        YAML::anchor_t anchor, YAML::EmitterStyle::value style)
    {
        const std::size_t at = std::size_t(std::max(mark.pos, 0));
        const bool flowParent = inFlow();
        const int id = newNode(kind, at, skipProperties(m_text, at), anchor);
        YamlNode& n = node(id);
        n.flow = flowParent || style == YAML::EmitterStyle::Flow;
        if (tag != "?" && tag != "!")
            n.tag = tag;
        if (!n.flow)
            n.indent = columnOf(n.valueBegin);
        attach(id);
        m_stack.push_back(id);
    }

    void closeCollection()
    {
        const int id = m_stack.back();
        m_stack.pop_back();
        YamlNode& n = node(id);
        if (!n.flow) {
            n.end = n.children.empty() ? n.valueBegin : m_tree.at(n.children.back()).end;
            if (n.kind == NodeKind::Mapping && n.children.size() < n.keys.size())
                n.end = m_tree.at(n.keys.back()).end;
        } else {
            const char close = n.kind == NodeKind::Mapping ? '}' : ']';
            std::size_t i = std::max(m_lastEnd, n.valueBegin + 1);
            while (i < m_text.size() && m_text[i] != close) {
                if (m_text[i] == '#')
                    while (i < m_text.size() && m_text[i] != '\n')
                        ++i;
                else
                    ++i;
            }
            n.end = std::min(i + 1, m_text.size());
        }
        m_lastEnd = n.end;
    }

    std::string_view m_text;
    YamlTree& m_tree;
    std::vector<std::size_t> m_lineStarts;
    std::vector<int> m_stack;
    std::map<YAML::anchor_t, int> m_anchors;
    std::string m_pendingAnchor;
    std::size_t m_lastEnd = 0;

public:
    // yaml-cpp accepts a quoted scalar left open at the end of the file; we do not.
    std::optional<int> m_unterminated;
};

// Reads past the first document only to learn whether there are more.
class NullHandler : public YAML::EventHandler
{
public:
    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override
    {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override
    {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override
    {}
    void OnMapEnd() override {}
};

} // namespace

Result<YamlTree> parseYamlTree(std::string_view text, const std::string& fileName)
{
    Diagnostic d;
    d.severity = Severity::Error;
    d.location.file = fileName;
    std::size_t bad = 0;
    if (!isValidUtf8(text, &bad)) {
        const LineColumn lc = lineColumnAt(text, bad);
        d.code = "yaml.encoding";
        d.message = "the file is not valid UTF-8";
        d.location.line = lc.line;
        d.location.column = lc.column;
        return Result<YamlTree>::fail(d);
    }
    YamlTree tree;
    const std::size_t firstBreak = text.find('\n');
    tree.crlf =
        firstBreak != std::string_view::npos && firstBreak > 0 && text[firstBreak - 1] == '\r';
    std::istringstream in{std::string(text)};
    try {
        YAML::Parser parser(in);
        TreeBuilder builder(text, tree);
        if (parser.HandleNextDocument(builder)) {
            NullHandler rest;
            tree.hasMoreDocuments = parser.HandleNextDocument(rest);
        }
        if (builder.m_unterminated) {
            const YamlNode& n = tree.at(*builder.m_unterminated);
            d.code = "yaml.syntax";
            d.message = "end of file inside a quoted value (no closing quote)";
            d.location.line = n.line;
            d.location.column = n.column;
            return Result<YamlTree>::fail(d);
        }
    } catch (const YAML::Exception& e) {
        d.code = "yaml.syntax";
        d.message = e.msg;
        d.location.line = e.mark.is_null() ? 0 : e.mark.line + 1;
        d.location.column = e.mark.is_null() ? 0 : e.mark.column + 1;
        return Result<YamlTree>::fail(d);
    }
    return Result<YamlTree>::ok(std::move(tree));
}

} // namespace portolan::params
