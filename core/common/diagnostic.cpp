#include "core/common/diagnostic.h"

namespace portolan {

std::string SourceLocation::toString() const
{
    std::string s = file;
    if (line > 0) {
        s += ':' + std::to_string(line);
        if (column > 0)
            s += ':' + std::to_string(column);
    }
    return s;
}

std::string_view severityName(Severity s)
{
    switch (s) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Error:
        return "error";
    }
    return "error";
}

std::optional<Severity> severityFromName(std::string_view name)
{
    if (name == "info" || name == "note")
        return Severity::Info;
    if (name == "warning")
        return Severity::Warning;
    if (name == "error")
        return Severity::Error;
    return std::nullopt;
}

std::string Diagnostic::toString() const
{
    std::string s;
    const std::string where = location.toString();
    if (!where.empty())
        s += where + ": ";
    s += std::string(severityName(severity)) + ": " + message;
    if (!code.empty())
        s += " [" + code + "]";
    return s;
}

} // namespace portolan
