#pragma once

// One porting session: analyse a project, choose the guide by one rule, run its checks and build
// the information flow. The CLI (check, flow) and the GUI's porting wizard both start one, so
// they never disagree about the guide or the findings (docs/ARCHITECTURE.md, Data flow).

#include "core/analysis/analysis.h"
#include "core/analysis/flow.h"
#include "core/guides/guide.h"

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace portolan::workflow {

struct SessionOptions
{
    std::string guideId; // the guide asked for; empty: the one the flavour suggests
    // --api runner|cstorch|trainer: the Cerebras API generation's guide, when no guide is asked
    // for; for a Cerebras project or an original going to Cerebras.
    std::string apiGeneration;
    std::string paramsOverride; // --params
    // The guides to choose from; default: resources/guides.
    std::shared_ptr<const guides::GuideSet> guides;
    bool withFlow = true; // build the information-flow graph too
    ProgressCallback progress;
};

struct PortingSession
{
    std::shared_ptr<const analysis::ProjectAnalysis> analysis;
    std::shared_ptr<const guides::GuideSet> guides;
    std::string guideId;     // the guide that was run; empty when none could be chosen
    std::string guideReason; // why this guide: "asked for", "suggested: <reason>", or why none
    guides::GuideResult result;
    analysis::FlowGraph flow;
    std::string flowDot;
    double milliseconds = 0; // analysis, checks and flow

    const guides::Guide* guide() const { return guides ? guides->find(guideId) : nullptr; }
};

// The guide rule: the one asked for (it must exist), else the one the project's flavour
// suggests, else none (the caller asks the user). Sets guideId and guideReason.
void chooseGuide(PortingSession& session, const std::string& asked);

// Analyses `project` and runs the chosen guide. Fails when the folder cannot be read or when the
// guide asked for does not exist (the message lists the guides there are).
Result<PortingSession> startPortingSession(const std::filesystem::path& project,
                                           const SessionOptions& options = {});

// `check --format json`: the guide's result (toJson) plus the project, flavour, params file and
// diagnostics, every location in core/common/json.h's shape.
nlohmann::json toJson(const PortingSession& session);

// The Cerebras API generation of a flavour report for JSON output (check and info):
// {"api_generation": "trainer" | null, "api_generation_reason": ..., "api_generation_evidence":
// [...]}, merged into `out`.
void addApiGenerationJson(const analysis::FlavourReport& flavour, nlohmann::json& out);

} // namespace portolan::workflow
