// A stage placed as an earlier stage shifted (ipu_phases.h, shiftedStage). At 256 IPUs the
// automatic split repeats the same few stages for every transformer layer, and placing each of
// them again was most of the advice's time. The shift is taken only when every op the
// placement reads is the same, so the result is the one placeStage would give.
#include "core/sim/ipu_phases.h"
#include "core/sim/ipu_sim.h"

namespace portolan::sim::ipu {

namespace {

// Op `a` and op `b` are the same for the place and memory phases (OpKinds::content).
bool sameContent(const Context& x, int a, int b)
{
    return x.kinds.content[std::size_t(a)] == x.kinds.content[std::size_t(b)];
}

// The check of one shift: the stage [first, end) against [first + delta, end + delta).
struct ShiftCheck
{
    const Context& x;
    int first, end, delta;

    // Two references, from op i and op i + delta, read the same: the same op before the stage
    // (the model's input, a table every layer reads), or ops `delta` apart with the same
    // content, followed through the views whose storage they share.
    bool sameReference(int p, int q, int depth = 0) const
    {
        if (p == q)
            return p < first;
        if (q != p + delta || p < 0 || depth > 64 || !sameContent(x, p, q))
            return false;
        const graph::Op& op = x.g.ops[std::size_t(p)];
        if (!op.aliasesInput)
            return true;
        const graph::Op& other = x.g.ops[std::size_t(q)];
        const int pn = op.inputOps.empty() ? p - 1 : op.inputOps.front();
        const int qn = other.inputOps.empty() ? q - 1 : other.inputOps.front();
        return sameReference(pn, qn, depth + 1);
    }

    bool holds() const
    {
        const auto& ops = x.g.ops;
        // The op after the stage too: the memory model reads its layer (is i a layer's last?).
        const int layerShift =
            ops[std::size_t(first + delta)].layer - ops[std::size_t(first)].layer;
        for (int i = first; i <= end; ++i)
            if (ops[std::size_t(i + delta)].layer - ops[std::size_t(i)].layer != layerShift)
                return false;
        for (int i = first; i < end; ++i) {
            if (!sameReference(i, i + delta))
                return false;
            const graph::Op& p = ops[std::size_t(i)];
            const graph::Op& q = ops[std::size_t(i + delta)];
            if (p.inputOps.empty() && !sameReference(i - 1, i - 1 + delta))
                return false;
            for (std::size_t k = 0; k < p.inputOps.size(); ++k)
                if (!sameReference(p.inputOps[k], q.inputOps[k]))
                    return false;
            // A tied op reads its owner's parameter count.
            if (p.tiedTo >= 0 && p.tiedTo != q.tiedTo &&
                ops[std::size_t(p.tiedTo)].paramCount != ops[std::size_t(q.tiedTo)].paramCount)
                return false;
        }
        return true;
    }
};

int rotated(int local, int from, int to, int tiles)
{
    return ((local - from + to) % tiles + tiles) % tiles;
}

} // namespace

std::optional<PlacedStage> shiftedStage(const Context& x, const StageKey& from,
                                        const PlacedStage& placed, const StageKey& to)
{
    const int n = int(x.g.ops.size());
    const int delta = to.first - from.first;
    const auto& c = x.o.training;
    // Not in full detail (names and steps), not a stage that ends the model (the loss), and
    // only with the same length, stash depth, link and per-IPU settings.
    if (x.detail == Detail::Full || delta <= 0 || x.kinds.content.size() != std::size_t(n) ||
        to.end - to.first != from.end - from.first || to.end >= n || from.count != to.count ||
        (from.index + 1 < from.count) != (to.index + 1 < to.count) ||
        stashDepth(c, from.index, from.count) != stashDepth(c, to.index, to.count) ||
        !(c.forStage(from.ipu) == c.forStage(to.ipu)))
        return std::nullopt;
    if (!ShiftCheck{x, from.first, from.end, delta}.holds())
        return std::nullopt;
    PlacedStage out;
    out.detail = x.detail;
    out.profile = placed.profile;
    out.profile.memory = {};
    StageProfile& st = out.profile;
    const int layerShift =
        x.g.ops[std::size_t(to.first)].layer - x.g.ops[std::size_t(from.first)].layer;
    st.index = to.index;
    st.ipu = to.ipu;
    st.firstOp = to.first;
    st.endOp = to.end;
    st.firstLayer += layerShift;
    st.endLayer += layerShift;
    // The mapping continues from another tile: every variable turns by the same number of tiles
    // (the mapper only adds tile counts, modulo the compute tiles).
    const int steps = to.stepBase - from.stepBase;
    out.placed = placed.placed;
    for (PlacedVariable& v : out.placed) {
        v.op += delta;
        const int local = v.firstTile - from.ipu * x.tiles;
        v.firstTile = to.ipu * x.tiles + rotated(local, from.cursor, to.cursor, x.computeTiles);
        v.liveFrom += steps;
        v.liveTo += steps;
    }
    out.stepCount = placed.stepCount;
    out.peakStep = placed.peakStep + steps;
    out.peakLive = placed.peakLive;
    out.stashBytes = placed.stashBytes;
    out.forward = placed.forward;
    out.backward = placed.backward;
    out.link = placed.link;
    out.cursorAfter = rotated(placed.cursorAfter, from.cursor, to.cursor, x.computeTiles);
    return out;
}

} // namespace portolan::sim::ipu
