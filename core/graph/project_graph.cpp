#include "core/graph/project_graph.h"

#include "core/graph/recorder.h"
#include "core/project/params_file.h"
#include "core/runtime/models.h"
#include "core/runtime/run_config.h"

#include <algorithm>
#include <limits>

namespace portolan::graph {

namespace fs = std::filesystem;

Result<fs::path> findParamsFile(const fs::path& project)
{
    std::error_code ec;
    if (fs::is_regular_file(project, ec))
        return Result<fs::path>::ok(project);
    const ParamsFileChoice choice = paramsFileFor(project);
    if (!choice.empty())
        return Result<fs::path>::ok(choice.absolute(project));
    return Result<fs::path>::fail(
        {Severity::Error, "compile.no-params", choice.reason, {project.string()}});
}

Result<ProjectTraining> projectTraining(const fs::path& projectOrParams)
{
    auto params = findParamsFile(projectOrParams);
    if (!params)
        return Result<ProjectTraining>::fail(params.error);
    std::error_code ec;
    const fs::path project = fs::is_directory(projectOrParams, ec) ? projectOrParams
                             : params.value->parent_path().filename() == "configs"
                                 ? params.value->parent_path().parent_path()
                                 : params.value->parent_path();
    auto config = runtime::loadRunConfig(project, *params.value);
    if (!config)
        return Result<ProjectTraining>::fail(config.error);
    ProjectTraining t;
    const auto& o = config.value->optimizer;
    t.optimizer = o.type == "sgd" && o.momentum > 0 ? "sgd-momentum" : o.type;
    const auto clampInt = [](std::int64_t v) {
        return int(std::clamp<std::int64_t>(v, 1, std::numeric_limits<int>::max()));
    };
    t.batchSize = clampInt(config.value->train.batchSize);
    t.gradAccum = clampInt(config.value->gradAccumSteps);
    return Result<ProjectTraining>::ok(t);
}

Result<OpGraph> recordProjectModel(const fs::path& projectOrParams, int batch)
{
    auto params = findParamsFile(projectOrParams);
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
