// The original's imports beside the target's: an import the target's own header already makes
// is not made twice, and a name the target imports (Determined's DataLoader) is not rebound by
// the original's import of another module's name, which would shadow the target's in the port.
#include "core/port/generate_internal.h"

#include <cctype>
#include <sstream>
#include <vector>

namespace portolan::port::detail {

namespace {

std::string trimmed(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    return lines;
}

// A one-line import at column 0 (no parenthesis, no continuation, no `;`), the only form edited.
bool simpleImport(const std::string& line)
{
    return (line.starts_with("import ") || line.starts_with("from ")) &&
           line.find_first_of("();\\#") == std::string::npos;
}

struct Imported
{
    std::string text;  // `a` or `a as b`, as written
    std::string bound; // the name the import binds
};

// `from M import a, b as c`: M and the names; false for any other line.
bool fromImport(const std::string& line, std::string& module, std::vector<Imported>& names)
{
    if (!line.starts_with("from ") || !simpleImport(line))
        return false;
    const auto at = line.find(" import ");
    if (at == std::string::npos)
        return false;
    module = trimmed(line.substr(5, at - 5));
    std::istringstream parts(line.substr(at + 8));
    for (std::string p; std::getline(parts, p, ',');) {
        p = trimmed(p);
        const auto as = p.find(" as ");
        names.push_back({p, trimmed(as == std::string::npos ? p : p.substr(as + 4))});
    }
    return !names.empty();
}

bool usesWord(const std::string& text, const std::string& word)
{
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const auto ident = [&](std::size_t i) {
            return i < text.size() &&
                   (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_');
        };
        if ((at == 0 || (!ident(at - 1) && text[at - 1] != '.')) && !ident(at + word.size()))
            return true;
    }
    return false;
}

} // namespace

std::string withoutTargetImports(const std::string& module, const std::string& header)
{
    std::set<std::string> headerLines, targetNames;
    std::map<std::string, std::string> targetModule; // name -> the module the target takes it from
    for (const auto& l : splitLines(header)) {
        if (!simpleImport(l))
            continue;
        headerLines.insert(trimmed(l));
        std::string m;
        std::vector<Imported> names;
        if (fromImport(l, m, names))
            for (const auto& n : names)
                targetModule[n.bound] = m;
    }
    const auto lines = splitLines(module);
    // What the module's other code reads: a name it reads keeps the original's import of it.
    std::string code;
    for (const auto& l : lines)
        if (!simpleImport(l))
            code += l + "\n";
    std::string out;
    for (const auto& l : lines) {
        if (!simpleImport(l)) {
            out += l + "\n";
            continue;
        }
        if (headerLines.count(trimmed(l)))
            continue; // made by the target's header already
        std::string m;
        std::vector<Imported> names;
        if (!fromImport(l, m, names)) {
            out += l + "\n";
            continue;
        }
        std::string kept;
        for (const auto& n : names) {
            const auto t = targetModule.find(n.bound);
            const bool shadows = t != targetModule.end() && t->second != m;
            if (shadows && !usesWord(code, n.bound))
                continue;
            kept += (kept.empty() ? "" : ", ") + n.text;
        }
        if (!kept.empty())
            out += "from " + m + " import " + kept + "\n";
    }
    if (!module.empty() && module.back() != '\n' && !out.empty())
        out.pop_back();
    return out;
}

} // namespace portolan::port::detail
