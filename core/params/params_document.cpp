#include "core/params/params_document.h"

#include "core/common/atomic_file.h"
#include "core/params/scalar_text.h"

namespace portolan::params {

Result<ParamsDocument> ParamsDocument::open(const std::filesystem::path& path)
{
    auto bytes = readFile(path);
    if (!bytes)
        return Result<ParamsDocument>::fail(bytes.error);
    ParamsDocument doc = fromText(std::move(*bytes.value), path.string());
    doc.m_path = path;
    doc.m_stamp = stampOf(path, doc.m_text);
    return Result<ParamsDocument>::ok(std::move(doc));
}

ParamsDocument ParamsDocument::fromText(std::string text, std::string name)
{
    ParamsDocument doc;
    doc.m_name = std::move(name);
    doc.m_text = std::move(text);
    doc.m_savedText = doc.m_text;
    doc.reparse();
    return doc;
}

std::string ParamsDocument::displayName() const
{
    return m_path.empty() ? m_name : m_path.string();
}

void ParamsDocument::reparse()
{
    auto parsed = parseYamlTree(m_text, displayName());
    if (parsed) {
        m_tree = std::move(*parsed.value);
        m_syntaxError.reset();
    } else {
        m_tree = YamlTree{};
        m_syntaxError = parsed.error;
    }
    ++m_revision;
}

Diagnostic ParamsDocument::located(std::string code, std::string message) const
{
    Diagnostic d;
    d.code = std::move(code);
    d.message = std::move(message);
    d.location.file = displayName();
    return d;
}

Resolved ParamsDocument::resolve(std::string_view path) const
{
    auto parsed = parseKeyPath(path);
    if (!parsed || !isParsed())
        return Resolved{};
    return resolvePath(m_tree, *parsed.value);
}

std::optional<std::string> ParamsDocument::get(std::string_view path) const
{
    const int n = find(path);
    if (n < 0)
        return std::nullopt;
    const YamlNode& node = m_tree.at(n);
    if (node.isScalarLike())
        return node.value;
    return m_text.substr(node.valueBegin, node.end - node.valueBegin);
}

EditError ParamsDocument::apply(const std::function<Result<TextEdit>()>& plan,
                                std::string description)
{
    // A plan works on the parse's offsets. Should they ever disagree with the text (a YAML
    // construct the tree misreads; the fuzzer found one), the edit is refused with a message,
    // and the document stays as it was, rather than the program ending on the exception.
    Result<TextEdit> planned = Result<TextEdit>::fail(Diagnostic{});
    try {
        planned = plan();
    } catch (const std::exception& ex) {
        Diagnostic d;
        d.code = "params.edit-internal";
        d.message = std::string("the edit could not be placed in the file (") + ex.what() +
                    "); nothing was changed";
        d.location.file = displayName();
        return d;
    }
    if (!planned) {
        Diagnostic d = planned.error;
        d.location.file = displayName();
        return d;
    }
    TextEdit e = std::move(*planned.value);
    e.description = std::move(description);
    if (e.removed.empty() && e.inserted.empty())
        return std::nullopt;
    const std::string before = m_text;
    applyRaw(e, true);
    if (!isParsed()) { // our edit must keep the file valid YAML; never leave it broken
        Diagnostic d = *m_syntaxError;
        d.code = "params.edit-breaks-yaml";
        d.message = "the edit would make the YAML invalid (" + d.message + "); not applied";
        m_text = before;
        reparse();
        return d;
    }
    m_undo.push_back(std::move(e));
    m_redo.clear();
    return std::nullopt;
}

void ParamsDocument::applyRaw(const TextEdit& e, bool forward)
{
    const std::string& out = forward ? e.removed : e.inserted;
    const std::string& in = forward ? e.inserted : e.removed;
    m_text.replace(e.offset, out.size(), in);
    if (!patchScalar(e.offset, out, in))
        reparse();
}

bool ParamsDocument::patchScalar(std::size_t offset, const std::string& removed,
                                 const std::string& inserted)
{
    // Both texts on one line, so that no line number moves.
    if (!isParsed() || inserted.empty() || removed.empty() ||
        inserted.find_first_of("\r\n") != std::string::npos ||
        removed.find_first_of("\r\n") != std::string::npos)
        return false;
    const std::size_t removedSize = removed.size();
    int target = -1;
    for (int i = 0; i < int(m_tree.nodes.size()); ++i) {
        const YamlNode& n = m_tree.at(i);
        if (n.isScalarLike() && !n.empty && n.valueBegin == offset &&
            n.end == offset + removedSize) {
            target = i;
            break;
        }
    }
    if (target < 0)
        return false;
    YamlNode& n = m_tree.nodes[std::size_t(target)];
    if (n.style == ScalarStyle::Literal || n.style == ScalarStyle::Folded || n.line <= 0)
        return false;
    const char first = inserted.front();
    if (std::string_view("&*!|>[{#%@`").find(first) != std::string_view::npos)
        return false; // properties, aliases, block scalars, collections: let yaml-cpp read them
    const ScalarStyle style = first == '"'    ? ScalarStyle::DoubleQuoted
                              : first == '\'' ? ScalarStyle::SingleQuoted
                                              : ScalarStyle::Plain;
    std::string value = style == ScalarStyle::DoubleQuoted   ? decodeDoubleQuoted(inserted)
                        : style == ScalarStyle::SingleQuoted ? decodeSingleQuoted(inserted)
                                                             : inserted;
    if (style == ScalarStyle::Plain && !plainAllowed(inserted, n.flow))
        return false;
    const int parentIndent = n.parent >= 0 ? std::max(m_tree.at(n.parent).indent, -1) : -1;
    const ScalarExtent extent = scanScalar(m_text, offset, n.flow, parentIndent, value);
    if (!extent.verified || extent.end != offset + inserted.size() || extent.style != style)
        return false;
    const std::ptrdiff_t delta = std::ptrdiff_t(inserted.size()) - std::ptrdiff_t(removedSize);
    const int line = n.line;
    for (auto& other : m_tree.nodes) {
        if (&other == &n)
            continue;
        const bool after = other.valueBegin > offset;
        if (other.begin > offset)
            other.begin = std::size_t(std::ptrdiff_t(other.begin) + delta);
        if (after) {
            if (other.line == line)
                other.column += int(delta);
            other.valueBegin = std::size_t(std::ptrdiff_t(other.valueBegin) + delta);
        }
        if (other.end > offset)
            other.end = std::size_t(std::ptrdiff_t(other.end) + delta);
        for (auto& start : other.itemStarts)
            if (start > offset)
                start = std::size_t(std::ptrdiff_t(start) + delta);
    }
    n.end = extent.end;
    n.style = style;
    n.value = std::move(value);
    n.verified = true;
    const bool isNull =
        style == ScalarStyle::Plain && n.tag.empty() &&
        (n.value == "~" || n.value == "null" || n.value == "Null" || n.value == "NULL");
    n.kind = isNull ? NodeKind::Null : NodeKind::Scalar;
    ++m_revision;
    return true;
}

EditError ParamsDocument::setScalar(std::string_view path, std::string_view value, ValueHint hint)
{
    if (!isParsed())
        return *m_syntaxError;
    auto parsed = parseKeyPath(path);
    if (!parsed)
        return parsed.error;
    const Resolved r = resolvePath(m_tree, *parsed.value);
    if (r.node < 0)
        return located("params.no-key",
                       "no key '" + r.missing + "' in path '" + std::string(path) + "'");
    if (r.viaAlias) {
        const auto use = anchorOf(path);
        std::string message = "'" + std::string(path) + "' is read through an alias";
        if (use)
            message += " of &" + use->anchor + "; it is written at " + use->path + " (line " +
                       std::to_string(use->line) + "), and editing it there changes it for " +
                       std::to_string(use->usedBy.size()) + " alias(es)";
        return located("params.through-alias", message);
    }
    return apply([&] { return planSetScalar(m_text, m_tree, r.node, value, hint); },
                 "Set " + std::string(path));
}

EditError ParamsDocument::setScalarAt(int node, std::string_view value, ValueHint hint)
{
    if (!isParsed())
        return *m_syntaxError;
    return apply([&] { return planSetScalar(m_text, m_tree, node, value, hint); },
                 "Set " + formatKeyPath(pathOf(m_tree, node)));
}

EditError ParamsDocument::setScalarAtAnchor(std::string_view path, std::string_view value,
                                            ValueHint hint)
{
    if (!isParsed())
        return *m_syntaxError;
    const Resolved r = resolve(path);
    if (r.node < 0)
        return located("params.no-key",
                       "no key '" + r.missing + "' in path '" + std::string(path) + "'");
    if (!r.viaAlias)
        return setScalar(path, value, hint);
    return setScalarAt(r.node, value, hint);
}

std::optional<AnchorUse> ParamsDocument::anchorOf(std::string_view path) const
{
    const Resolved r = resolve(path);
    if (r.node < 0 || !r.viaAlias)
        return std::nullopt;
    AnchorUse use;
    use.node = r.node;
    use.path = formatKeyPath(pathOf(m_tree, r.node));
    use.line = m_tree.at(r.node).line;
    // The anchor is on the value or on the collection an alias names that holds it.
    int anchored = r.node;
    while (anchored >= 0 && m_tree.at(anchored).anchor.empty())
        anchored = m_tree.at(anchored).parent;
    if (anchored < 0)
        return use;
    use.anchor = m_tree.at(anchored).anchor;
    for (std::size_t i = 0; i < m_tree.nodes.size(); ++i) {
        const YamlNode& n = m_tree.nodes[i];
        if (n.kind == NodeKind::Alias && n.aliasTarget == anchored)
            use.usedBy.push_back(formatKeyPath(pathOf(m_tree, int(i))));
    }
    return use;
}

EditError ParamsDocument::addKey(std::string_view mapPath, std::string_view key,
                                 std::string_view value, ValueHint hint)
{
    if (!isParsed())
        return *m_syntaxError;
    int map = m_tree.root;
    if (!mapPath.empty()) {
        const Resolved r = resolve(mapPath);
        if (r.node < 0)
            return located("params.no-key",
                           "no key '" + r.missing + "' in path '" + std::string(mapPath) + "'");
        if (r.viaAlias)
            return located("params.through-alias",
                           "'" + std::string(mapPath) + "' comes from an anchor; edit it there");
        map = r.node;
    }
    std::string where = mapPath.empty() ? std::string() : std::string(mapPath) + ".";
    return apply([&] { return planAddKey(m_text, m_tree, map, key, value, hint); },
                 "Add " + where + escapeKey(key));
}

EditError ParamsDocument::setOrAdd(std::string_view path, std::string_view value, ValueHint hint)
{
    if (!isParsed())
        return *m_syntaxError;
    auto parsed = parseKeyPath(path);
    if (!parsed)
        return parsed.error;
    const KeyPath& full = *parsed.value;
    if (resolvePath(m_tree, full).node >= 0)
        return setScalar(path, value, hint);
    // Find the deepest existing prefix, then add the rest as nested mappings in one edit.
    std::size_t have = full.size();
    while (have > 0 &&
           resolvePath(m_tree, KeyPath(full.begin(), full.begin() + long(have - 1))).node < 0)
        --have;
    if (have == 0)
        return located("params.no-key", "cannot add '" + std::string(path) + "'");
    const KeyPath parentPath(full.begin(), full.begin() + long(have - 1));
    for (std::size_t i = have - 1; i < full.size(); ++i)
        if (full[i].isIndex)
            return located("params.no-key",
                           "cannot create list items by path; append to the list instead");
    const std::string parent = formatKeyPath(parentPath);
    if (have == full.size())
        return addKey(parent, full.back().key, value, hint);
    // Nested: add the first missing key with an empty mapping value, then recurse.
    const std::size_t undoDepth = m_undo.size();
    std::string sub = parent;
    for (std::size_t i = have - 1; i + 1 < full.size(); ++i) {
        if (auto err = addKey(sub, full[i].key, "", ValueHint::Raw)) {
            while (m_undo.size() > undoDepth)
                undo();
            return err;
        }
        sub += (sub.empty() ? "" : ".") + escapeKey(full[i].key);
    }
    if (auto err = addKey(sub, full.back().key, value, hint)) {
        while (m_undo.size() > undoDepth)
            undo();
        return err;
    }
    // Fold the steps into one undo entry.
    const std::string after = m_text;
    while (m_undo.size() > undoDepth)
        undo();
    m_redo.clear();
    TextEdit e = diffEdit(m_text, after);
    e.description = "Add " + std::string(path);
    applyRaw(e, true);
    m_undo.push_back(std::move(e));
    return std::nullopt;
}

EditError ParamsDocument::remove(std::string_view path)
{
    if (!isParsed())
        return *m_syntaxError;
    const Resolved r = resolve(path);
    if (r.node < 0 || r.parentMap < 0)
        return located("params.no-key", "nothing at '" + std::string(path) + "' to remove");
    if (r.viaAlias)
        return located("params.through-alias",
                       "'" + std::string(path) + "' comes from an anchor; remove it there");
    return apply([&] { return planRemoveEntry(m_text, m_tree, r.parentMap, r.entry); },
                 "Remove " + std::string(path));
}

EditError ParamsDocument::appendItem(std::string_view listPath, std::string_view value,
                                     ValueHint hint)
{
    if (!isParsed())
        return *m_syntaxError;
    const Resolved r = resolve(listPath);
    if (r.node < 0)
        return located("params.no-key", "no list at '" + std::string(listPath) + "'");
    if (r.viaAlias)
        return located("params.through-alias",
                       "'" + std::string(listPath) + "' comes from an anchor; edit it there");
    return apply([&] { return planAppendItem(m_text, m_tree, r.node, value, hint); },
                 "Append to " + std::string(listPath));
}

void ParamsDocument::setText(std::string_view text, std::string description)
{
    TextEdit e = diffEdit(m_text, text);
    if (e.removed.empty() && e.inserted.empty())
        return;
    e.description = std::move(description);
    applyRaw(e, true);
    m_undo.push_back(std::move(e));
    m_redo.clear();
}

std::string ParamsDocument::undoDescription() const
{
    return m_undo.empty() ? std::string() : m_undo.back().description;
}
std::string ParamsDocument::redoDescription() const
{
    return m_redo.empty() ? std::string() : m_redo.back().description;
}

bool ParamsDocument::undo()
{
    if (m_undo.empty())
        return false;
    TextEdit e = std::move(m_undo.back());
    m_undo.pop_back();
    applyRaw(e, false);
    m_redo.push_back(std::move(e));
    return true;
}

bool ParamsDocument::redo()
{
    if (m_redo.empty())
        return false;
    TextEdit e = std::move(m_redo.back());
    m_redo.pop_back();
    applyRaw(e, true);
    m_undo.push_back(std::move(e));
    return true;
}

bool ParamsDocument::changedOnDisk() const
{
    if (m_path.empty())
        return false;
    return !currentStamp(m_path, m_stamp).sameContentAs(m_stamp);
}

std::optional<Diagnostic> ParamsDocument::save(bool force)
{
    if (m_path.empty())
        return located("params.no-file", "this document has no file to save to");
    if (!force && m_stamp.exists && changedOnDisk())
        return located("params.changed-on-disk",
                       "the file changed on disk since it was loaded; reload it or save anyway");
    if (auto err = writeFileAtomically(m_path, m_text))
        return err;
    m_savedText = m_text;
    m_stamp = stampOf(m_path, m_text);
    return std::nullopt;
}

std::optional<Diagnostic> ParamsDocument::saveAs(const std::filesystem::path& path)
{
    if (auto err = writeFileAtomically(path, m_text))
        return err;
    m_path = path;
    m_savedText = m_text;
    m_stamp = stampOf(m_path, m_text);
    reparse(); // diagnostics now name the new file
    return std::nullopt;
}

std::optional<Diagnostic> ParamsDocument::reload()
{
    if (m_path.empty())
        return located("params.no-file", "this document has no file to reload");
    auto bytes = readFile(m_path);
    if (!bytes)
        return bytes.error;
    m_text = std::move(*bytes.value);
    m_savedText = m_text;
    m_stamp = stampOf(m_path, m_text);
    m_undo.clear();
    m_redo.clear();
    reparse();
    return std::nullopt;
}

void ParamsDocument::revert()
{
    setText(m_savedText, "Revert");
}

} // namespace portolan::params
