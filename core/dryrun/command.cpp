#include "core/analysis/analysis.h"
#include "core/dryrun/dry_run.h"
#include "core/project/params_file.h"

#include <unistd.h>

namespace portolan::dryrun {

std::int64_t defaultMemoryLimitMb()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
        return 8192;
    const std::int64_t total =
        std::int64_t(pages) * std::int64_t(pageSize) / (std::int64_t{1024} * 1024);
    return total * 3 / 4;
}

std::string detectFlavour(const std::filesystem::path& project)
{
    auto analysis = analysis::analyzeProject(project);
    if (!analysis)
        return "unknown";
    const auto& report = analysis.value->flavour;
    // An original being ported still runs as the original it mostly is.
    return std::string(analysis::flavourId(report.flavour));
}

DryRunParams dryRunParams(const DryRunOptions& o)
{
    if (!o.params.empty())
        return {o.params, o.paramsReason};
    // Plain scripts and PopTorch projects take no params file: a Determined Core API script
    // finds its experiment config by the entrypoint that runs it, which is not a choice.
    if (o.flavour != "cerebras-pytorch" && o.flavour != "cerebras-layers" &&
        o.flavour != "determined-pytorchtrial")
        return {};
    const ParamsFileChoice choice = paramsFileFor(o.project, {}, ParamsUse::CpuDryRun);
    if (choice.empty())
        return {};
    // The started event names the file and why: where a saved choice comes from, in the user's
    // words; else the rule's reason.
    return {choice.absolute(o.project).string(),
            choice.source == ParamsSource::Saved
                ? "the project's saved choice (portolan-cli info --use-params, or the Params tab)"
                : choice.reason};
}

std::vector<std::string> childCommand(const DryRunOptions& o, const std::filesystem::path&)
{
    std::vector<std::string> cmd{o.python.string(),
                                 "-m",
                                 "portolan_dryrun",
                                 "--project",
                                 o.project.string(),
                                 "--events-fd",
                                 "3",
                                 "--steps",
                                 std::to_string(o.steps),
                                 "--batch",
                                 std::to_string(o.batch)};
    if (!o.flavour.empty())
        cmd.insert(cmd.end(), {"--flavour", o.flavour});
    if (!o.entry.empty())
        cmd.insert(cmd.end(), {"--entry", o.entry});
    if (const DryRunParams params = dryRunParams(o); !params.path.empty()) {
        cmd.insert(cmd.end(), {"--params", params.path});
        if (!params.reason.empty())
            cmd.insert(cmd.end(), {"--params-reason", params.reason});
    }
    if (!o.sdkPath.empty())
        cmd.insert(cmd.end(), {"--sdk-path", o.sdkPath.string()});
    if (o.threads > 0)
        cmd.insert(cmd.end(), {"--threads", std::to_string(o.threads)});
    const std::int64_t limit = o.memoryLimitMb < 0 ? defaultMemoryLimitMb() : o.memoryLimitMb;
    if (limit > 0)
        cmd.insert(cmd.end(), {"--memory-limit-mb", std::to_string(limit)});
    if (!o.args.empty()) {
        cmd.emplace_back("--");
        cmd.insert(cmd.end(), o.args.begin(), o.args.end());
    }
    return cmd;
}

std::vector<std::pair<std::string, std::string>>
childEnvironment(const std::filesystem::path& pythonDir)
{
    return {{"PYTHONPATH", pythonDir.string()},
            {"PYTHONDONTWRITEBYTECODE", "1"},
            {"PYTHONUNBUFFERED", "1"},
            {"PYTHONNOUSERSITE", "1"},
            {"MPLBACKEND", "Agg"}};
}

} // namespace portolan::dryrun
