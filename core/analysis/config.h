#pragma once

#include "core/common/diagnostic.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::analysis {

enum class ConfigKind : std::uint8_t
{
    ModelZooParams,       // train_input / eval_input / model / optimizer / runconfig
    DeterminedExperiment, // entrypoint / searcher / hyperparameters
    TrainerParams,        // trainer: {init: ..., fit: ...} (Model Zoo R2.3 on)
    OtherYaml,
};
std::string_view configKindName(ConfigKind k);

// One key of a YAML mapping, flattened: "model.hidden_size" with its position and scalar value.
struct ConfigKey
{
    std::string path;  // dotted path from the document root
    std::string value; // scalar text; empty for mappings and sequences
    bool isMapping = false;
    int line = 0; // 1-based, of the key
    int column = 0;
    int depth = 0; // 1 for top-level sections
};

struct ConfigFile
{
    std::string path; // relative to the project root
    ConfigKind kind = ConfigKind::OtherYaml;
    std::vector<ConfigKey> keys; // in document order
    std::optional<Diagnostic> parseError;

    const ConfigKey* find(std::string_view dottedPath) const;
    bool hasSection(std::string_view name) const { return find(name) != nullptr; }
    // Direct children of a mapping key ("" = top level).
    std::vector<const ConfigKey*> children(std::string_view dottedPath) const;
};

// The names of a file of named configurations, in file order: at least two top-level keys, each a
// mapping of the same shape (half its child keys or more shared with another, or merged from one
// with `<<:`), such as a Graphcore application's configs.yaml whose code runs one of them by
// name (`yaml.load(f)[args.config]`). Empty for a file of sections (model:, optimizer:, ...),
// whose top-level mappings differ in shape.
std::vector<std::string> namedConfigurations(const ConfigFile& file);

// Reads a YAML file's text. A malformed file gives a ConfigFile with parseError set (at
// line:column) and no keys.
ConfigFile readConfig(std::string_view text, const std::string& path);

} // namespace portolan::analysis
