#include "core/guides/fix.h"

#include "core/common/atomic_file.h"

#include <algorithm>
#include <sstream>

namespace portolan::guides {

namespace {

Diagnostic fixError(const std::string& file, const std::string& message)
{
    Diagnostic d;
    d.code = "fix.failed";
    d.message = message;
    d.location.file = file;
    return d;
}

std::vector<std::string> lines(std::string_view text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto nl = text.find('\n', start);
        if (nl == std::string_view::npos) {
            out.emplace_back(text.substr(start));
            break;
        }
        out.emplace_back(text.substr(start, nl - start + 1));
        start = nl + 1;
    }
    return out;
}

} // namespace

Result<std::string> applyEdits(std::string_view text, const Fix& fix)
{
    std::vector<const TextEdit*> edits;
    for (const auto& e : fix.edits)
        edits.push_back(&e);
    std::sort(edits.begin(), edits.end(), [](auto* a, auto* b) { return a->start > b->start; });
    std::string out(text);
    std::uint32_t limit = static_cast<std::uint32_t>(text.size());
    for (const TextEdit* e : edits) {
        if (e->start > e->end || e->end > limit)
            return Result<std::string>::fail(
                fixError(e->file, "the fix's edits overlap or lie outside the file"));
        if (text.substr(e->start, e->end - e->start) != e->expected)
            return Result<std::string>::fail(fixError(
                e->file, "the file changed since it was analysed; analyse it again before fixing"));
        out.replace(e->start, e->end - e->start, e->replacement);
        limit = e->start;
    }
    return Result<std::string>::ok(std::move(out));
}

std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& path)
{
    const auto a = lines(before), b = lines(after);
    // Fixes are local, so the changed region is what lies between the common head and tail.
    std::size_t head = 0;
    while (head < a.size() && head < b.size() && a[head] == b[head])
        ++head;
    std::size_t tail = 0;
    while (tail < a.size() - head && tail < b.size() - head &&
           a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
        ++tail;
    if (head == a.size() && head == b.size())
        return {};
    constexpr std::size_t context = 3;
    const std::size_t from = head > context ? head - context : 0;
    const std::size_t aEnd = std::min(a.size(), a.size() - tail + context);
    const std::size_t bEnd = std::min(b.size(), b.size() - tail + context);
    std::ostringstream out;
    out << "--- a/" << path << "\n+++ b/" << path << "\n";
    const std::size_t aCount = aEnd - from, bCount = bEnd - from;
    out << "@@ -" << (aCount ? from + 1 : from) << "," << aCount << " +"
        << (bCount ? from + 1 : from) << "," << bCount << " @@\n";
    auto put = [&](char sign, const std::string& line) {
        out << sign << line;
        if (line.empty() || line.back() != '\n')
            out << "\n\\ No newline at end of file\n";
    };
    for (std::size_t i = from; i < head; ++i)
        put(' ', a[i]);
    for (std::size_t i = head; i < a.size() - tail; ++i)
        put('-', a[i]);
    for (std::size_t i = head; i < b.size() - tail; ++i)
        put('+', b[i]);
    for (std::size_t i = a.size() - tail; i < aEnd; ++i)
        put(' ', a[i]);
    return out.str();
}

namespace {

Result<std::pair<std::string, std::string>> beforeAfter(const std::filesystem::path& root,
                                                        const Fix& fix)
{
    using R = Result<std::pair<std::string, std::string>>;
    if (fix.edits.empty())
        return R::fail(fixError("", "the fix has no edits"));
    const std::string& file = fix.edits.front().file;
    for (const auto& e : fix.edits)
        if (e.file != file)
            return R::fail(fixError(file, "a fix edits one file only"));
    if (file.empty() || file.front() == '/' || file.find("..") != std::string::npos)
        return R::fail(fixError(file, "the fix names a file outside the project"));
    auto text = readFile(root / file);
    if (!text)
        return R::fail(text.error);
    auto after = applyEdits(*text.value, fix);
    if (!after)
        return R::fail(after.error);
    return R::ok({std::move(*text.value), std::move(*after.value)});
}

} // namespace

Result<std::string> previewFix(const std::filesystem::path& projectRoot, const Fix& fix)
{
    auto ba = beforeAfter(projectRoot, fix);
    if (!ba)
        return Result<std::string>::fail(ba.error);
    return Result<std::string>::ok(
        unifiedDiff(ba.value->first, ba.value->second, fix.edits.front().file));
}

Result<Fix> applyFix(const std::filesystem::path& projectRoot, const Fix& fix)
{
    auto ba = beforeAfter(projectRoot, fix);
    if (!ba)
        return Result<Fix>::fail(ba.error);
    const std::string& file = fix.edits.front().file;
    if (auto err = writeFileAtomically(projectRoot / file, ba.value->second))
        return Result<Fix>::fail(*err);
    // The inverse: each edit's replacement, at its place in the new text, goes back to what it was.
    std::vector<TextEdit> sorted = fix.edits;
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.start < b.start; });
    Fix inverse;
    inverse.description = "undo: " + fix.description;
    std::int64_t shift = 0;
    for (const auto& e : sorted) {
        TextEdit u;
        u.file = e.file;
        u.start = static_cast<std::uint32_t>(e.start + shift);
        u.end = static_cast<std::uint32_t>(u.start + e.replacement.size());
        u.expected = e.replacement;
        u.replacement = e.expected;
        shift += static_cast<std::int64_t>(e.replacement.size()) -
                 static_cast<std::int64_t>(e.end - e.start);
        inverse.edits.push_back(std::move(u));
    }
    return Result<Fix>::ok(std::move(inverse));
}

} // namespace portolan::guides
