#pragma once

#include "core/project/project_scan.h"

#include <nlohmann/json.hpp>

namespace portolan {

// The machine-readable form of a scan, as `portolan-cli info --format json` prints it.
nlohmann::json toJson(const ProjectScan& scan);

} // namespace portolan
