// portolan-cli check PROJECT: run a porting guide's checks on a project.
#include "app/cli/cli_common.h"
#include "core/analysis/analysis.h"
#include "core/analysis/port_scope.h"
#include "core/common/resources.h"
#include "core/guides/findings_report.h"
#include "core/guides/fixes/apply_fix.h"
#include "core/guides/guide.h"
#include "core/workflow/porting_session.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>

namespace portolan::cli {

namespace {

struct CheckOptions
{
    std::string project;
    std::string params; // --params: overrides the project's saved or default params file
    std::string target;
    std::string api; // --api runner|cstorch|trainer
    std::string format = "text";
    std::string guidesDir;
    bool showDiffs = false;
    bool listGuides = false;
};

int runCheck(const CheckOptions& o)
{
    const std::filesystem::path dir =
        o.guidesDir.empty() ? resourcesDir() / "guides" : std::filesystem::path(o.guidesDir);
    auto set = std::make_shared<const guides::GuideSet>(guides::loadGuides(dir));
    for (const auto& d : set->diagnostics)
        std::cerr << "portolan-cli: " << d.toString() << "\n";
    if (o.listGuides) {
        for (const auto& g : set->guides)
            std::cout << g.id << "  " << g.title << " (" << g.steps.size() << " steps, "
                      << g.checkCount() << " checks)\n";
        return set->guides.empty() ? ExitUsage : ExitOk;
    }
    // The same session as the GUI's porting wizard: one rule for the guide.
    workflow::SessionOptions options;
    options.guideId = o.target;
    options.apiGeneration = o.api;
    options.paramsOverride = o.params;
    options.guides = set;
    options.withFlow = false;
    auto started = workflow::startPortingSession(o.project, options);
    if (!started) {
        std::cerr << "portolan-cli: " << started.error.toString() << "\n";
        return ExitUsage;
    }
    const workflow::PortingSession& session = *started.value;
    const analysis::ProjectAnalysis& a = *session.analysis;
    const guides::Guide* guide = session.guide();
    if (!guide) {
        std::cerr << "portolan-cli: " << session.guideReason
                  << "; pass --target (one of the guides listed by --list-guides)\n";
        return ExitUsage;
    }
    const guides::GuideResult& r = session.result;

    if (o.format == "sarif") {
        std::cout << guides::toSarif(*guide, r, a.root.string()).dump(2) << "\n";
    } else if (o.format == "json") {
        std::cout << workflow::toJson(session).dump(2) << "\n";
    } else {
        std::cout << "Project: " << a.root.string() << "\n"
                  << "Detected: " << a.flavour.summary() << "\n";
        // The evidence behind the flavour, strongest first (a few lines; info lists it all).
        std::vector<const analysis::Evidence*> evidence;
        for (const auto& e : a.flavour.evidence)
            if (e.flavour == a.flavour.flavour || e.flavour == a.flavour.portingTo)
                evidence.push_back(&e);
        std::stable_sort(evidence.begin(), evidence.end(),
                         [](auto* x, auto* y) { return x->weight > y->weight; });
        for (std::size_t i = 0; i < evidence.size() && i < 3; ++i)
            std::cout << "  because: " << evidence[i]->location.toString() << ": "
                      << evidence[i]->what << "\n";
        if (a.flavour.apiGeneration != analysis::ApiGeneration::None)
            std::cout << "API generation: " << analysis::apiGenerationName(a.flavour.apiGeneration)
                      << " (" << a.flavour.generationReason << ")\n";
        std::cout << "Params file: " << (a.paramsFile.empty() ? "(none)" : a.paramsFile.path)
                  << " (" << a.paramsFile.reason << ")\n"
                  << "Guide: " << guide->title << " (" << guide->id << "; " << session.guideReason
                  << ")\n";
        // Files whose findings are notes at most, and why (analysis/port_scope.h).
        for (const auto& line : analysis::describeOutsidePort(a))
            std::cout << "Not checked as the port: " << line << "\n";
        for (const auto& d : a.diagnostics)
            std::cout << "  " << d.toString() << "\n";
        std::set<std::string> shownDiffs;
        for (std::size_t i = 0; i < guide->steps.size(); ++i) {
            const auto& s = guide->steps[i];
            const auto& sr = r.steps[i];
            std::cout << "\n"
                      << (i + 1) << ". " << s.title << "  [" << guides::stepStatusName(sr.status);
            if (sr.status == guides::StepStatus::Findings)
                std::cout << ": " << sr.findings.size();
            else if (!sr.findings.empty())
                std::cout << "; notes: " << sr.findings.size();
            std::cout << "]\n";
            if (sr.status == guides::StepStatus::NotVerified)
                std::cout << "   not verified: " << sr.notVerifiedReason << "\n"
                          << "   to verify: "
                          << (sr.verifyAction == guides::VerifyAction::Compile
                                  ? "portolan-cli compile PROJECT"
                                  : "portolan-cli run PROJECT --dry-run --trust")
                          << "\n";
            for (const auto& f : sr.findings) {
                std::cout << "   " << f.toString() << "\n";
                if (!f.related.empty()) {
                    std::cout << "      also at:";
                    for (std::size_t k = 0; k < f.related.size(); ++k)
                        std::cout << (k ? ", " : " ") << f.related[k].toString();
                    std::cout << "\n";
                }
                std::cout << "      hint: " << f.hint << "\n";
                if (f.fix) {
                    std::cout << "      fix: " << f.fix->description << "\n";
                    // One fix offered by several findings (the params file for every flag) is
                    // shown once.
                    if (o.showDiffs && shownDiffs.insert(f.fix->description).second)
                        if (auto diff = guides::previewFix(a.root, *f.fix))
                            std::cout << *diff.value;
                }
            }
        }
        std::cout << "\n"
                  << r.errors << " errors, " << r.warnings << " warnings, " << r.infos << " notes; "
                  << r.stepsPassed() << "/" << r.steps.size() << " steps done\n";
    }
    return r.errors > 0 ? ExitFindings : ExitOk;
}

Subcommand registerCheck(CLI::App& root)
{
    auto o = std::make_shared<CheckOptions>();
    CLI::App* cmd =
        root.add_subcommand("check", "Check a project against a porting guide (exit 1 when "
                                     "there are errors)");
    cmd->add_option("PROJECT", o->project, "Project folder");
    cmd->add_option("--params", o->params,
                    "Params file to check against (default: the project's saved choice, else "
                    "its default; see info --use-params)");
    cmd->add_option("--target", o->target,
                    "Guide id: cerebras-trainer, cerebras-cstorch, cerebras-pytorch, "
                    "cerebras-tensorflow, cerebras-layers, determined-pytorchtrial or "
                    "graphcore-poptorch (default: the suggested one)");
    cmd->add_option("--api", o->api,
                    "Cerebras Model Zoo API generation to check against: trainer (R2.3 on, the "
                    "default for a new port), cstorch (R1.9-2.2) or runner (R1.0-1.8)")
        ->check(CLI::IsMember({"runner", "cstorch", "trainer"}));
    addFormatOption(*cmd, o->format, {"text", "json", "sarif"});
    cmd->add_option("--guides", o->guidesDir,
                    "Folder of guide YAML files (default: resources/guides)");
    cmd->add_flag("--diff", o->showDiffs, "Show each mechanical fix as a unified diff");
    cmd->add_flag("--list-guides", o->listGuides, "List the guides and exit");
    cmd->callback([o] {
        if (o->project.empty() && !o->listGuides)
            throw CLI::RequiredError("PROJECT");
    });
    return {cmd, [o] {
                return runCheck(*o);
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"check", 20, &registerCheck};

} // namespace

} // namespace portolan::cli
