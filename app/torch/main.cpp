// portolan-torch: the Torch child (docs/ARCHITECTURE.md, Processes). The only Portolan executable
// that loads LibTorch: it records models, imports captures and trains, started as a child process
// by the GUI and by portolan-cli, and answers on stdout (an op graph document, or JSON events).
#include "app/cli/cli_common.h"
#include "core/about/about.h"
#include "core/common/resources.h"

int main(int argc, char** argv)
{
    portolan::setExecutablePath(argv[0]);
    CLI::App app{"portolan-torch: the LibTorch side of Portolan, started by portolan and "
                 "portolan-cli as a child process.",
                 "portolan-torch"};
    std::string version = "portolan-torch " + portolan::portolanVersion();
    for (const auto& [name, v] : portolan::coreLibraryVersions())
        version.append("\n  ").append(name).append(" ").append(v);
    app.set_version_flag("--version", version);
    return portolan::cli::runSubcommands(app, argc, argv);
}
