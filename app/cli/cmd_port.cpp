// portolan-cli port PROJECT --to GUIDE -o OUT: plan, generate and (with --verify) verify the
// port of an original PyTorch project (issue 24). The original is never modified.
#include "app/cli/cli_common.h"
#include "core/analysis/analysis.h"
#include "core/common/number_format.h"
#include "core/dryrun/dry_run.h"
#include "core/port/generate.h"
#include "core/port/port_verified.h"
#include "core/port/verify_outcome.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace portolan::cli {

namespace {

struct PortCliOptions
{
    std::string project;
    std::string to;
    std::string output;
    std::string api;
    bool verify = false;
    bool trust = false;
    int steps = 3;
    std::string format = "text";
    std::string entry;
    std::string model;
    std::string loss;
    std::string training;
    bool planOnly = false;
    std::vector<std::string> args;
};

// The text form of a port's result and its verification.
void printText(const port::PortResult& r, const port::VerifyResult* checked, const std::string& out)
{
    // The status is the port's completeness; with --verify, the same line says whether it was
    // proven, so that it never reads as proven when nothing was compared.
    const std::string notProven = checked ? port::notProvenBecause(*checked) : std::string();
    std::cout << r.status(checked) << " port for " << r.target
              << (r.api.empty() ? "" : " (api " + r.api + ")") << " written to " << out
              << (!checked            ? ""
                  : notProven.empty() ? ", verified"
                                      : ", NOT verified: " + notProven)
              << "\n";
    for (const auto& f : r.files)
        std::cout << "  " << f.path << (f.from.empty() ? "" : "  <- " + f.from) << "\n";
    for (const auto& m : r.manual)
        std::cout << m.toString() << "\n";
    for (const auto& n : r.notes)
        std::cout << "note: " << n << "\n";
    std::cout << "plan " << format::milliseconds(r.planMs) << ", generation "
              << format::milliseconds(r.generateMs) << "\n";
    if (checked) {
        const auto& v = *checked;
        std::cout << "verify: " << format::counted(v.checkErrors, "check error") << ", "
                  << format::counted(v.dryRunSteps, "dry-run step");
        if (!v.dryRunError.empty())
            std::cout << " (" << v.dryRunError << ")";
        std::cout << "\n";
        for (const auto& f : v.checkFindings)
            std::cout << "  " << f.toString() << "\n";
        for (const auto& f : v.inheritedFindings)
            std::cout << "  " << f.toString() << " (the original has it too: not counted)\n";
        if (!v.originalError.empty())
            std::cout << "  original: " << v.originalError << "\n";
        for (int i = 0; i < v.stepsCompared; ++i)
            std::cout << "  step " << i + 1 << ": original " << v.originalLosses[std::size_t(i)]
                      << ", port " << v.portLosses[std::size_t(i)] << "\n";
        if (v.stepsCompared > 0)
            std::cout << "  max relative loss difference " << v.maxRelLossDiff
                      << ", max weight difference " << v.maxAbsWeightDiff << "\n";
        std::cout << (notProven.empty()      ? "the port trains like the original\n"
                      : v.stepsCompared == 0 ? "nothing was proven: " + notProven + "\n"
                                             : "not proven: " + notProven + "\n");
    }
}

int runPort(const PortCliOptions& o)
{
    namespace fs = std::filesystem;
    const bool json = o.format == "json";
    auto usage = [&](const std::string& message) {
        if (json)
            std::cout << nlohmann::json{{"error", message}}.dump(2) << "\n";
        else
            std::cerr << "portolan-cli port: " << message << "\n";
        return int(ExitUsage);
    };
    std::string api;
    const std::string guide = port::targetGuide(o.to, o.api, &api);
    if (guide.empty())
        return usage("unknown target `" + o.to +
                     "`: determined-pytorchtrial, graphcore-poptorch, cerebras-trainer, "
                     "cerebras-cstorch, cerebras-pytorch (or determined, poptorch, cerebras)");
    const fs::path project = fs::absolute(o.project).lexically_normal();
    std::error_code ec;
    if (!fs::is_directory(project, ec))
        return usage("not a project folder: " + o.project);
    // --plan writes nothing and may have no -o (fs::absolute("") throws).
    const fs::path out = o.output.empty() ? fs::path() : fs::absolute(o.output).lexically_normal();
    if (!o.planOnly && fs::exists(out, ec) &&
        (!fs::is_directory(out, ec) || !fs::is_empty(out, ec)))
        return usage("the output folder " + o.output + " exists and is not empty");
    if (!o.planOnly && (out == project || out.string().starts_with(project.string() + "/")))
        return usage("the output folder must be outside the original project");
    if (o.verify && !o.trust && !dryrun::TrustStore().isTrusted(project))
        return usage("--verify runs the project's code: give --trust, or trust it with "
                     "`portolan-cli trust " +
                     o.project + "`");

    auto analysis = analysis::analyzeProject(project);
    if (!analysis)
        return usage(analysis.error.toString());
    port::PortOptions options;
    options.entry = o.entry;
    options.modelVariable = o.model;
    options.lossExpression = o.loss;
    options.training = o.training;
    // A readable project whose loop the plan cannot find is a partial port with one item, not
    // bad arguments (port::portWithoutPlan); only --plan, which writes nothing, reports the error.
    auto planFailed = [&](const Diagnostic& error) {
        if (!o.planOnly)
            if (auto r = port::portWithoutPlan(error, guide, api)) {
                if (json) {
                    auto j = port::toJson(*r, out.string(), nullptr);
                    if (o.verify) {
                        j["verified"] = false;
                        j["not_verified_because"] =
                            "no training loop was planned: nothing was generated to verify";
                        j["verify"] = {{"check_errors", nullptr},
                                       {"dry_run_steps", 0},
                                       {"steps_compared", 0},
                                       {"agrees", false}};
                    }
                    std::cout << j.dump(2) << "\n";
                } else {
                    printText(*r, nullptr, out.string());
                }
                return int(ExitFindings);
            }
        if (json)
            std::cout << nlohmann::json{{"error", error.message}, {"code", error.code}}.dump(2)
                      << "\n";
        else
            printDiagnostic(std::cerr, error);
        return int(ExitUsage);
    };
    if (o.planOnly) {
        options.values = port::argumentValues(o.args, analysis.value->facts().flags);
        auto plan = port::planPort(*analysis.value, options);
        if (!plan)
            return planFailed(plan.error);
        std::cout << port::toJson(*plan.value).dump(2) << "\n";
        return ExitOk;
    }
    // Plan, the original's dry run (with --verify: what it observed goes into the port),
    // generate, write, check, the port's dry run and the replay: the order the GUI's Verify
    // uses too (port::portWithVerification).
    port::PortRequest request;
    request.project = project;
    request.out = out;
    request.target = guide;
    request.api = api;
    request.options = options;
    request.args = o.args;
    request.verify = o.verify;
    request.verifyOptions.steps = o.steps;
    if (const char* python = std::getenv("PORTOLAN_PYTHON"); python && *python)
        request.verifyOptions.python = python;
    port::PortRun run = port::portWithVerification(*analysis.value, request);
    if (!run.plan)
        return planFailed(run.plan.error);
    if (!run.port)
        return usage(run.port.error.message);
    if (run.writeError)
        return usage(run.writeError->message);
    const auto& result = run.port;
    const std::optional<port::VerifyResult>& verified = run.verify;
    const auto& r = *result.value;
    const port::VerifyResult* checked = verified ? &*verified : nullptr;
    const bool ok = r.full(checked) && (!verified || verified->agrees);
    if (json) {
        std::cout << port::toJson(r, out.string(), verified ? &*verified : nullptr).dump(2) << "\n";
    } else {
        printText(r, checked, out.string());
    }
    return ok ? ExitOk : ExitFindings;
}

Subcommand registerPort(CLI::App& root)
{
    auto o = std::make_shared<PortCliOptions>();
    CLI::App* cmd = root.add_subcommand(
        "port", "Generate the port of an original PyTorch project for a target (plan, generate, "
                "and with --verify check it and prove it trains like the original)");
    cmd->add_option("PROJECT", o->project, "The original project folder")->required();
    cmd->add_option("--to", o->to,
                    "Target guide: determined-pytorchtrial, graphcore-poptorch, "
                    "cerebras-trainer, cerebras-pytorch (or determined, poptorch, cerebras)")
        ->required();
    cmd->add_option("-o,--output", o->output, "A new folder for the port");
    cmd->add_option("--api", o->api,
                    "Cerebras API generation: runner, cstorch or trainer (default: trainer for "
                    "--to cerebras; cerebras-pytorch is the runner's guide)")
        ->check(CLI::IsMember({"runner", "cstorch", "trainer"}));
    cmd->add_flag("--verify", o->verify,
                  "Check the port with its guide, dry-run it, and replay the original's first "
                  "batches and weights into it");
    cmd->add_flag("--trust", o->trust, "Run the project's code for --verify this time");
    cmd->add_option("--steps", o->steps, "Steps compared (default 3)")->check(CLI::PositiveNumber);
    cmd->add_option("--entry", o->entry, "The training script (default: planned)");
    cmd->add_option("--model", o->model, "The variable holding the model (default: planned)");
    cmd->add_option("--loss", o->loss, "The loss expression (default: planned)");
    cmd->add_option("--training", o->training,
                    "Of several trainings run one after another, the one to port: the line of its "
                    "batch loop (default: planned, the last one not superseded)");
    cmd->add_flag("--plan", o->planOnly, "Print the plan as JSON and write nothing");
    addFormatOption(*cmd, o->format, {"text", "json"});
    cmd->add_option("args", o->args,
                    "Command-line values of the original (after --): its dry run gets them and "
                    "they become the port's defaults");
    return {cmd, [o] {
                if (!o->planOnly && o->output.empty()) {
                    std::cerr << "portolan-cli port: -o OUT is required\n";
                    return int(ExitUsage);
                }
                return runPort(*o);
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"port", 47, &registerPort};

} // namespace

} // namespace portolan::cli
