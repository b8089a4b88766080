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

    // /proc/self/exe first: argv[0] may be a bare name found on PATH, or a symlink elsewhere.
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (exe.empty() && !executablePath().empty())
        exe = fs::absolute(executablePath(), ec);
    fs::path installed;
    if (!exe.empty()) {
        installed = (exe.parent_path() / PORTOLAN_RESOURCES_FROM_BINDIR).lexically_normal();
        if (fs::is_directory(installed / "guides", ec) ||
            fs::is_directory(installed / "targets", ec))
            return installed;
    }
    fs::path source = PORTOLAN_SOURCE_RESOURCES; // empty in release builds
    if (!source.empty() && fs::is_directory(source, ec))
        return source;
    return installed.empty() ? source : installed;
}

} // namespace portolan
