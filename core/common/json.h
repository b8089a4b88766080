#pragma once

#include "core/common/diagnostic.h"
#include "core/common/text.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace portolan {

nlohmann::json toJson(const SourceLocation& location);
nlohmann::json toJson(const Diagnostic& diagnostic);

// Why a JSON text was refused: nlohmann's message from "parse error" on, where (1-based line and
// column of the offending byte), and whether the text merely ended early.
struct JsonError
{
    std::string message;
    LineColumn at;
    bool truncated = false;
};
// Parses `text` into `out`. Every refusal is returned, never thrown: syntax errors, and also
// numbers beyond a double's range (nlohmann reports those as out_of_range, not parse_error; a
// report with one ended the program, found by fuzz_report), located at the number.
std::optional<JsonError> parseJson(std::string_view text, nlohmann::json& out);

// The member `key` of `object` when both are what they should be (an object, a string member);
// `fallback` otherwise. nlohmann's value() throws type_error for a member of another type (a
// capture whose "format" was a number ended the program, found by fuzz_capture).
std::string stringMember(const nlohmann::json& object, const char* key,
                         const std::string& fallback = {});

} // namespace portolan
