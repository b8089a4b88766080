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

// `name` qualified as `qualified` in one line of code, outside its comment and its strings.
std::string qualifiedIn(const std::string& line, const std::string& name,
                        const std::string& qualified)
{
    const auto ident = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    };
    std::string out;
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quote) {
            quote = c == quote ? 0 : quote;
        } else if (c == '#') {
            return out + line.substr(i);
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (line.compare(i, name.size(), name) == 0 && (i == 0 || !ident(line[i - 1])) &&
                   !ident(line[i + name.size()])) {
            out += qualified;
            i += name.size() - 1;
            continue;
        }
        out += c;
    }
    return out;
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
    // A name the target imports that the module's own code reads from another module
    // (`DataLoader` of torch.utils.data in a loader helper): the module's code reads it qualified,
    // as a porting engineer resolves such a clash, so the target's name is the one the port's
    // trial reads and the helper still builds the original's.
    std::map<std::string, std::string> qualify; // name -> module
    std::string out;
    for (const auto& l : lines) {
        if (!simpleImport(l)) {
            std::string line = l;
            for (const auto& [name, m] : qualify)
                line = qualifiedIn(line, name, m + "." + name);
            out += line + "\n";
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
        bool qualified = false;
        for (const auto& n : names) {
            const auto t = targetModule.find(n.bound);
            const bool shadows = t != targetModule.end() && t->second != m;
            if (shadows && !usesWord(code, n.bound))
                continue;
            if (shadows && n.text == n.bound && !m.starts_with(".")) {
                qualify[n.bound] = m;
                qualified = true;
                continue;
            }
            kept += (kept.empty() ? "" : ", ") + n.text;
        }
        if (qualified)
            out += "import " + m + "\n";
        if (!kept.empty())
            out += "from " + m + " import " + kept + "\n";
    }
    if (!module.empty() && module.back() != '\n' && !out.empty())
        out.pop_back();
    return out;
}

} // namespace portolan::port::detail
