#include "core/workflow/graph_source.h"

#include "core/families/families.h"
#include "core/runtime/model_names.h"
#include "core/runtime/run_config.h"

#include <algorithm>
#include <limits>

namespace portolan::workflow {

using graph::GraphSource;
using graph::GraphSourceKind;
using graph::ProjectTraining;

namespace fs = std::filesystem;

namespace {

std::optional<std::string> runtimeModelOf(const fs::path& params)
{
    try {
        return runtime::knownModelIn(runtime::loadParamsFile(params.string()));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// A Graphcore named configuration runs micro-batches on a pipeline of its own: its settings are
// the project's, as a PopTorch capture's Options are.
void applyExecutionSettings(const families::ExecutionSettings& e, const std::string& name,
                            ProjectTraining& t)
{
    t.namedConfig = name;
    t.batchIsMicroBatch = true;
    t.batchSize = std::max(1, e.microBatchSize);
    t.gradAccum = std::max(1, e.gradientAccumulation);
    t.replicas = e.replicationFactor;
    t.deviceIterations = e.deviceIterations;
    t.layersPerIpu = e.layersPerIpu;
    t.ipus = e.ipusPerReplica > 0 ? e.ipusPerReplica : int(e.layersPerIpu.size());
    if (e.matmulProportion.size() == 1)
        t.matmulProportion = e.matmulProportion.front();
    else
        for (std::size_t i = 0; i < e.matmulProportion.size(); ++i)
            t.availableMemoryProportion[int(i)] = e.matmulProportion[i];
    t.serializationFactor = e.embeddingSerializationFactor;
    t.recompute = e.recomputeEveryLayer.value_or(false);
    t.optimizerOffChip = e.optimizerStateOffchip.value_or(false);
    t.replicatedTensorSharding = e.replicatedTensorSharding.value_or(false);
    t.halfPartials = e.halfPartials.value_or(false);
    t.halfFirstOrderMomentum = e.halfFirstOrderMomentum.value_or(false);
    // "16.16": fp16 weights and compute; "16.32": fp16 compute with fp32 masters.
    t.fp16 = e.precision == "16.16";
    t.mixedPrecision = t.mixedPrecision || e.precision == "16.32";
    t.strategy = "the named configuration '" + name + "'";
}

// A Model Zoo model the family builders know, with the training its params file asks for. The
// model itself goes to `built` when asked for: at 70 B parameters, building it twice costs as
// much as a tenth of a compile.
std::optional<ProjectTraining> familyTraining(const fs::path& params,
                                              const std::string& namedConfig,
                                              std::optional<families::ModelFromParams>* built)
{
    auto m = families::buildFromParamsFile(params, namedConfig);
    if (!m)
        return std::nullopt;
    const auto keep = [&] {
        if (built)
            *built = std::move(*m.value);
    };
    ProjectTraining t;
    // Adafactor keeps factored second moments: Adam's two slots bound it from above.
    t.optimizer = m.value->optimizer.empty()          ? t.optimizer
                  : m.value->optimizer == "adafactor" ? "adam"
                                                      : m.value->optimizer;
    t.batchSize =
        int(std::clamp<std::int64_t>(m.value->data.batchSize, 1, std::numeric_limits<int>::max()));
    t.mixedPrecision = m.value->mixedPrecision;
    if (m.value->execution)
        applyExecutionSettings(*m.value->execution, m.value->namedConfig, t);
    keep();
    return t;
}

// The end of compile.no-model's message on the command line: the command that captures the
// model. A GUI offers the dry run as a button instead (guiWording).
std::string dryRunCommand(const std::string& input)
{
    return ". Run a dry run first: portolan-cli run " + input + " --dry-run --trust";
}

fs::path projectOf(const fs::path& projectOrParams, const fs::path& params)
{
    std::error_code ec;
    if (fs::is_directory(projectOrParams, ec))
        return projectOrParams;
    return params.parent_path().filename() == "configs" ? params.parent_path().parent_path()
                                                        : params.parent_path();
}

} // namespace

Result<ProjectTraining> projectTraining(const fs::path& projectOrParams)
{
    auto params = runtime::modelParamsFile(projectOrParams);
    if (!params)
        return Result<ProjectTraining>::fail(params.error);
    auto config = runtime::loadRunConfig(projectOf(projectOrParams, *params.value), *params.value);
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

GraphSource chooseGraphSource(const fs::path& input, const std::string& namedConfig)
{
    std::optional<families::ModelFromParams> unused;
    return chooseGraphSource(input, namedConfig, unused);
}

GraphSource chooseGraphSource(const fs::path& input, const std::string& namedConfig,
                              std::optional<families::ModelFromParams>& built)
{
    built.reset();
    GraphSource s;
    s.namedConfig = namedConfig;
    std::error_code ec;
    const auto fromCapture = [&](const fs::path& dir) {
        s.kind = GraphSourceKind::Capture;
        s.capture = dir;
        if (auto c = graph::loadCapture(dir))
            s.training = graph::captureTraining(*c.value);
        return s;
    };

    // Named directly: a capture, or a params file (whose errors the runtime then reports).
    if (input.filename() == "capture.json" && fs::is_regular_file(input, ec))
        return fromCapture(input.parent_path());
    if (fs::is_directory(input, ec) && graph::hasCapture(input) &&
        !fs::exists(input / ".portolan", ec))
        return fromCapture(input);
    if (fs::is_regular_file(input, ec)) {
        s.params = input;
        if (!runtimeModelOf(input)) {
            if (auto t = familyTraining(input, namedConfig, &built)) {
                s.kind = GraphSourceKind::ModelFamily;
                s.training = *t;
                return s;
            }
        }
        s.kind = GraphSourceKind::RuntimeModel; // the runtime reports what it cannot build
        if (auto t = projectTraining(input))
            s.training = *t.value;
        return s;
    }
    if (!fs::is_directory(input, ec)) {
        s.message = {Severity::Error,
                     "compile.no-project",
                     "no such project folder or file",
                     {input.string()}};
        return s;
    }

    // 1. The runtime model.
    auto params = runtime::modelParamsFile(input);
    std::string passedOver;
    if (params && runtimeModelOf(*params.value)) {
        s.kind = GraphSourceKind::RuntimeModel;
        s.params = *params.value;
        if (auto t = projectTraining(*params.value))
            s.training = *t.value;
        return s;
    }
    if (params)
        passedOver = "Portolan's runtime does not rebuild the model of " +
                     params.value->lexically_relative(input).string();
    else
        passedOver = "the project has no params file with a model Portolan's runtime rebuilds";

    // 2. A Model Zoo family built from the same params file (the project's chosen one).
    if (params) {
        if (auto t = familyTraining(*params.value, namedConfig, &built)) {
            s.kind = GraphSourceKind::ModelFamily;
            s.params = *params.value;
            s.training = *t;
            s.message = {Severity::Info,
                         "compile.from-family",
                         passedOver + "; building it from " +
                             (t->namedConfig.empty()
                                  ? std::string("the model: keys")
                                  : "its named configuration '" + t->namedConfig + "'") +
                             " instead",
                         {s.params.string()}};
            return s;
        }
        // A named configuration asked for by name that the file lacks: say so, not "no model".
        if (!namedConfig.empty()) {
            auto m = families::buildFromParamsFile(*params.value, namedConfig);
            if (!m && m.error.code == "families.no-named-config") {
                s.kind = GraphSourceKind::None;
                s.message = m.error;
                return s;
            }
        }
        passedOver += ", and no Model Zoo model family describes it";
    }

    // 3. The capture of a dry run.
    if (graph::hasCapture(graph::captureDir(input))) {
        fromCapture(graph::captureDir(input));
        s.message = {Severity::Info,
                     "compile.from-capture",
                     passedOver + "; using the capture",
                     {s.capture.string()}};
        return s;
    }

    // 4. Nothing knows the model: say what to do.
    s.kind = GraphSourceKind::None;
    s.message = {Severity::Error,
                 "compile.no-model",
                 passedOver + ", and there is no capture of a dry run" +
                     dryRunCommand(input.string()),
                 {input.string()}};
    return s;
}

Diagnostic guiWording(const Diagnostic& d)
{
    const std::string command = dryRunCommand(d.location.file);
    if (d.code != "compile.no-model" || !d.message.ends_with(command))
        return d;
    Diagnostic gui = d;
    gui.message.resize(d.message.size() - command.size());
    gui.message += " yet. A dry run of the project's own code captures its model";
    return gui;
}

Result<graph::OpGraph> buildModelFamily(const GraphSource& source)
{
    auto m = families::buildFromParamsFile(source.params, source.namedConfig);
    if (!m)
        return Result<graph::OpGraph>::fail(m.error);
    return Result<graph::OpGraph>::ok(std::move(m.value->graph));
}

} // namespace portolan::workflow
