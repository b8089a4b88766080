#include "core/guides/findings_report.h"

#include "core/common/json.h"

#include <sstream>

namespace portolan::guides {

namespace {

std::string sarifLevel(Severity s)
{
    switch (s) {
    case Severity::Error:
        return "error";
    case Severity::Warning:
        return "warning";
    case Severity::Info:
        return "note";
    }
    return "note";
}

nlohmann::json fixJson(const Fix& fix)
{
    nlohmann::json edits = nlohmann::json::array();
    for (const auto& e : fix.edits) {
        nlohmann::json edit = {{"file", e.file},
                               {"start", e.start},
                               {"end", e.end},
                               {"expected", e.expected},
                               {"replacement", e.replacement}};
        if (e.createsFile)
            edit["createsFile"] = true;
        if (e.removesFile)
            edit["removesFile"] = true;
        edits.push_back(std::move(edit));
    }
    return {{"description", fix.description}, {"edits", edits}};
}

std::string dotEscape(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

} // namespace

nlohmann::json toJson(const Finding& f)
{
    nlohmann::json j{{"check", f.checkId},
                     {"step", f.stepId},
                     {"severity", severityName(f.severity)},
                     {"message", f.message},
                     {"location", portolan::toJson(f.location)},
                     {"hint", f.hint}};
    nlohmann::json related = nlohmann::json::array();
    for (const auto& r : f.related)
        related.push_back(portolan::toJson(r));
    j["related"] = related;
    j["fix"] = f.fix ? fixJson(*f.fix) : nlohmann::json(nullptr);
    return j;
}

nlohmann::json toJson(const Guide& guide, const GuideResult& result)
{
    nlohmann::json steps = nlohmann::json::array();
    for (std::size_t i = 0; i < guide.steps.size() && i < result.steps.size(); ++i) {
        const auto& s = guide.steps[i];
        const auto& r = result.steps[i];
        nlohmann::json findings = nlohmann::json::array();
        for (const auto& f : r.findings)
            findings.push_back(toJson(f));
        steps.push_back({{"id", s.id},
                         {"title", s.title},
                         {"status", stepStatusName(r.status)},
                         {"errors", r.errors},
                         {"warnings", r.warnings},
                         {"infos", r.infos},
                         {"findings", findings}});
        if (r.status == StepStatus::NotVerified) {
            steps.back()["verify_action"] = verifyActionName(r.verifyAction);
            steps.back()["reason"] = r.notVerifiedReason;
        }
    }
    return {{"guide", guide.id},
            {"title", guide.title},
            {"errors", result.errors},
            {"warnings", result.warnings},
            {"infos", result.infos},
            {"steps_done", result.stepsPassed()},
            {"steps_total", result.steps.size()},
            {"steps", steps}};
}

nlohmann::json toSarif(const Guide& guide, const GuideResult& result,
                       const std::string& projectRoot)
{
    nlohmann::json rules = nlohmann::json::array();
    std::map<std::string, int> ruleIndex;
    for (const auto& s : guide.steps)
        for (const auto& c : s.checks) {
            ruleIndex[c.id] = static_cast<int>(rules.size());
            rules.push_back({{"id", c.id},
                             {"name", c.id.substr(c.id.find('.') + 1)},
                             {"shortDescription", {{"text", c.title}}},
                             {"fullDescription", {{"text", s.title + ": " + c.title}}},
                             {"help", {{"text", c.hint}}},
                             {"defaultConfiguration", {{"level", sarifLevel(c.severity)}}}});
        }
    nlohmann::json results = nlohmann::json::array();
    auto physicalOf = [](const SourceLocation& l) {
        nlohmann::json region = nlohmann::json::object();
        if (l.line > 0)
            region["startLine"] = l.line;
        if (l.column > 0)
            region["startColumn"] = l.column;
        nlohmann::json physical{
            {"artifactLocation", {{"uri", l.file}, {"uriBaseId", "%SRCROOT%"}}}};
        if (!region.empty())
            physical["region"] = region;
        return physical;
    };
    for (const auto& f : result.allFindings()) {
        nlohmann::json r{
            {"ruleId", f.checkId},
            {"level", sarifLevel(f.severity)},
            {"message", {{"text", f.message}}},
            {"locations", nlohmann::json::array({{{"physicalLocation", physicalOf(f.location)}}})}};
        if (!f.related.empty()) {
            // Every other place of a grouped finding (each use of one command-line flag).
            nlohmann::json related = nlohmann::json::array();
            for (std::size_t i = 0; i < f.related.size(); ++i)
                related.push_back({{"id", int(i)}, {"physicalLocation", physicalOf(f.related[i])}});
            r["relatedLocations"] = related;
        }
        if (auto it = ruleIndex.find(f.checkId); it != ruleIndex.end())
            r["ruleIndex"] = it->second;
        results.push_back(std::move(r));
    }
    // The guide's steps with their status: SARIF results are findings only, and a step "not
    // verified" has none, so its status and reason go in the run's property bag.
    nlohmann::json stepStatuses = nlohmann::json::array();
    for (std::size_t i = 0; i < guide.steps.size() && i < result.steps.size(); ++i) {
        const auto& r = result.steps[i];
        nlohmann::json st{{"id", guide.steps[i].id}, {"status", stepStatusName(r.status)}};
        if (r.status == StepStatus::NotVerified) {
            st["verify_action"] = verifyActionName(r.verifyAction);
            st["reason"] = r.notVerifiedReason;
        }
        stepStatuses.push_back(std::move(st));
    }
    std::string rootUri = "file://" + projectRoot;
    if (rootUri.back() != '/')
        rootUri += '/';
    return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
            {"version", "2.1.0"},
            {"runs", nlohmann::json::array(
                         {{{"tool",
                            {{"driver",
                              {{"name", "Portolan"},
                               {"informationUri", "https://portolan.dev"},
                               {"semanticVersion", "0.1.0"},
                               {"rules", rules}}}}},
                           {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", rootUri}}}}},
                           {"results", results},
                           {"properties", {{"guide", guide.id}, {"steps", stepStatuses}}}}})}};
}

std::string guideOrderDot(const Guide& guide, const GuideResult* result)
{
    std::ostringstream out;
    out << "digraph guide {\n  graph [rankdir=TB, label=\"" << dotEscape(guide.title)
        << "\", labelloc=t, fontname=\"Helvetica\"];\n"
        << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n";
    for (std::size_t i = 0; i < guide.steps.size(); ++i) {
        const auto& s = guide.steps[i];
        std::string fill = "#eef2f7", status;
        if (result && i < result->steps.size()) {
            const auto& r = result->steps[i];
            status = "\\n" + std::string(stepStatusName(r.status));
            if (r.status == StepStatus::Findings) {
                status += " (" + std::to_string(r.findings.size()) + ")";
                fill = r.errors ? "#f8d0d0" : "#fbeec8";
            } else if (r.status == StepStatus::Passed) {
                fill = "#d4f0d4";
            } else if (r.status == StepStatus::NotVerified) {
                status += " (" + std::string(verifyActionName(r.verifyAction)) + " to verify)";
                fill = "#e4e4f4";
            }
        }
        out << "  s" << i << " [label=\"" << (i + 1) << ". " << dotEscape(s.title) << "\\n"
            << s.checks.size() << " checks" << status << "\", fillcolor=\"" << fill
            << "\", tooltip=\"" << dotEscape(s.id) << "\"];\n";
        if (i > 0)
            out << "  s" << (i - 1) << " -> s" << i << ";\n";
    }
    out << "}\n";
    return out.str();
}

} // namespace portolan::guides
