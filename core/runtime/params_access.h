#pragma once
// The runtime reads params through core/params (the model families read them the same way).
#include "core/params/params_access.h"

namespace portolan::runtime {
using params::diagnosticAt;
using params::loadParamsFile;
using params::ParamsError;
using params::ParamsSection;
} // namespace portolan::runtime
