// The pipeline partitioner alone: n ops into k stages (docs/ARCHITECTURE.md, Performance figures: n
// = 100,000, k = 1,024 under 10 ms). Usage: bench_partition [n] [k]
#include "core/sim/partition.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace portolan::sim;

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
    const int k = argc > 2 ? std::atoi(argv[2]) : 1024;
    std::mt19937 rng(7);
    std::vector<double> cost(static_cast<std::size_t>(n));
    std::vector<std::int64_t> memory(static_cast<std::size_t>(n));
    std::int64_t total = 0;
    for (int i = 0; i < n; ++i) {
        // Costs spread over three orders of magnitude, like real ops (matmuls vs elementwise).
        cost[std::size_t(i)] = std::exp(std::uniform_real_distribution<double>(0, 7)(rng));
        memory[std::size_t(i)] = 1000 + std::int64_t(rng() % 1000000);
        total += memory[std::size_t(i)];
    }
    for (const bool capped : {false, true}) {
        const std::int64_t cap = capped ? std::int64_t(double(total) / k * 1.3) : 0;
        std::vector<double> ms;
        Partition p;
        for (int rep = 0; rep < 15; ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            p = partitionMinMax(cost, memory, k, cap);
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count());
        }
        std::sort(ms.begin(), ms.end());
        double sum = 0;
        for (double c : cost)
            sum += c;
        std::printf("partition n=%d k=%d %s: median %.3f ms (min %.3f, max %.3f); feasible=%d, "
                    "bottleneck %.1f = %.3f x the ideal %.1f\n",
                    n, k, capped ? "memory cap 1.3x even share" : "no memory cap",
                    ms[ms.size() / 2], ms.front(), ms.back(), int(p.feasible), p.bottleneck,
                    p.bottleneck / (sum / k), sum / k);
    }
    return 0;
}
