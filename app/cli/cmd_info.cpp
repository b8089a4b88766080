// portolan-cli info PROJECT: what Portolan sees in a project folder.
#include "app/cli/cli_common.h"
#include "core/analysis/analysis.h"
#include "core/analysis/facts.h"
#include "core/common/atomic_file.h"
#include "core/common/json.h"
#include "core/common/text.h"
#include "core/project/params_file.h"
#include "core/project/project_json.h"
#include "core/project/project_scan.h"
#include "core/python/resolve.h"
#include "core/python/syntax.h"
#include "core/workflow/porting_session.h"

#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>

namespace portolan::cli {

namespace {

struct InfoOptions
{
    std::string project;
    std::string format = "text";
    std::uint64_t maxFileKiB = 4096;
    std::string params;    // --params: use this file for this call
    std::string useParams; // --use-params: save this choice with the project ("" keeps it)
    bool forgetParams = false;
};

// Syntax errors of every Python file, so that `info` already says which files will not index
// cleanly.
std::vector<Diagnostic> pythonSyntax(const ProjectScan& scan)
{
    std::vector<Diagnostic> out;
    for (const auto& f : scan.files) {
        if (f.kind != FileKind::Python)
            continue;
        auto text = readFile(scan.root / f.path);
        if (!text)
            continue;
        for (auto& d : python::syntaxErrors(*text.value, f.path))
            out.push_back(std::move(d));
    }
    return out;
}

// --use-params or --forget-params: the project's saved choice, changed before anything is read;
// an error message when it cannot be.
std::optional<std::string> saveParamsChoice(const InfoOptions& o, const ProjectScan& scan)
{
    if (o.useParams.empty() && !o.forgetParams)
        return std::nullopt;
    const ParamsFileChoice wanted = paramsFileFor(scan.root, o.useParams);
    if (!o.forgetParams && !std::filesystem::is_regular_file(wanted.absolute(scan.root)))
        return o.useParams + ": no such file";
    if (auto err = saveParamsFile(scan.root, o.forgetParams ? std::string() : wanted.path))
        return err->toString();
    return std::nullopt;
}

nlohmann::json infoJson(const ProjectScan& scan, const std::vector<Diagnostic>& syntax,
                        const analysis::FlavourReport* flavour, const ParamsFileChoice& paramsFile)
{
    nlohmann::json j = toJson(scan);
    for (const auto& d : syntax)
        j["diagnostics"].push_back(toJson(d));
    if (flavour) {
        nlohmann::json evidence = nlohmann::json::array();
        for (const auto& e : flavour->evidence)
            evidence.push_back({{"flavour", analysis::flavourId(e.flavour)},
                                {"what", e.what},
                                {"location", e.location.toString()},
                                {"weight", e.weight}});
        j["flavour"] = {{"id", analysis::flavourId(flavour->flavour)},
                        {"name", analysis::flavourName(flavour->flavour)},
                        {"summary", flavour->summary()},
                        {"confidence", flavour->confidence},
                        {"being_ported", flavour->beingPorted},
                        {"porting_to", flavour->beingPorted
                                           ? nlohmann::json(analysis::flavourId(flavour->portingTo))
                                           : nlohmann::json(nullptr)},
                        {"suggested_guide", flavour->suggestedGuide},
                        {"suggestion_reason", flavour->suggestionReason},
                        {"evidence", evidence}};
        workflow::addApiGenerationJson(*flavour, j);
    } else {
        j["flavour"] = nullptr;
    }
    j["params_file"] = {
        {"path", paramsFile.empty() ? nlohmann::json(nullptr) : nlohmann::json(paramsFile.path)},
        {"source", paramsSourceName(paramsFile.source)},
        {"reason", paramsFile.reason},
        {"candidates", paramsFile.candidates}};
    return j;
}

void printFlavour(const analysis::FlavourReport& flavour)
{
    std::cout << "Flavour: " << flavour.summary() << "\n";
    if (!flavour.suggestedGuide.empty())
        std::cout << "Suggested guide: " << flavour.suggestedGuide << " ("
                  << flavour.suggestionReason << ")\n";
    for (const auto& e : flavour.evidence)
        std::cout << "  evidence: " << e.location.toString() << ": " << e.what << "\n";
    if (flavour.apiGeneration != analysis::ApiGeneration::None) {
        std::cout << "API generation: " << analysis::apiGenerationName(flavour.apiGeneration)
                  << " (" << flavour.generationReason << ")\n";
        for (const auto& e : flavour.generationEvidence)
            std::cout << "  evidence: " << e.location.toString() << ": " << e.what << "\n";
    }
}

// What the project hands to the vendor (the entries and how), and the params keys provided.
void printHandedOver(const analysis::ProjectAnalysis& a)
{
    const analysis::ProjectFacts& facts = a.facts();
    if (!facts.entries.empty()) {
        std::cout << "Handed to the vendor:\n";
        for (const auto& e : facts.entries) {
            std::string where = "(not resolved)";
            if (e.definition.isDefinition()) {
                const auto& f = a.python[std::size_t(e.definition.file)];
                const int line =
                    e.definition.kind == python::SymbolKind::Class
                        ? f.index.classes[std::size_t(e.definition.index)].nameSpan.line
                        : f.index.functions[std::size_t(e.definition.index)].nameSpan.line;
                where = f.path + ":" + std::to_string(line);
            }
            std::string via =
                "a subclass of " + (e.classContract ? e.classContract->name : std::string("?"));
            if (e.vendorCall >= 0) {
                const auto& vc = facts.vendorCalls[std::size_t(e.vendorCall)];
                const auto& cf = a.python[std::size_t(vc.file)];
                via = vc.api->name + "(" + e.parameter + "=...) at " + cf.path + ":" +
                      std::to_string(cf.index.calls[std::size_t(vc.call)].span.line);
            }
            std::cout << "  " << std::left << std::setw(11) << e.role << " " << e.text << " ("
                      << where << "), via " << via << "\n";
        }
    }
    if (!facts.providedPrefixes.empty() || !facts.provided.empty()) {
        std::cout << "Params keys the code or the runner provides: " << facts.provided.size();
        std::string sections;
        for (const auto& p : facts.providedPrefixes)
            sections += (sections.empty() ? "" : ", ") + (p.empty() ? "(all)" : p);
        if (!sections.empty())
            std::cout << "; whole sections: " << sections;
        std::cout << "\n";
    }
}

// The files by kind, those skipped and why, and the diagnostics.
void printFiles(const ProjectScan& scan, const std::vector<Diagnostic>& syntax)
{
    std::cout << "Files: " << scan.files.size();
    const char* sep = " (";
    for (FileKind k :
         {FileKind::Python, FileKind::Yaml, FileKind::Json, FileKind::Text, FileKind::Other}) {
        if (const auto n = scan.countOf(k)) {
            std::cout << sep << fileKindName(k) << " " << n;
            sep = ", ";
        }
    }
    std::cout << (scan.files.empty() ? "" : ")") << "\n";
    for (const auto& f : scan.files)
        std::cout << "  " << std::left << std::setw(48) << f.path << " " << std::setw(7)
                  << fileKindName(f.kind) << " " << humanBytes(double(f.size)) << "\n";
    std::cout << "Skipped: " << scan.skipped.size() << "\n";
    for (const auto& s : scan.skipped)
        std::cout << "  " << std::left << std::setw(48) << s.path << " " << std::setw(16)
                  << skipReasonName(s.reason) << " " << s.detail << "\n";
    if (!scan.diagnostics.empty() || !syntax.empty()) {
        std::cout << "Diagnostics:\n";
        for (const auto& d : scan.diagnostics)
            std::cout << "  " << d.toString() << "\n";
        for (const auto& d : syntax)
            std::cout << "  " << d.toString() << "\n";
    }
}

// The phases: the saved params choice, the scan and analysis, then JSON or text.
int runInfo(const InfoOptions& o)
{
    ScanOptions options;
    options.maxFileBytes = o.maxFileKiB * 1024;
    auto result = scanProject(o.project, options);
    if (!result) {
        std::cerr << "portolan-cli: " << result.error.toString() << "\n";
        return ExitUsage;
    }
    const ProjectScan& scan = *result.value;
    if (const auto error = saveParamsChoice(o, scan)) {
        std::cerr << "portolan-cli: " << *error << "\n";
        return ExitUsage;
    }
    const ParamsFileChoice paramsFile = paramsFileFor(scan.root, o.params);
    const auto syntax = pythonSyntax(scan);
    // The flavour needs the full analysis (index and configs); it reuses the same limits.
    analysis::AnalysisOptions aopts;
    aopts.scan = options;
    aopts.paramsOverride = o.params;
    const auto analysed = analysis::analyzeProject(o.project, aopts);
    const analysis::FlavourReport* flavour = analysed ? &analysed.value->flavour : nullptr;

    if (o.format == "json") {
        std::cout << infoJson(scan, syntax, flavour, paramsFile).dump(2) << "\n";
        return ExitOk;
    }
    std::cout << "Project: " << scan.root.string() << "\n";
    if (flavour)
        printFlavour(*flavour);
    std::cout << "Params file: " << (paramsFile.empty() ? "(none)" : paramsFile.path) << " ("
              << paramsFile.reason << ")\n";
    if (paramsFile.candidates.size() > 1)
        for (const auto& c : paramsFile.candidates)
            std::cout << "  " << (c == paramsFile.path ? "* " : "  ") << c << "\n";
    if (analysed)
        printHandedOver(*analysed.value);
    printFiles(scan, syntax);
    return ExitOk;
}

} // namespace

namespace {
Subcommand registerInfo(CLI::App& root)
{
    auto o = std::make_shared<InfoOptions>();
    CLI::App* cmd = root.add_subcommand("info", "List the files Portolan finds in a project, the "
                                                "files it skips and why");
    cmd->add_option("PROJECT", o->project, "Project folder")->required();
    addFormatOption(*cmd, o->format, {"text", "json"});
    cmd->add_option("--max-file-size", o->maxFileKiB, "Skip files larger than this many KiB")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--params", o->params,
                    "Params file to use for this call (default: the saved choice, else the "
                    "project's default)");
    cmd->add_option("--use-params", o->useParams,
                    "Save this params file as the project's choice (PROJECT/.portolan/"
                    "params-file); every tab and subcommand then uses it");
    cmd->add_flag("--forget-params", o->forgetParams,
                  "Forget the saved params file choice (back to the default)");
    return {cmd, [o] {
                return runInfo(*o);
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"info", 10, &registerInfo};
} // namespace

} // namespace portolan::cli
