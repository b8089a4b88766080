// portolan-cli compare A.json B.json: the differences between two compile reports.
#include "app/cli/cli_common.h"
#include "core/report/compare.h"
#include "core/report/report.h"

#include <iostream>
#include <memory>

namespace portolan::cli {

namespace {

struct CompareOptions
{
    std::string a, b;
    std::string format = "text";
};

int runCompare(const CompareOptions& o)
{
    auto a = report::loadReport(o.a);
    if (!a) {
        printDiagnostic(std::cerr, a.error);
        return ExitUsage;
    }
    auto b = report::loadReport(o.b);
    if (!b) {
        printDiagnostic(std::cerr, b.error);
        return ExitUsage;
    }
    const auto c = report::compareReports(*a.value, *b.value);
    if (o.format == "json")
        std::cout << report::comparisonJson(c).dump(2) << "\n";
    else
        std::cout << "A: " << o.a << "\nB: " << o.b << "\n" << report::comparisonText(c);
    return ExitOk;
}

Subcommand registerCompare(CLI::App& root)
{
    auto o = std::make_shared<CompareOptions>();
    CLI::App* cmd = root.add_subcommand("compare", "Compare two compile reports");
    cmd->add_option("A", o->a, "First report JSON")->required();
    cmd->add_option("B", o->b, "Second report JSON")->required();
    addFormatOption(*cmd, o->format, {"text", "json"});
    return {cmd, [o] {
                return runCompare(*o);
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"compare", 51, &registerCompare};

} // namespace

} // namespace portolan::cli
