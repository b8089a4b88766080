#include "core/workflow/porting_session.h"

#include "core/analysis/port_scope.h"
#include "core/common/json.h"
#include "core/common/resources.h"
#include "core/guides/findings_report.h"

#include <chrono>

namespace portolan::workflow {

using guides::Guide;
using guides::GuideSet;

void chooseGuide(PortingSession& s, const std::string& asked)
{
    if (!asked.empty()) {
        s.guideId = asked;
        s.guideReason = "asked for";
        return;
    }
    const analysis::FlavourReport& fl = s.analysis->flavour;
    if (!fl.suggestedGuide.empty() && s.guides->find(fl.suggestedGuide)) {
        s.guideId = fl.suggestedGuide;
        s.guideReason = "suggested: " + fl.suggestionReason;
        return;
    }
    s.guideId.clear();
    s.guideReason = "the project does not say which workflow it is for; choose a guide";
}

Result<PortingSession> startPortingSession(const std::filesystem::path& project,
                                           const SessionOptions& options)
{
    using R = Result<PortingSession>;
    const auto start = std::chrono::steady_clock::now();
    PortingSession s;
    s.guides =
        options.guides
            ? options.guides
            : std::make_shared<const GuideSet>(guides::loadGuides(resourcesDir() / "guides"));
    if (!options.guideId.empty() && !s.guides->find(options.guideId)) {
        std::string known;
        for (const auto& g : s.guides->guides)
            known += (known.empty() ? "" : ", ") + g.id;
        Diagnostic d;
        d.code = "guide.unknown";
        d.message = "no guide '" + options.guideId + "' (there are: " + known + ")";
        d.location.file = project.string();
        return R::fail(std::move(d));
    }
    std::string asked = options.guideId;
    if (!options.apiGeneration.empty()) {
        const auto generation = analysis::apiGenerationFromId(options.apiGeneration);
        if (generation == analysis::ApiGeneration::None) {
            Diagnostic d;
            d.code = "guide.unknown-api";
            d.message = "no Cerebras API generation '" + options.apiGeneration +
                        "' (there are: runner, cstorch, trainer)";
            d.location.file = project.string();
            return R::fail(std::move(d));
        }
        if (asked.empty())
            asked = std::string(analysis::guideIdFor(generation));
    }
    analysis::AnalysisOptions aopts;
    aopts.paramsOverride = options.paramsOverride;
    auto analysed = analysis::analyzeProject(project, aopts, options.progress);
    if (!analysed)
        return R::fail(analysed.error);
    if (!options.apiGeneration.empty()) {
        // The generation the user picked is the one the port follows; the detected one stays
        // in the evidence.
        auto& fl = analysed.value->flavour;
        const auto detected = fl.apiGeneration;
        fl.apiGeneration = analysis::apiGenerationFromId(options.apiGeneration);
        fl.generationReason =
            "asked for with --api" +
            (detected != analysis::ApiGeneration::None && detected != fl.apiGeneration
                 ? std::string("; detected: ") + std::string(analysis::apiGenerationId(detected))
                 : std::string());
    }
    s.analysis = std::make_shared<const analysis::ProjectAnalysis>(std::move(*analysed.value));
    chooseGuide(s, asked);
    if (!options.apiGeneration.empty() && options.guideId.empty())
        s.guideReason = "asked for with --api " + options.apiGeneration;
    if (const Guide* g = s.guide())
        s.result = guides::runGuide(*g, *s.analysis);
    if (options.withFlow) {
        s.flow = analysis::buildFlowGraph(*s.analysis);
        s.flowDot = analysis::toDot(s.flow, s.analysis->root.filename().string() + ": " +
                                                s.analysis->flavour.summary());
    }
    s.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return R::ok(std::move(s));
}

nlohmann::json toJson(const PortingSession& s)
{
    const analysis::ProjectAnalysis& a = *s.analysis;
    nlohmann::json j;
    if (const Guide* g = s.guide())
        j = guides::toJson(*g, s.result);
    else
        j = {{"guide", nullptr}, {"errors", 0}, {"warnings", 0}, {"infos", 0}, {"steps", nullptr}};
    j["guide_reason"] = s.guideReason;
    j["project"] = a.root.string();
    j["flavour"] = std::string(analysis::flavourId(a.flavour.flavour));
    j["flavour_summary"] = a.flavour.summary();
    nlohmann::json evidence = nlohmann::json::array();
    for (const auto& e : a.flavour.evidence)
        evidence.push_back({{"flavour", analysis::flavourId(e.flavour)},
                            {"what", e.what},
                            {"location", portolan::toJson(e.location)}});
    j["flavour_evidence"] = evidence;
    addApiGenerationJson(a.flavour, j);
    j["params_file"] = {{"path", a.paramsFile.empty() ? nlohmann::json(nullptr)
                                                      : nlohmann::json(a.paramsFile.path)},
                        {"source", paramsSourceName(a.paramsFile.source)},
                        {"reason", a.paramsFile.reason}};
    nlohmann::json diags = nlohmann::json::array();
    for (const auto& d : a.diagnostics)
        diags.push_back(portolan::toJson(d));
    j["diagnostics"] = diags;
    // Files whose findings are notes at most, and why (analysis/port_scope.h).
    nlohmann::json notPort = nlohmann::json::array();
    for (const auto& f : a.python)
        if (std::string why = analysis::outsidePortReason(a, f.path); !why.empty())
            notPort.push_back({{"file", f.path}, {"reason", why}});
    j["not_port"] = notPort;
    return j;
}

void addApiGenerationJson(const analysis::FlavourReport& fl, nlohmann::json& out)
{
    if (fl.apiGeneration == analysis::ApiGeneration::None) {
        out["api_generation"] = nullptr;
        return;
    }
    out["api_generation"] = std::string(analysis::apiGenerationId(fl.apiGeneration));
    out["api_generation_name"] = std::string(analysis::apiGenerationName(fl.apiGeneration));
    out["api_generation_reason"] = fl.generationReason;
    nlohmann::json evidence = nlohmann::json::array();
    for (const auto& e : fl.generationEvidence)
        evidence.push_back({{"generation", analysis::apiGenerationId(e.generation)},
                            {"what", e.what},
                            {"weight", e.weight},
                            {"location", portolan::toJson(e.location)}});
    out["api_generation_evidence"] = evidence;
}

} // namespace portolan::workflow
