#pragma once

// Checks a parsed config against a schema: type errors, unknown keys (with "did you mean"),
// out-of-range values, enum values, missing required keys and deprecated keys, each at the
// line:column of the offending key or value.

#include "core/common/diagnostic.h"
#include "core/params/schema.h"
#include "core/params/yaml_tree.h"

#include <string>
#include <vector>

namespace portolan::params {

struct ValidationReport
{
    std::string schema;    // the schema used, empty when none fits
    bool detected = false; // the schema was chosen by detection, not by the caller
    std::vector<Diagnostic> diagnostics;

    int count(Severity s) const;
    int errors() const { return count(Severity::Error); }
};

// The schema whose `detect` rules fit the top-level keys best, or nullptr ("unknown layout").
const Schema* detectSchema(const YamlTree& tree, const SchemaSet& schemas);

ValidationReport validate(const YamlTree& tree, const Schema& schema, const std::string& fileName);
// Detects the layout first; an unknown layout gives one info diagnostic and no checks.
ValidationReport validateDetected(const YamlTree& tree, const SchemaSet& schemas,
                                  const std::string& fileName);

// The schema node describing `path` (as `a.b[0].c`), for forms and tooltips; nullptr if none.
const SchemaNode* schemaFor(const Schema& schema, const YamlTree& tree, int node);

// Levenshtein distance, for "did you mean".
std::size_t editDistance(std::string_view a, std::string_view b);
// The closest candidate within a distance that still looks like a typo, or empty.
std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates);

} // namespace portolan::params
