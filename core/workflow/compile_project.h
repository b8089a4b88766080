#pragma once

// Compiling a project: the one orchestration behind `portolan-cli compile` and the Profile tab.
// It chooses the model source once (workflow::chooseGraphSource), builds or records the graph,
// opens the options on the project's training by the one rule (sim::applyProjectSettings, for
// every source that says how it trains) and calls the simulators.
//
// The phases are public because the Profile tab needs them apart: it records a runtime
// model's graph in a QProcess it can cancel, opens the settings form once on the project's
// training, and re-simulates on every edit of the form. compileProject() runs them in a row.

#include "core/sim/auto_config.h"
#include "core/sim/ipu_sim.h"
#include "core/sim/model_family.h"
#include "core/sim/profile.h"
#include "core/sim/project_training.h"
#include "core/workflow/graph_source.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace portolan::workflow {

// What to compile: a project folder, a params file, a capture (its folder or capture.json) or a
// TorchScript file (which needs its input shape).
struct ModelInput
{
    std::filesystem::path path;
    std::string inputShape; // TorchScript: "1,3,32,32"
    std::string inputDtype = "float32";
    std::string namedConfig; // a Graphcore application config: which named configuration
    int recordBatch = 2;     // the batch of a runtime model's recording forward pass
    // Benchmarks: the Torch child's arguments for a synthetic graph; `path` is then ignored.
    std::vector<std::string> torchArguments;
};

// A project's model, found once.
struct ProjectModel
{
    graph::GraphSource source;
    // The portolan-torch arguments that record the graph; empty when `graph` was built here.
    std::vector<std::string> torchArguments;
    std::optional<graph::OpGraph> graph;         // a Model Zoo family, built in this process
    std::optional<sim::ModelFamilyNotes> family; // ... and what its builder inferred
    std::vector<std::string> notes;              // what was found, for people ("Params: ...")
    // A file of Graphcore named configurations: those that describe a model, in file order,
    // for ModelInput::namedConfig; the one built is source.training->namedConfig.
    std::vector<std::string> namedConfigs;
};

// Chooses the source of `in` (workflow::chooseGraphSource, called once) and builds a Model Zoo
// family's graph; a runtime model, a capture or a TorchScript file is left to the Torch child.
Result<ProjectModel> openModel(const ModelInput& in);

// The options a compile of `model` opens on: `given` with the project's training applied by
// the one rule (sim::applyProjectSettings), whatever the source (a params file's batch,
// accumulation, optimizer and precision; a capture's micro-batch and strategy). What `keep`
// names stays as given. An unknown target is left for the compile to report.
sim::CompileOptions projectOptions(const ProjectModel& model, sim::CompileOptions given,
                                   const sim::TrainingOverrides& keep = {});
// A note on the strategy a captured project brings ("Project: ... on 4 IPUs, ..."); empty
// when it brings none or the target is a CS system.
std::string strategyNote(const ProjectModel& model, const sim::CompileOptions& options);

// Simulates `g` with `options` and attaches the model family's notes to the report. With a
// cache kept for `g` (sim::IpuSimCache), a split edit re-simulates only the stages it touches.
// `detail` is the result's (sim::SimDetail): Full for a report or the Profile.
Result<sim::CompileResult> compileModel(const graph::OpGraph& g, const sim::CompileOptions& options,
                                        const sim::ModelFamilyNotes* family = nullptr,
                                        sim::IpuSimCache* cache = nullptr,
                                        sim::SimDetail detail = sim::SimDetail::Full);

// Records a graph with the Torch child's arguments; graph::runTorchChild by default.
using GraphRecorder = std::function<Result<graph::OpGraph>(const std::vector<std::string>&)>;

struct CompileRequest
{
    ModelInput input;
    sim::CompileOptions options;            // the user's settings
    sim::TrainingOverrides keep;            // ... which of them were given explicitly
    std::optional<sim::AutoRequest> search; // look for a configuration that fits first
    GraphRecorder record;                   // empty: graph::runTorchChild
    // What the result holds (sim::SimDetail): Full for a report, Summary when only the compile
    // summary is printed (no variables, program steps, bytes per tile or schedule events).
    sim::SimDetail detail = sim::SimDetail::Full;
};

struct CompileOutcome
{
    std::optional<sim::CompileResult> result; // empty when a search found nothing that fits
    std::optional<sim::AutoResult> search;
    std::vector<std::string> notes;      // what was found and applied, for people
    std::vector<Diagnostic> diagnostics; // notes on the sources passed over
};

// openModel, the recording, projectOptions and compileModel (or the search), in a row.
Result<CompileOutcome> compileProject(const CompileRequest& request);

} // namespace portolan::workflow
