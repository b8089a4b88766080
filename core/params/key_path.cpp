#include "core/params/key_path.h"

#include <algorithm>

namespace portolan::params {

Result<KeyPath> parseKeyPath(std::string_view path)
{
    KeyPath out;
    auto fail = [&](std::size_t at, const std::string& why) {
        Diagnostic d;
        d.code = "params.bad-path";
        d.message = "bad key path '" + std::string(path) + "' at character " +
                    std::to_string(at + 1) + ": " + why;
        return Result<KeyPath>::fail(d);
    };
    std::size_t i = 0;
    std::string key;
    bool haveKey = false;
    auto flushKey = [&] {
        if (haveKey)
            out.push_back(PathSegment{false, key, 0});
        key.clear();
        haveKey = false;
    };
    while (i < path.size()) {
        const char c = path[i];
        if (c == '\\' && i + 1 < path.size()) {
            key += path[i + 1];
            haveKey = true;
            i += 2;
        } else if (c == '.') {
            if (!haveKey && (out.empty() || !out.back().isIndex))
                return fail(i, "empty key");
            flushKey();
            ++i;
        } else if (c == '[') {
            flushKey();
            const std::size_t close = path.find(']', i);
            if (close == std::string_view::npos)
                return fail(i, "missing ']'");
            const std::string_view digits = path.substr(i + 1, close - i - 1);
            if (digits.empty() || !std::all_of(digits.begin(), digits.end(),
                                               [](char d) { return d >= '0' && d <= '9'; }))
                return fail(i, "an index must be a number");
            out.push_back(PathSegment{true, {}, std::size_t(std::stoull(std::string(digits)))});
            i = close + 1;
        } else {
            key += c;
            haveKey = true;
            ++i;
        }
    }
    if (!path.empty() && path.back() == '.')
        return fail(path.size() - 1, "empty key");
    flushKey();
    return Result<KeyPath>::ok(std::move(out));
}

std::string escapeKey(std::string_view key)
{
    std::string out;
    for (char c : key) {
        if (c == '.' || c == '[' || c == ']' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

std::string formatKeyPath(const KeyPath& path)
{
    std::string out;
    for (const auto& s : path) {
        if (s.isIndex) {
            out += "[" + std::to_string(s.index) + "]";
        } else {
            if (!out.empty())
                out += '.';
            out += escapeKey(s.key);
        }
    }
    return out;
}

KeyPath pathOf(const YamlTree& tree, int node)
{
    KeyPath out;
    while (node >= 0) {
        const int parent = tree.at(node).parent;
        if (parent < 0)
            break;
        const YamlNode& p = tree.at(parent);
        const auto& list = p.children;
        auto it = std::find(list.begin(), list.end(), node);
        if (it == list.end()) { // a key node: name it by its own text
            auto k = std::find(p.keys.begin(), p.keys.end(), node);
            if (k != p.keys.end())
                out.push_back(PathSegment{false, tree.at(node).value, 0});
        } else if (p.kind == NodeKind::Mapping) {
            const int key = p.keys[std::size_t(it - list.begin())];
            out.push_back(PathSegment{false, tree.at(key).value, 0});
        } else {
            out.push_back(PathSegment{true, {}, std::size_t(it - list.begin())});
        }
        node = parent;
    }
    std::reverse(out.begin(), out.end());
    return out;
}

namespace {

// Looks `key` up in `map`, then in the maps merged into it with `<<`.
bool lookupKey(const YamlTree& tree, int map, const std::string& key, Resolved& r, int depth)
{
    const int i = tree.keyIndex(map, key);
    if (i >= 0) {
        r.parentMap = map;
        r.entry = i;
        r.node = tree.at(map).children.size() > std::size_t(i)
                     ? tree.at(map).children[std::size_t(i)]
                     : -1;
        return r.node >= 0;
    }
    if (depth > 8)
        return false;
    const int merge = tree.child(map, "<<");
    if (merge < 0)
        return false;
    std::vector<int> sources;
    const int m = tree.deref(merge);
    if (m >= 0 && tree.at(m).kind == NodeKind::Mapping)
        sources.push_back(m);
    else if (m >= 0 && tree.at(m).kind == NodeKind::Sequence)
        for (int item : tree.at(m).children)
            sources.push_back(tree.deref(item));
    for (int src : sources) {
        if (src >= 0 && tree.at(src).kind == NodeKind::Mapping &&
            lookupKey(tree, src, key, r, depth + 1)) {
            r.viaAlias = true;
            return true;
        }
    }
    return false;
}

} // namespace

Resolved resolvePath(const YamlTree& tree, const KeyPath& path)
{
    Resolved r;
    int cur = tree.root;
    for (const auto& seg : path) {
        if (cur >= 0 && tree.at(cur).kind == NodeKind::Alias) {
            r.viaAlias = true;
            cur = tree.deref(cur);
        }
        if (cur < 0) {
            r.missing = seg.isIndex ? "[" + std::to_string(seg.index) + "]" : seg.key;
            r.node = -1;
            return r;
        }
        const YamlNode& n = tree.at(cur);
        if (seg.isIndex) {
            if (n.kind != NodeKind::Sequence || seg.index >= n.children.size()) {
                r.missing = "[" + std::to_string(seg.index) + "]";
                r.node = -1;
                return r;
            }
            r.parentMap = cur;
            r.entry = int(seg.index);
            cur = n.children[seg.index];
        } else {
            if (n.kind != NodeKind::Mapping || !lookupKey(tree, cur, seg.key, r, 0)) {
                r.missing = seg.key;
                r.node = -1;
                return r;
            }
            cur = r.node;
        }
    }
    if (cur >= 0 && tree.at(cur).kind == NodeKind::Alias) {
        r.viaAlias = true;
        cur = tree.deref(cur);
    }
    r.node = cur;
    return r;
}

} // namespace portolan::params
