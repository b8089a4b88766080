// Mechanical fixes: each is computed from the call's byte ranges in the indexed text, so it
// touches only the bytes of the call it is about.
#include "core/analysis/analysis.h"
#include "core/guides/rules.h"

namespace portolan::guides {

bool isKnownFixKind(std::string_view kind)
{
    return kind == "replace-call" || kind == "replace-callee-prefix" || kind == "set-keyword" ||
           kind == "swap-args" || kind == "remove-statement" || kind == "params-from-argparse";
}

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

TextEdit edit(const analysis::PythonFile& f, std::uint32_t start, std::uint32_t end,
              std::string replacement)
{
    return {f.path, start, end, f.text.substr(start, end - start), std::move(replacement)};
}

std::string substitute(std::string s, const std::string& token, const std::string& value)
{
    for (auto pos = s.find(token); pos != std::string::npos;
         pos = s.find(token, pos + value.size()))
        s.replace(pos, token.size(), value);
    return s;
}

std::optional<Fix> setKeyword(const Check& check, const analysis::PythonFile& f,
                              const python::Call& c)
{
    const std::string keyword = check.fixParams.get("keyword");
    const std::string value = check.fixParams.get("value");
    if (keyword.empty() || value.empty())
        return std::nullopt;
    Fix fix;
    fix.description = "set " + keyword + "=" + value + " in " + c.callee + "(...)";
    if (const python::Argument* a = c.keyword(keyword)) {
        fix.edits.push_back(edit(f, a->valueSpan.startByte, a->valueSpan.endByte, value));
        return fix;
    }
    const std::string& src = f.text;
    std::uint32_t close = c.span.endByte;
    if (close == 0 || close > src.size() || src[close - 1] != ')')
        return std::nullopt;
    --close; // at ')'
    std::uint32_t p = close;
    while (p > c.span.startByte && (isSpace(src[p - 1]) || src[p - 1] == '\n'))
        --p;
    std::string insertion;
    if (p > 0 && src[p - 1] == ',')
        insertion = " " + keyword + "=" + value + ",";
    else if (c.arguments.empty())
        insertion = keyword + "=" + value;
    else
        insertion = ", " + keyword + "=" + value;
    // The edit covers the closing parenthesis too, so that a second application (or a file that
    // changed meanwhile) no longer matches and is refused.
    const std::string tail = src.substr(p, close + 1 - p);
    fix.edits.push_back(edit(f, p, close + 1, insertion + tail));
    return fix;
}

// Removes a call that is a statement of its own; a block left empty gets `pass`.
std::optional<Fix> removeStatement(const analysis::PythonFile& f, const python::Call& c)
{
    const std::string& src = f.text;
    std::uint32_t lineStart = c.span.startByte;
    while (lineStart > 0 && src[lineStart - 1] != '\n')
        --lineStart;
    for (std::uint32_t i = lineStart; i < c.span.startByte; ++i)
        if (!isSpace(src[i]))
            return std::nullopt;
    std::uint32_t lineEnd = c.span.endByte;
    while (lineEnd < src.size() && isSpace(src[lineEnd]))
        ++lineEnd;
    if (lineEnd < src.size() && src[lineEnd] == '#')
        while (lineEnd < src.size() && src[lineEnd] != '\n')
            ++lineEnd;
    if (lineEnd < src.size() && src[lineEnd] != '\n')
        return std::nullopt; // something else follows on the line (`a(); b()`)
    if (lineEnd < src.size())
        ++lineEnd;
    const std::string indent = src.substr(lineStart, c.span.startByte - lineStart);
    // Previous and next lines with code: if the block opener precedes and the block ends here,
    // the statement was the block's only one.
    auto prevCode = [&]() -> char {
        std::uint32_t p = lineStart;
        while (p > 0) {
            --p;
            if (!isSpace(src[p]) && src[p] != '\n')
                return src[p];
        }
        return '\0';
    };
    auto nextIndent = [&]() -> std::size_t {
        std::uint32_t p = lineEnd;
        while (p < src.size()) {
            std::uint32_t q = p;
            while (q < src.size() && isSpace(src[q]))
                ++q;
            if (q < src.size() && src[q] != '\n' && src[q] != '#')
                return q - p;
            while (q < src.size() && src[q] != '\n')
                ++q;
            p = q + 1;
        }
        return 0;
    };
    Fix fix;
    fix.description = "remove " + c.callee + "()";
    if (prevCode() == ':' && nextIndent() < indent.size())
        fix.edits.push_back(edit(f, lineStart, lineEnd, indent + "pass\n"));
    else
        fix.edits.push_back(edit(f, lineStart, lineEnd, ""));
    return fix;
}

} // namespace

std::optional<Fix> callFix(const Check& check, const analysis::PythonFile& f, const python::Call& c)
{
    const RuleParams& p = check.fixParams;
    const std::string& src = f.text;
    if (check.fixKind.empty() || c.span.endByte > src.size())
        return std::nullopt;
    if (check.fixKind == "replace-call") {
        if (p.has("only-string") && (c.arguments.empty() || !c.arguments[0].isString ||
                                     c.arguments[0].stringValue != p.get("only-string")))
            return std::nullopt;
        std::string receiver;
        if (c.nameSpan.startByte > c.calleeSpan.startByte) {
            receiver =
                src.substr(c.calleeSpan.startByte, c.nameSpan.startByte - c.calleeSpan.startByte);
            while (!receiver.empty() &&
                   (receiver.back() == '.' || isSpace(receiver.back()) || receiver.back() == '\n'))
                receiver.pop_back();
        }
        if (check.fixParams.get("with").find("{receiver}") != std::string::npos && receiver.empty())
            return std::nullopt;
        std::string with = substitute(p.get("with"), "{receiver}", receiver);
        with =
            substitute(with, "{arg0}", c.arguments.empty() ? std::string() : c.arguments[0].text);
        Fix fix;
        fix.description = "replace " +
                          src.substr(c.span.startByte, c.span.endByte - c.span.startByte) +
                          " with " + with;
        fix.edits.push_back(edit(f, c.span.startByte, c.span.endByte, with));
        return fix;
    }
    if (check.fixKind == "replace-callee-prefix") {
        const std::string from = p.get("from"), to = p.get("to");
        const std::string callee =
            src.substr(c.calleeSpan.startByte, c.calleeSpan.endByte - c.calleeSpan.startByte);
        if (from.empty() || !callee.starts_with(from))
            return std::nullopt;
        Fix fix;
        fix.description = "call " + to + callee.substr(from.size()) + " instead of " + callee;
        fix.edits.push_back(edit(f, c.calleeSpan.startByte,
                                 c.calleeSpan.startByte + static_cast<std::uint32_t>(from.size()),
                                 to));
        return fix;
    }
    if (check.fixKind == "set-keyword")
        return setKeyword(check, f, c);
    if (check.fixKind == "swap-args") {
        if (c.arguments.size() < 2 || !c.arguments[0].keyword.empty() ||
            !c.arguments[1].keyword.empty())
            return std::nullopt;
        const auto& a = c.arguments[0];
        const auto& b = c.arguments[1];
        Fix fix;
        fix.description = "swap " + a.text + " and " + b.text;
        fix.edits.push_back(edit(f, a.valueSpan.startByte, a.valueSpan.endByte, b.text));
        fix.edits.push_back(edit(f, b.valueSpan.startByte, b.valueSpan.endByte, a.text));
        return fix;
    }
    if (check.fixKind == "remove-statement")
        return removeStatement(f, c);
    return std::nullopt;
}

} // namespace portolan::guides
