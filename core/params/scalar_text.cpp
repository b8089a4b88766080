#include "core/params/scalar_text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace portolan::params {

namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}
bool isBreak(char c)
{
    return c == '\n' || c == '\r';
}
bool isFlowIndicator(char c)
{
    return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}

std::size_t lineEnd(std::string_view t, std::size_t i)
{
    while (i < t.size() && !isBreak(t[i]))
        ++i;
    return i;
}

// The start of the line after the break at or after `i`.
std::size_t nextLine(std::string_view t, std::size_t i)
{
    i = lineEnd(t, i);
    if (i < t.size() && t[i] == '\r')
        ++i;
    if (i < t.size() && t[i] == '\n')
        ++i;
    return i;
}

std::size_t trimBack(std::string_view t, std::size_t from, std::size_t end)
{
    while (end > from && isBlank(t[end - 1]))
        --end;
    return end;
}

// One line of a plain scalar starting at `p`: where its content stops on that line.
std::size_t plainLineEnd(std::string_view t, std::size_t p, bool flow)
{
    std::size_t i = p;
    while (i < t.size() && !isBreak(t[i])) {
        const char c = t[i];
        if (c == '#' && i > p && isBlank(t[i - 1]))
            break;
        if (c == ':') {
            const bool last = i + 1 >= t.size();
            const char n = last ? '\n' : t[i + 1];
            if (last || isBlank(n) || isBreak(n) || (flow && isFlowIndicator(n)))
                break;
        }
        if (flow && isFlowIndicator(c))
            break;
        ++i;
    }
    return trimBack(t, p, i);
}

void appendUtf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

// Line folding inside flow scalars: a single break becomes a space, n breaks become n-1 newlines.
// `i` is at a break; returns the index of the next line's first non-blank character.
std::size_t foldBreaks(std::string_view t, std::size_t i, std::size_t stop, std::string& out)
{
    int breaks = 0;
    while (i < stop && (isBreak(t[i]) || isBlank(t[i]))) {
        if (t[i] == '\n')
            ++breaks;
        ++i;
    }
    if (breaks <= 1)
        out += ' ';
    else
        out.append(std::size_t(breaks - 1), '\n');
    return i;
}

void trimTrailingBlanks(std::string& s)
{
    while (!s.empty() && isBlank(s.back()))
        s.pop_back();
}

} // namespace

std::string decodeBlock(std::string_view t, std::size_t contentBegin, std::size_t end, int indent,
                        bool folded, std::vector<std::size_t>* folds)
{
    std::string out;
    bool first = true;
    bool prevMoreIndented = false;
    int pendingBlank = 0;
    std::size_t i = contentBegin;
    while (i < end) {
        const std::size_t le = std::min(lineEnd(t, i), end);
        std::string_view line = t.substr(i, le - i);
        const bool blank = line.find_first_not_of(" \t") == std::string_view::npos;
        if (blank) {
            ++pendingBlank;
        } else {
            std::string_view content = line.size() > std::size_t(indent)
                                           ? line.substr(std::size_t(indent))
                                           : std::string_view{};
            const bool moreIndented = !content.empty() && isBlank(content.front());
            if (!first) {
                if (folded && !moreIndented && !prevMoreIndented) {
                    if (pendingBlank == 0 && folds)
                        folds->push_back(out.size());
                    out += pendingBlank == 0 ? std::string(" ") : std::string(pendingBlank, '\n');
                } else
                    out.append(std::size_t(pendingBlank) + 1, '\n');
            } else {
                out.append(std::size_t(pendingBlank), '\n');
            }
            out += content;
            pendingBlank = 0;
            first = false;
            prevMoreIndented = moreIndented;
        }
        i = nextLine(t, le);
    }
    return out;
}

namespace {

ScalarExtent scanBlock(std::string_view t, std::size_t p, int parentIndent,
                       std::string_view expected)
{
    ScalarExtent e;
    e.style = t[p] == '|' ? ScalarStyle::Literal : ScalarStyle::Folded;
    std::size_t i = p + 1;
    int explicitIndent = 0;
    while (i < t.size() && (t[i] == '+' || t[i] == '-' || (t[i] >= '1' && t[i] <= '9'))) {
        if (t[i] >= '1' && t[i] <= '9')
            explicitIndent = t[i] - '0';
        ++i;
    }
    e.headerEnd = i;
    e.end = i;
    std::size_t line = nextLine(t, i);
    int indent = -1;
    if (explicitIndent > 0)
        indent = std::max(parentIndent, 0) + explicitIndent;
    std::size_t contentBegin = line;
    for (std::size_t j = line; j < t.size(); j = nextLine(t, j)) {
        const std::size_t le = lineEnd(t, j);
        std::size_t k = j;
        while (k < le && t[k] == ' ')
            ++k;
        const bool blank = k == le || std::all_of(t.begin() + long(k), t.begin() + long(le),
                                                  [](char c) { return isBlank(c); });
        if (blank) {
            if (j >= t.size())
                break;
            continue;
        }
        const int col = int(k - j);
        if (indent < 0)
            indent = col;
        if (indent <= parentIndent || col < indent)
            break;
        e.end = le;
    }
    e.blockIndent = indent;
    if (e.end == e.headerEnd) { // no content lines
        e.verified = expected.empty() || expected == "\n";
        return e;
    }
    std::string decoded =
        decodeBlock(t, contentBegin, e.end, indent, e.style == ScalarStyle::Folded);
    std::string want(expected);
    while (!want.empty() && want.back() == '\n')
        want.pop_back();
    e.verified = decoded == want;
    return e;
}

} // namespace

std::size_t skipProperties(std::string_view t, std::size_t pos)
{
    std::size_t i = pos;
    while (i < t.size() && (t[i] == '&' || t[i] == '!')) {
        if (t[i] == '!' && i + 1 < t.size() && t[i + 1] == '<') { // verbatim: !<tag:...>
            while (i < t.size() && t[i] != '>')
                ++i;
            ++i;
        } else {
            // Where the property ends is where yaml-cpp's scanner ends it, or the node's offsets
            // disagree with the parser's: an anchor stops at a blank, a break or a flow
            // indicator; a tag's characters are URI characters without the flow indicators
            // (`!&[1]` is the tag `!&` on a flow sequence).
            const bool tag = t[i] == '!';
            ++i;
            while (i < t.size() && !isBlank(t[i]) && !isBreak(t[i]) &&
                   std::string_view("[]{},").find(t[i]) == std::string_view::npos &&
                   (!tag || std::isalnum(static_cast<unsigned char>(t[i])) ||
                    std::string_view("-#;/?:@&=+$_.~*'()%!").find(t[i]) != std::string_view::npos))
                ++i;
        }
        // blanks, comments and line breaks between a property and its node
        for (;;) {
            while (i < t.size() && (isBlank(t[i]) || isBreak(t[i])))
                ++i;
            if (i < t.size() && t[i] == '#')
                i = lineEnd(t, i);
            else
                break;
        }
    }
    return std::min(i, t.size());
}

ScalarExtent scanScalar(std::string_view t, std::size_t p, bool inFlow, int parentIndent,
                        std::string_view expected)
{
    ScalarExtent e;
    if (p >= t.size()) {
        e.end = p;
        e.verified = expected.empty();
        return e;
    }
    const char c = t[p];
    if (c == '"' || c == '\'') {
        e.style = c == '"' ? ScalarStyle::DoubleQuoted : ScalarStyle::SingleQuoted;
        std::size_t i = p + 1;
        while (i < t.size()) {
            if (c == '"' && t[i] == '\\') {
                i += 2;
                continue;
            }
            if (t[i] == c) {
                if (c == '\'' && i + 1 < t.size() && t[i + 1] == '\'') {
                    i += 2;
                    continue;
                }
                break;
            }
            ++i;
        }
        e.unterminated = i >= t.size();
        e.end = std::min(i + 1, t.size());
        const std::string_view q = t.substr(p, e.end - p);
        e.verified = (c == '"' ? decodeDoubleQuoted(q) : decodeSingleQuoted(q)) == expected;
        return e;
    }
    if ((c == '|' || c == '>') && !inFlow)
        return scanBlock(t, p, parentIndent, expected);

    // Plain: the first line, then continuation lines until the folded text is the parsed value.
    e.style = ScalarStyle::Plain;
    e.end = plainLineEnd(t, p, inFlow);
    std::string acc(t.substr(p, e.end - p));
    while (acc != expected && expected.size() > acc.size() &&
           expected.compare(0, acc.size(), acc) == 0) {
        std::string joined = acc;
        std::size_t i = foldBreaks(t, lineEnd(t, e.end), t.size(), joined);
        if (i >= t.size() || t[i] == '#')
            break;
        const std::size_t le = plainLineEnd(t, i, inFlow);
        if (le == i)
            break;
        joined += t.substr(i, le - i);
        if (expected.compare(0, joined.size(), joined) != 0)
            break;
        acc = std::move(joined);
        e.end = le;
    }
    e.verified = acc == expected;
    return e;
}

std::string decodeDoubleQuoted(std::string_view q)
{
    std::string out;
    if (q.size() < 2)
        return out;
    const std::size_t stop = q.size() - 1;
    std::size_t i = 1;
    while (i < stop) {
        const char c = q[i];
        if (c == '\\' && i + 1 < stop) {
            const char n = q[i + 1];
            i += 2;
            auto hex = [&](int digits) {
                std::uint32_t cp = 0;
                for (int d = 0; d < digits && i < stop; ++d, ++i)
                    cp = cp * 16 + std::uint32_t(std::isdigit(static_cast<unsigned char>(q[i]))
                                                     ? q[i] - '0'
                                                     : (std::tolower(q[i]) - 'a' + 10));
                appendUtf8(out, cp);
            };
            switch (n) {
            case '0':
                out += '\0';
                break;
            case 'a':
                out += '\a';
                break;
            case 'b':
                out += '\b';
                break;
            case 't':
            case '\t':
                out += '\t';
                break;
            case 'n':
                out += '\n';
                break;
            case 'v':
                out += '\v';
                break;
            case 'f':
                out += '\f';
                break;
            case 'r':
                out += '\r';
                break;
            case 'e':
                out += '\x1b';
                break;
            case 'N':
                appendUtf8(out, 0x85);
                break;
            case '_':
                appendUtf8(out, 0xA0);
                break;
            case 'L':
                appendUtf8(out, 0x2028);
                break;
            case 'P':
                appendUtf8(out, 0x2029);
                break;
            case 'x':
                hex(2);
                break;
            case 'u':
                hex(4);
                break;
            case 'U':
                hex(8);
                break;
            case '\r':
            case '\n': // escaped line break: the lines join with nothing between them
                if (n == '\r' && i < stop && q[i] == '\n')
                    ++i;
                while (i < stop && isBlank(q[i]))
                    ++i;
                break;
            default:
                out += n;
                break;
            }
            continue;
        }
        if (isBreak(c)) {
            trimTrailingBlanks(out);
            i = foldBreaks(q, i, stop, out);
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

std::string decodeSingleQuoted(std::string_view q)
{
    std::string out;
    if (q.size() < 2)
        return out;
    const std::size_t stop = q.size() - 1;
    std::size_t i = 1;
    while (i < stop) {
        const char c = q[i];
        if (c == '\'' && i + 1 < stop && q[i + 1] == '\'') {
            out += '\'';
            i += 2;
            continue;
        }
        if (isBreak(c)) {
            trimTrailingBlanks(out);
            i = foldBreaks(q, i, stop, out);
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

PlainType resolvePlain(std::string_view s)
{
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")
        return PlainType::Null;
    static const char* bools[] = {"true", "True", "TRUE", "false", "False", "FALSE",
                                  "yes",  "Yes",  "YES",  "no",    "No",    "NO",
                                  "on",   "On",   "ON",   "off",   "Off",   "OFF"};
    for (const char* b : bools)
        if (s == b)
            return PlainType::Bool;
    // Hand-written instead of std::regex: this runs for every value of every file validated.
    std::size_t i = 0;
    if (s[i] == '-' || s[i] == '+')
        ++i;
    const std::string_view body = s.substr(i);
    if (body == ".inf" || body == ".Inf" || body == ".INF")
        return PlainType::Float;
    if (i == 0 && (body == ".nan" || body == ".NaN" || body == ".NAN"))
        return PlainType::Float;
    auto isDigit = [](char c) {
        return c >= '0' && c <= '9';
    };
    auto allOf = [](std::string_view v, auto pred) {
        return !v.empty() && std::all_of(v.begin(), v.end(), pred);
    };
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o')) {
        const std::string_view digits = body.substr(2);
        const bool hex = body[1] == 'x';
        if (allOf(digits, [hex](char c) {
                return (c >= '0' && c <= '7') ||
                       (hex && (std::isxdigit(static_cast<unsigned char>(c)) != 0));
            }))
            return PlainType::Int;
        return PlainType::String;
    }
    // [digits][.digits][e[+-]digits], with at least one digit before the exponent
    std::size_t j = 0;
    std::size_t intDigits = 0, fracDigits = 0;
    while (j < body.size() && (isDigit(body[j]) || (body[j] == '_' && j > 0))) {
        intDigits += body[j] != '_';
        ++j;
    }
    bool dot = false, exponent = false;
    if (j < body.size() && body[j] == '.') {
        dot = true;
        ++j;
        while (j < body.size() && (isDigit(body[j]) || body[j] == '_')) {
            fracDigits += body[j] != '_';
            ++j;
        }
    }
    if (intDigits + fracDigits == 0)
        return PlainType::String;
    if (j < body.size() && (body[j] == 'e' || body[j] == 'E')) {
        exponent = true;
        ++j;
        if (j < body.size() && (body[j] == '+' || body[j] == '-'))
            ++j;
        if (!allOf(body.substr(j), isDigit))
            return PlainType::String;
        j = body.size();
    }
    if (j != body.size())
        return PlainType::String;
    if (!dot && !exponent)
        return PlainType::Int;
    return PlainType::Float;
}

bool plainAllowed(std::string_view v, bool inFlow)
{
    if (v.empty() || isBlank(v.front()) || isBlank(v.back()))
        return false;
    for (const unsigned char ch : v)
        if (ch < 0x20 || ch == 0x7F)
            return false;
    const char f = v.front();
    static const std::string_view indicators = ",[]{}#&*!|>'\"%@`";
    if (indicators.find(f) != std::string_view::npos)
        return false;
    if ((f == '-' || f == '?' || f == ':') && (v.size() == 1 || isBlank(v[1])))
        return false;
    if (v.find(": ") != std::string_view::npos || v.find(" #") != std::string_view::npos ||
        v.find(":\t") != std::string_view::npos || v.find("\t#") != std::string_view::npos ||
        v.back() == ':')
        return false;
    if (inFlow)
        for (char c : v)
            if (isFlowIndicator(c))
                return false;
    if (v == "---" || v == "...")
        return false;
    return true;
}

std::string quoteScalar(std::string_view v, ScalarStyle style)
{
    bool singleOk = true;
    for (const unsigned char ch : v)
        if (ch < 0x20 || ch == 0x7F)
            singleOk = false;
    if (style == ScalarStyle::SingleQuoted && singleOk) {
        std::string out = "'";
        for (char c : v) {
            out += c;
            if (c == '\'')
                out += '\'';
        }
        return out + "'";
    }
    std::string out = "\"";
    static const char* hexDigits = "0123456789abcdef";
    for (const char c : v) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\0':
            out += "\\0";
            break;
        default:
            if (u < 0x20 || u == 0x7F) {
                out += "\\x";
                out += hexDigits[u >> 4];
                out += hexDigits[u & 15];
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

std::string renderInlineScalar(std::string_view v, ScalarStyle original, bool inFlow,
                               bool forceString)
{
    const bool plainReadsAsString = resolvePlain(v) == PlainType::String;
    if (original == ScalarStyle::Plain && plainAllowed(v, inFlow) &&
        (!forceString || plainReadsAsString))
        return std::string(v);
    if (original == ScalarStyle::DoubleQuoted)
        return quoteScalar(v, ScalarStyle::DoubleQuoted);
    // Plain that needs quotes, single quotes, or a block scalar turned inline: prefer the lighter
    // single quotes when they can hold the value.
    return quoteScalar(v, ScalarStyle::SingleQuoted);
}

} // namespace portolan::params
