#pragma once

#include <string>
#include <utility>
#include <vector>

namespace portolan {

std::string portolanVersion();
std::string applicationId(); // reverse-DNS, the same in .desktop, metainfo, icons and settings

// The versions of the libraries core is built with, as (name, version) pairs, for --version and
// Help > About. Views add Qt, QCustomPlot and Graphviz to this list.
std::vector<std::pair<std::string, std::string>> coreLibraryVersions();

} // namespace portolan
