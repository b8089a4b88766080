#pragma once

#include "core/common/diagnostic.h"

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace portolan::cli {

// Exit codes: 0 success, 1 the answer is "no" (errors found, does not fit), 2 bad usage or input
// that cannot be read.
enum ExitCode
{
    ExitOk = 0,
    ExitFindings = 1,
    ExitUsage = 2
};

enum class OutputFormat
{
    Text,
    Json
};

// Adds the --format option with the given choices to a subcommand.
void addFormatOption(CLI::App& cmd, std::string& format, const std::vector<std::string>& choices);

// Each subcommand registers itself and sets `run` to what it does once parsed.
struct Subcommand
{
    CLI::App* app = nullptr;
    std::function<int()> run;
};

// Subcommands register themselves from their own file:
//     const CommandRegistration // clazy:exclude=non-pod-global-static
//         reg{"info", 10, &registerInfo};
// `order` sorts them in --help. The registration objects are non-POD statics by design (the
// registry itself is function-local, so their order does not matter); clazy's exclusion must sit
// on the line where the declaration starts.
using RegisterFn = Subcommand (*)(CLI::App& root);
struct CommandRegistration
{
    CommandRegistration(const char* name, int order, RegisterFn fn);
};
struct RegisteredCommand
{
    const char* name;
    int order;
    RegisterFn fn;
};
std::vector<RegisteredCommand>& registeredCommands();

// Prints a diagnostic in the compiler style ("file:line:column: error: message [code]").
void printDiagnostic(std::ostream& out, const Diagnostic& d);

// Adds every registered subcommand to `app`, parses the command line and runs the subcommand
// given; usage errors are printed as "<program>: ..." with that subcommand's help. Shared by
// portolan-cli and the Torch child, portolan-torch. Returns the exit code.
int runSubcommands(CLI::App& app, int argc, char** argv);
// The arguments after the subcommand's name, as typed: what a subcommand that hands its work to
// portolan-torch passes on.
const std::vector<std::string>& subcommandArguments();

} // namespace portolan::cli
