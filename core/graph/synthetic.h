#pragma once

// A GPT-style transformer op graph of any size, for benchmarks and the CLI's --synthetic option.
// It is recorded, not typed in: one real LibTorch block (LayerNorm, MultiheadAttention, MLP)
// runs a forward pass through the recorder, and its ops are then replicated `layers` times
// (every block of a GPT has the same ops and shapes), so a 1.5 B-parameter model needs the
// memory of one block only. The embedding and the head are recorded for real as well.

#include "core/graph/op_graph.h"

namespace portolan::graph {

struct SyntheticTransformer
{
    int layers = 48;
    int hidden = 1600;
    int heads = 25;
    int sequence = 1024;
    int vocab = 50257;
    bool tiedHead = true; // GPT-2 shares the embedding with the head
};

Result<OpGraph> recordSyntheticTransformer(const SyntheticTransformer& spec);

// Replicates ops of layer `layer` (a block) until the graph has `copies` such blocks; later
// layers are shifted. Producers inside the block are remapped; names get the new layer index.
void replicateLayer(OpGraph& g, int layer, int copies);

} // namespace portolan::graph
