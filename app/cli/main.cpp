// portolan-cli: everything the GUI does, headless, for scripts and CI.
#include "app/cli/cli_common.h"
#include "core/about/about.h"
#include "core/common/resources.h"

#include <algorithm>
#include <iostream>

namespace {

std::string versionText()
{
    std::string s = "portolan-cli " + portolan::portolanVersion();
    for (const auto& [name, version] : portolan::coreLibraryVersions())
        s += "\n  " + name + " " + version;
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    using namespace portolan::cli;
    portolan::setExecutablePath(argv[0]);

    CLI::App app{"Portolan: porting assistant and profiler for AI accelerators (headless).",
                 "portolan-cli"};
    app.set_version_flag("--version", versionText());
    app.require_subcommand(1);
    app.fallthrough(false);

    auto registry = registeredCommands();
    std::sort(registry.begin(), registry.end(),
              [](const auto& a, const auto& b) { return a.order < b.order; });
    std::vector<Subcommand> commands;
    for (const auto& r : registry)
        commands.push_back(r.fn(app));

    // CLI11 would only say "a subcommand is required"; name the word the user typed instead.
    if (argc > 1 && argv[1][0] != '-') {
        bool known = false;
        std::string names;
        for (const auto& c : commands) {
            known = known || c.app->get_name() == argv[1];
            names += (names.empty() ? "" : ", ") + c.app->get_name();
        }
        if (!known) {
            std::cerr << "portolan-cli: unknown subcommand '" << argv[1] << "' (subcommands: " << names
                      << ")\n"
                      << app.help("", CLI::AppFormatMode::Normal);
            return ExitUsage;
        }
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "portolan-cli: " << e.what() << "\n";
        // Show the usage of the subcommand the user was typing, if any.
        const CLI::App* context = &app;
        for (const auto& c : commands)
            if (c.app->parsed())
                context = c.app;
        std::cerr << context->help("", CLI::AppFormatMode::Normal);
        return ExitUsage;
    }
    for (const auto& c : commands)
        if (c.app->parsed())
            return c.run();
    return ExitUsage;
}
