#include "core/common/resources.h"

#include <cstdlib>
#include <system_error>

namespace portolan {

namespace {
std::filesystem::path& executablePath()
{
    static std::filesystem::path p;
    return p;
}
} // namespace

void setExecutablePath(const std::filesystem::path& exe)
{
    executablePath() = exe;
}

std::filesystem::path resourcesDir()
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (const char* env = std::getenv("PORTOLAN_RESOURCES"); env && *env)
        return fs::path(env);

    fs::path exe = executablePath();
    if (exe.empty())
        exe = fs::read_symlink("/proc/self/exe", ec);
    if (!exe.empty()) {
        const fs::path installed = exe.parent_path().parent_path() / PORTOLAN_INSTALL_RESOURCES;
        if (fs::is_directory(installed / "guides", ec) || fs::is_directory(installed / "targets", ec))
            return installed;
    }
    return fs::path(PORTOLAN_SOURCE_RESOURCES);
}

} // namespace portolan
