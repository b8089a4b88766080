#include "core/params/params_access.h"

#include <cmath>
#include <sstream>

namespace portolan::params {

Diagnostic diagnosticAt(const YAML::Node& node, const std::string& file, const std::string& code,
                        const std::string& message)
{
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = code;
    d.message = message;
    d.location.file = file;
    if (node.IsDefined()) {
        const YAML::Mark mark = node.Mark();
        if (mark.line >= 0) {
            d.location.line = mark.line + 1;
            d.location.column = mark.column + 1;
        }
    }
    return d;
}

YAML::Node loadParamsFile(const std::string& file)
{
    try {
        return YAML::LoadFile(file);
    } catch (const YAML::BadFile&) {
        Diagnostic d;
        d.code = "runtime.params-unreadable";
        d.message = "cannot read the params file";
        d.location.file = file;
        throw ParamsError(d);
    } catch (const YAML::Exception& e) {
        Diagnostic d;
        d.code = "runtime.params-syntax";
        d.message = "YAML syntax error: " + e.msg;
        d.location.file = file;
        if (e.mark.line >= 0) {
            d.location.line = e.mark.line + 1;
            d.location.column = e.mark.column + 1;
        }
        throw ParamsError(d);
    }
}

// YAML::Node has no move constructor: the node is copied once (a handle to the same data).
ParamsSection::ParamsSection(const YAML::Node& node, std::string file, std::string path)
    : m_node(node), m_file(std::move(file)), m_path(std::move(path))
{}

bool ParamsSection::has(const std::string& key) const
{
    return m_node.IsMap() && m_node[key].IsDefined() && !m_node[key].IsNull();
}

std::string ParamsSection::keyPath(const std::string& key) const
{
    return m_path.empty() ? key : m_path + "." + key;
}

ParamsSection ParamsSection::child(const std::string& key) const
{
    if (!has(key))
        return ParamsSection(YAML::Node(YAML::NodeType::Map), m_file, keyPath(key));
    const YAML::Node n = m_node[key];
    if (!n.IsMap())
        failAt(n, "runtime.params-type", keyPath(key) + " must be a mapping");
    return ParamsSection(n, m_file, keyPath(key));
}

void ParamsSection::fail(const std::string& key, const std::string& code,
                         const std::string& message) const
{
    const YAML::Node at = (m_node.IsMap() && m_node[key].IsDefined()) ? m_node[key] : m_node;
    failAt(at, code, message);
}

void ParamsSection::failAt(const YAML::Node& at, const std::string& code,
                           const std::string& message) const
{
    throw ParamsError(diagnosticAt(at, m_file, code, message));
}

YAML::Node ParamsSection::value(const std::string& key) const
{
    YAML::Node n = m_node[key];
    // Determined hyperparameters may be written as {type: const, val: x}.
    if (n.IsMap() && n["type"].IsDefined()) {
        const std::string type = n["type"].as<std::string>("");
        if (type == "const" && n["val"].IsDefined())
            return n["val"];
        failAt(n, "runtime.params-searched",
               keyPath(key) + " is a searched hyperparameter (type: " + type +
                   "); a run needs one value, use const.yaml or give a const");
    }
    return n;
}

int64_t ParamsSection::integer(const std::string& key, std::optional<int64_t> fallback, int64_t min,
                               int64_t max) const
{
    if (!has(key)) {
        if (fallback)
            return *fallback;
        fail(key, "runtime.params-missing", keyPath(key) + " is required");
    }
    const YAML::Node n = value(key);
    int64_t v = 0;
    try {
        if (!n.IsScalar())
            throw YAML::Exception(n.Mark(), "not a scalar");
        // Accept 1e3-style integers that YAML writers produce, but not 2.5.
        const double d = n.as<double>();
        if (std::floor(d) != d || std::fabs(d) > 9.0e15)
            throw YAML::Exception(n.Mark(), "not an integer");
        v = static_cast<int64_t>(d);
    } catch (const YAML::Exception&) {
        failAt(n, "runtime.params-type",
               keyPath(key) + " must be an integer, not '" + (n.IsScalar() ? n.Scalar() : "") +
                   "'");
    }
    if (v < min || v > max) {
        std::ostringstream s;
        s << keyPath(key) << " = " << v << " is out of range";
        if (min != INT64_MIN && max != INT64_MAX)
            s << " [" << min << ", " << max << "]";
        else if (min != INT64_MIN)
            s << " (must be >= " << min << ")";
        else
            s << " (must be <= " << max << ")";
        failAt(n, "runtime.params-range", s.str());
    }
    return v;
}

double ParamsSection::number(const std::string& key, std::optional<double> fallback, double min,
                             double max) const
{
    if (!has(key)) {
        if (fallback)
            return *fallback;
        fail(key, "runtime.params-missing", keyPath(key) + " is required");
    }
    const YAML::Node n = value(key);
    double v = 0;
    try {
        if (!n.IsScalar())
            throw YAML::Exception(n.Mark(), "not a scalar");
        v = n.as<double>();
    } catch (const YAML::Exception&) {
        failAt(n, "runtime.params-type",
               keyPath(key) + " must be a number, not '" + (n.IsScalar() ? n.Scalar() : "") + "'");
    }
    if (!std::isfinite(v) || v < min || v > max) {
        std::ostringstream s;
        s << keyPath(key) << " = " << n.Scalar() << " is out of range [" << min << ", " << max
          << "]";
        failAt(n, "runtime.params-range", s.str());
    }
    return v;
}

bool ParamsSection::boolean(const std::string& key, std::optional<bool> fallback) const
{
    if (!has(key)) {
        if (fallback)
            return *fallback;
        fail(key, "runtime.params-missing", keyPath(key) + " is required");
    }
    const YAML::Node n = value(key);
    try {
        return n.as<bool>();
    } catch (const YAML::Exception&) {
        failAt(n, "runtime.params-type",
               keyPath(key) + " must be true or false, not '" + (n.IsScalar() ? n.Scalar() : "") +
                   "'");
    }
}

std::string ParamsSection::text(const std::string& key, std::optional<std::string> fallback,
                                const std::vector<std::string>& choices) const
{
    std::string v;
    if (!has(key)) {
        if (!fallback)
            fail(key, "runtime.params-missing", keyPath(key) + " is required");
        v = *fallback;
    } else {
        const YAML::Node n = value(key);
        if (!n.IsScalar())
            failAt(n, "runtime.params-type", keyPath(key) + " must be a string");
        v = n.Scalar();
    }
    if (!choices.empty()) {
        bool found = false;
        for (const auto& c : choices)
            found = found || c == v;
        if (!found) {
            std::string list;
            for (const auto& c : choices)
                list += (list.empty() ? "" : ", ") + c;
            fail(key, "runtime.params-choice",
                 keyPath(key) + " = '" + v + "' is not one of: " + list);
        }
    }
    return v;
}

std::vector<int64_t> ParamsSection::integers(const std::string& key) const
{
    const YAML::Node n = value(key);
    if (!n.IsSequence() || n.size() == 0)
        failAt(n, "runtime.params-type", keyPath(key) + " must be a non-empty list of integers");
    std::vector<int64_t> out;
    for (std::size_t i = 0; i < n.size(); ++i) {
        YAML::Node wrapper(YAML::NodeType::Map);
        wrapper["v"] = n[i];
        ParamsSection item(wrapper, m_file, keyPath(key) + "[" + std::to_string(i) + "]");
        try {
            out.push_back(item.integer("v", {}, 1));
        } catch (const ParamsError& e) {
            // Re-position at the list element itself.
            Diagnostic d = diagnosticAt(n[i], m_file, e.diagnostic().code, "");
            d.message = keyPath(key) + "[" + std::to_string(i) + "] must be a positive integer";
            throw ParamsError(d);
        }
    }
    return out;
}

} // namespace portolan::params
