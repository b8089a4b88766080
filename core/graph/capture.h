#pragma once

// A project's capture (resources/capture/README.md): what a dry run of the project's own code
// recorded after its first optimizer step, in PROJECT/.portolan/capture/: capture.json (the
// module tree with sizes and shapes, the inputs, the batch, the declared pipeline split, the
// options) and model.pt (TorchScript traced on the real batch). This header reads capture.json
// and works out the layers and the declared split; it needs no LibTorch. Turning model.pt into
// ops is capture_import.h, in the Torch child.

#include "core/graph/op_graph.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace portolan::graph {

inline constexpr std::string_view kCaptureFormat = "portolan-capture";
inline constexpr int kCaptureVersion = 1;

struct CaptureTensor
{
    std::string name;           // inputs only
    std::optional<Shape> shape; // null when unknown
    std::string dtype;          // "float32", "int64", ...; "" when unknown
};

struct CaptureModule
{
    std::string path; // as named_modules(): "" for the root, "encoder.layer.0"
    std::string type; // "torch.nn.modules.linear.Linear"
    bool leaf = false;
    std::int64_t params = 0; // the module's own direct parameters (recurse=False)
    std::int64_t paramBytes = 0;
    std::int64_t buffers = 0;
    std::int64_t bufferBytes = 0;
    std::int64_t trainableParams = 0;
    std::optional<int> ipu; // poptorch.BeginBlock / BlockFunction / Block
    std::string block;      // the user id of the PopTorch block it runs in ("" for none)
    int calls = 0;
    std::vector<CaptureTensor> inputs;
    std::vector<CaptureTensor> outputs;

    std::string shortType() const; // "Linear"
};

struct CaptureStage
{
    int ipu = 0;
    std::vector<std::string> modules;
    std::vector<std::string> blocks; // user ids of the PopTorch blocks run in this stage
    std::optional<int> stage;        // PopTorch's stage id of its first block
    std::optional<int> phase;        // phased execution strategies only
};

// The poptorch.Options of the executor that wraps the model (options.poptorch), as far as the
// compile of the project starts from them.
struct CapturePoptorch
{
    int deviceIterations = 1;
    int replicationFactor = 1;
    int gradientAccumulation = 1;
    std::string precision; // the model's parameters: "float32", "float16", "bfloat16"
    bool halfPartials = false;
    // Options.setAvailableMemoryProportion({"IPU0": 0.5}): IPU -> proportion.
    std::map<int, double> availableMemoryProportion;
    // poptorch.set_available_memory calls: IPU -> the smallest proportion set on it.
    std::map<int, double> setAvailableMemory;

    bool half() const { return precision == "float16" || precision == "bfloat16"; }
};

// One argument of the traced forward: an input (index into Capture::inputs) or a tuple of
// arguments (an LSTM's (h, c) hidden state).
struct CaptureArgument
{
    int input = -1; // -1: a tuple of `items`
    std::vector<CaptureArgument> items;
};

struct Capture
{
    std::filesystem::path dir;  // the capture folder
    std::filesystem::path file; // its capture.json
    std::string project, entry, flavour, torchVersion;
    std::string modelClass;
    // Every model the project's optimizers own (`models`, classes), the compiled one first;
    // empty in captures written before the field existed.
    std::vector<std::string> models;
    std::optional<std::filesystem::path> trace; // absolute; nullopt when tracing failed
    std::string traceError;
    bool training = true;
    std::vector<CaptureTensor> inputs;
    // The forward's arguments (input_structure); empty: each input is one argument, as in the
    // captures written before the field existed.
    std::vector<CaptureArgument> inputStructure;
    std::optional<std::int64_t> dryRunBatch;
    // The dimension of the first input that holds the batch (batch.dim): 1 for a sequence-first
    // model. Captures without it hold it in dimension 0.
    int batchDim = 0;
    std::optional<std::int64_t> fullBatch;
    std::string batchSource;
    std::vector<CaptureModule> modules; // pre-order
    std::string pipelineSource;         // "" when the project declares no split
    std::vector<CaptureStage> stages;
    // The PopTorch execution strategy that placed the blocks (pipeline.strategy:
    // "PipelinedExecution", "ShardedExecution", "SerialPhasedExecution", ...) and its
    // pipeline.auto_stage ("SameAsIpu", "AutoIncrement"); "" in captures without them.
    std::string pipelineStrategy;
    std::string pipelineAutoStage;
    std::vector<std::string> pipelineNotes;  // where PopTorch would not place a block
    int declaredIpus = 0;                    // pipeline.ipus; 0 when absent
    std::optional<CapturePoptorch> poptorch; // null unless a PopTorch executor wraps the model
    std::string optimizerClass;              // "torch.optim.AdamW"
    double optimizerMomentum = 0;
    int steps = 0;
    // The dry run used synthetic data (synthetic_data): data-derived sizes, such as a
    // vocabulary read from the data, are not the real data's.
    bool syntheticData = false;

    std::int64_t totalParams() const; // sum of the modules' own parameters
    // The IPUs the declared pipeline needs: pipeline.ipus, else the highest stage IPU + 1; 0
    // without a pipeline.
    int pipelineIpus() const;
    // "poptorch.Block, PipelinedExecution": the API that declared the split and the strategy
    // that placed it ("" without a pipeline).
    std::string pipelineDescription() const;
    // "capture: run.py, dry-run batch 2": the graph's origin, as the report shows it; with
    // several models, which one it is ("model Generator, 1 of 2: Generator, Discriminator").
    std::string origin() const;
    // The optimizer as sim::optimizerFromName reads it ("adamw", "sgd-momentum"), or "".
    std::string optimizerName() const;
};

// PROJECT/.portolan/capture
std::filesystem::path captureDir(const std::filesystem::path& project);
// True when `dir` holds a capture.json.
bool hasCapture(const std::filesystem::path& dir);

// Reads `dirOrFile` (the capture folder or its capture.json). Errors carry file:line:column for
// malformed JSON and name the member for a wrong shape or a format/version mismatch.
Result<Capture> loadCapture(const std::filesystem::path& dirOrFile);

// How a captured model is cut into layers, the units the pipeline partition moves between
// stages. The root's children are layers; a child is opened into its own children when it is a
// container (Sequential, ModuleList, ModuleDict), has a single child, holds more than a quarter
// of the parameters, or contains a module the project put on an IPU of its own (so that
// BeginBlock boundaries are layer boundaries).
struct CaptureLayering
{
    std::vector<std::string> units;      // module paths, pre-order
    std::vector<std::optional<int>> ipu; // per unit: its own or its nearest ancestor's IPU
    // The unit holding a module path (longest prefix at a dot boundary), or "" for none.
    std::string unitOf(const std::string& modulePath) const;
    std::optional<int> ipuOf(const std::string& unit) const;
};
CaptureLayering captureLayering(const std::vector<CaptureModule>& modules);

// The split the project declares, over layers in the order the graph runs them (`layerUnits`,
// one unit per layer): BeginBlock starts a stage on its IPU, and layers after it stay there
// until the next annotated one; layers before the first annotation run on IPU 0. Empty when
// the capture has no pipeline.
DeclaredSplit declaredSplit(const Capture& c, const CaptureLayering& layering,
                            const std::vector<std::string>& layerUnits);

// The graph of a capture whose model could not be traced (no model.pt): one op per leaf module,
// in the order the modules were registered, with the shapes the forward hooks saw and FLOPs by
// module type (flop_rules.h). A warning says that it is built from the module tree alone.
Result<OpGraph> graphFromModules(const Capture& c);

} // namespace portolan::graph
