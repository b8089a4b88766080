#include "core/sim/layer_split.h"

#include "core/sim/profile.h"

#include <algorithm>
#include <numeric>

namespace portolan::sim {

namespace {

Diagnostic splitError(std::string message)
{
    return {Severity::Error, "compile.split", std::move(message), {}};
}

} // namespace

Result<LayerSplit> LayerSplit::parse(std::string_view text)
{
    std::vector<int> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        auto end = text.find(',', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view part = text.substr(pos, end - pos);
        std::size_t lead = 0;
        while (lead < part.size() && part[lead] == ' ')
            ++lead;
        part.remove_prefix(lead);
        while (!part.empty() && part.back() == ' ')
            part.remove_suffix(1);
        const bool ok =
            !part.empty() && part.size() < 9 &&
            std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!ok)
            return Result<LayerSplit>::fail(splitError(
                "split '" + std::string(text) + "': '" + std::string(part) + "' at column " +
                std::to_string(pos + lead + 1) + " is not a number of layers (0 or more)"));
        out.push_back(std::stoi(std::string(part)));
        pos = end + 1;
    }
    if (std::accumulate(out.begin(), out.end(), 0) == 0)
        return Result<LayerSplit>::fail(
            splitError("split '" + std::string(text) + "' places no layer at all"));
    return Result<LayerSplit>::ok(LayerSplit(std::move(out)));
}

std::string LayerSplit::toString() const
{
    std::string s;
    for (std::size_t i = 0; i < m_perStage.size(); ++i)
        s += (i ? "," : "") + std::to_string(m_perStage[i]);
    return s;
}

int LayerSplit::total() const
{
    return std::accumulate(m_perStage.begin(), m_perStage.end(), 0);
}

bool LayerSplit::setStage(int stage, int count, int minimum)
{
    const int n = stages();
    if (stage < 0 || stage >= n || n < 2 || count < minimum)
        return false;
    const int neighbour = stage + 1 < n ? stage + 1 : stage - 1;
    const int delta = count - m_perStage[std::size_t(stage)];
    if (m_perStage[std::size_t(neighbour)] - delta < minimum)
        return false;
    m_perStage[std::size_t(stage)] = count;
    m_perStage[std::size_t(neighbour)] -= delta;
    return delta != 0;
}

bool LayerSplit::moveBoundary(int boundary, int position, int minimum)
{
    if (boundary < 0 || boundary + 1 >= stages())
        return false;
    const auto b = std::size_t(boundary);
    const int before = std::accumulate(m_perStage.begin(), m_perStage.begin() + boundary, 0);
    const int after = before + m_perStage[b] + m_perStage[b + 1];
    const int at = std::clamp(position, before + minimum, after - minimum);
    if (at == before + m_perStage[b] || before + minimum > after - minimum)
        return false;
    m_perStage[b] = at - before;
    m_perStage[b + 1] = after - at;
    return true;
}

LayerSplit LayerSplit::fromStages(const std::vector<StageProfile>& stages, int layerCount)
{
    const int n = int(stages.size());
    std::vector<int> split;
    int start = 0;
    for (int i = 0; i < n; ++i) {
        int end = i + 1 < n ? stages[std::size_t(i) + 1].firstLayer : layerCount;
        end = std::clamp(end, start + 1, std::max(start + 1, layerCount - (n - 1 - i)));
        split.push_back(end - start);
        start = end;
    }
    return LayerSplit(std::move(split));
}

Placement placementFromStarts(const std::vector<int>& starts)
{
    Placement p;
    p.unit = "ops";
    for (std::size_t s = 0; s + 1 < starts.size(); ++s)
        p.stages.push_back({starts[s], starts[s + 1], int(s)});
    return p;
}

Result<Placement> placeSplit(const graph::OpGraph& g, const LayerSplit& split, int ipus)
{
    const int n = int(g.ops.size());
    const int layers = int(std::max<std::size_t>(1, g.layerNames.size()));
    if (split.stages() != ipus)
        return Result<Placement>::fail(splitError("the split has " +
                                                  std::to_string(split.stages()) + " stages but " +
                                                  std::to_string(ipus) + " IPUs were asked for"));
    const bool byBlocks =
        g.blockCount > 0 && split.total() == g.blockCount &&
        (split.total() != layers ||
         std::find(split.perStage().begin(), split.perStage().end(), 0) != split.perStage().end());
    if (!byBlocks && split.total() != layers) {
        std::string msg = "the split covers " + std::to_string(split.total()) +
                          " layers but the model has " + std::to_string(layers);
        if (g.blockCount > 0)
            msg += " (" + std::to_string(g.blockCount) + " of them repeated blocks)";
        return Result<Placement>::fail(splitError(msg));
    }
    // The IPU of each layer.
    std::vector<int> layerIpu(static_cast<std::size_t>(layers), -1);
    if (byBlocks) {
        int layer = g.firstBlock;
        for (int s = 0; s < split.stages(); ++s)
            for (int k = 0; k < split.perStage()[std::size_t(s)]; ++k)
                layerIpu[std::size_t(layer++)] = s;
        for (int l = 0; l < g.firstBlock; ++l)
            layerIpu[std::size_t(l)] = 0;
        // After the blocks: the IPU of a tied owner, else the last IPU.
        for (int l = g.firstBlock + g.blockCount; l < layers; ++l) {
            int ipu = ipus - 1;
            for (const auto& op : g.ops)
                if (op.layer == l && op.tiedTo >= 0)
                    ipu = layerIpu[std::size_t(g.ops[std::size_t(op.tiedTo)].layer)];
            layerIpu[std::size_t(l)] = ipu;
        }
    } else {
        int layer = 0;
        for (int s = 0; s < split.stages(); ++s) {
            if (split.perStage()[std::size_t(s)] == 0)
                return Result<Placement>::fail(splitError(
                    "stage " + std::to_string(s) +
                    " holds no layer (a 0 counts blocks, and this model's blocks are not known "
                    "or the numbers do not add up to them)"));
            for (int k = 0; k < split.perStage()[std::size_t(s)]; ++k)
                layerIpu[std::size_t(layer++)] = s;
        }
    }
    Placement p;
    p.unit = byBlocks ? "blocks" : "layers";
    for (int i = 0; i < n; ++i) {
        const int l = std::clamp(g.ops[std::size_t(i)].layer, 0, layers - 1);
        const int ipu = layerIpu[std::size_t(l)];
        if (p.stages.empty() || p.stages.back().ipu != ipu)
            p.stages.push_back({i, i + 1, ipu});
        else
            p.stages.back().endOp = i + 1;
    }
    std::vector<bool> used(static_cast<std::size_t>(ipus), false);
    for (const auto& st : p.stages)
        used[std::size_t(st.ipu)] = true;
    for (int i = 0; i < ipus; ++i)
        if (!used[std::size_t(i)])
            return Result<Placement>::fail(
                splitError("IPU " + std::to_string(i) + " of the split would hold no op"));
    return Result<Placement>::ok(std::move(p));
}

} // namespace portolan::sim
