#include "core/analysis/analysis.h"
#include "core/dryrun/dry_run.h"

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
    if (!o.params.empty())
        cmd.insert(cmd.end(), {"--params", o.params});
    if (!o.params.empty() && !o.paramsReason.empty())
        cmd.insert(cmd.end(), {"--params-reason", o.paramsReason});
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
