#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace portolan {

// A position in a text file. Lines and columns are 1-based, as editors and compilers print them;
// 0 means "unknown".
struct SourceLocation
{
    std::string file;
    int line = 0;
    int column = 0;

    bool hasPosition() const { return line > 0; }
    // "file:line:column", "file:line" or "file", whichever is known.
    std::string toString() const;
};

enum class Severity : std::uint8_t { Info, Warning, Error };

std::string_view severityName(Severity s);
std::optional<Severity> severityFromName(std::string_view name);

// A message about the user's input, always with as much of a position as is known.
struct Diagnostic
{
    Severity severity = Severity::Error;
    std::string code;    // stable identifier, for example "project.binary-file"
    std::string message; // one sentence, for a person
    SourceLocation location;

    std::string toString() const; // "file:line:column: error: message [code]"
};

// The result of an operation that may fail with one positioned message.
template <typename T> struct Result
{
    std::optional<T> value;
    Diagnostic error;

    static Result ok(T v) { return Result{std::move(v), {}}; }
    static Result fail(Diagnostic d) { return Result{std::nullopt, std::move(d)}; }
    explicit operator bool() const { return value.has_value(); }
};

// Long work reports progress through this; returning false asks the work to stop.
using ProgressCallback = std::function<bool(std::uint64_t done, std::uint64_t total)>;

} // namespace portolan
