#include "core/common/json.h"

#include <algorithm>

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

std::optional<JsonError> parseJson(std::string_view text, nlohmann::json& out)
{
    try {
        out = nlohmann::json::parse(text);
        return std::nullopt;
    } catch (const nlohmann::json::parse_error& e) {
        const auto pos = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        std::string what = e.what();
        if (const auto p = what.find("parse error"); p != std::string::npos)
            what = what.substr(p);
        return JsonError{what, lineColumnAt(text, pos), pos + 1 >= text.size()};
    } catch (const nlohmann::json::exception& e) {
        // "[json.exception.out_of_range.406] number overflow parsing '1E400'": the quoted
        // number is in the text, which gives the place.
        std::string what = e.what();
        if (const auto p = what.find("] "); p != std::string::npos)
            what = what.substr(p + 2);
        std::size_t pos = 0;
        const auto open = what.find('\'');
        const auto close = what.rfind('\'');
        if (open != std::string::npos && close > open + 1)
            pos = std::min(text.find(what.substr(open + 1, close - open - 1)), text.size());
        return JsonError{what, lineColumnAt(text, pos), false};
    }
}

std::string stringMember(const nlohmann::json& object, const char* key, const std::string& fallback)
{
    if (!object.is_object())
        return fallback;
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

} // namespace portolan
