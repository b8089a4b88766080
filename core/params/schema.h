#pragma once

// Schemas for config files, written as YAML data in resources/schemas/ (one file per layout).
// The language, per node:
//   type: int | float | bool | string | path | enum | list | map | any | one_of | null
//         (or a list of these, meaning any of them)
//   description: one line        default: value         deprecated: why (a warning when used)
//   min, max: numeric range      values: [enum values]  case_insensitive: true (enum)
//   nullable: true               required: true (the key must be present in its mapping)
//   format: scientific (a float shown in scientific notation, such as learning rates)
//   keys: {name: node}           additional_keys: true | false | warning | info
//   values: node (schema of keys not listed in `keys`)
//   items: node, min_items: n    options: [nodes] (one_of)     ref: name (in `definitions:`)
// A file has: name, title, detect: {keys: [...], min_matches: n, require: [...], exclude: [...],
// nested_keys: [...] (keys of the top-level mappings, for files of named configurations)},
// yaml_loader: pyyaml | yaml12, nulls_allowed: true|false, definitions: {...}, root: node.

#include "core/common/diagnostic.h"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace portolan::params {

enum class SchemaType
{
    Any,
    Int,
    Float,
    Bool,
    String,
    Path,
    Enum,
    List,
    Map,
    OneOf,
    Null
};
enum class ExtraKeys
{
    Allow,
    Info,
    Warning,
    Error
};

std::string_view schemaTypeName(SchemaType t);

struct SchemaNode
{
    SchemaType type = SchemaType::Any;
    std::string description;
    std::string defaultValue; // as YAML text; empty when none
    bool hasDefault = false;
    std::optional<double> min;
    std::optional<double> max;
    std::vector<std::string> values; // enum
    bool caseInsensitive = false;
    bool nullable = false;
    bool required = false;
    std::string deprecated; // non-empty: using it is a warning with this message
    bool scientific = false;
    // maps
    std::vector<std::pair<std::string, std::shared_ptr<SchemaNode>>> keys; // in schema order
    ExtraKeys additionalKeys = ExtraKeys::Allow;
    std::shared_ptr<SchemaNode> additionalValues;
    // lists
    std::shared_ptr<SchemaNode> items;
    std::size_t minItems = 0;
    // one_of (also used for `type: [a, b]`)
    std::vector<std::shared_ptr<SchemaNode>> options;
    // `ref: name`: this node stands for a definition (owned by the Schema; refs may recurse).
    // Its own description, required, nullable and deprecated add to the definition's.
    const SchemaNode* ref = nullptr;

    const SchemaNode* key(std::string_view name) const;
    // The node that says what the value is: the definition behind a ref.
    const SchemaNode& target() const;
    const std::string& describe() const; // own description, else the definition's
};

struct LayoutDetection
{
    std::vector<std::string> keys; // top-level keys that suggest this layout
    std::size_t minMatches = 1;
    std::vector<std::string> require; // all must be present
    std::vector<std::string> exclude; // none may be present
    // Keys one level down: files of named configurations (Graphcore applications keep one full
    // configuration under each top-level key). Scores the best-matching top-level mapping.
    std::vector<std::string> nestedKeys;
};

struct Schema
{
    std::string name; // file stem: "modelzoo-classic"
    std::string title;
    bool pyyamlLoader = false; // configs read by PyYAML (YAML 1.1): `1e-5` is a string there
    bool nullsAllowed = false; // `key: null` means "use the default" for every key
    LayoutDetection detect;
    std::shared_ptr<SchemaNode> root;
    std::map<std::string, std::shared_ptr<SchemaNode>> definitions;
};

Result<Schema> loadSchema(const std::filesystem::path& file);
Result<Schema> parseSchema(const std::string& yamlText, const std::string& name);

// All schemas in a folder (resources/schemas by default), sorted by name.
struct SchemaSet
{
    std::vector<Schema> schemas;
    std::vector<Diagnostic> errors;
    const Schema* find(std::string_view name) const;
};
SchemaSet loadSchemas(const std::filesystem::path& dir);
SchemaSet loadBuiltinSchemas();

} // namespace portolan::params
