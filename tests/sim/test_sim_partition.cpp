// The pipeline partitioner against an O(k n^2) dynamic-programming oracle on random chains.
#include "core/sim/partition.h"

#include <QTest>
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
