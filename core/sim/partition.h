#pragma once

// Pipeline split: the exact min-max contiguous partition of a chain of ops into k stages, with a
// memory cap per stage (DESIGN.md section 7). Binary search on the bottleneck; each probe is a
// greedy pass that jumps from stage to stage with binary searches over prefix sums, so a probe
// costs O(k log n) and the whole split O(k log n log(1/eps)).

#include <cstdint>
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

// Stage costs and memory of a given partition.
std::vector<double> stageCosts(const std::vector<double>& cost, const std::vector<int>& starts);
std::vector<std::int64_t> stageMemory(const std::vector<std::int64_t>& memory,
                                      const std::vector<int>& starts);

} // namespace portolan::sim
