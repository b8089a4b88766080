// portolan-cli check PROJECT: run a porting guide's checks on a project.
#include "app/cli/cli_common.h"
#include "core/analysis/analysis.h"
#include "core/common/resources.h"
#include "core/guides/fix.h"
#include "core/guides/guide.h"
#include "core/guides/report.h"

#include <iostream>
#include <memory>

namespace portolan::cli {

namespace {

struct CheckOptions
{
    std::string project;
    std::string params; // --params: overrides the project's saved or default params file
    std::string target;
    std::string format = "text";
    std::string guidesDir;
    bool showDiffs = false;
    bool listGuides = false;
};

analysis::AnalysisOptions analysisOptions(const CheckOptions& o)
{
    analysis::AnalysisOptions a;
    a.paramsOverride = o.params;
    return a;
}

int runCheck(const CheckOptions& o)
{
    const std::filesystem::path dir =
        o.guidesDir.empty() ? resourcesDir() / "guides" : std::filesystem::path(o.guidesDir);
    const guides::GuideSet set = guides::loadGuides(dir);
    for (const auto& d : set.diagnostics)
        std::cerr << "portolan-cli: " << d.toString() << "\n";
    if (o.listGuides) {
        for (const auto& g : set.guides)
            std::cout << g.id << "  " << g.title << " (" << g.steps.size() << " steps, "
                      << g.checkCount() << " checks)\n";
        return set.guides.empty() ? ExitUsage : ExitOk;
    }
    auto result = analysis::analyzeProject(o.project, analysisOptions(o));
    if (!result) {
        std::cerr << "portolan-cli: " << result.error.toString() << "\n";
        return ExitUsage;
    }
    const analysis::ProjectAnalysis& a = *result.value;
    std::string target = o.target.empty() ? a.flavour.suggestedGuide : o.target;
    if (target.empty()) {
        std::cerr << "portolan-cli: cannot tell which workflow this project is for; pass --target "
                     "(one of the guides listed by --list-guides)\n";
        return ExitUsage;
    }
    const guides::Guide* guide = set.find(target);
    if (!guide) {
        std::cerr << "portolan-cli: no guide '" << target << "' in " << dir.string() << "\n";
        return ExitUsage;
    }
    const guides::GuideResult r = guides::runGuide(*guide, a);

    if (o.format == "sarif") {
        std::cout << guides::toSarif(*guide, r, a.root.string()).dump(2) << "\n";
    } else if (o.format == "json") {
        nlohmann::json j = guides::toJson(*guide, r);
        j["project"] = a.root.string();
        j["flavour"] = std::string(analysis::flavourId(a.flavour.flavour));
        j["flavour_summary"] = a.flavour.summary();
        j["params_file"] =
            a.paramsFile.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.paramsFile.path);
        nlohmann::json diags = nlohmann::json::array();
        for (const auto& d : a.diagnostics)
            diags.push_back({{"code", d.code},
                             {"message", d.message},
                             {"location", d.location.toString()},
                             {"severity", severityName(d.severity)}});
        j["diagnostics"] = diags;
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << "Project: " << a.root.string() << "\n"
                  << "Detected: " << a.flavour.summary() << "\n"
                  << "Params file: " << (a.paramsFile.empty() ? "(none)" : a.paramsFile.path)
                  << " (" << a.paramsFile.reason << ")\n"
                  << "Guide: " << guide->title << " (" << guide->id << ")\n";
        for (const auto& d : a.diagnostics)
            std::cout << "  " << d.toString() << "\n";
        for (std::size_t i = 0; i < guide->steps.size(); ++i) {
            const auto& s = guide->steps[i];
            const auto& sr = r.steps[i];
            std::cout << "\n"
                      << (i + 1) << ". " << s.title << "  [" << guides::stepStatusName(sr.status);
            if (sr.status == guides::StepStatus::Findings)
                std::cout << ": " << sr.findings.size();
            std::cout << "]\n";
            for (const auto& f : sr.findings) {
                std::cout << "   " << f.toString() << "\n      hint: " << f.hint << "\n";
                if (f.fix) {
                    std::cout << "      fix: " << f.fix->description << "\n";
                    if (o.showDiffs)
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
                    "Guide id: cerebras-pytorch, cerebras-tensorflow, cerebras-layers, "
                    "determined-pytorchtrial or graphcore-poptorch (default: the suggested one)");
    addFormatOption(*cmd, o->format, {"text", "json", "sarif"});
    cmd->add_option("--guides", o->guidesDir,
                    "Folder of guide YAML files (default: resources/guides)");
    cmd->add_flag("--diff", o->showDiffs, "Show each mechanical fix as a unified diff");
    cmd->add_flag("--list-guides", o->listGuides, "List the guides and exit");
    cmd->callback([cmd, o] {
        if (o->project.empty() && !o->listGuides)
            throw CLI::RequiredError("PROJECT");
    });
    return {cmd, [o] {
                return runCheck(*o);
            }};
}
const CommandRegistration registration{"check", 20, &registerCheck};

} // namespace

} // namespace portolan::cli
