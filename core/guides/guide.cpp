// Guides are YAML data; this reads them into plain structs and validates what C++ depends on
// (rule kinds, fix kinds, unique ids), so that a broken guide is a positioned message, not a
// surprise at check time.
#include "core/guides/guide.h"

#include "core/common/atomic_file.h"
#include "core/guides/rules.h"

#include <algorithm>
#include <set>
#include <yaml-cpp/yaml.h>

namespace portolan::guides {

std::string RuleParams::get(const std::string& key, const std::string& fallback) const
{
    const auto it = values.find(key);
    return it == values.end() || it->second.empty() ? fallback : it->second.front();
}

const std::vector<std::string>& RuleParams::list(const std::string& key) const
{
    static const std::vector<std::string> empty;
    const auto it = values.find(key);
    return it == values.end() ? empty : it->second;
}

bool RuleParams::flag(const std::string& key, bool fallback) const
{
    if (!has(key))
        return fallback;
    const std::string v = get(key);
    return v == "true" || v == "True" || v == "yes" || v == "1";
}

std::size_t Guide::checkCount() const
{
    std::size_t n = 0;
    for (const auto& s : steps)
        n += s.checks.size();
    return n;
}

const Check* Guide::findCheck(std::string_view id) const
{
    for (const auto& s : steps)
        for (const auto& c : s.checks)
            if (c.id == id)
                return &c;
    return nullptr;
}

const Guide* GuideSet::find(std::string_view id) const
{
    for (const auto& g : guides)
        if (g.id == id)
            return &g;
    return nullptr;
}

std::string_view verifyActionName(VerifyAction a)
{
    switch (a) {
    case VerifyAction::None:
        return "";
    case VerifyAction::Compile:
        return "compile";
    case VerifyAction::Run:
        return "run";
    }
    return "";
}

std::string_view stepStatusName(StepStatus s)
{
    switch (s) {
    case StepStatus::NotVerified:
        return "not-verified";
    case StepStatus::Passed:
        return "passed";
    case StepStatus::Findings:
        return "findings";
    case StepStatus::NotApplicable:
        return "not-applicable";
    }
    return "passed";
}

std::vector<Finding> GuideResult::allFindings() const
{
    std::vector<Finding> out;
    for (const auto& s : steps)
        out.insert(out.end(), s.findings.begin(), s.findings.end());
    return out;
}

int GuideResult::stepsPassed() const
{
    return static_cast<int>(std::count_if(steps.begin(), steps.end(), [](const StepResult& s) {
        // A step not verified is not done: it waits for its compile or run.
        return s.status == StepStatus::Passed || s.status == StepStatus::NotApplicable;
    }));
}

namespace {

struct GuideError
{
    std::string message;
    YAML::Mark mark;
};

SourceLocation at(const std::string& path, const YAML::Node& n)
{
    const YAML::Mark m = n.Mark();
    return {path, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

std::string scalar(const YAML::Node& parent, const char* key, bool required)
{
    const YAML::Node n = parent[key];
    if (!n || n.IsNull()) {
        if (required)
            throw GuideError{std::string("missing '") + key + "'", parent.Mark()};
        return {};
    }
    if (!n.IsScalar())
        throw GuideError{std::string("'") + key + "' must be text", n.Mark()};
    return n.Scalar();
}

RuleParams params(const YAML::Node& map, std::initializer_list<const char*> skip)
{
    RuleParams p;
    for (auto it = map.begin(); it != map.end(); ++it) {
        const std::string key = it->first.Scalar();
        if (std::find_if(skip.begin(), skip.end(), [&](const char* s) { return key == s; }) !=
            skip.end())
            continue;
        std::vector<std::string> values;
        // A copy: `it->second` lives in a proxy that yaml-cpp's operator-> returns by value, so a
        // range-for over it would iterate a node destroyed before the loop body runs.
        const YAML::Node value = it->second;
        if (value.IsScalar())
            values.push_back(value.Scalar());
        else if (value.IsSequence()) {
            for (const auto& v : value) {
                if (!v.IsScalar())
                    throw GuideError{"'" + key + "' must be a list of text values", v.Mark()};
                values.push_back(v.Scalar());
            }
        } else if (!value.IsNull()) {
            throw GuideError{"'" + key + "' must be text or a list", value.Mark()};
        }
        p.values[key] = std::move(values);
    }
    return p;
}

Check parseCheck(const YAML::Node& n, const std::string& path)
{
    if (!n.IsMap())
        throw GuideError{"a check must be a mapping", n.Mark()};
    Check c;
    c.definedAt = at(path, n);
    c.id = scalar(n, "id", true);
    const std::string sev = scalar(n, "severity", true);
    const auto s = severityFromName(sev);
    if (!s)
        throw GuideError{"severity must be error, warning or info, not '" + sev + "'",
                         n["severity"].Mark()};
    c.severity = *s;
    c.title = scalar(n, "title", true);
    c.message = scalar(n, "message", true);
    c.hint = scalar(n, "hint", true);
    const YAML::Node rule = n["rule"];
    if (!rule || !rule.IsMap())
        throw GuideError{"check '" + c.id + "' needs a 'rule' mapping with a 'kind'", n.Mark()};
    c.kind = scalar(rule, "kind", true);
    if (!isKnownRuleKind(c.kind))
        throw GuideError{"unknown rule kind '" + c.kind + "'", rule["kind"].Mark()};
    c.params = params(rule, {"kind"});
    if (const YAML::Node fix = n["fix"]; fix && !fix.IsNull()) {
        if (!fix.IsMap())
            throw GuideError{"'fix' must be a mapping with a 'kind'", fix.Mark()};
        c.fixKind = scalar(fix, "kind", true);
        if (!isKnownFixKind(c.fixKind))
            throw GuideError{"unknown fix kind '" + c.fixKind + "'", fix["kind"].Mark()};
        c.fixParams = params(fix, {"kind"});
    }
    return c;
}

} // namespace

Result<Guide> parseGuide(std::string_view yamlText, const std::string& path)
{
    auto fail = [&](const std::string& message, int line, int column) {
        Diagnostic d;
        d.code = "guide.invalid";
        d.message = message;
        d.location = {path, line, column};
        return Result<Guide>::fail(std::move(d));
    };
    try {
        const YAML::Node root = YAML::Load(std::string(yamlText));
        if (!root.IsMap())
            return fail("a guide must be a YAML mapping", 1, 1);
        Guide g;
        g.sourcePath = path;
        g.id = scalar(root, "id", true);
        g.title = scalar(root, "title", true);
        g.summary = scalar(root, "summary", false);
        g.target = scalar(root, "target", false);
        const YAML::Node steps = root["steps"];
        if (!steps || !steps.IsSequence() || steps.size() == 0)
            throw GuideError{"a guide needs a non-empty 'steps' list", root.Mark()};
        std::set<std::string> ids;
        for (const auto& sn : steps) {
            if (!sn.IsMap())
                throw GuideError{"a step must be a mapping", sn.Mark()};
            Step s;
            s.id = scalar(sn, "id", true);
            s.title = scalar(sn, "title", true);
            s.explanation = scalar(sn, "explanation", true);
            if (const YAML::Node files = sn["files"]; files && files.IsSequence())
                for (const auto& f : files)
                    s.files.push_back(f.Scalar());
            if (const YAML::Node v = sn["verified-by"]; v && !v.IsNull()) {
                if (!v.IsMap())
                    throw GuideError{"'verified-by' must be a mapping with 'action' and 'reason'",
                                     v.Mark()};
                const std::string action = scalar(v, "action", true);
                if (action == "compile")
                    s.verifiedBy = VerifyAction::Compile;
                else if (action == "run")
                    s.verifiedBy = VerifyAction::Run;
                else
                    throw GuideError{"verified-by action '" + action +
                                         "' is not one of: compile, run",
                                     v["action"].Mark()};
                s.verifiedByReason = scalar(v, "reason", true);
            }
            if (const YAML::Node checks = sn["checks"]; checks && checks.IsSequence())
                for (const auto& cn : checks) {
                    Check c = parseCheck(cn, path);
                    if (!ids.insert(c.id).second)
                        throw GuideError{"duplicate check id '" + c.id + "'", cn.Mark()};
                    s.checks.push_back(std::move(c));
                }
            g.steps.push_back(std::move(s));
        }
        return Result<Guide>::ok(std::move(g));
    } catch (const GuideError& e) {
        return fail(e.message, e.mark.line + 1, e.mark.column + 1);
    } catch (const YAML::Exception& e) {
        return fail("YAML cannot be read: " + e.msg, e.mark.line + 1, e.mark.column + 1);
    }
}

GuideSet loadGuides(const std::filesystem::path& dir)
{
    GuideSet set;
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".yaml")
            files.push_back(it->path());
    if (ec) {
        Diagnostic d;
        d.code = "guide.folder";
        d.message = "guides folder cannot be read: " + ec.message();
        d.location.file = dir.string();
        set.diagnostics.push_back(std::move(d));
        return set;
    }
    std::sort(files.begin(), files.end());
    std::set<std::string> checkIds;
    for (const auto& f : files) {
        auto text = readFile(f);
        if (!text) {
            set.diagnostics.push_back(text.error);
            continue;
        }
        auto g = parseGuide(*text.value, f.string());
        if (!g) {
            set.diagnostics.push_back(g.error);
            continue;
        }
        bool clash = set.find(g.value->id) != nullptr;
        for (const auto& s : g.value->steps)
            for (const auto& c : s.checks)
                if (checkIds.count(c.id))
                    clash = true;
        if (clash) {
            Diagnostic d;
            d.code = "guide.duplicate";
            d.message = "guide '" + g.value->id + "' repeats a guide or check id of another guide";
            d.location.file = f.string();
            set.diagnostics.push_back(std::move(d));
            continue;
        }
        for (const auto& s : g.value->steps)
            for (const auto& c : s.checks)
                checkIds.insert(c.id);
        set.guides.push_back(std::move(*g.value));
    }
    return set;
}

} // namespace portolan::guides
