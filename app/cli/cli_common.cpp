#include "app/cli/cli_common.h"

#include <algorithm>
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

} // namespace portolan::cli
