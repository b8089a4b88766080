#include "core/guides/fixes/apply_fix.h"

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

namespace {

// The shortest edit script between two line sequences (Myers' O(ND) algorithm), as one entry per
// line: ' ' kept, '-' removed from a, '+' added from b, with the line's index in its sequence.
struct DiffLine
{
    char op;
    std::size_t index;
};

std::vector<DiffLine> diffLines(const std::vector<std::string>& a,
                                const std::vector<std::string>& b)
{
    const long n = static_cast<long>(a.size()), m = static_cast<long>(b.size());
    const long max = n + m;
    std::vector<long> v(static_cast<std::size_t>(2 * max + 2), 0);
    std::vector<std::vector<long>> trace;
    auto at = [&](long k) -> long& {
        return v[static_cast<std::size_t>(k + max + 1)];
    };
    long found = -1;
    for (long d = 0; d <= max && found < 0; ++d) {
        trace.push_back(v);
        for (long k = -d; k <= d; k += 2) {
            long x = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
            long y = x - k;
            while (x < n && y < m && a[std::size_t(x)] == b[std::size_t(y)])
                ++x, ++y;
            at(k) = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
    }
    std::vector<DiffLine> out;
    long x = n, y = m;
    for (long d = found; d > 0; --d) {
        const auto& pv = trace[std::size_t(d)];
        auto prev = [&](long k) {
            return pv[static_cast<std::size_t>(k + max + 1)];
        };
        const long k = x - y;
        const long pk = (k == -d || (k != d && prev(k - 1) < prev(k + 1))) ? k + 1 : k - 1;
        const long px = prev(pk), py = px - pk;
        while (x > px && y > py)
            out.push_back({' ', std::size_t(--x)}), --y;
        if (x == px)
            out.push_back({'+', std::size_t(--y)});
        else
            out.push_back({'-', std::size_t(--x)});
    }
    while (x > 0 && y > 0)
        out.push_back({' ', std::size_t(--x)}), --y;
    std::reverse(out.begin(), out.end());
    return out;
}

} // namespace

std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& path)
{
    const auto a = lines(before), b = lines(after);
    // The common head and tail are cut off first, so that the script covers the changed part.
    std::size_t head = 0;
    while (head < a.size() && head < b.size() && a[head] == b[head])
        ++head;
    std::size_t tail = 0;
    while (tail < a.size() - head && tail < b.size() - head &&
           a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
        ++tail;
    if (head == a.size() && head == b.size())
        return {};
    std::vector<DiffLine> script;
    for (std::size_t i = 0; i < head; ++i)
        script.push_back({' ', i});
    {
        const std::vector<std::string> ma(a.begin() + long(head), a.end() - long(tail));
        const std::vector<std::string> mb(b.begin() + long(head), b.end() - long(tail));
        for (auto d : diffLines(ma, mb))
            script.push_back({d.op, d.index + head});
    }
    for (std::size_t i = 0; i < tail; ++i)
        script.push_back({' ', a.size() - tail + i});

    constexpr std::size_t context = 3;
    std::ostringstream out;
    out << "--- a/" << path << "\n+++ b/" << path << "\n";
    auto put = [&](char sign, const std::string& line) {
        out << sign << line;
        if (line.empty() || line.back() != '\n')
            out << "\n\\ No newline at end of file\n";
    };
    // Line numbers before each script entry.
    std::vector<std::size_t> aLine(script.size() + 1), bLine(script.size() + 1);
    for (std::size_t i = 0; i < script.size(); ++i) {
        aLine[i + 1] = aLine[i] + (script[i].op != '+');
        bLine[i + 1] = bLine[i] + (script[i].op != '-');
    }
    std::size_t i = 0;
    while (i < script.size()) {
        while (i < script.size() && script[i].op == ' ')
            ++i;
        if (i == script.size())
            break;
        // A hunk: from `context` kept lines before the change to `context` after the last change
        // that lies within 2 * context kept lines of the previous one.
        const std::size_t from = i > context ? i - context : 0;
        std::size_t last = i;
        for (std::size_t j = i + 1; j < script.size(); ++j) {
            if (script[j].op == ' ')
                continue;
            if (j - last - 1 > 2 * context)
                break;
            last = j;
        }
        const std::size_t to = std::min(script.size(), last + 1 + context);
        const std::size_t aCount = aLine[to] - aLine[from], bCount = bLine[to] - bLine[from];
        out << "@@ -" << (aCount ? aLine[from] + 1 : aLine[from]) << "," << aCount << " +"
            << (bCount ? bLine[from] + 1 : bLine[from]) << "," << bCount << " @@\n";
        for (std::size_t j = from; j < to; ++j)
            put(script[j].op, script[j].op == '+' ? b[script[j].index] : a[script[j].index]);
        i = to;
    }
    return out.str();
}

namespace {

// What a fix does to one file.
struct FileChange
{
    std::string file;
    std::vector<TextEdit> edits;
    bool creates = false, removes = false;
    std::string before, after;
};

Result<std::vector<FileChange>> changesOf(const std::filesystem::path& root, const Fix& fix)
{
    using R = Result<std::vector<FileChange>>;
    if (fix.edits.empty())
        return R::fail(fixError("", "the fix has no edits"));
    std::vector<FileChange> changes;
    for (const auto& e : fix.edits) {
        auto it = std::find_if(changes.begin(), changes.end(),
                               [&](const FileChange& c) { return c.file == e.file; });
        if (it == changes.end()) {
            changes.push_back({e.file, {}, false, false, {}, {}});
            it = std::prev(changes.end());
        }
        it->edits.push_back(e);
    }
    for (auto& c : changes) {
        const std::string& file = c.file;
        if (file.empty() || file.front() == '/' || file.find("..") != std::string::npos)
            return R::fail(fixError(file, "the fix names a file outside the project"));
        c.creates = c.edits.front().createsFile;
        c.removes = c.edits.front().removesFile;
        if ((c.creates || c.removes) && c.edits.size() != 1)
            return R::fail(fixError(file, "a fix that creates or removes a file has no other edit "
                                          "of it"));
        std::error_code ec;
        if (c.creates) {
            if (std::filesystem::exists(root / file, ec))
                return R::fail(fixError(file, file + " exists already"));
            c.after = c.edits.front().replacement;
            continue;
        }
        auto text = readFile(root / file);
        if (!text)
            return R::fail(text.error);
        c.before = std::move(*text.value);
        if (c.removes) {
            if (c.before != c.edits.front().expected)
                return R::fail(fixError(
                    file,
                    "the file changed since it was analysed; analyse it again before fixing"));
            continue;
        }
        Fix one;
        one.edits = c.edits;
        auto after = applyEdits(c.before, one);
        if (!after)
            return R::fail(after.error);
        c.after = std::move(*after.value);
    }
    return R::ok(std::move(changes));
}

void removeFileAndEmptyParents(const std::filesystem::path& root, const std::string& file)
{
    std::error_code ec;
    std::filesystem::remove(root / file, ec);
    // Folders the fix created for the file (configs/) go with it when nothing else is in them.
    for (auto dir = (root / file).parent_path(); dir != root && dir.has_relative_path();
         dir = dir.parent_path()) {
        if (!std::filesystem::is_empty(dir, ec) || ec)
            break;
        std::filesystem::remove(dir, ec);
    }
}

std::optional<Diagnostic> write(const std::filesystem::path& root, const FileChange& c)
{
    if (c.removes) {
        std::error_code ec;
        if (!std::filesystem::remove(root / c.file, ec) || ec)
            return fixError(c.file, "cannot remove " + c.file);
        removeFileAndEmptyParents(root, c.file);
        return std::nullopt;
    }
    if (c.creates) {
        std::error_code ec;
        std::filesystem::create_directories((root / c.file).parent_path(), ec);
    }
    return writeFileAtomically(root / c.file, c.after);
}

// Puts a file back as it was before a change.
void restore(const std::filesystem::path& root, const FileChange& c)
{
    if (c.creates)
        removeFileAndEmptyParents(root, c.file);
    else
        (void)writeFileAtomically(root / c.file, c.before);
}

} // namespace

Result<std::string> previewFix(const std::filesystem::path& projectRoot, const Fix& fix)
{
    auto changes = changesOf(projectRoot, fix);
    if (!changes)
        return Result<std::string>::fail(changes.error);
    std::string out;
    for (const auto& c : *changes.value) {
        std::string diff = unifiedDiff(c.before, c.after, c.file);
        if (c.creates)
            diff.replace(0, diff.find('\n'), "--- /dev/null");
        if (c.removes) {
            const auto second = diff.find('\n') + 1;
            diff.replace(second, diff.find('\n', second) - second, "+++ /dev/null");
        }
        out += diff;
    }
    return Result<std::string>::ok(std::move(out));
}

Result<Fix> applyFix(const std::filesystem::path& projectRoot, const Fix& fix)
{
    auto changes = changesOf(projectRoot, fix);
    if (!changes)
        return Result<Fix>::fail(changes.error);
    const auto& all = *changes.value;
    for (std::size_t i = 0; i < all.size(); ++i)
        if (auto err = write(projectRoot, all[i])) {
            for (std::size_t j = 0; j < i; ++j)
                restore(projectRoot, all[j]);
            return Result<Fix>::fail(*err);
        }
    Fix inverse;
    inverse.description = "undo: " + fix.description;
    for (const auto& c : all) {
        if (c.creates || c.removes) {
            // Created goes back to absent, removed to present.
            inverse.edits.push_back(TextEdit{c.file, 0, static_cast<std::uint32_t>(c.after.size()),
                                             c.after, c.before, c.removes, c.creates});
            continue;
        }
        // Each edit's replacement, at its place in the new text, goes back to what it was.
        std::vector<TextEdit> sorted = c.edits;
        std::sort(sorted.begin(), sorted.end(),
                  [](const auto& a, const auto& b) { return a.start < b.start; });
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
    }
    return Result<Fix>::ok(std::move(inverse));
}

} // namespace portolan::guides
