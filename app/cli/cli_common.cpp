#include "app/cli/cli_common.h"

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

void printDiagnostic(std::ostream& out, const Diagnostic& d)
{
    out << d.toString() << '\n';
}

} // namespace portolan::cli
