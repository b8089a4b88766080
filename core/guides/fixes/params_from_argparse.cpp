#include "core/guides/fixes/params_from_argparse.h"

#include "core/analysis/analysis.h"
#include "core/analysis/facts.h"
#include "core/common/resources.h"
#include "core/common/text.h"
#include "core/guides/guide.h"
#include "core/guides/rules.h"
#include "core/python/resolve.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>
#include <yaml-cpp/yaml.h>

namespace portolan::guides {

using analysis::ProjectAnalysis;
using python::SymbolKind;

// --- the table --------------------------------------------------------------------------------

namespace {

std::string lowerDest(std::string s)
{
    for (auto& c : s)
        c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

FlagSections builtinSections()
{
    FlagSections t;
    t.sections = {"train_input", "eval_input", "model", "optimizer", "runconfig"};
    t.rules = {{"eval_input",
                {"test_batch_size", "eval_batch_size", "eval_*", "test_*"},
                {{"test_batch_size", "batch_size"}, {"eval_batch_size", "batch_size"}}},
               {"train_input", {"batch_size", "data*", "num_workers", "workers"}, {}},
               {"optimizer",
                {"lr", "learning_rate", "momentum", "weight_decay"},
                {{"lr", "learning_rate"}}},
               {"runconfig",
                {"epochs", "seed", "log_interval", "save*", "no_cuda", "dry_run"},
                {{"epochs", "num_epochs"}, {"log_interval", "log_steps"}}}};
    return t;
}

} // namespace

std::pair<std::string, std::string> FlagSections::place(const std::string& dest) const
{
    const std::string lower = lowerDest(dest);
    for (const auto& r : rules)
        if (anyGlob(r.flags, lower)) {
            const auto it = r.rename.find(lower);
            return {r.section, it != r.rename.end() ? it->second : dest};
        }
    return {fallback, dest};
}

Result<FlagSections> loadFlagSections(const std::filesystem::path& file)
{
    using R = Result<FlagSections>;
    FlagSections t;
    try {
        const YAML::Node root = YAML::LoadFile(file.string());
        for (const auto& s : root["sections"])
            t.sections.push_back(s.as<std::string>());
        if (root["fallback"])
            t.fallback = root["fallback"].as<std::string>();
        for (const auto& r : root["rules"]) {
            FlagSections::Rule rule;
            rule.section = r["section"].as<std::string>();
            for (const auto& f : r["flags"])
                rule.flags.push_back(f.as<std::string>());
            if (r["rename"])
                for (const auto& kv : r["rename"])
                    rule.rename[kv.first.as<std::string>()] = kv.second.as<std::string>();
            t.rules.push_back(std::move(rule));
        }
    } catch (const std::exception& e) {
        Diagnostic d;
        d.code = "fix.table";
        d.message = std::string("cannot read the flag sections table: ") + e.what();
        d.location.file = file.string();
        return R::fail(std::move(d));
    }
    if (t.sections.empty())
        t.sections = builtinSections().sections;
    return R::ok(std::move(t));
}

const FlagSections& defaultFlagSections()
{
    static std::mutex mutex;
    static std::map<std::filesystem::path, FlagSections> cache;
    std::lock_guard lock(mutex);
    const std::filesystem::path file = resourcesDir() / "fixes" / "flag-sections.yaml";
    auto it = cache.find(file);
    if (it == cache.end()) {
        auto loaded = loadFlagSections(file);
        it = cache.emplace(file, loaded ? std::move(*loaded.value) : builtinSections()).first;
    }
    return it->second;
}

ParamsEntry* ParamsPlan::entry(const std::string& dest)
{
    for (auto& e : entries)
        if (e.dest == dest)
            return &e;
    return nullptr;
}

const ParamsEntry* ParamsPlan::entry(const std::string& dest) const
{
    return const_cast<ParamsPlan*>(this)->entry(dest);
}

// --- Python literals as YAML ------------------------------------------------------------------

namespace {

std::string trim(std::string s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
        ++i;
    return s.substr(i);
}

std::string yamlQuoted(const std::string& s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

// A Python number as PyYAML reads it back as a number: floats need a '.' in the mantissa and a
// sign in the exponent ("1e-3" is a string to PyYAML, "1.0e-3" a float).
std::optional<std::string> yamlNumber(std::string t)
{
    t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
    std::size_t i = 0;
    std::string sign;
    if (i < t.size() && (t[i] == '-' || t[i] == '+'))
        sign = t[i++] == '-' ? "-" : "";
    std::string intPart, frac, exp;
    bool dot = false;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])))
        intPart += t[i++];
    if (i < t.size() && t[i] == '.') {
        dot = true;
        ++i;
        while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])))
            frac += t[i++];
    }
    if (intPart.empty() && frac.empty())
        return std::nullopt;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        std::string es = "+";
        if (i < t.size() && (t[i] == '-' || t[i] == '+'))
            es = t[i++];
        std::string digits;
        while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])))
            digits += t[i++];
        if (digits.empty())
            return std::nullopt;
        exp = "e" + es + digits;
    }
    if (i != t.size())
        return std::nullopt;
    if (!dot && exp.empty()) {
        // Python 3 has no octal "010"; a leading zero is a plain 0.
        return sign + intPart;
    }
    return sign + (intPart.empty() ? "0" : intPart) + "." + (frac.empty() ? "0" : frac) + exp;
}

std::optional<std::string> yamlOf(const std::string& text, int depth = 0)
{
    const std::string t = trim(text);
    if (t.empty() || depth > 3)
        return std::nullopt;
    if (t == "True")
        return "true";
    if (t == "False")
        return "false";
    if (t == "None")
        return "null";
    if (auto n = yamlNumber(t))
        return n;
    if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front()) {
        const std::string inner = t.substr(1, t.size() - 2);
        if (inner.find('\\') != std::string::npos || inner.find(t.front()) != std::string::npos)
            return std::nullopt;
        return yamlQuoted(inner);
    }
    if (t.size() >= 2 &&
        ((t.front() == '[' && t.back() == ']') || (t.front() == '(' && t.back() == ')'))) {
        std::vector<std::string> parts;
        std::string cur;
        int nest = 0;
        char quote = 0;
        for (std::size_t i = 1; i + 1 < t.size(); ++i) {
            const char c = t[i];
            if (quote) {
                if (c == quote)
                    quote = 0;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '[' || c == '(') {
                ++nest;
            } else if (c == ']' || c == ')') {
                --nest;
            } else if (c == ',' && nest == 0) {
                parts.push_back(cur);
                cur.clear();
                continue;
            }
            cur += c;
        }
        if (!trim(cur).empty())
            parts.push_back(cur);
        std::string out = "[";
        for (std::size_t i = 0; i < parts.size(); ++i) {
            auto v = yamlOf(parts[i], depth + 1);
            if (!v)
                return std::nullopt;
            out += (i ? ", " : "") + *v;
        }
        return out + "]";
    }
    return std::nullopt;
}

std::string oneLine(std::string s)
{
    for (auto& c : s)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    std::string out;
    for (char c : s)
        if (!(c == ' ' && !out.empty() && out.back() == ' '))
            out += c;
    return trim(out);
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to)
{
    for (auto pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
        s.replace(pos, from.size(), to);
    return s;
}

// The value and comment of a flag's key.
void describe(const analysis::CliFlag& flag, ParamsEntry& e)
{
    std::string note;
    if (!flag.defaultText.empty()) {
        if (auto v = yamlOf(flag.defaultText)) {
            e.value = *v;
            // argparse passes a string default through type=: default='1000' with type=int is
            // the number 1000; a whole default of a float flag is written as a float.
            if ((flag.type == "int" || flag.type == "float") && e.value.size() > 2 &&
                e.value.front() == '"')
                if (auto n = yamlNumber(e.value.substr(1, e.value.size() - 2)))
                    e.value = *n;
            if (flag.type == "float" &&
                e.value.find_first_not_of("-0123456789") == std::string::npos)
                e.value += ".0";
        } else {
            e.value = "null";
            note = "the default was " + oneLine(flag.defaultText) + "; set it";
        }
    } else if (flag.action == "store_true") {
        e.value = "false";
    } else if (flag.action == "store_false") {
        e.value = "true";
    } else {
        e.value = "null";
        note = flag.required ? "required on the command line; set it" : "no default; set it";
    }
    std::string help = oneLine(flag.help);
    if (help.size() >= 2 && (help.front() == '"' || help.front() == '\'') &&
        help.back() == help.front())
        help = help.substr(1, help.size() - 2); // help given as a non-literal expression
    help = replaceAll(help, "%(default)s", oneLine(flag.defaultText));
    help = replaceAll(help, "%%", "%");
    e.comment = e.option + (help.empty() ? "" : ": " + help);
    if (!note.empty())
        e.comment += " (" + note + ")";
}

} // namespace

bool isIdentifierChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

namespace {

// Does `args.x` at `end` (the end of the attribute) get assigned to (`=`, `+=`, ...)?
bool isAssigned(const std::string& src, std::size_t end)
{
    std::size_t p = end;
    while (p < src.size() && (src[p] == ' ' || src[p] == '\t'))
        ++p;
    if (p >= src.size())
        return false;
    if (src[p] == '=')
        return p + 1 >= src.size() || src[p + 1] != '=';
    static const char* ops[] = {
        "+=", "-=", "*=", "/=", "//=", "%=", "**=", ">>=", "<<=", "&=", "|=", "^=", "@="};
    for (const char* op : ops)
        if (src.compare(p, std::char_traits<char>::length(op), op) == 0)
            return true;
    return false;
}

// The start of the line after the one `byte` is on (after a statement that may continue over
// several lines: the assignment's span already covers those).
std::uint32_t nextLineStart(const std::string& src, std::uint32_t byte)
{
    std::size_t p = src.find('\n', byte);
    return p == std::string::npos ? static_cast<std::uint32_t>(src.size())
                                  : static_cast<std::uint32_t>(p + 1);
}

std::string indentAt(const std::string& src, std::uint32_t byte)
{
    std::uint32_t start = byte;
    while (start > 0 && src[start - 1] != '\n')
        --start;
    std::string indent;
    for (std::uint32_t i = start; i < src.size() && (src[i] == ' ' || src[i] == '\t'); ++i)
        indent += src[i];
    return indent;
}

// Is a name defined or used anywhere in a file?
bool fileMentions(const python::PyIndex& index, const std::string& name)
{
    for (const auto& s : index.scopes) {
        for (const auto& d : s.defined)
            if (d.name == name)
                return true;
        for (const auto& u : s.used)
            if (u.name == name)
                return true;
    }
    return false;
}

// A method's class is a Determined trial: it derives from PyTorchTrial (or the class the
// contracts give as the trial's base).
bool isTrialClass(const ProjectAnalysis& a, const analysis::PythonFile& f, int cls)
{
    for (const auto& base : classAncestry(a, f, cls))
        if (base.ends_with("PyTorchTrial"))
            return true;
    return false;
}

} // namespace

// --- the plan ---------------------------------------------------------------------------------

namespace {

// Plan, phase 1: the file, its sections and, for Determined, the trial's entrypoint.
ParamsPlan emptyPlan(const ProjectAnalysis& a, ParamsTarget target, const FlagSections& table)
{
    ParamsPlan plan;
    plan.target = target;
    plan.file = target == ParamsTarget::Cerebras ? "configs/params.yaml" : "const.yaml";
    plan.name = a.root.filename().string();
    if (plan.name.empty())
        plan.name = a.root.parent_path().filename().string();
    plan.sections = target == ParamsTarget::Cerebras ? table.sections
                                                     : std::vector<std::string>{"hyperparameters"};
    if (target != ParamsTarget::Determined)
        return plan;
    for (const auto& f : a.python) {
        for (int c = 0; c < int(f.index.classes.size()) && plan.entrypoint.empty(); ++c)
            if (isTrialClass(a, f, c)) {
                std::string module = f.path.substr(0, f.path.size() - 3);
                std::replace(module.begin(), module.end(), '/', '.');
                plan.entrypoint = module + ":" + f.index.classes[std::size_t(c)].name;
            }
        if (!plan.entrypoint.empty())
            break;
    }
    return plan;
}

// Flags the code assigns to keep their command-line value: none of their uses move.
std::set<std::string> assignedFlags(const ProjectAnalysis& a)
{
    std::set<std::string> assigned;
    for (const auto& u : a.facts().cliUses) {
        const auto& src = a.python[std::size_t(u.file)].text;
        const std::string prefix = u.namespaceName + "." + u.dest;
        if (src.compare(u.span.startByte, prefix.size(), prefix) == 0 &&
            u.span.endByte - u.span.startByte == prefix.size() && isAssigned(src, u.span.endByte))
            assigned.insert(u.dest);
    }
    return assigned;
}

// In a Determined trial's method, the hyperparameter comes from the trial's context: the
// method's first parameter, or empty when the use is not in a trial's method.
std::string trialSelf(const ProjectAnalysis& a, const analysis::CliUse& u)
{
    const analysis::PythonFile& file = a.python[std::size_t(u.file)];
    const python::PyIndex& index = file.index;
    python::FunctionId method = u.function;
    while (method != python::ModuleLevel && index.functions[std::size_t(method)].className.empty())
        method = index.functions[std::size_t(method)].parent;
    if (method == python::ModuleLevel)
        return {};
    const int cls = a.resolver->classOf(u.file, method);
    const auto& def = index.functions[std::size_t(method)];
    if (cls >= 0 && isTrialClass(a, file, cls) && !def.parameters.empty())
        return def.parameters.front().name;
    return {};
}

// Where the params file is loaded for the namespace parsed by assignment `as` of `file`: on the
// line after it, into a variable the file does not use yet, with `import yaml` after the
// imports at the top when the file has none.
ParamsPlan::Load loadAfter(const ProjectAnalysis& a, int fileIndex, const python::Assignment& as)
{
    const analysis::PythonFile& file = a.python[std::size_t(fileIndex)];
    const auto& src = file.text;
    const python::PyIndex& index = file.index;
    ParamsPlan::Load load;
    load.file = fileIndex;
    load.at = nextLineStart(src, as.span.endByte);
    load.indent = indentAt(src, as.span.startByte);
    for (const char* name : {"params", "yaml_params", "params_dict"})
        if (!fileMentions(index, name)) {
            load.variable = name;
            break;
        }
    if (load.variable.empty())
        load.variable = "portolan_params";
    bool hasYaml = false;
    std::uint32_t afterImports = 0;
    for (const auto& imp : index.imports) {
        if (imp.function != python::ModuleLevel)
            continue;
        if (imp.boundName() == "yaml" && imp.name.empty())
            hasYaml = true;
        // After the imports at the top: those before the first definition or statement that
        // uses the namespace.
        if (imp.span.startByte < as.span.startByte && indentAt(src, imp.span.startByte).empty())
            afterImports = std::max(afterImports, nextLineStart(src, imp.span.endByte));
    }
    load.needsImport = !hasYaml;
    load.importAt = afterImports;
    return load;
}

// Plan, phase 2: each use of a flag, rewritten to read the params file or left alone with the
// reason.
class UsePlanner
{
public:
    UsePlanner(const ProjectAnalysis& a, ParamsTarget target, ParamsPlan& plan)
        : m_a(a), m_target(target), m_plan(plan), m_assigned(assignedFlags(a))
    {
        for (const auto& f : a.facts().flags)
            m_flags.emplace(f.dest, &f); // the first definition of each dest
    }

    void plan(const analysis::CliUse& u)
    {
        const analysis::PythonFile& file = m_a.python[std::size_t(u.file)];
        const auto& src = file.text;
        const python::PyIndex& index = file.index;
        const std::string text = u.namespaceName + "." + u.dest;
        if (src.compare(u.span.startByte, text.size(), text) != 0 ||
            (u.span.startByte + text.size() < src.size() &&
             isIdentifierChar(src[u.span.startByte + text.size()])))
            return leave(u, text, "written in a way the fix does not rewrite");
        if (!m_flags.count(u.dest))
            return leave(u, text, "not a command-line flag: the code sets it");
        if (m_assigned.count(u.dest))
            return leave(u, text,
                         "the code assigns to " + text + ", so it stays a command-line value");
        ParamsPlan::Rewrite rw;
        rw.file = u.file;
        rw.span = u.span;
        rw.span.endByte = u.span.startByte + static_cast<std::uint32_t>(text.size());
        rw.text = text;
        rw.dest = u.dest;
        if (m_target == ParamsTarget::Determined) {
            rw.trialSelf = trialSelf(m_a, u);
            if (!rw.trialSelf.empty()) {
                m_plan.rewrites.push_back(std::move(rw));
                return;
            }
        }
        const python::Symbol s = m_a.resolver->resolve(u.file, u.function, u.namespaceName);
        if (s.kind == SymbolKind::Parameter)
            return leave(u, text,
                         u.namespaceName + " is passed to " +
                             index.functions[std::size_t(s.function)].qualifiedName +
                             "(); pass the params dictionary instead");
        int assignment = -1;
        if (s.kind == SymbolKind::Local && s.file == u.file)
            for (int i = 0; i < int(index.assignments.size()); ++i) {
                const auto& as = index.assignments[std::size_t(i)];
                if (as.function == s.function && as.target == u.namespaceName && !as.augmented) {
                    assignment = i;
                    break;
                }
            }
        if (assignment < 0)
            return leave(u, text, "the fix cannot tell where " + u.namespaceName + " is parsed");
        const auto& as = index.assignments[std::size_t(assignment)];
        if (u.function == s.function && u.span.startByte < nextLineStart(src, as.span.endByte))
            return leave(u, text, "read before the flags are parsed");
        auto [it, fresh] = m_loadOf.emplace(std::make_pair(u.file, assignment), 0);
        if (fresh) {
            it->second = int(m_plan.loads.size());
            m_plan.loads.push_back(loadAfter(m_a, u.file, as));
        }
        rw.load = it->second;
        m_plan.rewrites.push_back(std::move(rw));
    }

private:
    void leave(const analysis::CliUse& u, const std::string& text, std::string why)
    {
        m_plan.leftAlone.push_back(
            {{m_a.python[std::size_t(u.file)].path, u.span.line, u.span.column},
             text,
             std::move(why)});
    }

    const ProjectAnalysis& m_a;
    ParamsTarget m_target;
    ParamsPlan& m_plan;
    std::set<std::string> m_assigned;
    std::map<std::string, const analysis::CliFlag*> m_flags;
    std::map<std::pair<int, int>, int> m_loadOf; // (file, assignment) -> loads index
};

// Plan, phase 3: one entry per flag the fix rewrites, in the order the flags are defined, each
// in its section under a key no other entry has.
void planEntries(const ProjectAnalysis& a, ParamsTarget target, const FlagSections& table,
                 ParamsPlan& plan)
{
    const auto& facts = a.facts();
    std::map<std::string, int> uses;
    for (const auto& rw : plan.rewrites)
        ++uses[rw.dest];
    std::set<std::pair<std::string, std::string>> taken;
    for (const auto& flag : facts.flags) {
        if (!uses.count(flag.dest) || plan.entry(flag.dest))
            continue;
        ParamsEntry e;
        e.dest = flag.dest;
        e.option = flag.options.empty() ? flag.dest : flag.options.front();
        for (const auto& o : flag.options)
            if (o.starts_with("--")) {
                e.option = o;
                break;
            }
        auto [section, key] = table.place(flag.dest);
        if (target == ParamsTarget::Determined) {
            // Determined names the batch size global_batch_size and splits it over the slots.
            if (section == "train_input" && key == "batch_size")
                key = "global_batch_size";
            section = "hyperparameters";
        }
        if (taken.count({section, key}))
            key = flag.dest;
        if (taken.count({section, key}))
            key = lowerDest(flag.dest) + "_" + std::to_string(taken.size());
        taken.insert({section, key});
        e.section = section;
        e.key = key;
        describe(flag, e);
        // The same flag in another script with another default: the file holds one value.
        std::set<std::string> noted;
        for (const auto& other : facts.flags) {
            if (&other == &flag || other.dest != flag.dest || other.file == flag.file)
                continue;
            ParamsEntry theirs;
            describe(other, theirs);
            const std::string& path = a.python[std::size_t(other.file)].path;
            if (theirs.value != e.value && noted.insert(path).second)
                e.comment += "; " + path + " has " + theirs.value;
        }
        e.definedAt = {a.python[std::size_t(flag.file)].path, flag.span.line, flag.span.column};
        e.uses = uses[flag.dest];
        plan.entries.push_back(std::move(e));
    }
}

} // namespace

std::optional<ParamsPlan> planParamsFromArgparse(const ProjectAnalysis& a, ParamsTarget target,
                                                 const FlagSections& table)
{
    const auto& facts = a.facts();
    if (facts.flags.empty() || facts.cliUses.empty() || !a.resolver)
        return std::nullopt;
    ParamsPlan plan = emptyPlan(a, target, table);
    UsePlanner uses(a, target, plan);
    for (const auto& u : facts.cliUses)
        uses.plan(u);
    if (plan.rewrites.empty())
        return std::nullopt;
    planEntries(a, target, table, plan);
    return plan;
}

} // namespace portolan::guides
