#pragma once

// Chrome trace JSON (the Trace Event Format) of the pipeline schedule: one track per stage, one
// slice per forward or backward pass of a micro-batch. Opens in Perfetto and chrome://tracing.

#include "core/sim/profile.h"

#include <string>

namespace portolan::report {

std::string chromeTrace(const sim::CompileResult& r);

} // namespace portolan::report
