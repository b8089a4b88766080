#include "core/graph/project_graph.h"

#include "core/graph/recorder.h"
#include "core/runtime/models.h"
#include "core/runtime/run_config.h"

#include <algorithm>

namespace portolan::graph {

namespace fs = std::filesystem;

Result<OpGraph> recordProjectModel(const fs::path& projectOrParams, int batch)
{
    auto params = runtime::modelParamsFile(projectOrParams);
    if (!params)
        return Result<OpGraph>::fail(params.error);
    auto built = runtime::buildModelFromParams(*params.value);
    if (!built)
        return Result<OpGraph>::fail(built.error);
    runtime::BuiltModel& m = *built.value;
    std::vector<std::int64_t> shape{std::max(1, batch)};
    shape.insert(shape.end(), m.inputShape.begin(), m.inputShape.end());
    const auto example = torch::zeros(shape, torch::TensorOptions().dtype(m.inputDtype));
    auto g = recordSequential(m.net, example, m.name);
    if (g)
        g.value->origin = "libtorch: " + params.value->string();
    return g;
}

} // namespace portolan::graph
