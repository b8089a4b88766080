// Encoder-decoder families: T5 (relative position buckets, RMS norm, pre-norm, no biases by
// default) and the "Attention is all you need" Transformer (fixed sinusoidal positions, layer
// norm after each sublayer). Model Zoo defaults as in its T5 model builder.

#include "core/families/family_builders.h"

namespace portolan::families {

using params::ParamsSection;

namespace {

// The source and target vocabularies, with the extra ids (T5's sentinels) added; the target's is
// the source's unless given.
std::pair<std::int64_t, std::int64_t> vocabularies(BuildContext& ctx)
{
    const ParamsSection& m = ctx.model;
    const ParamsSection& d = ctx.trainData;
    const std::int64_t extra = m.integer("extra_ids", d.integer("extra_ids", 0, 0), 0);
    std::int64_t srcVocab = 32000;
    if (m.has("src_vocab_size") || d.has("src_vocab_size"))
        srcVocab = m.integer("src_vocab_size", d.integer("src_vocab_size", 32000, 1), 1);
    else
        ctx.note("no src_vocab_size (the vocabulary is only named by a vocab file): a "
                 "32,000-entry vocabulary assumed");
    srcVocab += extra;
    const std::int64_t tgtVocab =
        m.has("tgt_vocab_size") || d.has("tgt_vocab_size")
            ? m.integer("tgt_vocab_size", d.integer("tgt_vocab_size", 32000, 1), 1) + extra
            : srcVocab;
    return {srcVocab, tgtVocab};
}

struct Seq2SeqSizes
{
    std::int64_t dModel = 0;
    int heads = 1;
    std::int64_t dKv = 0, dFf = 0;
};

// What the encoder's and the decoder's blocks share; each side then sets its own causality,
// activation and positions.
BlockSpec sharedBlockSpec(const ParamsSection& m, const Seq2SeqSizes& z, Norm normKind,
                          bool preNorm, double dropout)
{
    BlockSpec s;
    s.attention.hidden = z.dModel;
    s.attention.heads = s.attention.kvHeads = z.heads;
    s.attention.headDim = z.dKv;
    s.attention.qkvBias = s.attention.outBias =
        m.boolean("use_projection_bias_in_attention", false);
    s.attention.dropout = dropout;
    s.attention.relativeBuckets = int(m.integer("relative_attention_num_buckets", 32, 1, 4096));
    s.mlp.hidden = z.dModel;
    s.mlp.filter = z.dFf;
    s.mlp.bias = m.boolean("use_ffn_bias", false);
    s.mlp.dropout = m.number("relu_dropout_rate", dropout, 0, 1);
    s.norm = normKind;
    s.preNorm = preNorm;
    s.residualDropout = dropout;
    return s;
}

} // namespace

std::string buildSeq2Seq(BuildContext& ctx)
{
    const ParamsSection& m = ctx.model;
    const bool t5 = ctx.family == "t5";
    GraphBuilder b(*ctx.graph);
    // The TensorFlow configs name some sizes as the decoder families do.
    const std::int64_t dModel =
        m.has("d_model") ? m.integer("d_model", {}, 1) : m.integer("hidden_size", {}, 1);
    const int heads = int(m.integer("num_heads", {}, 1, 100000));
    const std::int64_t dKv = m.integer("d_kv", dModel / heads, 1);
    const std::int64_t dFf =
        m.has("d_ff") ? m.integer("d_ff", {}, 1) : m.integer("filter_size", 4 * dModel, 1);
    const int encLayers = int(m.integer("encoder_num_hidden_layers", {}, 1, 100000));
    const int decLayers = int(m.integer("decoder_num_hidden_layers", encLayers, 1, 100000));
    const auto [srcVocab, tgtVocab] = vocabularies(ctx);
    std::string positions =
        m.text("position_embedding_type",
               m.text("positional_embedding_type", std::string(t5 ? "relative" : "fixed")),
               {"relative", "fixed", "learned"});
    if (m.boolean("use_relative_attention_bias", false))
        positions = "relative";
    std::int64_t src = ctx.data.sequence, tgt = ctx.data.targetSequence;
    if (src <= 0) {
        src = m.integer("src_max_position_embeddings", 512, 1);
        ctx.data.sequence = src;
        ctx.data.sequenceFrom = m.keyPath("src_max_position_embeddings");
    }
    if (tgt <= 0) {
        tgt = m.integer("tgt_max_position_embeddings", src, 1);
        ctx.data.targetSequence = tgt;
    }
    const bool sharedEmbedding = m.boolean("share_encoder_decoder_embedding", true);
    const bool tiedHead = m.boolean("share_embedding_weights", true);
    const bool preNorm = m.boolean("use_pre_encoder_decoder_layer_norm", true);
    const Norm normKind = normFrom(m, t5 ? "rmsnorm" : "layernorm");
    const double dropout = m.number("dropout_rate", 0.0, 0, 1);

    const BlockSpec s = sharedBlockSpec(m, {dModel, heads, dKv, dFf}, normKind, preNorm, dropout);

    // Embeddings of both sides in the first layer (they share the table by default).
    b.beginLayer("embeddings");
    const Tensor ids = b.input({src + tgt}, DType::Int64);
    b.scope("embeddings.shared");
    const Tensor srcIds = b.view(ids, {1, src});
    Tensor enc = b.embedding(srcIds, srcVocab, dModel);
    const int embeddingOp = b.lastIndex();
    b.scope(sharedEmbedding ? "embeddings.shared" : "embeddings.decoder");
    Tensor dec = b.embedding(b.view(ids, {1, tgt}), tgtVocab, dModel);
    int decoderEmbeddingOp = b.lastIndex();
    if (sharedEmbedding && srcVocab == tgtVocab) {
        graph::Op& o = b.lastOp();
        o.paramCount = 0;
        o.paramBytes = 0;
        o.tiedTo = embeddingOp;
        decoderEmbeddingOp = embeddingOp;
    }
    b.scope("embeddings");
    if (positions != "relative") {
        const auto table = [&](std::int64_t n, const std::string& key) {
            if (positions == "learned")
                return b.embedding(b.constant({1, n}, DType::Int64),
                                   std::max(n, m.integer(key, n, 1)), dModel);
            return b.constant({1, n, dModel}, DType::Float32);
        };
        enc = b.add(enc, table(src, "src_max_position_embeddings"));
        dec = b.add(dec, table(tgt, "tgt_max_position_embeddings"));
    }
    if (m.boolean("use_pre_encoder_decoder_dropout", false)) {
        enc = b.dropout(enc, dropout);
        dec = b.dropout(dec, dropout);
    }

    auto* g = ctx.graph;
    g->firstBlock = b.layerCount();
    g->blockCount = encLayers + decLayers;
    BlockSpec es = s;
    es.attention.causal = false;
    es.mlp.activation = activationFrom(m, "encoder_nonlinearity", "relu");
    if (positions == "relative")
        es.attention.positions = Positions::Relative;
    for (int l = 0; l < encLayers; ++l) {
        b.beginLayer("encoder" + std::to_string(l));
        es.attention.ownsRelativeTable = l == 0;
        enc = block(b, es, enc);
        if (l + 1 == encLayers && preNorm) {
            b.scope("encoder.final_norm");
            enc = norm(b, normKind, enc);
        }
    }
    BlockSpec ds = s;
    ds.attention.causal = true;
    ds.crossAttention = true;
    ds.mlp.activation = activationFrom(m, "decoder_nonlinearity", "relu");
    if (positions == "relative")
        ds.attention.positions = Positions::Relative;
    for (int l = 0; l < decLayers; ++l) {
        b.beginLayer("decoder" + std::to_string(l));
        ds.attention.ownsRelativeTable = l == 0;
        dec = block(b, ds, dec, &enc);
    }
    if (preNorm) {
        b.beginLayer("final_norm");
        dec = norm(b, normKind, dec);
    }
    b.beginLayer("lm_head");
    if (t5 && tiedHead)
        dec = b.scale(dec); // T5 rescales by d_model^-0.5 before the tied head
    b.linear(dec, tgtVocab, false);
    if (tiedHead) {
        graph::Op& head = b.lastOp();
        head.paramCount = 0;
        head.paramBytes = 0;
        head.tiedTo = decoderEmbeddingOp;
    }
    if (!t5)
        ctx.note("the Transformer's padding masks are not counted (an elementwise add each)");
    return "encoder-decoder";
}

} // namespace portolan::families
