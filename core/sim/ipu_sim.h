#pragma once

// Simulated Poplar compilation for Graphcore IPUs (docs/ARCHITECTURE.md, Simulated compilation):
// pipeline placement, tile mapping of every tensor, per-tile memory by category, liveness per
// program step, out-of-memory tiles, cycle estimates per stage and the pipeline schedule. What each
// op keeps in memory is ipu_memory.h; the constants below are data (resources/targets/poplar.yaml,
// where each names its source) with these defaults when the file is absent.

#include "core/sim/profile.h"
#include "core/targets/target.h"

#include <memory>

namespace portolan::sim {

struct IpuModelConstants
{
    std::int64_t grainBytes = 16;        // mapping granule: Poplar maps whole grains per tile
    std::int64_t minBytesPerTile = 128;  // a tensor is not spread thinner than this per tile
    std::int64_t gapBytesPerPiece = 8;   // alignment padding per variable piece on a tile
    std::int64_t codeMatmulBytes = 3072; // vertex code of a matmul/conv codelet on a tile
    std::int64_t codeOtherBytes = 512;   // vertex code of an elementwise/other codelet
    std::int64_t vertexStateBytes = 16;  // per vertex (pointers and sizes)
    int computeSetsPerOp = 3;            // forward, input gradient, weight gradient
    int verticesPerComputeSet = 1;       // per tile (MultiVertex codelets)
    double exchangeCodePerByte = 0.02;   // exchange code per byte received by a tile
    std::int64_t exchangeCodePerOp = 64; // fixed per exchange on a tile
    std::int64_t controlBytesBase = 1024;
    std::int64_t controlBytesPerStep = 32;
    double matmulEfficiency = 0.6;      // fraction of peak FLOPs reached by matmuls and convs
    double elementwiseEfficiency = 0.1; // elementwise ops are bound by tile memory
    double usableFraction = 0.9;        // automatic split caps a stage at this share of IPU memory
    std::int64_t optimizerStateBytes = 4;  // PopTorch optimizers keep their state in fp32
    std::int64_t halfMomentumBytes = 2;    // first-order momentum kept in fp16 (when asked)
    int offChipWeightsInFlight = 1;        // weights whose off-chip state is on chip at once
    std::int64_t partialsBytes = 4;        // matmul partials are fp32 unless half partials
    std::int64_t vocabularyMinRows = 4096; // an embedding this long is a vocabulary (serialized)
    std::string source;                    // the file the constants came from, or "built-in"
};

// resources/targets/poplar.yaml, read once; the built-in defaults when it cannot be read.
const IpuModelConstants& ipuModelConstants();
Result<IpuModelConstants> loadIpuModelConstants(const std::filesystem::path& file);

struct OpKinds;

// Full: the whole profile. Figures: what the advice and a search read (fits, the fullest tile,
// throughput and the stage figures), without the variables' names, the program steps, the
// bytes per tile, each stage's memory breakdown, the schedule's events, the model's and the
// graph, which take most of the time at 70 B scale. Summary: the figures plus the model's memory
// breakdown, which the compile summary prints besides (summary.h), for `portolan-cli compile`
// without a report or a trace to write; the graph it also reads is the caller's to move in
// (workflow::compileProject does), a copy of 4,648 ops at 70 B parameters being no small part
// of a compile.
enum class SimDetail
{
    Full,
    Summary,
    Figures
};

// The stages and IPUs of the latest simulations of one graph, kept so that the next one
// re-simulates only what changed: a split edit re-places the stages whose ops moved (and their
// IPUs), and the remedies of the advice each keep their own. The results are identical to a
// simulation without it. Tied to the graph it was used with (by address and size) and to the
// targets by name and file: clear() it when either is changed in place. One simulation at a
// time uses it (it locks).
class IpuSimCache
{
public:
    IpuSimCache();
    ~IpuSimCache();
    IpuSimCache(const IpuSimCache&) = delete;
    IpuSimCache& operator=(const IpuSimCache&) = delete;
    void clear();

private:
    friend Result<CompileResult> simulateIpu(const graph::OpGraph&, const targets::Target&,
                                             const CompileOptions&, const IpuModelConstants&,
                                             IpuSimCache*, SimDetail, const OpKinds*);
    struct Impl;
    std::unique_ptr<Impl> m;
};

// `kinds`: opKinds(g, k.vocabularyMinRows) (ipu_memory.h), when the caller simulates the same
// graph several times (a compile's advice); worked out here otherwise.
Result<CompileResult> simulateIpu(const graph::OpGraph& g, const targets::Target& target,
                                  const CompileOptions& options,
                                  const IpuModelConstants& k = ipuModelConstants(),
                                  IpuSimCache* cache = nullptr, SimDetail detail = SimDetail::Full,
                                  const OpKinds* kinds = nullptr);

// The stage costs (seconds per micro-batch) and memory (bytes) of each op, as the partitioner
// sees them. `kinds` is opKinds(g, ...) (ipu_memory.h) when the caller has it.
void ipuOpCosts(const graph::OpGraph& g, const targets::Target& target, const CompileOptions& o,
                const IpuModelConstants& k, std::vector<double>& cost,
                std::vector<std::int64_t>& memory, const OpKinds* kinds = nullptr);

// Micro-batches whose stash a pipeline stage holds at once. PopART's pipeline runs a stage's
// forward and its backward as separate pipeline steps, so stage s of p waits 2(p-1-s) steps
// for its gradient: it keeps 2(p-1-s)+1 micro-batches (capped by the accumulation count).
// GPipe keeps every micro-batch of the step. Inference keeps none.
int stashDepth(const TrainingConfig& c, int stage, int stages);

} // namespace portolan::sim
