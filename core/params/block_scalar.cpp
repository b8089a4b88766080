#include "core/params/block_scalar.h"

#include "core/params/scalar_text.h"

#include <algorithm>
#include <vector>

namespace portolan::params {

namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}
std::size_t lineEnd(std::string_view t, std::size_t i)
{
    while (i < t.size() && t[i] != '\n' && t[i] != '\r')
        ++i;
    return i;
}
std::size_t nextLine(std::string_view t, std::size_t i)
{
    i = lineEnd(t, i);
    if (i < t.size() && t[i] == '\r')
        ++i;
    if (i < t.size() && t[i] == '\n')
        ++i;
    return i;
}

std::size_t trailingBreaks(std::string_view v)
{
    std::size_t n = 0;
    while (n < v.size() && v[v.size() - 1 - n] == '\n')
        ++n;
    return n;
}

// A space a folded line may break at: the break replaces exactly this space, and the next line
// may not start with a blank (it would be "more indented" and keep its line break). A line may
// end in blanks, which stay part of the value: the old text's breaks there are kept.
bool canKeepFoldAt(std::string_view body, std::size_t i)
{
    return i > 0 && i + 1 < body.size() && body[i] == ' ' && body[i - 1] != '\n' &&
           !isBlank(body[i + 1]) && body[i + 1] != '\n';
}
// A new break also leaves no blank at the end of a line.
bool canFoldAt(std::string_view body, std::size_t i)
{
    return canKeepFoldAt(body, i) && !isBlank(body[i - 1]);
}

// The content lines of a literal block: the value's lines as they are.
std::vector<std::string> literalLines(std::string_view body)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (true) {
        const std::size_t nl = body.find('\n', start);
        lines.emplace_back(body.substr(start, nl == std::string_view::npos ? nl : nl - start));
        if (nl == std::string_view::npos)
            break;
        start = nl + 1;
    }
    return lines;
}

// The content lines of a folded block. Line breaks of the old text are kept where the value
// around them did not change (its common prefix and suffix with the old value); a line longer
// than the old text's longest is wrapped at spaces; `n` newlines in the value are `n` blank lines.
std::vector<std::string> foldedLines(std::string_view body, std::string_view oldBody,
                                     const std::vector<std::size_t>& oldFolds, std::size_t width)
{
    std::size_t prefix = 0;
    const std::size_t common = std::min(body.size(), oldBody.size());
    while (prefix < common && body[prefix] == oldBody[prefix])
        ++prefix;
    std::size_t suffix = 0;
    while (suffix < common - prefix &&
           body[body.size() - 1 - suffix] == oldBody[oldBody.size() - 1 - suffix])
        ++suffix;
    std::vector<bool> breakAt(body.size(), false);
    for (const std::size_t f : oldFolds) {
        std::size_t at = std::string_view::npos;
        if (f < prefix)
            at = f;
        else if (f >= oldBody.size() - suffix)
            at = body.size() - (oldBody.size() - f);
        if (at != std::string_view::npos && canKeepFoldAt(body, at))
            breakAt[at] = true;
    }
    std::vector<std::string> lines;
    std::size_t i = 0;
    while (i < body.size() && body[i] == '\n') { // leading newlines are leading blank lines
        lines.emplace_back();
        ++i;
    }
    std::string line;
    std::size_t lastSpace = std::string::npos; // in `line`, a place the wrap may break
    auto endLine = [&] {
        lines.push_back(std::move(line));
        line.clear();
        lastSpace = std::string::npos;
    };
    for (; i < body.size(); ++i) {
        const char c = body[i];
        if (c == '\n') {
            endLine();
            std::size_t run = 0;
            while (i < body.size() && body[i] == '\n') {
                ++run;
                ++i;
            }
            --i;
            for (std::size_t k = 0; k < run; ++k)
                lines.emplace_back();
            continue;
        }
        if (breakAt[i]) {
            endLine();
            continue;
        }
        if (canFoldAt(body, i))
            lastSpace = line.size();
        line += c;
        if (width > 0 && line.size() > width && lastSpace != std::string::npos) {
            std::string rest = line.substr(lastSpace + 1);
            line.resize(lastSpace);
            endLine();
            line = std::move(rest);
        }
    }
    if (!line.empty() || lines.empty())
        endLine();
    return lines;
}

} // namespace

BlockHeader parseBlockHeader(std::string_view text, std::size_t pos)
{
    BlockHeader h;
    h.style = pos < text.size() ? text[pos] : '|';
    std::size_t i = pos + 1;
    while (i < text.size() &&
           (text[i] == '+' || text[i] == '-' || (text[i] >= '1' && text[i] <= '9'))) {
        if (text[i] == '+' || text[i] == '-')
            h.chomp = text[i];
        else
            h.indentIndicator = text[i] - '0';
        ++i;
    }
    h.end = i;
    h.comment = std::string(text.substr(i, lineEnd(text, i) - i));
    return h;
}

std::string readBlock(const BlockHeader& header, std::string_view content, int indent,
                      int keptBreaks)
{
    std::string v = decodeBlock(content, 0, content.size(), indent, header.style == '>');
    if (v.empty())
        return v;
    if (header.chomp == 0)
        v += '\n';
    else if (header.chomp == '+')
        v.append(std::size_t(std::max(keptBreaks, 1)), '\n');
    return v;
}

std::optional<std::string> renderBlockEdit(std::string_view text, const YamlNode& node,
                                           std::string_view value, int parentIndent,
                                           const std::string& br, char style)
{
    BlockHeader header = parseBlockHeader(text, node.valueBegin);
    const int indent = node.indent > 0 ? node.indent : std::max(parentIndent, 0) + 2;
    const std::size_t breaks = trailingBreaks(value);
    const std::string_view body = value.substr(0, value.size() - breaks);
    if (body.empty())
        return std::nullopt;
    for (const unsigned char c : body)
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
            return std::nullopt; // block scalars cannot escape control characters
    // Chomping: kept while the value ends as the old one did, else the indicator that says
    // how it ends now. More than one final newline needs `+` with blank lines after the block,
    // which lie outside the bytes this edit replaces.
    if (breaks != trailingBreaks(node.value)) {
        if (breaks > 1)
            return std::nullopt;
        header.chomp = breaks == 0 ? '-' : 0;
    }
    // The old content, to reuse its line breaks.
    const std::size_t contentBegin = nextLine(text, header.end);
    const std::size_t contentEnd = std::max(contentBegin, node.end);
    std::vector<std::size_t> oldFolds;
    const std::string oldBody =
        contentEnd > contentBegin
            ? decodeBlock(text, contentBegin, contentEnd, indent, header.style == '>', &oldFolds)
            : std::string();
    std::size_t width = 0;
    for (std::size_t i = contentBegin; i < contentEnd; i = nextLine(text, i))
        width = std::max(width, lineEnd(text, i) - std::min(lineEnd(text, i), i + indent));
    if (width == 0)
        width = 80;
    if (style != 0 && style != header.style) {
        header.style = style;
        oldFolds.clear();
    }
    const std::vector<std::string> lines =
        header.style == '>' ? foldedLines(body, oldBody, oldFolds, width) : literalLines(body);
    // A first line starting with a blank needs an indentation indicator.
    const auto firstText =
        std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return !l.empty(); });
    if (firstText != lines.end() && isBlank(firstText->front()) && header.indentIndicator == 0) {
        // The indicator counts from the indentation of the collection holding the scalar.
        const int digit = indent - std::max(parentIndent, 0);
        if (digit < 1 || digit > 9)
            return std::nullopt;
        header.indentIndicator = digit;
    }

    std::string content;
    const std::string pad(std::size_t(indent), ' ');
    for (const std::string& l : lines) {
        content += br;
        if (!l.empty())
            content += pad + l;
    }
    // Only what reads back as the value is written.
    const std::string_view afterHeaderLine = std::string_view(content).substr(br.size());
    const int kept = header.chomp == '+' ? int(breaks) : 1;
    if (readBlock(header, afterHeaderLine, indent, kept) != value)
        return std::nullopt;

    std::string out(1, header.style);
    if (header.chomp != 0)
        out += header.chomp;
    if (header.indentIndicator > 0)
        out += char('0' + header.indentIndicator);
    out += header.comment;
    out += content;
    return out;
}

std::string restoreFinalBreaks(const YamlNode& node, std::string_view value)
{
    const bool block = node.style == ScalarStyle::Literal || node.style == ScalarStyle::Folded;
    if (!block || value.empty() || value.back() == '\n')
        return std::string(value);
    const std::size_t breaks = trailingBreaks(node.value);
    return std::string(value) + std::string(breaks, '\n');
}

} // namespace portolan::params
