#pragma once

#include <filesystem>

namespace portolan {

// The folder holding guides/, schemas/ and targets/. Looked up in this order: the
// PORTOLAN_RESOURCES environment variable, the installed copy next to the executable
// (<prefix>/share/portolan/resources), then the source tree the binary was built from.
std::filesystem::path resourcesDir();

// Tells resourcesDir() where the running executable lives (argv[0] or /proc/self/exe).
void setExecutablePath(const std::filesystem::path& exe);

} // namespace portolan
