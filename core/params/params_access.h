#pragma once
// Positioned reading of params.yaml values, shared by the runtime and the model families. Every
// failure becomes a ParamsError carrying a Diagnostic at the offending node's line:column
// (YAML::Node::Mark()), so that callers can turn it into a Result in one place.
#include "core/common/diagnostic.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace portolan::params {

class ParamsError : public std::runtime_error
{
public:
    explicit ParamsError(Diagnostic d) : std::runtime_error(d.message), m_diagnostic(std::move(d))
    {}
    const Diagnostic& diagnostic() const { return m_diagnostic; }

private:
    Diagnostic m_diagnostic;
};

// One section of a params file, with the file name for messages and a dotted path ("model") for
// naming keys ("model.depth").
class ParamsSection
{
public:
    ParamsSection(const YAML::Node& node, std::string file, std::string path);

    bool has(const std::string& key) const;
    const YAML::Node& node() const { return m_node; }
    const std::string& file() const { return m_file; }
    const std::string& path() const { return m_path; }
    std::string keyPath(const std::string& key) const;
    ParamsSection child(const std::string& key) const; // empty section when absent

    // Typed reads. `fallback` absent means the key is required. Determined's `{type: const, val:
    // x}` form is unwrapped; searched hyperparameters are rejected with a message.
    int64_t integer(const std::string& key, std::optional<int64_t> fallback = {},
                    int64_t min = INT64_MIN, int64_t max = INT64_MAX) const;
    double number(const std::string& key, std::optional<double> fallback = {}, double min = -1e300,
                  double max = 1e300) const;
    bool boolean(const std::string& key, std::optional<bool> fallback = {}) const;
    std::string text(const std::string& key, std::optional<std::string> fallback = {},
                     const std::vector<std::string>& choices = {}) const;
    std::vector<int64_t> integers(const std::string& key) const;

    // A Diagnostic at `key` (or at the section itself when the key is absent).
    [[noreturn]] void fail(const std::string& key, const std::string& code,
                           const std::string& message) const;
    [[noreturn]] void failAt(const YAML::Node& at, const std::string& code,
                             const std::string& message) const;

private:
    YAML::Node value(const std::string& key) const;

    YAML::Node m_node;
    std::string m_file;
    std::string m_path;
};

// Diagnostic positioned at a node (1-based line and column), or at the file when the node has no
// mark.
Diagnostic diagnosticAt(const YAML::Node& node, const std::string& file, const std::string& code,
                        const std::string& message);

// Loads a YAML file; a syntax error becomes a positioned ParamsError.
YAML::Node loadParamsFile(const std::string& file);

} // namespace portolan::params
