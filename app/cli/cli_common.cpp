#include "app/cli/cli_common.h"

#include <algorithm>
#include <iostream>
#include <ostream>

namespace portolan::cli {

void addFormatOption(CLI::App& cmd, std::string& format, const std::vector<std::string>& choices)
{
    std::string list;
    for (const auto& c : choices)
        list += (list.empty() ? "" : "|") + c;
    cmd.add_option("--format", format, "Output format: " + list)
        ->check(CLI::IsMember(choices))
        ->default_val(choices.front());
}

std::vector<RegisteredCommand>& registeredCommands()
{
    static std::vector<RegisteredCommand> commands;
    return commands;
}

CommandRegistration::CommandRegistration(const char* name, int order, RegisterFn fn)
{
    registeredCommands().push_back({name, order, fn});
}

void printDiagnostic(std::ostream& out, const Diagnostic& d)
{
    out << d.toString() << '\n';
}

namespace {
std::vector<std::string>& rawSubcommandArguments()
{
    static std::vector<std::string> args;
    return args;
}
} // namespace

const std::vector<std::string>& subcommandArguments()
{
    return rawSubcommandArguments();
}

int runSubcommands(CLI::App& app, int argc, char** argv)
{
    const std::string program = app.get_name();
    app.require_subcommand(1);
    app.fallthrough(false);
    auto registry = registeredCommands();
    std::sort(registry.begin(), registry.end(),
              [](const auto& a, const auto& b) { return a.order < b.order; });
    std::vector<Subcommand> commands;
    commands.reserve(registry.size());
    for (const auto& r : registry)
        commands.push_back(r.fn(app));
    for (int i = 2; i < argc; ++i)
        rawSubcommandArguments().emplace_back(argv[i]);

    // CLI11 would only say "a subcommand is required"; name the word the user typed instead.
    if (argc > 1 && argv[1][0] != '-') {
        bool known = false;
        std::string names;
        for (const auto& c : commands) {
            known = known || c.app->get_name() == argv[1];
            names += (names.empty() ? "" : ", ") + c.app->get_name();
        }
        if (!known) {
            std::cerr << program << ": unknown subcommand '" << argv[1]
                      << "' (subcommands: " << names << ")\n"
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
        std::cerr << program << ": " << e.what() << "\n";
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

} // namespace portolan::cli
