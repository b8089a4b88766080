#include "core/sim/ipu_plan.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace portolan::sim {

namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return (a + b - 1) / b;
}

bool contains(const std::string& s, const char* part)
{
    return s.find(part) != std::string::npos;
}

} // namespace

std::optional<ContractionShape> contractionShape(const graph::Op& op)
{
    const graph::Shape& out = op.outputShape;
    if (out.empty() || op.inputShapes.empty() || op.inputShapes.front().empty())
        return std::nullopt;
    const std::int64_t outElems = graph::elementCount(out);
    if (outElems <= 0)
        return std::nullopt;
    ContractionShape s;
    const bool conv = contains(op.kind, "onv") || contains(op.kind, "convolution");
    if (conv) {
        // [N, C_out, spatial...]: rows are the output positions, the inner dimension is the
        // weight's fan-in (C_in x kernel), bias aside.
        if (out.size() < 2 || out[1] <= 0 || op.paramCount <= 0)
            return std::nullopt;
        s.cols = out[1];
        s.rows = outElems / s.cols;
        s.inner = std::max<std::int64_t>(1, op.paramCount / s.cols);
        return s;
    }
    const bool weighted = op.paramCount > 0 || op.tiedTo >= 0;
    if (!weighted && op.inputShapes.size() >= 2 && out.size() >= 2) {
        // A product of two activations ([..., M, K] x [..., K, N]): the leading dimensions are
        // groups (heads).
        s.rows = out[out.size() - 2];
        s.cols = out.back();
        s.inner = op.inputShapes.front().back();
        s.groups = std::max<std::int64_t>(1, outElems / std::max<std::int64_t>(1, s.rows * s.cols));
        s.batchInGroups = true;
    } else {
        // A linear layer: [..., K] -> [..., N] with a [N, K] weight.
        s.cols = out.back();
        s.inner = op.inputShapes.front().back();
        s.rows = outElems / std::max<std::int64_t>(1, s.cols);
    }
    if (s.rows <= 0 || s.cols <= 0 || s.inner <= 0)
        return std::nullopt;
    return s;
}

namespace {

TilePlan searchPlan(const ContractionShape& s, int operandBytes, int partialsBytes, int tiles)
{
    TilePlan best;
    tiles = std::max(1, tiles);
    if (s.rows <= 0 || s.cols <= 0 || s.inner <= 0)
        return best;
    // Groups are independent: spreading them costs no copies, so they take tiles first.
    const std::int64_t groupSplit =
        std::min<std::int64_t>(std::max<std::int64_t>(1, s.groups), tiles);
    const std::int64_t groupsPerTile = ceilDiv(std::max<std::int64_t>(1, s.groups), groupSplit);
    const std::int64_t rest = std::max<std::int64_t>(1, tiles / groupSplit);
    best.bytesPerTile = -1;
    const auto consider = [&](std::int64_t pr, std::int64_t pi, std::int64_t pc) {
        pr = std::clamp<std::int64_t>(pr, 1, s.rows);
        pi = std::clamp<std::int64_t>(pi, 1, s.inner);
        pc = std::clamp<std::int64_t>(pc, 1, s.cols);
        if (pr * pi * pc > rest)
            return;
        const std::int64_t r = ceilDiv(s.rows, pr), k = ceilDiv(s.inner, pi),
                           n = ceilDiv(s.cols, pc);
        const std::int64_t bytes =
            groupsPerTile * ((r * k + k * n) * operandBytes + r * n * partialsBytes);
        if (best.bytesPerTile < 0 || bytes < best.bytesPerTile) {
            best.bytesPerTile = bytes;
            best.tiles = groupSplit * pr * pi * pc;
        }
    };
    // Two of the three splits in powers of two, the third takes the tiles left (the planner
    // searches every split; tile counts such as 1,472 = 23 x 64 are not powers of two).
    for (std::int64_t a = 1; a <= rest; a *= 2)
        for (std::int64_t b = 1; a * b <= rest; b *= 2) {
            const std::int64_t left = rest / (a * b);
            consider(a, b, left);
            consider(a, left, b);
            consider(left, a, b);
        }
    return best;
}

} // namespace

TilePlan planContraction(const ContractionShape& s, int operandBytes, int partialsBytes, int tiles)
{
    // The search is a pure function of its arguments, and a model repeats its blocks' shapes:
    // each simulation of an 80-block model would otherwise search the same few shapes thousands
    // of times. One memo per thread (simulations run on worker threads), cleared when large;
    // hashed, since a 70 B model's simulations ask it over 25,000 times.
    using Key = std::array<std::int64_t, 8>;
    struct KeyHash
    {
        std::size_t operator()(const Key& k) const
        {
            std::uint64_t h = 1469598103934665603ull; // FNV-1a over the eight fields
            for (const std::int64_t v : k)
                h = (h ^ std::uint64_t(v)) * 1099511628211ull;
            return std::size_t(h);
        }
    };
    thread_local std::unordered_map<Key, TilePlan, KeyHash> memo;
    const Key key{s.groups,     s.rows,        s.inner, s.cols, s.batchInGroups ? 1 : 0,
                  operandBytes, partialsBytes, tiles};
    if (auto it = memo.find(key); it != memo.end())
        return it->second;
    if (memo.size() > 4096)
        memo.clear();
    const TilePlan plan = searchPlan(s, operandBytes, partialsBytes, tiles);
    memo.emplace(key, plan);
    return plan;
}

ContractionShape atMicroBatch(ContractionShape s, int microBatch, int serialization)
{
    const std::int64_t mb = std::max(1, microBatch);
    if (s.batchInGroups)
        s.groups *= mb;
    else
        s.rows *= mb;
    s.cols = ceilDiv(s.cols, std::max(1, serialization));
    return s;
}

ContractionShape inputGradientPass(const ContractionShape& s)
{
    return {s.groups, s.rows, s.cols, s.inner, s.batchInGroups};
}

ContractionShape weightGradientPass(const ContractionShape& s)
{
    return {s.groups, s.inner, s.rows, s.cols, s.batchInGroups};
}

} // namespace portolan::sim
