// The pipeline partitioner against an O(k n^2) dynamic-programming oracle on random chains.
#include "core/sim/partition.h"

#include <QTest>
#include <algorithm>
#include <limits>
#include <random>

using namespace portolan::sim;

namespace {

// Exact min-max with memory caps by DP: best[s][j] = min over i of max(best[s-1][i], cost(i, j)).
double oracle(const std::vector<double>& cost, const std::vector<std::int64_t>& mem, int k,
              std::int64_t cap)
{
    const int n = int(cost.size());
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> pc(std::size_t(n) + 1, 0);
    std::vector<std::int64_t> pm(std::size_t(n) + 1, 0);
    for (int i = 0; i < n; ++i) {
        pc[std::size_t(i) + 1] = pc[std::size_t(i)] + cost[std::size_t(i)];
        pm[std::size_t(i) + 1] = pm[std::size_t(i)] + mem[std::size_t(i)];
    }
    std::vector<double> prev(std::size_t(n) + 1, inf), cur(std::size_t(n) + 1, inf);
    prev[0] = 0;
    for (int s = 1; s <= k; ++s) {
        std::fill(cur.begin(), cur.end(), inf);
        for (int j = s; j <= n; ++j)
            for (int i = j - 1; i >= s - 1; --i) {
                if (cap > 0 && pm[std::size_t(j)] - pm[std::size_t(i)] > cap)
                    break; // longer stages only hold more
                const double c =
                    std::max(prev[std::size_t(i)], pc[std::size_t(j)] - pc[std::size_t(i)]);
                cur[std::size_t(j)] = std::min(cur[std::size_t(j)], c);
            }
        std::swap(prev, cur);
    }
    return prev[std::size_t(n)];
}

} // namespace

class TestSimPartition : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void againstOracle_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("seed");
        QTest::addColumn<bool>("capped");
        for (int seed = 1; seed <= 40; ++seed) {
            std::mt19937 rng{static_cast<unsigned>(seed)};
            const int n = 1 + int(rng() % 200);
            const int k = 1 + int(rng() % 16);
            QTest::addRow("small-%d", seed) << n << k << seed << bool(seed % 2);
        }
        QTest::addRow("n1000-k64") << 1000 << 64 << 101 << true;
        QTest::addRow("n3000-k8") << 3000 << 8 << 102 << true;
        QTest::addRow("n3000-k64") << 3000 << 64 << 103 << false;
        QTest::addRow("n3000-k64-capped") << 3000 << 64 << 104 << true;
    }
    void againstOracle()
    {
        QFETCH(int, n);
        QFETCH(int, k);
        QFETCH(int, seed);
        QFETCH(bool, capped);
        std::mt19937 rng{static_cast<unsigned>(seed)};
        std::vector<double> cost(static_cast<std::size_t>(n));
        std::vector<std::int64_t> mem(static_cast<std::size_t>(n));
        std::int64_t total = 0, biggest = 0;
        for (int i = 0; i < n; ++i) {
            cost[std::size_t(i)] = double(1 + rng() % 1000);
            mem[std::size_t(i)] = std::int64_t(1 + rng() % 100);
            total += mem[std::size_t(i)];
            biggest = std::max(biggest, mem[std::size_t(i)]);
        }
        // A cap between "one op" and "an even share": sometimes feasible, sometimes not.
        const std::int64_t cap =
            capped ? std::max(biggest, std::int64_t(double(total) / k * (0.9 + 0.01 * (seed % 40))))
                   : 0;
        const double want = oracle(cost, mem, k, cap);
        const Partition got = partitionMinMax(cost, mem, k, cap);
        if (std::isinf(want) || n < k) {
            QVERIFY(!got.feasible);
            QVERIFY(!got.reason.empty());
            return;
        }
        QVERIFY2(got.feasible, got.reason.c_str());
        QCOMPARE(int(got.starts.size()), k + 1);
        QCOMPARE(got.starts.front(), 0);
        QCOMPARE(got.starts.back(), n);
        for (std::size_t s = 0; s + 1 < got.starts.size(); ++s)
            QVERIFY(got.starts[s] < got.starts[s + 1]);
        QCOMPARE(got.bottleneck, want);
        if (cap > 0)
            for (auto m : stageMemory(mem, got.starts))
                QVERIFY(m <= cap);
    }

    // Phase 2, memory repair, on random layer sizes. Each stage's memory is its items' fixed
    // bytes plus their stash times a depth that falls along the pipeline (the first stage keeps
    // the most micro-batches, as a 1F1B pipeline does), plus a first-stage extra (the
    // embeddings' plan temporaries): what the per-item estimate of phase 1 does not see. The
    // property: the repaired split never leaves a stage over capacity while another is below
    // 80% when a single-item move would bring every stage within capacity.
    void memoryRepairProperty_data()
    {
        QTest::addColumn<int>("seed");
        for (int seed = 1; seed <= 300; ++seed)
            QTest::addRow("seed-%d", seed) << seed;
    }
    void memoryRepairProperty()
    {
        QFETCH(int, seed);
        std::mt19937 rng{static_cast<unsigned>(seed)};
        const int n = 4 + int(rng() % 40);
        const int k = 2 + int(rng() % std::min(8, n - 1));
        std::vector<double> cost(static_cast<std::size_t>(n));
        std::vector<std::int64_t> fixed(static_cast<std::size_t>(n)), stash(cost.size()),
            estimate(cost.size());
        for (int i = 0; i < n; ++i) {
            cost[std::size_t(i)] = double(1 + rng() % 100);
            fixed[std::size_t(i)] = std::int64_t(1 + rng() % 100);
            stash[std::size_t(i)] = std::int64_t(rng() % 40);
            estimate[std::size_t(i)] = fixed[std::size_t(i)] + stash[std::size_t(i)];
        }
        fixed[0] += std::int64_t(rng() % 300); // a large embedding on the first stage
        const std::int64_t firstExtra = std::int64_t(rng() % 150);
        std::int64_t total = 0;
        for (int i = 0; i < n; ++i)
            total += fixed[std::size_t(i)] + 2 * stash[std::size_t(i)];
        const double capacity =
            double(total) / k * (0.9 + 0.6 * std::uniform_real_distribution<double>()(rng));
        const auto measure = [&](const std::vector<int>& starts) {
            std::vector<StageFill> out;
            const int stages = int(starts.size()) - 1;
            for (int s = 0; s < stages; ++s) {
                double bytes = s == 0 ? double(firstExtra) : 0.0;
                const int depth = 2 * (stages - 1 - s) + 1;
                for (int i = starts[std::size_t(s)]; i < starts[std::size_t(s) + 1]; ++i)
                    bytes += double(fixed[std::size_t(i)] + depth * stash[std::size_t(i)]);
                out.push_back({bytes / capacity, bytes / capacity});
            }
            return out;
        };
        Partition phase1 = partitionMinMax(cost, estimate, k, std::int64_t(capacity));
        if (!phase1.feasible)
            phase1 = partitionMinMax(cost, estimate, k, 0);
        QVERIFY(phase1.feasible);
        const MemoryRepair r = repairPartitionMemory(cost, phase1.starts, measure);
        // Still a split of n items into k non-empty contiguous stages.
        QCOMPARE(int(r.starts.size()), k + 1);
        QCOMPARE(r.starts.front(), 0);
        QCOMPARE(r.starts.back(), n);
        for (int s = 0; s < k; ++s)
            QVERIFY(r.starts[std::size_t(s)] < r.starts[std::size_t(s) + 1]);
        const auto fill = measure(r.starts);
        for (int s = 0; s < k; ++s)
            QCOMPARE(r.fill[std::size_t(s)].peak, fill[std::size_t(s)].peak);
        if (r.moves > 0) // it only moves when something was over
            QVERIFY(overCapacity(measure(phase1.starts)));
        if (!overCapacity(measure(phase1.starts)))
            QCOMPARE(r.starts, phase1.starts); // a split that fits is left alone
        const bool over = overCapacity(fill);
        const bool roomy =
            std::any_of(fill.begin(), fill.end(), [](const StageFill& f) { return f.fill < 0.8; });
        if (!over || !roomy)
            return;
        // Every single-item move, at every boundary: none brings every stage within capacity.
        for (int b = 1; b < k; ++b)
            for (int d : {-1, +1}) {
                std::vector<int> moved = r.starts;
                moved[std::size_t(b)] += d;
                if (moved[std::size_t(b)] <= moved[std::size_t(b) - 1] ||
                    moved[std::size_t(b)] >= moved[std::size_t(b) + 1])
                    continue;
                QVERIFY2(overCapacity(measure(moved)),
                         qPrintable(QStringLiteral("moving boundary %1 by %2 fits").arg(b).arg(d)));
            }
    }

    void memoryRepairMovesTowardRoom()
    {
        // Two equal layers per stage in time; a first-stage layer holds almost twice what the
        // others do (its deeper stash), so the first stage is over capacity while the others are
        // 60% full. One layer off the first stage fixes it; the repair finds that move.
        const std::vector<double> cost(8, 1.0);
        const std::vector<int> starts{0, 2, 4, 6, 8};
        const auto measure = [](const std::vector<int>& st) {
            std::vector<StageFill> out;
            for (std::size_t s = 0; s + 1 < st.size(); ++s) {
                const double perLayer = s == 0 ? 0.55 : 0.3;
                const double f = perLayer * (st[s + 1] - st[s]);
                out.push_back({f, f});
            }
            return out;
        };
        QVERIFY(overCapacity(measure(starts)));
        const MemoryRepair r = repairPartitionMemory(cost, starts, measure);
        QVERIFY(!overCapacity(r.fill));
        QCOMPARE(r.starts, (std::vector<int>{0, 1, 4, 6, 8}));
        QCOMPARE(r.moves, 1);
        // A split that fits is not measured more than once.
        const MemoryRepair same = repairPartitionMemory(cost, r.starts, measure);
        QCOMPARE(same.measured, 1);
        QCOMPARE(same.starts, r.starts);
    }

    void infeasible()
    {
        auto r = partitionMinMax({1, 2, 3}, {10, 10, 10}, 2, 15);
        QVERIFY(!r.feasible);
        QVERIFY(!r.reason.empty());
        r = partitionMinMax({1, 2, 3}, {10, 40, 10}, 3, 15);
        QVERIFY(!r.feasible);
        QVERIFY(r.reason.find("op 1") != std::string::npos);
        r = partitionMinMax({1, 2}, {1, 1}, 3, 0);
        QVERIFY(!r.feasible);
    }
};

QTEST_GUILESS_MAIN(TestSimPartition)
#include "test_sim_partition.moc"
