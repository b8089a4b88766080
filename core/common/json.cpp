#include "core/common/json.h"

namespace portolan {

nlohmann::json toJson(const SourceLocation& location)
{
    nlohmann::json j{{"file", location.file}};
    if (location.line > 0)
        j["line"] = location.line;
    if (location.column > 0)
        j["column"] = location.column;
    return j;
}

nlohmann::json toJson(const Diagnostic& d)
{
    return {{"severity", severityName(d.severity)},
            {"code", d.code},
            {"message", d.message},
            {"location", toJson(d.location)}};
}

} // namespace portolan
