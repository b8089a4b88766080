#pragma once

// Plans minimal text edits on a parsed YAML text. Each function returns the one replacement
// (offset, bytes removed, bytes inserted) that performs the edit and touches nothing else.

#include "core/common/diagnostic.h"
#include "core/params/yaml_tree.h"

#include <string>
#include <string_view>

namespace portolan::params {

struct TextEdit
{
    std::size_t offset = 0;
    std::string removed;
    std::string inserted;
    std::string description; // for the undo menu: "Set optimizer.learning_rate"
};

// How a new value's text is meant: Auto writes it as YAML reads it (0.01 is a number); String
// keeps it a string (quoting `1e-3` or `true` when needed); Raw inserts it as YAML text
// (`[1, 2]`), which must then parse.
enum class ValueHint
{
    Auto,
    String,
    Raw
};

Result<TextEdit> planSetScalar(std::string_view text, const YamlTree& tree, int node,
                               std::string_view value, ValueHint hint);
Result<TextEdit> planAddKey(std::string_view text, const YamlTree& tree, int map,
                            std::string_view key, std::string_view value, ValueHint hint);
Result<TextEdit> planRemoveEntry(std::string_view text, const YamlTree& tree, int collection,
                                 int entry);
Result<TextEdit> planAppendItem(std::string_view text, const YamlTree& tree, int sequence,
                                std::string_view value, ValueHint hint);

// The smallest single replacement turning `before` into `after` (common prefix and suffix).
TextEdit diffEdit(std::string_view before, std::string_view after);

} // namespace portolan::params
