#pragma once

// What a simulated compilation produces: everything the profile views show (docs/ARCHITECTURE.md,
// Profile). Plain structs; core/report/ turns them into the versioned report JSON.

#include "core/common/diagnostic.h"
#include "core/graph/op_graph.h"
#include "core/sim/memory_model.h"
#include "core/sim/training_config.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace portolan::sim {

// Poplar's memory categories, as PopVision Graph Analyser shows them.
enum class MemoryCategory : int
{
    AlwaysLive,
    NotAlwaysLive,
    VertexCode,
    VertexState,
    ExchangeCode,
    ControlCode,
    Gaps
};
constexpr int kMemoryCategories = 7;
const char* memoryCategoryName(MemoryCategory c); // "always_live", ...

// A tensor mapped onto tiles: `tileCount` consecutive tiles of one IPU from `firstTile` (a
// global tile index; the range wraps within the IPU's compute tiles, see tiles.h),
// `bytesPerTile` on each.
struct Variable
{
    std::string name;
    std::string kind; // weight, gradient, accumulator, optimizer, master, stash, temporary
    bool alwaysLive = false;
    int stage = 0;
    int op = -1; // index into the graph's ops
    std::int64_t bytes = 0;
    int firstTile = 0;
    int tileCount = 0;
    std::int64_t bytesPerTile = 0;
    int liveFrom = 0; // program steps (global indices), inclusive
    int liveTo = 0;
};

struct ProgramStep
{
    std::string name;  // "fwd fc1", "bwd fc1", "update"
    std::string phase; // forward, backward, update
    int stage = 0;
    int op = -1;
    std::int64_t alwaysLiveBytes = 0;
    std::int64_t notAlwaysLiveBytes = 0;
};

struct StageProfile
{
    int index = 0;
    int ipu = 0;
    int firstOp = 0, endOp = 0;
    int firstLayer = 0, endLayer = 0; // layers touched, [first, end)
    double flops = 0;                 // forward + backward per micro-batch
    double computeCycles = 0, exchangeCycles = 0, linkCycles = 0;
    double forwardSeconds = 0, backwardSeconds = 0;
    MemoryBreakdown memory;     // from the memory model
    std::int64_t usedBytes = 0; // sum over the IPU's tiles
    std::int64_t maxTileBytes = 0;
    int oomTiles = 0;
};

struct ScheduleEvent
{
    int stage = 0;
    int microBatch = 0;
    bool backward = false;
    double start = 0, end = 0; // seconds from the start of the step
};

struct IpuProfile
{
    int ipusPerReplica = 1;
    int tilesPerIpu = 0;
    int ioTilesPerIpu = 0; // the last tiles of each IPU, kept for host I/O (no variables)
    std::int64_t tileCapacity = 0;
    std::string systemName;
    // tileBytes[c][t]: bytes of category c on global tile t.
    std::array<std::vector<std::int64_t>, kMemoryCategories> tileBytes;
    std::vector<Variable> variables;
    std::vector<ProgramStep> steps;
    std::vector<StageProfile> stages;
    std::vector<ScheduleEvent> schedule;
    std::string splitSource; // "automatic" or "user"
    std::string splitUnit;   // a user split counts "layers" or "blocks"
    double bubble = 0;       // (p-1)/(m+p-1)
    double stepSeconds = 0;  // one weight update, from the simulated schedule
    double samplesPerSecond = 0;
    double balance = 1; // the least busy IPU's time / the busiest one's
    int oomTiles = 0;
    std::int64_t maxTileBytes = 0;
    std::int64_t totalBytes = 0;

    std::int64_t tileTotal(int tile) const;
};

struct CsKernel
{
    std::string name;
    int firstOp = 0, endOp = 0;
    int x = 0, y = 0, width = 0, height = 0; // rectangle on the core grid
    std::int64_t activePes = 0;
    std::int64_t memoryBytes = 0;   // weights, gradients, state and activations held
    std::int64_t capacityBytes = 0; // SRAM of its rectangle
    double flopsPerSample = 0;
    double samplesPerSecond = 0;
    double computeSamplesPerSecond = 0;
    double transmissionSamplesPerSecond = 0;
    double utilisation = 0;
    bool fits = true;
};

struct CsProfile
{
    std::string mode; // layer-pipelined or weight-streaming
    std::string modeReason;
    int gridWidth = 0, gridHeight = 0;
    std::vector<CsKernel> kernels;
    double samplesPerSecond = 0;
    std::int64_t onWaferBytes = 0;
    std::int64_t sramBytes = 0;
    std::int64_t streamedBytes = 0; // weight-streaming: per step, off wafer
    std::int64_t microBatch = 0;    // weight-streaming: samples the wafer holds at once
    std::string bottleneck;         // the slowest kernel or "weight streaming bandwidth"
};

struct Remedy
{
    std::string id; // fp16, recompute, more-stages, smaller-micro-batch, optimizer-off-chip
    std::string description;
    std::int64_t bytesSaved = 0; // on the fullest device (tile for IPU, wafer for CS)
    std::int64_t peakBytesAfter = 0;
    bool fitsAfter = false;
    double samplesPerSecondAfter = 0;
};

// The pipeline split the project itself declares (graph::DeclaredSplit, from BeginBlock),
// simulated with the same settings beside the split that was compiled: "the project's split".
struct ProjectSplit
{
    std::string source;              // "poptorch.BeginBlock", "poptorch.Block"
    std::string strategy;            // the PopTorch execution strategy; "" when not known
    std::vector<int> layersPerStage; // as CompileOptions::split
    std::vector<int> ipus;           // the IPU id the project gives each stage
    // The settings it was simulated with (the compile's): IPUs per replica (the highest stage
    // IPU + 1), device iterations, gradient accumulation, micro-batch and replicas.
    int ipuCount = 0;
    int deviceIterations = 1;
    int gradAccum = 1;
    int microBatch = 1;
    int replicas = 1;
    std::string error; // why it could not be simulated ("" when it was)
    bool fits = false;
    std::int64_t maxTileBytes = 0;
    int oomTiles = 0;
    double stepSeconds = 0;
    double samplesPerSecond = 0;
    double balance = 1;
    double bubble = 0;
};

// How a Model Zoo model was built from its params (core/families): the family, whether it was
// inferred (no model.name) and from what, and the notes where the graph simplifies the Model
// Zoo implementation. The report carries it so a reader sees what the numbers rest on.
struct ModelFamilyNotes
{
    std::string family;       // gpt2, bert, t5, ...
    std::string architecture; // decoder, encoder, encoder-decoder, ...
    bool inferred = false;    // model.name was absent
    std::string reason;       // "model.name" or what the inference went by
    std::string layout;       // classic or trainer
    std::string params;       // the params file
    std::vector<std::string> notes;
};

struct CompileOptions
{
    std::string target = "ipu-mk2";
    int ipus = 1; // per replica (pipeline stages)
    TrainingConfig training;
    // Iterations the device runs per call from the host (PopTorch's deviceIterations): samples
    // per host step = micro-batch x gradient accumulation x replicas x this.
    int deviceIterations = 1;
    std::vector<int> split; // layers per stage; empty: automatic
    std::string csMode;     // "", layer-pipelined, weight-streaming
    bool advice = true;

    bool operator==(const CompileOptions&) const = default;
};

struct CompileResult
{
    CompileOptions options;
    std::string targetName;
    std::string targetKind; // ipu or cs
    graph::OpGraph graph;
    std::vector<int> opStage; // stage (IPU) or kernel (CS) of each op
    bool fits = false;
    std::int64_t peakBytes = 0;     // fullest tile (IPU) or wafer use (CS)
    std::int64_t capacityBytes = 0; // of that tile or wafer
    MemoryBreakdown memory;         // whole model, one replica
    double samplesPerSecond = 0;
    std::optional<IpuProfile> ipu;
    std::optional<CsProfile> cs;
    std::vector<Remedy> advice;
    std::optional<ProjectSplit> projectSplit;    // IPU targets, when the graph declares a split
    std::optional<ModelFamilyNotes> modelFamily; // a Model Zoo model built from its params
    std::vector<Diagnostic> diagnostics;
    double compileMilliseconds = 0;
};

} // namespace portolan::sim
