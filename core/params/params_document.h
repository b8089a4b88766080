#pragma once

// An editable params.yaml (or any YAML config): the original bytes, the parsed tree, minimal
// edits with undo/redo, and an atomic save that refuses to overwrite a file changed on disk.

#include "core/common/diagnostic.h"
#include "core/params/edit_ops.h"
#include "core/params/file_stamp.h"
#include "core/params/key_path.h"
#include "core/params/yaml_tree.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::params {

// nullopt on success, otherwise why the edit was refused (the text is then unchanged).
using EditError = std::optional<Diagnostic>;

// Where a value reached through an alias is written, and who else reads it.
struct AnchorUse
{
    int node = -1;                   // the value itself, at its anchor
    std::string path;                // its own key path
    std::string anchor;              // the anchor's name (on the value or an enclosing node)
    int line = 0;                    // where the value is written
    std::vector<std::string> usedBy; // key paths of the aliases of that anchor
};

class ParamsDocument
{
public:
    ParamsDocument() = default;

    // Reads and parses a file. Fails only when it cannot be read; a YAML syntax error leaves a
    // document whose syntaxError() is set (so a text view can still show and fix it).
    static Result<ParamsDocument> open(const std::filesystem::path& path);
    static ParamsDocument fromText(std::string text, std::string name = {});

    const std::string& text() const { return m_text; }
    const std::filesystem::path& path() const { return m_path; }
    std::string displayName() const;
    const std::optional<Diagnostic>& syntaxError() const { return m_syntaxError; }
    bool isParsed() const { return !m_syntaxError.has_value(); }
    const YamlTree& tree() const { return m_tree; }
    // Increases on every change of the text (edits, undo, redo, reload).
    std::uint64_t revision() const { return m_revision; }

    Resolved resolve(std::string_view path) const;
    int find(std::string_view path) const { return resolve(path).node; }
    std::optional<std::string> get(std::string_view path) const;

    // Edits; each is one undo step.
    EditError setScalar(std::string_view path, std::string_view value,
                        ValueHint hint = ValueHint::Auto);
    EditError setScalarAt(int node, std::string_view value, ValueHint hint = ValueHint::Auto);
    // A value read through an alias (`*base`, or a `<<` merge) belongs to its anchor: setScalar
    // refuses it and says so. This edits it at the anchor, which changes it for every alias of
    // that anchor (anchorOf lists them, for the user to confirm).
    EditError setScalarAtAnchor(std::string_view path, std::string_view value,
                                ValueHint hint = ValueHint::Auto);
    std::optional<AnchorUse> anchorOf(std::string_view path) const;
    // Sets the value at `path`, adding the last key (and missing parent mappings) if needed.
    EditError setOrAdd(std::string_view path, std::string_view value,
                       ValueHint hint = ValueHint::Auto);
    EditError addKey(std::string_view mapPath, std::string_view key, std::string_view value,
                     ValueHint hint = ValueHint::Auto);
    EditError remove(std::string_view path); // a key or a list item (`a.b[2]`)
    EditError appendItem(std::string_view listPath, std::string_view value,
                         ValueHint hint = ValueHint::Auto);
    // Replaces the whole text (the YAML text view); stored as the minimal edit. The text may
    // not parse; syntaxError() then says where.
    void setText(std::string_view text, std::string description = "Edit text");

    bool canUndo() const { return !m_undo.empty(); }
    bool canRedo() const { return !m_redo.empty(); }
    std::string undoDescription() const;
    std::string redoDescription() const;
    bool undo();
    bool redo();

    bool isModified() const { return m_text != m_savedText; }
    // The file on disk differs from what was loaded or last saved.
    bool changedOnDisk() const;
    // Atomic save. Refuses (code "params.changed-on-disk") when the file changed on disk since
    // it was loaded, unless `force`.
    std::optional<Diagnostic> save(bool force = false);
    std::optional<Diagnostic> saveAs(const std::filesystem::path& path);
    // Drops edits and history and re-reads the file.
    std::optional<Diagnostic> reload();
    // Back to the text last loaded or saved, as one undoable edit.
    void revert();

private:
    EditError apply(const std::function<Result<TextEdit>()>& plan, std::string description);
    void applyRaw(const TextEdit& e, bool forward);
    void reparse();
    // An edit that replaces exactly one scalar with another single-line scalar only moves the
    // bytes after it: patch the tree instead of re-parsing a large file. False: re-parse.
    bool patchScalar(std::size_t offset, const std::string& removed, const std::string& inserted);
    Diagnostic located(std::string code, std::string message) const;

    std::filesystem::path m_path;
    std::string m_name;
    std::string m_text;
    std::string m_savedText;
    FileStamp m_stamp;
    YamlTree m_tree;
    std::optional<Diagnostic> m_syntaxError;
    std::vector<TextEdit> m_undo;
    std::vector<TextEdit> m_redo;
    std::uint64_t m_revision = 0;
};

} // namespace portolan::params
