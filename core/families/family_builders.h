#pragma once

// The per-family builders behind families.h (internal to core/families). Each reads its keys
// from the model section with Model Zoo defaults and emits the graph through GraphBuilder.

#include "core/families/families.h"
#include "core/families/graph_builder.h"
#include "core/families/transformer.h"
#include "core/params/params_access.h"

namespace portolan::families {

// YAML merge keys (`<<: *base`), which yaml-cpp 0.7 leaves as a plain "<<" key, resolved in
// place.
void resolveMerges(YAML::Node n, int depth = 0);

struct BuildContext
{
    params::ParamsSection model;
    DataSection data;
    std::string family;
    params::ParamsSection trainData; // the training data section (may be empty)
    graph::OpGraph* graph = nullptr;
    std::vector<std::string>* notes = nullptr;

    void note(const std::string& text) const { notes->push_back(text); }
};

// vocab_size from the model section, else the data section, else `fallback` (with a note).
std::int64_t vocabularySize(const params::ParamsSection& m, BuildContext& ctx,
                            std::int64_t fallback, const char* whose);

// Reads "gelu", "swiglu", "ReLU", ... (case-insensitive); unknown names fail at the key.
Activation activationFrom(const params::ParamsSection& m, const std::string& key,
                          const std::string& fallback);
Norm normFrom(const params::ParamsSection& m, const std::string& fallback);

// Builders. Each fills ctx.graph; the architecture string is returned.
std::string buildDecoder(BuildContext& ctx);
std::string buildEncoder(BuildContext& ctx); // bert, roberta, esm2, linformer, vit
std::string buildDpr(BuildContext& ctx);
std::string buildSeq2Seq(BuildContext& ctx); // t5, transformer
std::string buildUnet(BuildContext& ctx);
std::string buildDit(BuildContext& ctx);
std::string buildFcMnist(BuildContext& ctx);
std::string buildLlava(BuildContext& ctx); // llava, multimodal_simple

// Pieces shared by the composite models (LLaVA is a ViT, a projector and a decoder).
struct DecoderParts
{
    Tensor tokens; // embedded tokens [1, S, H] after the embedding layer(s)
    std::int64_t hidden = 0;
};
// Emits the decoder blocks and the head over `x` (already embedded); `section` holds the keys.
void decoderBody(GraphBuilder& b, const params::ParamsSection& m, const std::string& family,
                 Tensor x, int embeddingOp, BuildContext& ctx, const std::string& prefix = {});
// Embeds `sequence` tokens as the decoder of `m` does; returns the hidden states.
Tensor decoderEmbeddings(GraphBuilder& b, const params::ParamsSection& m, const std::string& family,
                         std::int64_t sequence, BuildContext& ctx, int* embeddingOp,
                         const std::string& prefix = {});
// A ViT image encoder (patch embedding, class token, learned positions, pre-norm blocks).
Tensor vitEncoder(GraphBuilder& b, const params::ParamsSection& m, BuildContext& ctx,
                  const std::string& prefix, int* layersOut = nullptr);

} // namespace portolan::families
