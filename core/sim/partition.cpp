#include "core/sim/partition.h"

#include <algorithm>
#include <cmath>

namespace portolan::sim {

namespace {

struct Prefix
{
    std::vector<double> cost; // cost[i] = sum of the first i ops
    std::vector<std::int64_t> memory;
};

// Greedy: each stage takes as many ops as fit under `limit` and the cap. Returns the stage
// starts, or empty when more than `stages` stages would be needed.
std::vector<int> probe(const Prefix& p, int n, int stages, double limit, std::int64_t cap)
{
    std::vector<int> starts{0};
    int start = 0;
    while (start < n) {
        if (int(starts.size()) > stages)
            return {};
        // Largest end with cost(start, end) <= limit (with a relative slack for rounding).
        const double bound = p.cost[std::size_t(start)] + limit * (1 + 1e-12);
        int end = int(std::upper_bound(p.cost.begin() + start + 1, p.cost.end(), bound) -
                      p.cost.begin()) -
                  1;
        if (cap > 0) {
            const std::int64_t mbound = p.memory[std::size_t(start)] + cap;
            const int mend =
                int(std::upper_bound(p.memory.begin() + start + 1, p.memory.end(), mbound) -
                    p.memory.begin()) -
                1;
            end = std::min(end, mend);
        }
        if (end <= start)
            return {}; // a single op exceeds the limit or the cap
        starts.push_back(end);
        start = end;
    }
    if (int(starts.size()) - 1 > stages)
        return {};
    return starts;
}

// Splits stages (largest first) until there are exactly `stages`: never raises the bottleneck.
void fillTo(std::vector<int>& starts, const Prefix& p, int stages)
{
    while (int(starts.size()) - 1 < stages) {
        int best = -1;
        double bestCost = -1;
        for (std::size_t s = 0; s + 1 < starts.size(); ++s) {
            if (starts[s + 1] - starts[s] < 2)
                continue;
            const double c = p.cost[std::size_t(starts[s + 1])] - p.cost[std::size_t(starts[s])];
            if (c > bestCost) {
                bestCost = c;
                best = int(s);
            }
        }
        if (best < 0)
            return;
        // Cut the stage where its cost halves.
        const int a = starts[std::size_t(best)], b = starts[std::size_t(best) + 1];
        const double half = (p.cost[std::size_t(a)] + p.cost[std::size_t(b)]) / 2;
        int cut = int(std::lower_bound(p.cost.begin() + a + 1, p.cost.begin() + b, half) -
                      p.cost.begin());
        cut = std::clamp(cut, a + 1, b - 1);
        starts.insert(starts.begin() + best + 1, cut);
    }
}

} // namespace

Partition partitionMinMax(const std::vector<double>& cost, const std::vector<std::int64_t>& memory,
                          int stages, std::int64_t memoryCap)
{
    Partition r;
    const int n = int(cost.size());
    if (stages < 1) {
        r.reason = "the number of stages must be at least 1";
        return r;
    }
    if (n < stages) {
        r.reason = std::to_string(n) + " ops cannot fill " + std::to_string(stages) + " stages";
        return r;
    }
    Prefix p;
    p.cost.resize(std::size_t(n) + 1);
    p.memory.resize(std::size_t(n) + 1);
    double maxOp = 0;
    for (int i = 0; i < n; ++i) {
        p.cost[std::size_t(i) + 1] = p.cost[std::size_t(i)] + std::max(0.0, cost[std::size_t(i)]);
        const std::int64_t m = std::size_t(i) < memory.size() ? memory[std::size_t(i)] : 0;
        p.memory[std::size_t(i) + 1] = p.memory[std::size_t(i)] + std::max<std::int64_t>(0, m);
        maxOp = std::max(maxOp, cost[std::size_t(i)]);
        if (memoryCap > 0 && m > memoryCap) {
            r.reason = "op " + std::to_string(i) + " alone needs " + std::to_string(m) +
                       " bytes, more than a stage holds (" + std::to_string(memoryCap) + ")";
            return r;
        }
    }
    double hi = p.cost.back();
    std::vector<int> best = probe(p, n, stages, hi, memoryCap);
    if (best.empty()) {
        r.reason = "the model does not fit in " + std::to_string(stages) +
                   " stages under the memory cap even ignoring balance";
        return r;
    }
    double lo = std::max(maxOp, hi / stages) * (1 - 1e-12);
    if (auto s = probe(p, n, stages, lo, memoryCap); !s.empty()) {
        best = s;
        hi = lo;
    }
    // Bisection on the bottleneck; stop when the bracket is below the smallest meaningful gap.
    for (int iter = 0; iter < 200 && hi - lo > std::max(1e-12 * hi, 0.0); ++iter) {
        const double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break;
        auto s = probe(p, n, stages, mid, memoryCap);
        if (s.empty()) {
            lo = mid;
        } else {
            // Snap to the achieved bottleneck: it is a segment sum, so the next probe is tighter.
            double achieved = 0;
            for (std::size_t k = 0; k + 1 < s.size(); ++k)
                achieved =
                    std::max(achieved, p.cost[std::size_t(s[k + 1])] - p.cost[std::size_t(s[k])]);
            hi = std::min(mid, achieved);
            best = std::move(s);
        }
    }
    fillTo(best, p, stages);
    r.feasible = true;
    r.starts = std::move(best);
    for (double c : stageCosts(cost, r.starts))
        r.bottleneck = std::max(r.bottleneck, c);
    return r;
}

bool overCapacity(const std::vector<StageFill>& fill)
{
    return std::any_of(fill.begin(), fill.end(), [](const StageFill& f) { return f.peak > 1; });
}

namespace {

// How far a split is from fitting: its fullest stage, then the total overflow of the stages
// over capacity. A split where everything fits has the lowest worst (at most 1) of any split
// where something does not, so a move that removes the overflow always wins; and the worst
// stage never grows, so a split that cannot be fixed ends balanced in memory instead of piled
// onto one IPU.
struct Overflow
{
    int stages = 0;
    double worst = 0;
    double amount = 0;
    bool operator<(const Overflow& o) const
    {
        const double eps = 1e-12;
        if (worst < o.worst * (1 - eps))
            return true;
        if (o.worst < worst * (1 - eps))
            return false;
        return amount < o.amount * (1 - eps) - eps;
    }
};

Overflow overflowOf(const std::vector<StageFill>& fill)
{
    Overflow o;
    for (const auto& f : fill) {
        o.worst = std::max(o.worst, f.peak);
        if (f.peak > 1) {
            ++o.stages;
            o.amount += f.peak - 1;
        }
    }
    return o;
}

double bottleneckOf(const std::vector<double>& cost, const std::vector<int>& starts)
{
    double b = 0;
    for (double c : stageCosts(cost, starts))
        b = std::max(b, c);
    return b;
}

} // namespace

MemoryRepair repairPartitionMemory(const std::vector<double>& cost, std::vector<int> starts,
                                   const StageMeasure& measure, int maxMoves, int maxMeasured)
{
    MemoryRepair r;
    const int stages = int(starts.size()) - 1;
    if (maxMoves <= 0)
        maxMoves = 2 * stages + 8;
    r.fill = measure(starts);
    ++r.measured;
    r.starts = std::move(starts);
    if (stages < 2)
        return r;
    Overflow now = overflowOf(r.fill);
    while (now.stages > 0) {
        // Several stages over: no single move fixes them all, so lowering their overflow is
        // best effort, within a budget of measurements (each can be a whole simulation).
        if (now.stages > 1 && r.measured >= maxMeasured)
            break;
        // Past the bound, only a move that removes the overflow is still taken.
        const bool lastLook = r.moves >= maxMoves;
        // Candidates: a boundary of a stage over capacity moved by one item, away from it. The
        // stages over capacity are tried fullest first, and the first whose moves lower the
        // overflow gives the move (two measurements a move, usually). With one stage over these
        // are the only moves that can fix it; with several, no single move fixes them all.
        std::vector<int> over;
        for (int s = 0; s < stages; ++s)
            if (r.fill[std::size_t(s)].peak > 1)
                over.push_back(s);
        std::stable_sort(over.begin(), over.end(), [&](int a, int b) {
            return r.fill[std::size_t(a)].peak > r.fill[std::size_t(b)].peak;
        });
        std::vector<int> best;
        std::vector<StageFill> bestFill;
        Overflow bestOver = now;
        double bestTime = 0;
        for (int s : over) {
            const int len = r.starts[std::size_t(s) + 1] - r.starts[std::size_t(s)];
            if (len < 2)
                continue;
            std::vector<std::pair<int, int>> moves; // (boundary index in starts, +1 or -1)
            if (s > 0)
                moves.push_back({s, +1}); // its first item to the stage before
            if (s + 1 < stages)
                moves.push_back({s + 1, -1}); // its last item to the stage after
            for (const auto& [b, d] : moves) {
                std::vector<int> cand = r.starts;
                cand[std::size_t(b)] += d;
                auto fill = measure(cand);
                ++r.measured;
                const Overflow o = overflowOf(fill);
                const double time = bottleneckOf(cost, cand);
                const bool better =
                    o < bestOver || (!best.empty() && !(bestOver < o) && time < bestTime);
                if (better && o < now && (!lastLook || o.stages == 0)) {
                    best = std::move(cand);
                    bestFill = std::move(fill);
                    bestOver = o;
                    bestTime = time;
                }
            }
            if (!best.empty())
                break;
        }
        if (best.empty())
            break; // no single move lowers the overflow, so none removes it
        r.starts = std::move(best);
        r.fill = std::move(bestFill);
        now = bestOver;
        ++r.moves;
        if (lastLook)
            break;
    }
    return r;
}

std::vector<double> stageCosts(const std::vector<double>& cost, const std::vector<int>& starts)
{
    std::vector<double> out;
    for (std::size_t s = 0; s + 1 < starts.size(); ++s) {
        double c = 0;
        for (int i = starts[s]; i < starts[s + 1]; ++i)
            c += cost[std::size_t(i)];
        out.push_back(c);
    }
    return out;
}

std::vector<std::int64_t> stageMemory(const std::vector<std::int64_t>& memory,
                                      const std::vector<int>& starts)
{
    std::vector<std::int64_t> out;
    for (std::size_t s = 0; s + 1 < starts.size(); ++s) {
        std::int64_t m = 0;
        for (int i = starts[s]; i < starts[s + 1]; ++i)
            m += memory[std::size_t(i)];
        out.push_back(m);
    }
    return out;
}

} // namespace portolan::sim
