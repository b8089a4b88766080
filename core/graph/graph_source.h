#pragma once

// Where the op graph of a project comes from: the one place that decides it, for the CLI's
// compile and the GUI's Profile tab. In order:
//   1. the runtime model: a params file whose model Portolan's LibTorch runtime rebuilds
//      (core/runtime/model_names.h), recorded by a forward pass in the Torch child;
//   2. a Model Zoo family built from the params file's `model:` keys, without LibTorch
//      (core/families), in the calling process;
//   3. the project's capture from a dry run (capture.h), imported in the Torch child;
//   4. none: a message saying what to do.
// Torch-free: choosing reads YAML and JSON only; the recording itself runs in portolan-torch
// (torch_child.h) with the arguments torchChildArguments gives.

#include "core/graph/capture.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace portolan::graph {

// The params file Portolan builds the model from: `project` itself when it is a file, else the
// project's params file by the one rule (core/project/params_file.h paramsFileFor: the user's
// saved choice, else the default). An error when the project has no YAML file at all.
Result<std::filesystem::path> findParamsFile(const std::filesystem::path& project);

// How the project trains, as its params file (or its capture) says; a compile of its model
// starts from this.
struct ProjectTraining
{
    std::string optimizer = "sgd"; // as sim::optimizerFromName reads it
    int batchSize = 1;             // train_input batch size (global_batch_size for Determined)
    int gradAccum = 1;
    bool mixedPrecision = false; // the params ask for fp16/bf16 compute

    // A capture's batch is what the project feeds the model per step (for PopTorch, its
    // DataLoader's batch_size: the micro-batch), not a global batch to divide up.
    bool batchIsMicroBatch = false;
    // A captured PopTorch project's own execution strategy and Options (0 / empty: not said).
    int ipus = 0;              // IPUs of its declared pipeline (highest stage IPU + 1)
    std::string strategy;      // "poptorch.Block, PipelinedExecution"
    int deviceIterations = 0;  // Options.deviceIterations
    int replicas = 0;          // Options.replicationFactor
    bool fp16 = false;         // the model's parameters are half (model.half())
    bool halfPartials = false; // Options.Precision.setPartialsType(torch.half)
    // Per IPU: the proportion set with poptorch.set_available_memory on that IPU (the smallest
    // when several), else Options.setAvailableMemoryProportion's "IPUn".
    std::map<int, double> availableMemoryProportion;
    // A Graphcore application's named configuration ("" otherwise), and what it sets beyond the
    // above: its layers per IPU, and the memory and precision settings Graphcore's configs give.
    std::string namedConfig;
    std::vector<int> layersPerIpu;
    double matmulProportion = 0; // one value for every IPU (0: not said)
    int serializationFactor = 0;
    bool recompute = false;
    bool optimizerOffChip = false;
    bool replicatedTensorSharding = false;
    bool halfFirstOrderMomentum = false;
};
Result<ProjectTraining> projectTraining(const std::filesystem::path& projectOrParams);
// How a captured project trains: its optimizer and batch, and for PopTorch its Options and the
// IPUs of its declared pipeline.
ProjectTraining captureTraining(const Capture& c);

enum class GraphSourceKind
{
    RuntimeModel,
    ModelFamily,
    Capture,
    None
};
std::string_view graphSourceName(GraphSourceKind k); // "runtime model", "capture", ...

struct GraphSource
{
    GraphSourceKind kind = GraphSourceKind::None;
    std::filesystem::path params;  // RuntimeModel, ModelFamily
    std::filesystem::path capture; // Capture: the capture folder
    // ModelFamily from a file of Graphcore named configurations: the one asked for ("" the
    // first that describes a model).
    std::string namedConfig;
    std::optional<ProjectTraining> training;
    // None: what went wrong and what to do. Otherwise, notes on the sources passed over.
    Diagnostic message;
};

// `input` is a project folder, a params file, a capture folder or a capture.json.
GraphSource chooseGraphSource(const std::filesystem::path& input,
                              const std::string& namedConfig = {});

// `d` as a GUI words it: compile.no-model without the portolan-cli command that ends the CLI's
// message (the GUI offers the dry run as a button); any other diagnostic as it is.
Diagnostic guiWording(const Diagnostic& d);

// The portolan-torch arguments that record the chosen source (empty for ModelFamily and None,
// which need no LibTorch). `recordBatch` is the batch of a runtime model's forward pass.
std::vector<std::string> torchChildArguments(const GraphSource& source, int recordBatch = 2);

// The op graph of a ModelFamily source, built here (no Torch child).
Result<OpGraph> buildModelFamily(const GraphSource& source);

} // namespace portolan::graph
