#include "core/sim/model_family.h"

namespace portolan::sim {

ModelFamilyNotes modelFamilyNotes(const families::ModelFromParams& model,
                                  const std::filesystem::path& params)
{
    return ModelFamilyNotes{model.family, model.architecture, model.inferred, model.familyReason,
                            model.layout, params.string(),    model.notes};
}

} // namespace portolan::sim
