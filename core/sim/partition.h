#pragma once

// Pipeline split: the exact min-max contiguous partition of a chain of ops into k stages, with a
// memory cap per stage (docs/ARCHITECTURE.md, Simulated compilation). Binary search on the
// bottleneck; each probe is a greedy pass that jumps from stage to stage with binary searches over
// prefix sums, so a probe costs O(k log n) and the whole split O(k log n log(1/eps)).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace portolan::sim {

struct Partition
{
    bool feasible = false;
    std::vector<int> starts; // stage s covers ops [starts[s], starts[s+1]); starts.back() == n
    double bottleneck = 0;   // the largest stage cost
    std::string reason;      // why not, when infeasible
};

// cost[i] >= 0, memory[i] >= 0; memoryCap <= 0 means no cap. Exactly `stages` non-empty stages
// when n >= stages (fewer ops than stages: infeasible, with a reason).
Partition partitionMinMax(const std::vector<double>& cost, const std::vector<std::int64_t>& memory,
                          int stages, std::int64_t memoryCap);

// Phase 2 of the automatic split: memory repair. The min-max partition balances time under a
// per-item memory estimate; what a stage really holds also depends on where it sits (the first
// stages of a pipeline stash the most micro-batches) and on what only the whole stage shows
// (plan temporaries, code, the fullest tile). So the split the first phase returns can leave
// one stage over capacity while others have room. The repair measures each stage of a split
// with `measure` and moves single items across the boundaries of the stages that are over
// (the fullest first), one at a time, taking the move that most lowers (the fullest
// stage, then the total overflow) and, between equal ones, the lowest time bottleneck; it stops
// when nothing is over or no single move helps. Guarantee, for measures where a stage never needs
// less memory for holding more items: when it returns a split with a stage over capacity, no
// single-item move (any boundary by one item) brings every stage within capacity. Contiguity and
// "every stage at least one item" are kept.
struct StageFill
{
    double peak = 0; // the stage's fullest place against its capacity: over capacity when > 1
    double fill = 0; // the share of the stage's memory in use
};
using StageMeasure = std::function<std::vector<StageFill>(const std::vector<int>& starts)>;

struct MemoryRepair
{
    std::vector<int> starts;     // the repaired split
    std::vector<StageFill> fill; // measured for `starts`
    int moves = 0;               // single-item moves made
    int measured = 0;            // splits measured (calls of `measure`)
};

bool overCapacity(const std::vector<StageFill>& fill);

// `starts` is a split of `cost.size()` items as partitionMinMax returns it; `maxMoves` bounds
// the moves (0: 2 x stages + 8); past it, the candidates are still measured once and a move
// that removes the overflow is still taken. `maxMeasured` bounds the measurements made while
// several stages are over (then no single move can fix the split: best effort). Neither bound
// weakens the guarantee above.
MemoryRepair repairPartitionMemory(const std::vector<double>& cost, std::vector<int> starts,
                                   const StageMeasure& measure, int maxMoves = 0,
                                   int maxMeasured = 6);

// Stage costs and memory of a given partition.
std::vector<double> stageCosts(const std::vector<double>& cost, const std::vector<int>& starts);
std::vector<std::int64_t> stageMemory(const std::vector<std::int64_t>& memory,
                                      const std::vector<int>& starts);

} // namespace portolan::sim
