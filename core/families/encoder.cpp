// Encoder families: BERT and its fine-tuning heads, RoBERTa, ESM-2, Linformer (counted as BERT),
// DPR (two BERT towers) and the vision transformer, which LLaVA reuses as its image encoder.

#include "core/families/family_builders.h"

namespace portolan::families {

namespace {

using params::ParamsSection;

BlockSpec encoderBlock(const ParamsSection& m, const std::string& activationKey, bool preNorm)
{
    BlockSpec s;
    const std::int64_t hidden = m.integer("hidden_size", {}, 1);
    const int heads = int(m.integer("num_heads", {}, 1, 100000));
    if (hidden % heads != 0)
        m.fail("num_heads", "families.heads",
               m.keyPath("hidden_size") + " is not divisible by " + m.keyPath("num_heads"));
    AttentionSpec& a = s.attention;
    a.hidden = hidden;
    a.heads = a.kvHeads = heads;
    a.headDim = hidden / heads;
    a.causal = false;
    a.qkvBias = m.boolean("use_projection_bias_in_attention", true);
    a.outBias = m.boolean("use_ffn_bias_in_attention", true);
    a.dropout = m.number("attention_dropout_rate", 0.0, 0, 1);
    if (m.text("position_embedding_type", std::string("learned")) == "rotary") {
        a.positions = Positions::Rotary;
        a.rotaryDim = std::min(m.integer("rotary_dim", a.headDim, 0), a.headDim);
    }
    s.mlp.hidden = hidden;
    s.mlp.filter = m.integer("filter_size", 4 * hidden, 1);
    s.mlp.activation = activationFrom(m, activationKey, "gelu");
    s.mlp.bias = m.boolean("use_ffn_bias", true);
    s.norm = Norm::LayerNorm;
    s.preNorm = preNorm;
    s.residualDropout = m.number("dropout_rate", 0.0, 0, 1);
    return s;
}

// BERT-style embeddings: words, learned positions, segments, then a layer norm.
Tensor bertEmbeddings(GraphBuilder& b, const ParamsSection& m, const std::string& prefix,
                      std::int64_t sequence, BuildContext& ctx, bool segments, bool layerNorm,
                      int* wordOp)
{
    const std::int64_t hidden = m.integer("hidden_size", {}, 1);
    const std::int64_t vocab = vocabularySize(m, ctx, 30522, "BERT's");
    b.beginLayer(prefix + "embeddings");
    const Tensor ids = b.entry({sequence}, DType::Int64);
    b.scope(prefix + "embeddings.word");
    Tensor x = b.embedding(ids, vocab, hidden);
    *wordOp = b.lastIndex();
    const std::string type = m.text("position_embedding_type", std::string("learned"));
    if (type == "learned" && m.boolean("use_position_embedding", true)) {
        std::int64_t maxPos = m.integer("max_position_embeddings", sequence, 1);
        if (maxPos < sequence) {
            ctx.note("the sequence (" + std::to_string(sequence) +
                     ") is longer than max_position_embeddings; the table is sized for it");
            maxPos = sequence;
        }
        b.scope(prefix + "embeddings.position");
        x = b.add(x, b.embedding(b.constant({1, sequence}, DType::Int64), maxPos, hidden));
    } else if (type == "fixed") {
        x = b.add(x, b.constant({1, sequence, hidden}, DType::Float32));
    }
    if (segments && m.boolean("use_segment_embedding", true)) {
        b.scope(prefix + "embeddings.segment");
        x = b.add(x, b.embedding(b.constant({1, sequence}, DType::Int64), 2, hidden));
    }
    if (layerNorm) {
        b.scope(prefix + "embeddings.ln");
        x = b.layerNorm(x);
    }
    b.scope(prefix + "embeddings");
    return b.dropout(x, m.number("dropout_rate", 0.0, 0, 1));
}

Tensor encoderLayers(GraphBuilder& b, const BlockSpec& s, int layers, Tensor x,
                     const std::string& prefix, BuildContext& ctx)
{
    ctx.graph->firstBlock = b.layerCount();
    ctx.graph->blockCount = layers;
    return b.repeatedLayers(layers, prefix + "encoder", x,
                            [&](const Tensor& in) { return block(b, s, in); });
}

} // namespace

std::string buildEncoder(BuildContext& ctx)
{
    const ParamsSection& m = ctx.model;
    const std::string& family = ctx.family;
    if (family == "vision_transformer") {
        GraphBuilder b(*ctx.graph);
        Tensor x = vitEncoder(b, m, ctx, "");
        b.beginLayer("head");
        if (m.boolean("use_encoder_pooler_layer", false)) {
            b.scope("head.pooler");
            x = b.unary("aten::tanh", b.linear(x, x.last(), true));
        }
        b.scope("head.classifier");
        b.linear(b.view(x, {1, 1, x.last()}), m.integer("num_classes", 1000, 1), true);
        return "vit";
    }
    GraphBuilder b(*ctx.graph);
    std::int64_t sequence = ctx.data.sequence;
    if (sequence <= 0) {
        sequence = m.integer("max_position_embeddings", 512, 1);
        ctx.data.sequence = sequence;
        ctx.data.sequenceFrom = m.keyPath("max_position_embeddings");
    }
    const bool esm = family == "esm2";
    const bool preNorm = esm || m.boolean("norm_first", false);
    int wordOp = -1;
    Tensor x = bertEmbeddings(b, m, "", sequence, ctx, !esm,
                              m.boolean("embedding_layer_norm", !esm), &wordOp);
    if (esm && m.boolean("token_dropout", false))
        x = b.scale(x);
    if (family == "linformer")
        ctx.note("Linformer's projected keys and values are counted as full BERT attention");
    const BlockSpec s = encoderBlock(m, "encoder_nonlinearity", preNorm);
    const int layers = int(m.integer("num_hidden_layers", {}, 1, 100000));
    x = encoderLayers(b, s, layers, x, "", ctx);
    if (preNorm && m.boolean("use_final_layer_norm", true)) {
        b.beginLayer("final_norm");
        x = b.layerNorm(x);
    }
    const std::int64_t hidden = x.last();
    const std::int64_t vocab =
        graph::elementCount(ctx.graph->ops[std::size_t(wordOp)].inputShapes.back()) / hidden;
    const auto pooled = [&](const Tensor& in) {
        b.scope("pooler");
        Tensor cls = b.view(in, {1, 1, hidden});
        cls = b.linear(cls, hidden, true);
        return activate(b, activationFrom(m, "pooler_nonlinearity", "tanh"), cls);
    };
    if (family == "bert/classifier" || family == "bert/qa") {
        b.beginLayer("classifier");
        const Tensor p = family == "bert/qa" ? x : pooled(x);
        b.scope("classifier");
        b.linear(b.dropout(p, m.number("task_dropout", 0.0, 0, 1)),
                 family == "bert/qa" ? 2 : m.integer("num_labels", 2, 1), true);
        return "encoder";
    }
    if (family == "bert/token_classifier") {
        b.beginLayer("classifier");
        b.scope("classifier");
        b.linear(b.dropout(x, m.number("encoder_output_dropout_rate", 0.0, 0, 1)),
                 m.integer("num_classes", 2, 1), true);
        return "encoder";
    }
    if (family == "bert/extractive_summarization") {
        b.beginLayer("classifier");
        b.scope("classifier");
        const std::int64_t cls = ctx.trainData.integer("max_cls_tokens", 50, 1);
        const Tensor sel = b.op("aten::index_select", {x}, {1, cls, hidden});
        b.linear(sel, m.integer("num_cls_classes", 1, 1), m.boolean("use_cls_bias", true));
        return "encoder";
    }
    // Pretraining: MLM over the masked positions (all of them without max_predictions_per_seq),
    // and next-sentence prediction on the pooled first token unless disabled.
    const bool nsp = !m.boolean("disable_nsp", false) && !esm;
    if (nsp) {
        b.beginLayer("pooler");
        const Tensor p = pooled(x);
        b.scope("nsp");
        b.linear(p, 2, true);
        // The MLM head reads the encoder output, not the pooler.
    }
    b.beginLayer("mlm");
    const std::int64_t masked =
        std::min(sequence, ctx.trainData.integer("max_predictions_per_seq", sequence, 1));
    Tensor h = x;
    if (masked < sequence) {
        b.scope("mlm.gather");
        h = b.op("aten::index_select", {h}, {1, masked, hidden});
    }
    b.scope("mlm.transform");
    h = b.linear(h, hidden, true);
    h = activate(b, activationFrom(m, esm ? "mlm_nonlinearity" : "encoder_nonlinearity", "gelu"),
                 h);
    h = b.layerNorm(h);
    b.scope("mlm.decoder");
    b.linear(h, vocab, true);
    if (m.boolean("share_embedding_weights", true)) {
        graph::Op& dec = b.lastOp();
        dec.paramCount -= vocab * hidden;
        dec.paramBytes = dec.paramCount * 4;
        dec.tiedTo = wordOp;
    }
    return "encoder";
}

std::string buildDpr(BuildContext& ctx)
{
    // Two BERT towers (question and context) and their similarity; each tower's output is its
    // first token. The context batch holds one positive and one hard negative per question,
    // as in the DPR paper.
    GraphBuilder b(*ctx.graph);
    std::int64_t sequence = ctx.data.sequence > 0 ? ctx.data.sequence : 256;
    if (ctx.data.sequence <= 0) {
        ctx.data.sequence = sequence;
        ctx.data.sequenceFrom = "DPR default";
        ctx.note("no sequence length in the data section: 256 assumed");
    }
    Tensor outs[2];
    int firstBlock = -1, blocks = 0;
    const char* towers[2] = {"q_encoder", "ctx_encoder"};
    for (int t = 0; t < 2; ++t) {
        const ParamsSection m = ctx.model.child(towers[t]);
        const std::string prefix = std::string(towers[t]) + ".";
        int wordOp = -1;
        Tensor x = bertEmbeddings(b, m, prefix, sequence, ctx, true, true, &wordOp);
        const BlockSpec s = encoderBlock(m, "encoder_nonlinearity", false);
        const int layers = int(m.integer("num_hidden_layers", {}, 1, 100000));
        x = encoderLayers(b, s, layers, x, prefix, ctx);
        if (firstBlock < 0)
            firstBlock = ctx.graph->firstBlock;
        blocks += layers;
        outs[t] = b.view(x, {1, 1, x.last()});
    }
    // The towers' blocks are not contiguous (the context embeddings sit between them): a split
    // by blocks counts whole layers instead.
    ctx.graph->firstBlock = 0;
    ctx.graph->blockCount = 0;
    (void)firstBlock;
    (void)blocks;
    b.beginLayer("similarity");
    b.scope("similarity");
    // The question's vector against its context's: one dot product per pair.
    b.matmul(outs[0], b.view(outs[1], {1, outs[1].last(), 1}), {1, 1, 1});
    return "encoder";
}

Tensor vitEncoder(GraphBuilder& b, const ParamsSection& m, BuildContext& ctx,
                  const std::string& prefix, int* layersOut)
{
    const std::int64_t hidden = m.integer("hidden_size", {}, 1);
    const auto imageSize =
        m.has("image_size") ? m.integers("image_size") : std::vector<std::int64_t>{224, 224};
    const auto patch =
        m.has("patch_size") ? m.integers("patch_size") : std::vector<std::int64_t>{16, 16};
    const std::int64_t channels = m.integer("num_channels", 3, 1);
    const std::int64_t side = imageSize.front();
    const std::int64_t p = patch.front();
    if (side % p != 0)
        m.fail("patch_size", "families.patch",
               m.keyPath("image_size") + " is not a multiple of " + m.keyPath("patch_size"));
    const std::int64_t grid = side / p;
    const std::int64_t patches = grid * grid;
    const bool cls = m.boolean("prepend_cls_token", true);
    const std::int64_t tokens = patches + (cls ? 1 : 0);

    b.beginLayer(prefix + "embeddings");
    const Tensor img = b.entry({channels, side, side}, DType::Float32);
    b.scope(prefix + "embeddings.patch");
    Tensor x = b.conv2d(img, hidden, p, p, 0, m.boolean("use_embed_proj_bias", true));
    x = b.copy(b.view(x, {1, hidden, patches}), {1, patches, hidden});
    b.scope(prefix + "embeddings");
    if (cls) {
        Tensor token = b.op("aten::expand", {}, {1, 1, hidden}, {{1, 1, hidden}});
        x = b.concat({token, x}, 1);
    }
    b.scope(prefix + "embeddings.position");
    x = b.add(x, b.op("aten::expand", {}, {1, tokens, hidden}, {{1, tokens, hidden}}));
    b.scope(prefix + "embeddings");
    x = b.dropout(x, m.number("embedding_dropout_rate", 0.0, 0, 1));
    if (m.boolean("use_post_embed_layer_norm", false)) {
        b.scope(prefix + "embeddings.ln");
        x = b.layerNorm(x);
    }
    BlockSpec s = encoderBlock(m, "nonlinearity", m.boolean("norm_first", true));
    int layers = int(m.integer("num_hidden_layers", {}, 1, 100000));
    if (m.has("image_layer_idx")) {
        // LLaVA reads the features of an inner layer: the layers after it never run.
        const int idx = int(m.integer("image_layer_idx", -1, -layers, layers - 1));
        layers = idx < 0 ? layers + idx + 1 : idx + 1;
        ctx.note("the image encoder stops at layer " + std::to_string(layers) +
                 " (image_layer_idx); its later layers are not counted");
    }
    if (layersOut)
        *layersOut = layers;
    const int firstBlock = b.layerCount();
    x = b.repeatedLayers(layers, prefix + "encoder", x,
                         [&](const Tensor& in) { return block(b, s, in); });
    ctx.graph->firstBlock = firstBlock;
    ctx.graph->blockCount = layers;
    if (s.preNorm && !m.has("image_layer_idx")) {
        b.beginLayer(prefix + "final_norm");
        x = b.layerNorm(x);
    }
    (void)ctx;
    return x;
}

} // namespace portolan::families
