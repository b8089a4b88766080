#pragma once

// The pipeline split as a user writes it: layers per IPU ("3,7,7,7"), and where it puts each op.
// One type for the CLI's --split, the settings form, the split bar and the per-stage spin boxes
// of the Pipeline page, so the arithmetic (parsing, moving a boundary, keeping every stage at
// least one layer long) is decided once.
//
// The numbers count either the graph's layers (its top-level children) or, when the graph knows
// its repeated blocks and the numbers add up to them, blocks, as Graphcore's layers_per_ipu
// does: then the layers before the blocks (embeddings) go to the first IPU, the ones after them
// to the last IPU, except a head whose weights are tied to the embedding, which goes back to the
// embedding's IPU (as Graphcore's BERT and GPT-2 place it). A 0 is an IPU with no blocks: one
// that holds the embeddings, or the untied head, only.

#include "core/common/diagnostic.h"
#include "core/graph/op_graph.h"

#include <string>
#include <string_view>
#include <vector>

namespace portolan::sim {

struct StageProfile; // profile.h

class LayerSplit
{
public:
    LayerSplit() = default;
    explicit LayerSplit(std::vector<int> perStage) : m_perStage(std::move(perStage)) {}

    // "3,7,7,7" or "0, 4, 4, 4"; an error names the bad element and its column.
    static Result<LayerSplit> parse(std::string_view text);
    std::string toString() const; // "3,7,7,7"

    const std::vector<int>& perStage() const { return m_perStage; }
    int stages() const { return int(m_perStage.size()); }
    int total() const;
    bool empty() const { return m_perStage.empty(); }
    bool operator==(const LayerSplit& o) const = default;

    // Sets stage `stage` to `count`, moving its boundary with the next stage (the previous one
    // for the last stage); false (and no change) when a stage would drop below `minimum`.
    bool setStage(int stage, int count, int minimum = 1);
    // Moves boundary `boundary` (after stage `boundary`) to `position` units from the start,
    // clamped so both neighbours keep `minimum`. True when the split changed.
    bool moveBoundary(int boundary, int position, int minimum = 1);

    // Whole layers per stage of a simulated pipeline (an automatic split can cut inside a
    // layer): each stage from the layer of its first op, at least one layer, leaving one for
    // each later stage; sums to `layerCount` when there are at least as many layers as stages.
    static LayerSplit fromStages(const std::vector<StageProfile>& stages, int layerCount);

private:
    std::vector<int> m_perStage;
};

// Where one pipeline stage runs: ops [firstOp, endOp) on IPU `ipu`.
struct StagePlacement
{
    int firstOp = 0;
    int endOp = 0;
    int ipu = 0;
};

struct Placement
{
    std::vector<StagePlacement> stages; // in pipeline order
    std::string unit;                   // "layers" or "blocks"
};

// Resolves a split over `ipus` IPUs against the graph (see the header comment).
Result<Placement> placeSplit(const graph::OpGraph& g, const LayerSplit& split, int ipus);

// Stage s covers ops [starts[s], starts[s+1]) on IPU s (the automatic partition).
Placement placementFromStarts(const std::vector<int>& starts);

} // namespace portolan::sim
