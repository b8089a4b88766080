#pragma once

// What a project's model source is, as plain data: its kind, its files and the training it asks
// for. Which source a project uses is decided once, in the workflow layer
// (core/workflow/graph_source.h, chooseGraphSource); the simulators (core/sim/project_training.h)
// and the Torch child's lookup read these structs without depending on that choice.

#include "core/common/diagnostic.h"
#include "core/graph/capture.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::graph {

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

// How a captured project trains: its optimizer and batch, and for PopTorch its Options and the
// IPUs of its declared pipeline.
ProjectTraining captureTraining(const Capture& c);

enum class GraphSourceKind
{
    RuntimeModel, // a params file whose model Portolan's LibTorch runtime rebuilds
    ModelFamily,  // a model family built from a params file's keys (core/families)
    Capture,      // the capture of a dry run
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

// The portolan-torch arguments that record `source` (empty for ModelFamily and None, which
// need no LibTorch). `recordBatch` is the batch of a runtime model's forward pass.
std::vector<std::string> torchChildArguments(const GraphSource& source, int recordBatch = 2);

} // namespace portolan::graph
