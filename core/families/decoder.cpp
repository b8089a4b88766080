// Decoder-only families: GPT-2/3, GPT-J and NeoX, LLaMA, Mistral, Mixtral, Falcon, BLOOM, MPT,
// StarCoder and SantaCoder, BTLM, Jais, Gemma 2 and DPO policies. They share the Model Zoo's
// GPT-2 keys; the variants differ in positions, heads, norms, MLP and block layout.

#include "core/families/family_builders.h"

#include <cmath>

namespace portolan::families {

namespace {

using params::ParamsSection;

bool isParallelFamily(const std::string& family)
{
    return family == "gptj" || family == "gpt_neox" || family == "falcon";
}

Positions positionsFrom(const ParamsSection& m, std::string* table)
{
    const std::string type = m.text("position_embedding_type", std::string("learned"),
                                    {"learned", "fixed", "rotary", "alibi", "relative", "none"});
    const bool use =
        m.boolean("use_position_embedding", true) && m.boolean("use_position_embeddings", true);
    *table = use && (type == "learned" || type == "fixed") ? type : std::string();
    if (type == "rotary")
        return Positions::Rotary;
    if (type == "alibi")
        return Positions::Alibi;
    if (type == "relative")
        return Positions::Relative;
    return Positions::None;
}

} // namespace

std::int64_t vocabularySize(const ParamsSection& m, BuildContext& ctx, std::int64_t fallback,
                            const char* whose)
{
    if (m.has("vocab_size"))
        return m.integer("vocab_size", {}, 1);
    if (ctx.trainData.has("vocab_size"))
        return ctx.trainData.integer("vocab_size", {}, 1);
    ctx.note(std::string("no vocab_size in the model or data section: ") + whose + " " +
             std::to_string(fallback) + " assumed");
    return fallback;
}

Activation activationFrom(const ParamsSection& m, const std::string& key,
                          const std::string& fallback)
{
    std::string v = m.text(key, fallback);
    for (char& c : v)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (v == "gelu" || v == "gelu_new" || v == "gelu_fast" || v == "gelu_pytorch_tanh")
        return Activation::Gelu;
    if (v == "quick_gelu")
        return Activation::QuickGelu;
    if (v == "relu")
        return Activation::Relu;
    if (v == "silu" || v == "swish")
        return Activation::Silu;
    if (v == "tanh")
        return Activation::Tanh;
    if (v == "swiglu")
        return Activation::SwiGlu;
    if (v == "geglu")
        return Activation::GeGlu;
    if (v == "reglu")
        return Activation::ReGlu;
    m.fail(key, "families.activation",
           m.keyPath(key) + " = '" + v +
               "' is not an activation the model builders know (gelu, quick_gelu, relu, silu, "
               "tanh, swiglu, geglu, reglu)");
}

Norm normFrom(const ParamsSection& m, const std::string& fallback)
{
    if (m.boolean("use_rms_norm", false))
        return Norm::RmsNorm;
    const std::string v =
        m.text("norm_type", fallback, {"layernorm", "rmsnorm", "biasless-layernorm"});
    if (v == "rmsnorm")
        return Norm::RmsNorm;
    if (v == "biasless-layernorm")
        return Norm::BiaslessLayerNorm;
    return Norm::LayerNorm;
}

Tensor decoderEmbeddings(GraphBuilder& b, const ParamsSection& m, const std::string& /*family*/,
                         std::int64_t sequence, BuildContext& ctx, int* embeddingOp,
                         const std::string& prefix)
{
    const std::int64_t hidden = m.integer("hidden_size", {}, 1);
    const std::int64_t vocab = vocabularySize(m, ctx, 50257, "GPT-2's");
    b.beginLayer(prefix + "embeddings");
    const Tensor ids = b.entry({sequence}, DType::Int64);
    b.scope(prefix + "embeddings.wte");
    Tensor x = b.embedding(ids, vocab, hidden);
    *embeddingOp = b.lastIndex();
    std::string table;
    positionsFrom(m, &table);
    if (table == "learned") {
        const std::int64_t maxPos = m.integer("max_position_embeddings", sequence, 1);
        b.scope(prefix + "embeddings.wpe");
        const Tensor pos = b.embedding(b.constant({1, sequence}, DType::Int64),
                                       std::max(maxPos, sequence), hidden);
        if (maxPos < sequence)
            ctx.note("the sequence (" + std::to_string(sequence) +
                     ") is longer than max_position_embeddings (" + std::to_string(maxPos) +
                     "); the position table is sized for the sequence");
        b.scope(prefix + "embeddings");
        x = b.add(x, pos);
    } else if (table == "fixed") {
        b.scope(prefix + "embeddings");
        x = b.add(x, b.constant({1, sequence, hidden}, DType::Float32));
    }
    b.scope(prefix + "embeddings");
    if (m.has("embeddings_scale"))
        x = b.scale(x); // muP (BTLM, Jais) and Gemma's sqrt(hidden)
    if (m.boolean("embedding_layer_norm", false)) {
        b.scope(prefix + "embeddings.ln");
        x = b.layerNorm(x, true);
    }
    b.scope(prefix + "embeddings");
    x = b.dropout(x, m.number("embedding_dropout_rate", m.number("dropout_rate", 0.0, 0, 1), 0, 1));
    return x;
}

void decoderBody(GraphBuilder& b, const ParamsSection& m, const std::string& family, Tensor x,
                 int embeddingOp, BuildContext& ctx, const std::string& prefix)
{
    const std::int64_t hidden = m.integer("hidden_size", {}, 1);
    const int layers = int(m.integer("num_hidden_layers", {}, 1, 100000));
    const int heads = int(m.integer("num_heads", {}, 1, 100000));
    std::int64_t vocab = graph::elementCount(
        ctx.graph->ops[std::size_t(embeddingOp)].inputShapes.back()); // [vocab, hidden]
    vocab /= hidden;

    BlockSpec s;
    AttentionSpec& a = s.attention;
    a.hidden = hidden;
    a.heads = heads;
    const std::int64_t inner = m.integer("attention_inner_dim", hidden, 1);
    if (inner % heads != 0)
        m.fail("num_heads", "families.heads",
               "the attention width " + std::to_string(inner) + " is not divisible by " +
                   m.keyPath("num_heads") + " = " + std::to_string(heads));
    a.headDim = inner / heads;
    a.kvHeads = heads;
    const std::string module = m.text("attention_module", std::string("aiayn_attention"));
    if (module == "multiquery_attention") {
        const ParamsSection extra = m.child("extra_attention_params");
        a.kvHeads = int(extra.integer("num_kv_groups", 1, 1, heads));
        if (heads % a.kvHeads != 0)
            extra.fail("num_kv_groups", "families.heads",
                       extra.keyPath("num_kv_groups") + " must divide num_heads");
    }
    std::string table;
    a.positions = positionsFrom(m, &table);
    a.rotaryDim = m.integer("rotary_dim", a.headDim, 0);
    if (a.positions == Positions::Rotary && a.rotaryDim > a.headDim) {
        // Some configs give the rotary size over all heads (ESM-2 style): per head it is less.
        a.rotaryDim = a.headDim;
    }
    a.qkvBias = m.boolean("use_projection_bias_in_attention", true);
    a.outBias = m.boolean("use_ffn_bias_in_attention", true);
    a.causal = true;
    a.dropout = m.number("attention_dropout_rate", 0.0, 0, 1);
    s.mlp.hidden = hidden;
    s.mlp.filter = m.integer("filter_size", 4 * hidden, 1);
    s.mlp.activation = activationFrom(m, "nonlinearity", "gelu");
    s.mlp.bias = m.boolean("use_ffn_bias", true);
    s.mlp.dropout = 0;
    s.norm = normFrom(m, "layernorm");
    s.residualDropout =
        m.number("residual_dropout_rate", m.number("dropout_rate", 0.0, 0, 1), 0, 1);
    s.parallel = isParallelFamily(family);
    s.parallelTwoNorms = s.parallel && m.boolean("use_untied_layer_norm", false);
    s.sandwich = m.boolean("norm_first_sandwich", false);
    if (m.has("moe")) {
        const ParamsSection e = m.child("moe");
        s.moe.experts = int(e.integer("num_experts", 1, 1, 100000));
        s.moe.topK = int(e.integer("top_k", 1, 1, s.moe.experts));
        s.moe.sharedExperts = int(e.integer("num_shared_experts", 0, 0, 1000));
        if (s.moe.experts <= 1 && s.moe.sharedExperts == 0)
            s.moe.experts = 0;
    }
    if (m.has("attention_logit_softcapping"))
        ctx.note("attention logit soft-capping counted as two elementwise ops on the scores");
    if (m.has("attention_sliding_window_length"))
        ctx.note("sliding-window attention is counted dense (the Model Zoo masks the scores)");

    auto* g = ctx.graph;
    g->firstBlock = b.layerCount();
    g->blockCount = layers;
    x = b.repeatedLayers(layers, prefix + "h", x,
                         [&](const Tensor& in) { return block(b, s, in); });
    b.beginLayer(prefix + "ln_f");
    x = norm(b, s.norm, x);
    b.beginLayer(prefix + "lm_head");
    const bool tied = m.boolean("share_embedding_weights", true);
    const bool headBias = m.boolean("use_bias_in_output", false);
    b.linear(x, vocab, headBias);
    if (tied) {
        graph::Op& head = b.lastOp();
        head.paramCount -= vocab * hidden;
        head.paramBytes = head.paramCount * 4;
        head.tiedTo = embeddingOp;
    }
    if (m.has("output_logits_scale") || m.has("final_logit_softcapping")) {
        Tensor logits{b.lastIndex(), b.lastOp().outputShape, DType::Float32};
        b.scale(logits);
    }
}

std::string buildDecoder(BuildContext& ctx)
{
    const ParamsSection& m = ctx.model;
    GraphBuilder b(*ctx.graph);
    std::int64_t sequence = ctx.data.sequence;
    if (sequence <= 0) {
        sequence = m.integer("max_position_embeddings", 1024, 1);
        ctx.data.sequence = sequence;
        ctx.data.sequenceFrom = ctx.model.keyPath("max_position_embeddings");
    }
    int embeddingOp = -1;
    Tensor x = decoderEmbeddings(b, m, ctx.family, sequence, ctx, &embeddingOp);
    decoderBody(b, m, ctx.family, x, embeddingOp, ctx);
    if (ctx.family == "dpo") {
        ctx.note("DPO: the graph is the policy model on one sequence; each sample holds a chosen "
                 "and a rejected sequence, and the frozen reference model adds a forward pass "
                 "of its own");
    }
    return "decoder";
}

} // namespace portolan::families
