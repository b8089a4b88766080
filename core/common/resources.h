#pragma once

#include <filesystem>

namespace portolan {

// The folder holding guides/, schemas/, targets/ and python/. Looked up in this order: the
// PORTOLAN_RESOURCES environment variable; the installed copy, at the path CMake computed from
// the executable's folder (<prefix>/bin -> <prefix>/share/portolan/resources); then, in
// development builds only, the source tree the binary was built from. When nothing is found the
// installed path is returned, so that messages name where the files should be.
std::filesystem::path resourcesDir();

// Tells resourcesDir() where the running executable lives (argv[0] or /proc/self/exe).
void setExecutablePath(const std::filesystem::path& exe);

} // namespace portolan
