#pragma once

#include "core/common/diagnostic.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace portolan::guides {

// A text edit on one file: replace bytes [start, end) with `replacement`. `expected` is the text
// the edit was computed against, so that a stale edit (the file changed since the analysis) is
// refused instead of corrupting the file. An edit that creates a file (the file must not exist)
// is the file's only edit, with start = end = 0 and nothing expected; one that removes a file is
// its only edit too, and expects the whole file.
struct TextEdit
{
    std::string file; // relative to the project root
    std::uint32_t start = 0;
    std::uint32_t end = 0;
    std::string expected;
    std::string replacement;
    bool createsFile = false;
    bool removesFile = false;
};

// A mechanical fix: one or more edits, in one or more files, applied together (all or none).
struct Fix
{
    std::string description; // "replace float(\"-inf\") with torch.finfo(torch.float16).min"
    std::vector<TextEdit> edits;
};

struct Finding
{
    std::string checkId;
    std::string stepId;
    Severity severity = Severity::Warning;
    std::string message;
    SourceLocation location; // file relative to the project root, 1-based line:column
    // Further places the same finding is about (every use of one command-line flag), in order.
    std::vector<SourceLocation> related;
    std::string hint;
    std::optional<Fix> fix;

    std::string toString() const; // "file:line:column: warning: message [check-id]"
};

} // namespace portolan::guides
