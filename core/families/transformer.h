#pragma once

// Transformer building blocks for the family builders (internal to core/families): attention
// with learned, rotary, ALiBi or relative positions and multi-query / grouped-query heads,
// dense and gated MLPs, mixture-of-experts with top-k routing, and the pre-norm, post-norm,
// parallel and sandwich block layouts. Each emits the ops LibTorch runs for the same layer.

#include "core/families/graph_builder.h"

#include <string>

namespace portolan::families {

enum class Norm
{
    LayerNorm,
    BiaslessLayerNorm,
    RmsNorm
};

enum class Positions
{
    None,     // learned or fixed tables live in the embeddings, not in attention
    Rotary,   // applied to q and k (first `rotaryDim` channels of each head)
    Alibi,    // a per-head linear bias on the scores
    Relative, // T5: a learned bias per head and distance bucket
};

// Activations; the gated ones (swiglu, geglu, reglu) have two input projections.
enum class Activation
{
    Gelu,
    QuickGelu,
    Relu,
    Silu,
    Tanh,
    SwiGlu,
    GeGlu,
    ReGlu
};
bool isGated(Activation a);

struct AttentionSpec
{
    std::int64_t hidden = 0;
    int heads = 1;
    int kvHeads = 1;          // == heads without MQA/GQA
    std::int64_t headDim = 0; // inner size is heads x headDim
    bool qkvBias = true;      // use_projection_bias_in_attention
    bool outBias = true;      // use_ffn_bias_in_attention
    bool causal = true;
    Positions positions = Positions::None;
    std::int64_t rotaryDim = 0;
    int relativeBuckets = 32;
    bool ownsRelativeTable = true; // T5: only the first layer of a stack holds the table
    double dropout = 0;
};

struct MlpSpec
{
    std::int64_t hidden = 0;
    std::int64_t filter = 0;
    Activation activation = Activation::Gelu;
    bool bias = true;
    double dropout = 0;
};

struct MoeSpec
{
    int experts = 0; // 0: a dense MLP
    int topK = 1;
    int sharedExperts = 0;
};

struct BlockSpec
{
    AttentionSpec attention;
    MlpSpec mlp;
    MoeSpec moe;
    Norm norm = Norm::LayerNorm;
    bool preNorm = true;
    bool parallel = false;         // GPT-J, NeoX, Falcon: attention and MLP read the same input
    bool parallelTwoNorms = false; // NeoX / Falcon-40B: each branch has its own norm
    bool sandwich = false;         // Gemma 2: a norm after each branch as well
    bool crossAttention = false;   // decoder of an encoder-decoder
    double residualDropout = 0;
};

Tensor norm(GraphBuilder& b, Norm kind, const Tensor& x);
Tensor activate(GraphBuilder& b, Activation a, const Tensor& x);

// Self-attention over x [1, S, H]; with `memory`, cross-attention keys and values come from it.
Tensor attention(GraphBuilder& b, const AttentionSpec& a, const Tensor& x,
                 const Tensor* memory = nullptr);
Tensor mlp(GraphBuilder& b, const MlpSpec& m, const Tensor& x);
// Tokens routed to their top-k experts: each expert sees its share of S x k tokens (balanced).
Tensor moe(GraphBuilder& b, const MlpSpec& m, const MoeSpec& e, const Tensor& x);

// One block in the current layer; `memory` is the encoder output for cross-attention.
Tensor block(GraphBuilder& b, const BlockSpec& s, const Tensor& x, const Tensor* memory = nullptr);

// Number of experts' tokens: S x k split over E experts, the remainder to the first ones.
std::int64_t expertTokens(std::int64_t tokens, int topK, int experts, int expert);

} // namespace portolan::families
