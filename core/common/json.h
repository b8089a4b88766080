#pragma once

#include "core/common/diagnostic.h"

#include <nlohmann/json.hpp>

namespace portolan {

nlohmann::json toJson(const SourceLocation& location);
nlohmann::json toJson(const Diagnostic& diagnostic);

} // namespace portolan
