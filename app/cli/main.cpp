// portolan-cli: everything the GUI does, headless, for scripts and CI. It never loads LibTorch:
// recording a model, importing a capture and training run in portolan-torch, started as a child.
#include "app/cli/cli_common.h"
#include "core/about/about.h"
#include "core/common/resources.h"

namespace {

std::string versionText()
{
    std::string s = "portolan-cli " + portolan::portolanVersion();
    for (const auto& [name, version] : portolan::coreLibraryVersions())
        s.append("\n  ").append(name).append(" ").append(version);
    // Where guides, schemas and targets are read from (the installed-layout test checks it).
    s += "\nresources " + portolan::resourcesDir().string();
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    portolan::setExecutablePath(argv[0]);
    CLI::App app{"Portolan: porting assistant and profiler for AI accelerators (headless).",
                 "portolan-cli"};
    app.set_version_flag("--version", versionText());
    return portolan::cli::runSubcommands(app, argc, argv);
}
