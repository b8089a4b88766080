// portolan-cli flow PROJECT: the information-flow diagram (config -> keys -> functions -> entry).
#include "app/cli/cli_common.h"
#include "core/analysis/analysis.h"
#include "core/analysis/flow.h"
#include "core/common/atomic_file.h"
#include "core/common/resources.h"
#include "core/guides/findings_report.h"
#include "core/guides/guide.h"
#include "core/workflow/porting_session.h"

#include <iostream>
#include <memory>

namespace portolan::cli {

namespace {

struct FlowOptions
{
    std::string project;
    std::string params; // --params: overrides the project's saved or default params file
    std::string format = "dot";
    std::string output;
    std::string guide; // print this guide's suggested-order diagram instead
};

int runFlow(const FlowOptions& o)
{
    std::string dot;
    if (!o.guide.empty() && o.project.empty()) {
        const guides::GuideSet set = guides::loadGuides(resourcesDir() / "guides");
        const guides::Guide* g = set.find(o.guide);
        if (!g) {
            std::cerr << "portolan-cli: no guide '" << o.guide << "'\n";
            return ExitUsage;
        }
        dot = guides::guideOrderDot(*g, nullptr);
    } else {
        // The same session as check and the GUI: analysis, guide, checks, flow.
        workflow::SessionOptions options;
        options.guideId = o.guide;
        options.paramsOverride = o.params;
        options.withFlow = o.guide.empty();
        auto started = workflow::startPortingSession(o.project, options);
        if (!started) {
            std::cerr << "portolan-cli: " << started.error.toString() << "\n";
            return ExitUsage;
        }
        const workflow::PortingSession& session = *started.value;
        if (!o.guide.empty())
            dot = guides::guideOrderDot(*session.guide(), &session.result);
        else
            dot = session.flowDot;
    }
    std::string out = dot;
    if (o.format == "svg") {
        auto svg = analysis::renderSvg(dot);
        if (!svg) {
            std::cerr << "portolan-cli: " << svg.error.message << "\n";
            return ExitUsage;
        }
        out = std::move(*svg.value);
    }
    if (o.output.empty()) {
        std::cout << out;
        return ExitOk;
    }
    if (auto err = writeFileAtomically(o.output, out)) {
        std::cerr << "portolan-cli: " << err->toString() << "\n";
        return ExitUsage;
    }
    return ExitOk;
}

Subcommand registerFlow(CLI::App& root)
{
    auto o = std::make_shared<FlowOptions>();
    CLI::App* cmd =
        root.add_subcommand("flow", "Draw how configuration values flow through a project "
                                    "(DOT or SVG)");
    cmd->add_option("PROJECT", o->project, "Project folder");
    cmd->add_option("--params", o->params,
                    "Params file to check against (default: the project's saved choice, else "
                    "its default; see info --use-params)");
    addFormatOption(*cmd, o->format, {"dot", "svg"});
    cmd->add_option("-o,--output", o->output, "Write to this file (atomically) instead of stdout");
    cmd->add_option(
        "--guide", o->guide,
        "Draw this guide's suggested order of steps instead (with PROJECT: coloured by status)");
    cmd->callback([o] {
        if (o->project.empty() && o->guide.empty())
            throw CLI::RequiredError("PROJECT");
    });
    return {cmd, [o] {
                return runFlow(*o);
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"flow", 21, &registerFlow};

} // namespace

} // namespace portolan::cli
