// LLaVA and the Model Zoo's multimodal_simple: a ViT image encoder, a feed-forward projector
// into the text model's width, and a decoder-only text model whose sequence holds the image
// tokens in place of as many text tokens.

#include "core/families/family_builders.h"

namespace portolan::families {

using params::ParamsSection;

std::string buildLlava(BuildContext& ctx)
{
    const ParamsSection& m = ctx.model;
    GraphBuilder b(*ctx.graph);
    ParamsSection image = m.child("image_model");
    ParamsSection projector = m.child("projector").child("image_model");
    std::string selectMode = m.text("image_feature_select_mode", std::string("patch"));
    if (ctx.family == "multimodal_simple") {
        const ParamsSection list = m.child("image_model_list");
        const YAML::Node models = list.node()["image_models"];
        if (!models.IsSequence() || models.size() == 0)
            list.fail("image_models", "families.multimodal",
                      list.keyPath("image_models") + " must list at least one image model");
        // Each entry is {image_encoder: {...}} or, in some releases, {image_model: [{...}]}.
        YAML::Node entry = models[0];
        std::string path = list.keyPath("image_models[0]");
        if (entry.IsMap() && entry["image_encoder"].IsDefined()) {
            entry = entry["image_encoder"];
            path += ".image_encoder";
        } else if (entry.IsMap() && entry["image_model"].IsDefined()) {
            entry = entry["image_model"];
            path += ".image_model";
            if (entry.IsSequence() && entry.size() > 0) {
                entry = entry[0];
                path += "[0]";
            }
        }
        image = ParamsSection(entry, list.file(), path);
        projector = list.child("global_image_projection");
        selectMode = list.text("image_feature_select_mode", std::string("patch"));
        if (models.size() > 1)
            ctx.note("only the first of " + std::to_string(models.size()) +
                     " image models is counted");
    }
    const ParamsSection text = m.child("text_model");
    if (!image.node().IsDefined() || !image.node().IsMap() || !text.has("hidden_size"))
        m.fail("text_model", "families.multimodal",
               "a LLaVA model needs an image_model and a text_model section");
    // Image tower up to the selected layer, then its patch tokens.
    Tensor feats = vitEncoder(b, image, ctx, "image_model.");
    std::int64_t tokens = feats.shape[1];
    if (selectMode == "patch" && image.boolean("prepend_cls_token", true)) {
        --tokens;
        feats = b.view(feats, {1, tokens, feats.last()});
    }
    b.beginLayer("projector");
    std::int64_t width = feats.last();
    if (projector.has("layers_units")) {
        const auto units = projector.integers("layers_units");
        const YAML::Node acts = projector.node()["layers_activation"];
        const bool bias = projector.boolean("use_bias", true);
        for (std::size_t i = 0; i < units.size(); ++i) {
            b.scope("projector.fc" + std::to_string(i));
            feats = b.linear(feats, units[i], bias);
            const bool hasAct = acts.IsSequence() && i < acts.size() && !acts[i].IsNull();
            if (hasAct) {
                const std::string a = acts[i].as<std::string>();
                feats = activate(b, a == "relu" ? Activation::Relu : Activation::Gelu, feats);
            }
        }
        width = feats.last();
    }
    // The text model: its sequence (from the data, else its position table) holds the image
    // tokens first, then text.
    std::int64_t sequence = ctx.data.sequence;
    if (sequence <= 0) {
        sequence = text.integer("max_position_embeddings", 2048, 1);
        ctx.data.sequence = sequence;
        ctx.data.sequenceFrom = text.keyPath("max_position_embeddings");
    }
    if (sequence <= tokens)
        text.fail("max_position_embeddings", "families.multimodal",
                  "the text sequence (" + std::to_string(sequence) + ") cannot hold the " +
                      std::to_string(tokens) + " image tokens");
    if (width != text.integer("hidden_size", {}, 1))
        projector.fail("layers_units", "families.multimodal",
                       "the projector ends at width " + std::to_string(width) +
                           ", not the text model's hidden_size");
    const std::string family = text.text("name", std::string("llama")) == "LlamaModel"
                                   ? std::string("llama")
                                   : text.text("name", std::string("llama"));
    int embeddingOp = -1;
    Tensor words =
        decoderEmbeddings(b, text, family, sequence - tokens, ctx, &embeddingOp, "text_model.");
    b.scope("text_model.embeddings");
    const Tensor x = b.concat({feats, words}, 1);
    decoderBody(b, text, family, x, embeddingOp, ctx, "text_model.");
    if (m.has("freeze"))
        ctx.note("frozen parts (model.freeze) still count gradients and optimizer state here");
    return "llava";
}

} // namespace portolan::families
