#pragma once

// The model_family notes a compile report carries for a model built from a Model Zoo params
// file (family, architecture, whether it was inferred and from what, layout, the file, the
// builder's notes). One function, so that reports saved by portolan-cli compile and by the
// Profile tab say the same.

#include "core/families/families.h"
#include "core/sim/profile.h"

#include <filesystem>

namespace portolan::sim {

ModelFamilyNotes modelFamilyNotes(const families::ModelFromParams& model,
                                  const std::filesystem::path& params);

} // namespace portolan::sim
