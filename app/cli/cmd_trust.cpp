// portolan-cli trust PROJECT [--forget] | trust --list: records which projects the user trusts
// to run their own code (dry runs, script runs), in the store the GUI's Runs tab uses
// (core/dryrun/dry_run.h, TrustStore). `run --trust` trusts for that one run only and records
// nothing: remembering is a separate, deliberate act.
#include "app/cli/cli_common.h"
#include "core/dryrun/dry_run.h"

#include <filesystem>
#include <iostream>
#include <memory>

namespace portolan::cli {

namespace {

struct TrustCliOptions
{
    std::string project;
    bool forget = false;
    bool list = false;
};

int runTrust(const TrustCliOptions& o)
{
    dryrun::TrustStore store;
    if (o.list) {
        for (const auto& p : store.projects())
            std::cout << p << "\n";
        return ExitOk;
    }
    if (o.project.empty()) {
        std::cerr << "portolan-cli trust: give a PROJECT folder, or --list\n";
        return ExitUsage;
    }
    const std::filesystem::path project(o.project);
    std::error_code ec;
    if (!o.forget && !std::filesystem::is_directory(project, ec)) {
        printDiagnostic(std::cerr, {Severity::Error,
                                    "trust.no-project",
                                    "not a project folder: " + o.project,
                                    {o.project}});
        return ExitUsage;
    }
    const bool was = store.isTrusted(project);
    if (auto error = store.setTrusted(project, !o.forget)) {
        printDiagnostic(std::cerr, *error);
        return ExitFindings;
    }
    if (o.forget)
        std::cout << (was ? "no longer trusted: " : "was not trusted: ") << o.project
                  << "\n(kept in " << store.file().string() << ")\n";
    else
        std::cout << (was ? "already trusted: " : "trusted: ") << o.project
                  << "\nIts own code may now run in dry runs and script runs, from portolan-cli "
                     "and the GUI, without --trust.\n(kept in "
                  << store.file().string() << "; undo with portolan-cli trust --forget "
                  << o.project << ")\n";
    return ExitOk;
}

Subcommand registerTrust(CLI::App& root)
{
    auto o = std::make_shared<TrustCliOptions>();
    CLI::App* cmd = root.add_subcommand(
        "trust", "Remember that a project may run its own code (dry runs, script runs), as the "
                 "GUI's trust prompt does; run --trust trusts for one run only");
    cmd->add_option("PROJECT", o->project, "Project folder");
    cmd->add_flag("--forget", o->forget, "Stop trusting the project");
    cmd->add_flag("--list", o->list, "List the trusted projects");
    return {cmd, [o] {
                return runTrust(*o);
            }};
}

} // namespace

// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"trust", 46, &registerTrust};

} // namespace portolan::cli
