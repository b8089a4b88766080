#include "core/workflow/compile_project.h"

#include "core/families/families.h"
#include "core/graph/torch_child.h"
#include "core/runtime/model_names.h"
#include "core/runtime/params_access.h"
#include "core/sim/compile.h"
#include "core/targets/target.h"

#include <algorithm>
#include <sstream>

namespace portolan::workflow {

namespace fs = std::filesystem;

namespace {

bool isTorchScript(const fs::path& p)
{
    return p.extension() == ".pt" || p.extension() == ".pth" || p.extension() == ".ptl";
}

bool runtimeKnows(const fs::path& params)
{
    try {
        return runtime::knownModelIn(runtime::loadParamsFile(params.string())).has_value();
    } catch (const std::exception&) {
        return false;
    }
}

// What a Model Zoo params file gave: the family and how it was found, for people.
std::vector<std::string> familyNotes(const families::ModelFromParams& m)
{
    std::ostringstream line;
    line << "Params: " << m.family << " (" << m.architecture << ", "
         << (m.inferred ? "family inferred" : "model.name") << "), " << m.layout
         << " layout, batch " << m.data.batchSize;
    if (m.data.sequence > 0)
        line << ", sequence " << m.data.sequence << " (" << m.data.sequenceFrom << ")";
    std::vector<std::string> notes{line.str()};
    for (const auto& n : m.notes)
        notes.push_back("  note: " + n);
    return notes;
}

Result<ProjectModel> openTorchScript(const ModelInput& in)
{
    if (in.inputShape.empty())
        return Result<ProjectModel>::fail(
            {Severity::Error,
             "cli.input-shape",
             "a TorchScript model needs --input-shape, like 1,3,32,32",
             {in.path.string()}});
    if (auto shape = graph::parseShape(in.inputShape); !shape)
        return Result<ProjectModel>::fail(shape.error);
    ProjectModel m;
    m.torchArguments = {"torchscript", in.path.string(), "--input-shape",
                        in.inputShape, "--input-dtype",  in.inputDtype};
    return Result<ProjectModel>::ok(std::move(m));
}

// A result simulated for less than a report holds no copy of the graph (sim::SimDetail): the
// model's own, no longer needed here, goes with it.
void attachGraph(const CompileRequest& request, ProjectModel& m, sim::CompileResult& r)
{
    if (request.detail != sim::SimDetail::Full && m.graph)
        r.graph = std::move(*m.graph);
}

} // namespace

Result<ProjectModel> openModel(const ModelInput& in)
{
    if (!in.torchArguments.empty()) {
        ProjectModel m;
        m.torchArguments = in.torchArguments;
        return Result<ProjectModel>::ok(std::move(m));
    }
    if (isTorchScript(in.path))
        return openTorchScript(in);
    ProjectModel m;
    std::optional<families::ModelFromParams> family;
    m.source = chooseGraphSource(in.path, in.namedConfig, family);
    const graph::GraphSource& s = m.source;
    if (s.kind == graph::GraphSourceKind::None)
        return Result<ProjectModel>::fail(s.message);
    if (s.kind == graph::GraphSourceKind::ModelFamily) {
        if (!family) { // chooseGraphSource hands over the model it built; built here if not
            auto built = families::buildFromParamsFile(s.params, s.namedConfig);
            if (!built)
                return Result<ProjectModel>::fail(built.error);
            family = std::move(*built.value);
        }
        m.family = sim::modelFamilyNotes(*family, s.params);
        m.notes = familyNotes(*family);
        m.namedConfigs = family->namedModelConfigs;
        m.graph = std::move(family->graph);
        return Result<ProjectModel>::ok(std::move(m));
    }
    // A Model Zoo params file the builders refuse (a key out of range) and the runtime does not
    // know either: the builder's error, with its file:line:column, says more than the Torch
    // child's "unknown model" would.
    if (s.kind == graph::GraphSourceKind::RuntimeModel && !runtimeKnows(s.params)) {
        auto built = families::buildFromParamsFile(s.params, s.namedConfig);
        if (!built && built.error.code != "families.unknown" &&
            built.error.code != "families.no-model")
            return Result<ProjectModel>::fail(built.error);
    }
    m.torchArguments = graph::torchChildArguments(s, in.recordBatch);
    return Result<ProjectModel>::ok(std::move(m));
}

sim::CompileOptions projectOptions(const ProjectModel& model, sim::CompileOptions given,
                                   const sim::TrainingOverrides& keep)
{
    if (!model.source.training)
        return given;
    auto target = targets::loadTarget(given.target);
    if (!target)
        return given; // the compile reports the unknown target
    sim::applyProjectSettings(*model.source.training, target.value->kind, given, keep);
    return given;
}

std::string strategyNote(const ProjectModel& model, const sim::CompileOptions& options)
{
    const auto& p = model.source.training;
    if (!p || p->strategy.empty())
        return {};
    auto target = targets::loadTarget(options.target);
    if (!target || target.value->kind == targets::TargetKind::Cs)
        return {};
    std::ostringstream s;
    s << "Project: " << p->strategy << " on " << p->ipus << " IPU" << (p->ipus == 1 ? "" : "s")
      << ", device iterations " << std::max(1, p->deviceIterations) << ", gradient accumulation "
      << std::max(1, p->gradAccum) << ", micro-batch " << p->batchSize;
    return s.str();
}

Result<sim::CompileResult> compileModel(const graph::OpGraph& g, const sim::CompileOptions& options,
                                        const sim::ModelFamilyNotes* family,
                                        sim::IpuSimCache* cache, sim::SimDetail detail)
{
    auto r = sim::compileGraph(g, options, cache, detail);
    if (r && family)
        r.value->modelFamily = *family;
    return r;
}

Result<CompileOutcome> compileProject(const CompileRequest& request)
{
    auto target = targets::loadTarget(request.options.target);
    if (!target)
        return Result<CompileOutcome>::fail(target.error);
    auto model = openModel(request.input);
    if (!model)
        return Result<CompileOutcome>::fail(model.error);
    ProjectModel& m = *model.value;
    CompileOutcome out;
    out.notes = m.notes;
    if (!m.source.message.message.empty())
        out.diagnostics.push_back(m.source.message);
    if (!m.graph) {
        auto recorded = request.record ? request.record(m.torchArguments)
                                       : graph::runTorchChild(m.torchArguments);
        if (!recorded)
            return Result<CompileOutcome>::fail(recorded.error);
        m.graph = std::move(*recorded.value);
    }
    const sim::CompileOptions options = projectOptions(m, request.options, request.keep);
    if (auto note = strategyNote(m, options); !note.empty())
        out.notes.push_back(note);
    const sim::ModelFamilyNotes* family = m.family ? &*m.family : nullptr;
    if (!request.search) {
        auto r = compileModel(*m.graph, options, family, nullptr, request.detail);
        if (!r)
            return Result<CompileOutcome>::fail(r.error);
        out.result = std::move(*r.value);
        attachGraph(request, m, *out.result);
        return Result<CompileOutcome>::ok(std::move(out));
    }
    sim::AutoRequest search = *request.search;
    search.base = options;
    if (search.ipus == 0)
        search.ipus = options.ipus;
    auto found = sim::findFittingConfiguration(*m.graph, *target.value, search);
    if (!found)
        return Result<CompileOutcome>::fail(found.error);
    out.search = std::move(*found.value);
    if (out.search->found) {
        sim::CompileOptions best = out.search->best.options;
        best.advice = false;
        auto r = compileModel(*m.graph, best, family, nullptr, request.detail);
        if (!r)
            return Result<CompileOutcome>::fail(r.error);
        out.result = std::move(*r.value);
        attachGraph(request, m, *out.result);
    }
    return Result<CompileOutcome>::ok(std::move(out));
}

} // namespace portolan::workflow
