// Each family builder against a LibTorch-recorded twin of the same architecture at a small size:
// the same parameter count exactly, and forward FLOPs within 1%. The twins (twins.h) are built
// from explicit sizes with torch::nn; the builder reads the same sizes from params written here.
#include "core/families/families.h"
#include "core/graph/recorder.h"
#include "twins.h" // LibTorch before Qt

#include <QTest>
#include <functional>

using namespace portolan;
using twins::Spec;

namespace {

struct TwinCase
{
    std::string yaml;
    std::function<torch::nn::Sequential()> twin;
    std::function<torch::Tensor()> input;
};

std::string decoderYaml(const std::string& name, const std::string& extra)
{
    return "train_input:\n  batch_size: 4\n  max_sequence_length: 16\nmodel:\n  name: " + name +
           "\n  vocab_size: 97\n  hidden_size: 64\n  num_hidden_layers: 2\n  num_heads: 4\n"
           "  filter_size: 128\n  max_position_embeddings: 32\n" +
           extra;
}

torch::Tensor tokens()
{
    return torch::randint(97, {2, 16});
}

// A BERT twin: embeddings with segments and a norm, post-norm blocks, NSP on the pooled first
// token, MLM (transform, norm, tied decoder with bias) on the masked positions.
struct BertHeadsImpl : torch::nn::Module
{
    BertHeadsImpl(const Spec& s, torch::Tensor word, int64_t masked, bool nsp, bool preLn)
        : masked(masked), withNsp(nsp)
    {
        this->word = register_parameter("word", word); // tied: shared with the embedding
        if (preLn)
            final = register_module("final", twins::Norm("layernorm", s.hidden));
        if (nsp) {
            pooler = register_module("pooler", torch::nn::Linear(s.hidden, s.hidden));
            nspHead = register_module("nsp", torch::nn::Linear(s.hidden, 2));
        }
        transform = register_module("transform", torch::nn::Linear(s.hidden, s.hidden));
        norm = register_module("norm", twins::Norm("layernorm", s.hidden));
        bias = register_parameter("bias", torch::zeros({s.vocab}));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        if (final)
            x = final(x);
        if (withNsp)
            nspHead(torch::tanh(pooler(x.narrow(1, 0, 1))));
        auto h = masked < x.size(1) ? x.index_select(1, torch::arange(masked)) : x;
        h = norm(torch::gelu(transform(h)));
        return torch::linear(h, this->word, bias);
    }
    torch::Tensor word;
    int64_t masked;
    bool withNsp;
    twins::Norm final{nullptr}, norm{nullptr};
    torch::nn::Linear pooler{nullptr}, nspHead{nullptr}, transform{nullptr};
    torch::Tensor bias;
};
TORCH_MODULE(BertHeads);

torch::nn::Sequential bert(const Spec& s, int64_t masked, bool nsp)
{
    torch::nn::Sequential net;
    twins::Embed emb(s);
    net->push_back("embeddings", emb);
    for (int64_t l = 0; l < s.layers; ++l)
        net->push_back("encoder" + std::to_string(l), twins::Block(s));
    net->push_back("heads", BertHeads(s, emb->wte->weight, masked, nsp, s.preNorm));
    return net;
}

// An encoder-decoder twin: one token stream [source | target]; encoder layers rewrite the
// source part, decoder layers the target part with cross-attention to the source part.
struct Seq2SeqEmbedImpl : torch::nn::Module
{
    Seq2SeqEmbedImpl(const Spec& s) : s(s)
    {
        shared = register_module("shared", torch::nn::Embedding(s.vocab, s.hidden));
    }
    torch::Tensor forward(torch::Tensor ids)
    {
        auto x = shared(ids);
        if (s.positions == "fixed")
            x = x + torch::zeros({1, ids.size(1), s.hidden});
        return x;
    }
    Spec s;
    torch::nn::Embedding shared{nullptr};
};
TORCH_MODULE(Seq2SeqEmbed);

struct EncoderLayerImpl : torch::nn::Module
{
    EncoderLayerImpl(const Spec& s, int64_t src, torch::Tensor table, bool finalNorm) : src(src)
    {
        if (table.defined())
            this->table = register_parameter("relative", table); // shared by the stack
        block = register_module("block", twins::Block(s));
        if (finalNorm)
            norm = register_module("norm", twins::Norm(s.norm, s.hidden));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        auto enc = block->forward(x.narrow(1, 0, src), torch::Tensor(), table);
        if (norm)
            enc = norm(enc);
        return torch::cat({enc, x.narrow(1, src, x.size(1) - src)}, 1);
    }
    int64_t src;
    torch::Tensor table;
    twins::Block block{nullptr};
    twins::Norm norm{nullptr};
};
TORCH_MODULE(EncoderLayer);

struct DecoderLayerImpl : torch::nn::Module
{
    DecoderLayerImpl(const Spec& s, int64_t src, torch::Tensor table) : src(src)
    {
        if (table.defined())
            this->table = register_parameter("relative", table); // shared by the stack
        block = register_module("block", twins::Block(s, true));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        auto mem = x.narrow(1, 0, src);
        auto dec = block->forward(x.narrow(1, src, x.size(1) - src), mem, table);
        return torch::cat({mem, dec}, 1);
    }
    int64_t src;
    torch::Tensor table;
    twins::Block block{nullptr};
};
TORCH_MODULE(DecoderLayer);

struct Seq2SeqHeadImpl : torch::nn::Module
{
    Seq2SeqHeadImpl(const Spec& s, int64_t src, torch::Tensor word, bool norm, bool rescale)
        : src(src), rescale(rescale)
    {
        this->word = register_parameter("word", word); // tied to the shared embedding
        if (norm)
            final = register_module("final", twins::Norm(s.norm, s.hidden));
        register_module("traced", torch::nn::Identity());
    }
    torch::Tensor forward(torch::Tensor x)
    {
        auto dec = x.narrow(1, src, x.size(1) - src);
        if (final)
            dec = final(dec);
        if (rescale)
            dec = dec * 0.125;
        return torch::linear(dec, this->word);
    }
    int64_t src;
    torch::Tensor word;
    bool rescale;
    twins::Norm final{nullptr};
};
TORCH_MODULE(Seq2SeqHead);

torch::nn::Sequential seq2seq(const Spec& s, int64_t src, int64_t layers, bool t5)
{
    torch::nn::Sequential net;
    Seq2SeqEmbed emb(s);
    net->push_back("embeddings", emb);
    // T5: one relative-position table per stack, owned by its first layer.
    torch::Tensor encTable, decTable;
    if (t5) {
        encTable = emb->register_parameter("enc_relative", torch::randn({32, s.heads}));
        decTable = emb->register_parameter("dec_relative", torch::randn({32, s.heads}));
    }
    for (int64_t l = 0; l < layers; ++l)
        net->push_back("encoder" + std::to_string(l),
                       EncoderLayer(s, src, encTable, t5 && l + 1 == layers));
    for (int64_t l = 0; l < layers; ++l)
        net->push_back("decoder" + std::to_string(l), DecoderLayer(s, src, decTable));
    net->push_back("head", Seq2SeqHead(s, src, emb->shared->weight, t5, t5));
    return net;
}

// UNet: two encoder blocks with max-pool, a bottleneck, two decoder blocks (transposed conv,
// skip concatenation, convs), a 1x1 output conv. Conv, group norm, ReLU per conv.
struct UnetImpl : torch::nn::Module
{
    UnetImpl()
    {
        const std::vector<int64_t> enc{8, 16, 32}, dec{16, 8};
        int64_t in = 1;
        for (std::size_t i = 0; i < enc.size(); ++i) {
            convs.push_back(block("enc" + std::to_string(i), in, enc[i]));
            in = enc[i];
        }
        for (std::size_t i = 0; i < dec.size(); ++i) {
            ups.push_back(
                register_module("up" + std::to_string(i),
                                torch::nn::ConvTranspose2d(
                                    torch::nn::ConvTranspose2dOptions(in, dec[i], 2).stride(2))));
            convs.push_back(
                block("dec" + std::to_string(i), dec[i] + enc[enc.size() - 2 - i], dec[i]));
            in = dec[i];
        }
        out = register_module("out", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, 1, 1)));
    }
    torch::nn::Sequential block(const std::string& name, int64_t in, int64_t out)
    {
        using namespace torch::nn;
        Sequential b;
        for (int c = 0; c < 2; ++c) {
            b->push_back(Conv2d(Conv2dOptions(c ? out : in, out, 3).padding(1)));
            b->push_back(GroupNorm(GroupNormOptions(4, out)));
            b->push_back(ReLU());
        }
        return register_module(name, b);
    }
    torch::Tensor forward(torch::Tensor x)
    {
        std::vector<torch::Tensor> skips;
        for (int i = 0; i < 2; ++i) {
            x = convs[std::size_t(i)]->forward(x);
            skips.push_back(x);
            x = torch::max_pool2d(x, 2);
        }
        x = convs[2]->forward(x);
        for (int i = 0; i < 2; ++i) {
            x = ups[std::size_t(i)](x);
            x = torch::cat({x, skips[std::size_t(1 - i)]}, 1);
            x = convs[std::size_t(3 + i)]->forward(x);
        }
        return out(x);
    }
    std::vector<torch::nn::Sequential> convs;
    std::vector<torch::nn::ConvTranspose2d> ups;
    torch::nn::Conv2d out{nullptr};
};
TORCH_MODULE(Unet);

const char* kUnetYaml = R"(model:
  name: unet
  nonlinearity: ReLU
  skip_connect: true
  enable_bias: true
  downscale_method: max_pool
  convs_per_block: ["3x3_conv", "3x3_conv"]
  encoder_filters: [8, 16, 32]
  decoder_filters: [16, 8]
  residual_blocks: false
  norm_layer: group
  loss: bce
train_input:
  image_shape: [32, 32, 1]
  num_classes: 2
  batch_size: 2
)";

// DiT: patchified latents plus a conditioning token (timestep MLP + label embedding), adaLN
// blocks modulating norm outputs, a final modulated projection.
struct DitEmbedImpl : torch::nn::Module
{
    DitEmbedImpl(int64_t hidden)
    {
        patch = register_module(
            "patch", torch::nn::Conv2d(torch::nn::Conv2dOptions(4, hidden, 2).stride(2)));
        t1 = register_module("t1", torch::nn::Linear(256, hidden));
        t2 = register_module("t2", torch::nn::Linear(hidden, hidden));
        label = register_module("label", torch::nn::Embedding(11, hidden));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        const int64_t B = x.size(0);
        auto tokens = patch(x).flatten(2).transpose(1, 2);
        tokens = tokens + torch::zeros({1, tokens.size(1), tokens.size(2)});
        auto t = t2(torch::silu(t1(torch::zeros({B, 1, 256}))));
        auto c = t + label(torch::zeros({B, 1}, torch::kLong));
        return torch::cat({tokens, c}, 1); // the condition rides as the last token
    }
    torch::nn::Conv2d patch{nullptr};
    torch::nn::Linear t1{nullptr}, t2{nullptr};
    torch::nn::Embedding label{nullptr};
};
TORCH_MODULE(DitEmbed);

struct DitBlockImpl : torch::nn::Module
{
    DitBlockImpl(const Spec& s) : s(s)
    {
        ada = register_module("ada", torch::nn::Linear(s.hidden, 6 * s.hidden));
        attn = register_module("attn", twins::Attention(s));
        mlp = register_module("mlp", twins::Mlp(s));
    }
    torch::Tensor forward(torch::Tensor xc)
    {
        const int64_t T = xc.size(1) - 1;
        auto x = xc.narrow(1, 0, T);
        auto c = xc.narrow(1, T, 1);
        auto mod = ada(torch::silu(c)).chunk(6, -1);
        auto h = torch::layer_norm(x, {s.hidden}) * mod[1] + mod[0];
        x = x + attn->forward(h, torch::Tensor(), torch::Tensor()) * mod[2];
        h = torch::layer_norm(x, {s.hidden}) * mod[4] + mod[3];
        x = x + mlp(h) * mod[5];
        return torch::cat({x, c}, 1);
    }
    Spec s;
    torch::nn::Linear ada{nullptr};
    twins::Attention attn{nullptr};
    twins::Mlp mlp{nullptr};
};
TORCH_MODULE(DitBlock);

struct DitFinalImpl : torch::nn::Module
{
    DitFinalImpl(int64_t hidden)
    {
        ada = register_module("ada", torch::nn::Linear(hidden, 2 * hidden));
        proj = register_module("proj", torch::nn::Linear(hidden, 2 * 2 * 8));
    }
    torch::Tensor forward(torch::Tensor xc)
    {
        const int64_t T = xc.size(1) - 1;
        auto mod = ada(torch::silu(xc.narrow(1, T, 1))).chunk(2, -1);
        auto h = torch::layer_norm(xc.narrow(1, 0, T), {xc.size(2)}) * mod[1] + mod[0];
        return proj(h);
    }
    torch::nn::Linear ada{nullptr}, proj{nullptr};
};
TORCH_MODULE(DitFinal);

const char* kDitYaml = R"(model:
  name: dit
  hidden_size: 64
  num_hidden_layers: 2
  num_heads: 4
  filter_size: 256
  patch_size: [2, 2]
  num_classes: 10
  label_dropout_rate: 0.1
  frequency_embedding_size: 256
  embedding_nonlinearity: silu
  encoder_nonlinearity: gelu
  vae:
    latent_size: [8, 8]
    latent_channels: 4
train_input:
  batch_size: 2
)";

// ViT classifier: patch conv, class token, learned positions, pre-norm blocks, final norm, head.
struct VitEmbedImpl : torch::nn::Module
{
    VitEmbedImpl(int64_t hidden, int64_t tokens)
    {
        patch = register_module(
            "patch", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, hidden, 8).stride(8)));
        cls = register_parameter("cls", torch::zeros({1, 1, hidden}));
        pos = register_parameter("pos", torch::zeros({1, tokens, hidden}));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        const int64_t B = x.size(0);
        auto t = patch(x).flatten(2).transpose(1, 2);
        t = torch::cat({cls.expand({B, 1, cls.size(2)}), t}, 1);
        return t + pos.expand({B, pos.size(1), pos.size(2)});
    }
    torch::nn::Conv2d patch{nullptr};
    torch::Tensor cls, pos;
};
TORCH_MODULE(VitEmbed);

struct VitHeadImpl : torch::nn::Module
{
    VitHeadImpl(int64_t hidden)
    {
        norm = register_module("norm", twins::Norm("layernorm", hidden));
        fc = register_module("fc", torch::nn::Linear(hidden, 10));
    }
    torch::Tensor forward(torch::Tensor x) { return fc(norm(x).narrow(1, 0, 1)); }
    twins::Norm norm{nullptr};
    torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(VitHead);

const char* kVitYaml = R"(model:
  name: vision_transformer
  num_classes: 10
  position_embedding_type: learned
  hidden_size: 64
  num_hidden_layers: 2
  num_heads: 4
  nonlinearity: gelu
  filter_size: 128
  norm_first: true
  image_size: [32, 32]
  num_channels: 3
  patch_size: [8, 8]
  prepend_cls_token: true
train_input:
  batch_size: 2
)";

// LLaVA: the ViT's patch tokens (class token dropped) through a two-layer projector, ahead of the
// text tokens' embeddings, then a LLaMA decoder.
struct LlavaJoinImpl : torch::nn::Module
{
    LlavaJoinImpl(int64_t image, int64_t text, int64_t vocab, int64_t words) : words(words)
    {
        fc0 = register_module("fc0", torch::nn::Linear(image, text));
        fc1 = register_module("fc1", torch::nn::Linear(text, text));
        wte = register_module("wte", torch::nn::Embedding(vocab, text));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        auto patches = x.narrow(1, 1, x.size(1) - 1);
        auto projected = fc1(torch::gelu(fc0(patches)));
        auto ids = torch::zeros({x.size(0), words}, torch::kLong);
        return torch::cat({projected, wte(ids)}, 1);
    }
    int64_t words;
    torch::nn::Linear fc0{nullptr}, fc1{nullptr};
    torch::nn::Embedding wte{nullptr};
};
TORCH_MODULE(LlavaJoin);

const char* kLlavaYaml = R"(model:
  name: llava
  image_feature_select_mode: patch
  image_model:
    name: ViTModel
    hidden_size: 64
    num_hidden_layers: 3
    num_heads: 4
    filter_size: 128
    nonlinearity: quick_gelu
    norm_first: true
    image_size: [32, 32]
    num_channels: 3
    patch_size: [8, 8]
    prepend_cls_token: true
    image_layer_idx: -2
  projector:
    image_model:
      name: FeedForwardNetwork
      input_unit: 64
      layers_units: [96, 96]
      layers_activation: [gelu, null]
      use_bias: true
  text_model:
    name: LlamaModel
    vocab_size: 97
    hidden_size: 96
    num_hidden_layers: 2
    num_heads: 4
    filter_size: 128
    position_embedding_type: rotary
    rotary_dim: 24
    share_embedding_weights: false
    norm_type: rmsnorm
    nonlinearity: swiglu
    use_projection_bias_in_attention: false
    use_ffn_bias_in_attention: false
    use_ffn_bias: false
    max_position_embeddings: 64
train_input:
  batch_size: 2
  max_sequence_length: 32
)";

} // namespace

class TestFamiliesTwins : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::manual_seed(0); }

    void twin_data()
    {
        QTest::addColumn<int>("index");
        int i = 0;
        for (const auto& c : cases())
            QTest::addRow("%s", c.first.c_str()) << i++;
    }
    void twin()
    {
        QFETCH(int, index);
        const TwinCase& c = cases()[std::size_t(index)].second;
        auto built = families::buildFromParamsText(c.yaml, "twin.yaml");
        QVERIFY2(built, built.error.toString().c_str());
        auto net = c.twin();
        auto recorded = graph::recordSequential(net, c.input(), "twin");
        QVERIFY2(recorded, recorded.error.toString().c_str());
        const double builderFlops = built.value->graph.totalForwardFlops();
        const double twinFlops = recorded.value->totalForwardFlops();
        const qlonglong builderParams = built.value->graph.totalParams();
        const qlonglong twinParams = twins::uniqueParameters(*net);
        std::printf(
            "  %-12s params %12lld (twin %12lld), forward FLOPs %.6g (twin %.6g, %+.3f%%)\n",
            QTest::currentDataTag(), builderParams, twinParams, builderFlops, twinFlops,
            100 * (builderFlops - twinFlops) / twinFlops);
        QCOMPARE(builderParams, twinParams);
        QVERIFY2(
            std::abs(builderFlops - twinFlops) <= 0.01 * twinFlops,
            qPrintable(
                QStringLiteral("forward FLOPs %1 vs twin %2").arg(builderFlops).arg(twinFlops)));
    }

private:
    static const std::vector<std::pair<std::string, TwinCase>>& cases()
    {
        static const std::vector<std::pair<std::string, TwinCase>> list = [] {
            std::vector<std::pair<std::string, TwinCase>> v;
            {
                Spec s; // GPT-2/3: learned positions, tied head, gelu, biases
                v.push_back({"gpt2",
                             {decoderYaml("gpt2", "  nonlinearity: gelu\n"),
                              [s] { return twins::decoder(s); }, tokens}});
            }
            {
                Spec s; // LLaMA: rotary, RMS norm, SwiGLU, GQA, untied, no biases
                s.positions = "rotary";
                s.norm = "rmsnorm";
                s.activation = "swiglu";
                s.kvHeads = 2;
                s.qkvBias = s.outBias = s.ffnBias = false;
                s.tied = false;
                v.push_back(
                    {"llama",
                     {decoderYaml("llama",
                                  "  position_embedding_type: rotary\n  rotary_dim: 16\n"
                                  "  norm_type: rmsnorm\n  nonlinearity: swiglu\n"
                                  "  share_embedding_weights: false\n"
                                  "  use_projection_bias_in_attention: false\n"
                                  "  use_ffn_bias_in_attention: false\n  use_ffn_bias: false\n"
                                  "  attention_module: multiquery_attention\n"
                                  "  extra_attention_params: {num_kv_groups: 2}\n"),
                      [s] { return twins::decoder(s); }, tokens}});
            }
            {
                Spec s; // Mixtral: LLaMA with 4 experts, top-2
                s.positions = "rotary";
                s.norm = "rmsnorm";
                s.activation = "swiglu";
                s.kvHeads = 2;
                s.qkvBias = s.outBias = s.ffnBias = false;
                s.tied = false;
                s.experts = 4;
                s.topK = 2;
                v.push_back(
                    {"mixtral",
                     {decoderYaml("mixtral",
                                  "  position_embedding_type: rotary\n  rotary_dim: 16\n"
                                  "  norm_type: rmsnorm\n  nonlinearity: swiglu\n"
                                  "  share_embedding_weights: false\n"
                                  "  use_projection_bias_in_attention: false\n"
                                  "  use_ffn_bias_in_attention: false\n  use_ffn_bias: false\n"
                                  "  attention_module: multiquery_attention\n"
                                  "  extra_attention_params: {num_kv_groups: 2}\n"
                                  "  moe: {num_experts: 4, top_k: 2}\n"),
                      [s] { return twins::decoder(s); }, tokens}});
            }
            {
                Spec s; // Falcon-7B style: parallel block, one norm, MQA, rotary, tied
                s.positions = "rotary";
                s.parallel = true;
                s.kvHeads = 1;
                s.qkvBias = s.outBias = s.ffnBias = false;
                v.push_back(
                    {"falcon",
                     {decoderYaml("falcon", "  position_embedding_type: rotary\n  rotary_dim: 16\n"
                                            "  attention_module: multiquery_attention\n"
                                            "  extra_attention_params: {num_kv_groups: 1}\n"
                                            "  use_untied_layer_norm: false\n"
                                            "  use_projection_bias_in_attention: false\n"
                                            "  use_ffn_bias_in_attention: false\n"
                                            "  use_ffn_bias: false\n  nonlinearity: gelu\n"),
                      [s] { return twins::decoder(s); }, tokens}});
            }
            {
                Spec s; // GPT-NeoX: parallel with two norms, partial rotary, untied, head bias
                s.positions = "rotary";
                s.rotaryDim = 8;
                s.parallel = s.twoNorms = true;
                s.tied = false;
                s.headBias = true;
                v.push_back(
                    {"gpt-neox",
                     {decoderYaml("gptj", "  position_embedding_type: rotary\n  rotary_dim: 8\n"
                                          "  use_untied_layer_norm: true\n"
                                          "  share_embedding_weights: false\n"
                                          "  use_bias_in_output: true\n"),
                      [s] { return twins::decoder(s); }, tokens}});
            }
            {
                Spec s; // BLOOM: ALiBi, embedding norm
                s.positions = "alibi";
                s.embeddingNorm = true;
                v.push_back({"bloom",
                             {decoderYaml("bloom", "  position_embedding_type: alibi\n"
                                                   "  embedding_layer_norm: true\n"),
                              [s] { return twins::decoder(s); }, tokens}});
            }
            {
                Spec s; // MPT: ALiBi, bias-free norms and projections
                s.positions = "alibi";
                s.norm = "biasless";
                s.qkvBias = s.outBias = s.ffnBias = false;
                v.push_back({"mpt",
                             {decoderYaml("mpt", "  position_embedding_type: alibi\n"
                                                 "  norm_type: biasless-layernorm\n"
                                                 "  use_projection_bias_in_attention: false\n"
                                                 "  use_ffn_bias_in_attention: false\n"
                                                 "  use_ffn_bias: false\n"),
                              [s] { return twins::decoder(s); }, tokens}});
            }
            {
                Spec s; // StarCoder: learned positions, MQA
                s.kvHeads = 1;
                v.push_back(
                    {"starcoder",
                     {decoderYaml("starcoder", "  attention_module: multiquery_attention\n"
                                               "  extra_attention_params: {num_kv_groups: 1}\n"),
                      [s] { return twins::decoder(s); }, tokens}});
            }
            {
                Spec s; // Jais / BTLM: ALiBi, SwiGLU, muP embedding scale
                s.positions = "alibi";
                s.activation = "swiglu";
                s.embeddingScale = true;
                v.push_back({"jais",
                             {decoderYaml("jais", "  position_embedding_type: alibi\n"
                                                  "  nonlinearity: swiglu\n"
                                                  "  embeddings_scale: 14.6\n"),
                              [s] { return twins::decoder(s); }, tokens}});
            }
            {
                Spec s; // Gemma 2: sandwich norms, GeGLU, RMS norm, rotary, wider heads
                s.positions = "rotary";
                s.norm = "rmsnorm";
                s.activation = "geglu";
                s.sandwich = true;
                s.headDim = 32;
                s.rotaryDim = 32;
                s.kvHeads = 2;
                s.qkvBias = s.outBias = s.ffnBias = false;
                s.embeddingScale = true;
                v.push_back(
                    {"gemma2",
                     {decoderYaml("gemma2", "  position_embedding_type: rotary\n  rotary_dim: 32\n"
                                            "  norm_type: rmsnorm\n  nonlinearity: geglu\n"
                                            "  norm_first_sandwich: true\n"
                                            "  attention_inner_dim: 128\n  embeddings_scale: 8\n"
                                            "  attention_module: multiquery_attention\n"
                                            "  extra_attention_params: {num_kv_groups: 2}\n"
                                            "  use_projection_bias_in_attention: false\n"
                                            "  use_ffn_bias_in_attention: false\n"
                                            "  use_ffn_bias: false\n"),
                      [s] { return twins::decoder(s); }, tokens}});
            }
            {
                Spec s; // BERT: post-norm, segments, embedding norm, MLM on 5 masked of 16, NSP
                s.preNorm = false;
                s.causal = false;
                s.segments = true;
                s.embeddingNorm = true;
                v.push_back({"bert",
                             {"model:\n  name: bert\n  vocab_size: 97\n  hidden_size: 64\n"
                              "  num_hidden_layers: 2\n  num_heads: 4\n  filter_size: 128\n"
                              "  max_position_embeddings: 32\n  encoder_nonlinearity: gelu\n"
                              "train_input:\n  batch_size: 2\n  max_sequence_length: 16\n"
                              "  max_predictions_per_seq: 5\n",
                              [s] { return bert(s, 5, true); }, tokens}});
            }
            {
                Spec s; // ESM-2: pre-norm, rotary, no segments or embedding norm, final norm
                s.positions = "rotary";
                s.causal = false;
                v.push_back(
                    {"esm2",
                     {"model:\n  name: esm2\n  vocab_size: 97\n  hidden_size: 64\n"
                      "  num_hidden_layers: 2\n  num_heads: 4\n  filter_size: 128\n"
                      "  max_position_embeddings: 32\n  encoder_nonlinearity: gelu\n"
                      "  mlm_nonlinearity: gelu\n  position_embedding_type: rotary\n"
                      "  rotary_dim: 16\n  embedding_layer_norm: false\n  disable_nsp: true\n"
                      "  use_final_layer_norm: true\n"
                      "train_input:\n  batch_size: 2\n  max_sequence_length: 16\n",
                      [s] { return bert(s, 16, false); }, tokens}});
            }
            {
                Spec s; // T5: relative buckets, RMS norm, pre-norm, ReLU, no biases, tied
                s.positions = "relative";
                s.norm = "rmsnorm";
                s.activation = "relu";
                s.qkvBias = s.outBias = s.ffnBias = false;
                s.causal = true;
                v.push_back(
                    {"t5",
                     {"model:\n  name: t5\n  src_vocab_size: 97\n  d_model: 64\n  d_kv: 16\n"
                      "  d_ff: 128\n  num_heads: 4\n  encoder_num_hidden_layers: 2\n"
                      "  decoder_num_hidden_layers: 2\n  encoder_nonlinearity: relu\n"
                      "  decoder_nonlinearity: relu\n  dropout_rate: 0.0\n"
                      "train_input:\n  batch_size: 2\n  src_max_sequence_length: 12\n"
                      "  tgt_max_sequence_length: 8\n",
                      [s] { return seq2seq(s, 12, 2, true); },
                      [] {
                          return torch::randint(97, {2, 20});
                      }}});
            }
            {
                Spec s; // Transformer: fixed positions, post-norm layer norm, biases in the MLP
                s.positions = "fixed";
                s.preNorm = false;
                s.activation = "relu";
                s.qkvBias = s.outBias = false;
                v.push_back(
                    {"transformer",
                     {"model:\n  name: transformer\n  src_vocab_size: 97\n  d_model: 64\n"
                      "  d_kv: 16\n  d_ff: 128\n  num_heads: 4\n  encoder_num_hidden_layers: 2\n"
                      "  decoder_num_hidden_layers: 2\n  encoder_nonlinearity: relu\n"
                      "  decoder_nonlinearity: relu\n  dropout_rate: 0.0\n"
                      "  position_embedding_type: fixed\n  norm_type: layernorm\n"
                      "  use_pre_encoder_decoder_layer_norm: false\n  use_ffn_bias: true\n"
                      "train_input:\n  batch_size: 2\n  src_max_sequence_length: 12\n"
                      "  tgt_max_sequence_length: 8\n",
                      [s] { return seq2seq(s, 12, 2, false); },
                      [] {
                          return torch::randint(97, {2, 20});
                      }}});
            }
            v.push_back({"unet",
                         {kUnetYaml,
                          [] {
                              torch::nn::Sequential net;
                              net->push_back("unet", Unet());
                              return net;
                          },
                          [] {
                              return torch::randn({2, 1, 32, 32});
                          }}});
            {
                Spec s;
                s.causal = false;
                s.filter = 256;
                v.push_back({"dit",
                             {kDitYaml,
                              [s] {
                                  torch::nn::Sequential net;
                                  net->push_back("embeddings", DitEmbed(64));
                                  for (int l = 0; l < 2; ++l)
                                      net->push_back("block" + std::to_string(l), DitBlock(s));
                                  net->push_back("final", DitFinal(64));
                                  return net;
                              },
                              [] {
                                  return torch::randn({2, 4, 8, 8});
                              }}});
            }
            {
                Spec s;
                s.causal = false;
                v.push_back({"vit",
                             {kVitYaml,
                              [s] {
                                  torch::nn::Sequential net;
                                  net->push_back("embeddings", VitEmbed(64, 17));
                                  for (int l = 0; l < 2; ++l)
                                      net->push_back("encoder" + std::to_string(l),
                                                     twins::Block(s));
                                  net->push_back("head", VitHead(64));
                                  return net;
                              },
                              [] {
                                  return torch::randn({2, 3, 32, 32});
                              }}});
            }
            {
                Spec image; // CLIP-style ViT: quick GELU, two of its three layers used
                image.causal = false;
                image.activation = "quick_gelu";
                Spec text; // LLaMA: rotary, RMS norm, SwiGLU, untied, no biases
                text.hidden = 96;
                text.headDim = 24;
                text.rotaryDim = 24;
                text.positions = "rotary";
                text.norm = "rmsnorm";
                text.activation = "swiglu";
                text.qkvBias = text.outBias = text.ffnBias = false;
                text.tied = false;
                v.push_back({"llava",
                             {kLlavaYaml,
                              [image, text] {
                                  torch::nn::Sequential net;
                                  net->push_back("image_embeddings", VitEmbed(64, 17));
                                  for (int l = 0; l < 2; ++l)
                                      net->push_back("image_encoder" + std::to_string(l),
                                                     twins::Block(image));
                                  net->push_back("join", LlavaJoin(64, 96, 97, 32 - 16));
                                  for (int l = 0; l < 2; ++l)
                                      net->push_back("h" + std::to_string(l), twins::Block(text));
                                  net->push_back("ln_f", twins::FinalNorm(text.norm, 96));
                                  net->push_back("lm_head", twins::Head(text, torch::Tensor()));
                                  return net;
                              },
                              [] {
                                  return torch::randn({2, 3, 32, 32});
                              }}});
            }
            v.push_back({"fc_mnist",
                         {"model:\n  name: fc_mnist\n  depth: 3\n  hidden_size: 50\n"
                          "  activation_fn: relu\n  dropout: 0.0\n"
                          "train_input:\n  batch_size: 4\n",
                          [] {
                              using namespace torch::nn;
                              Sequential net;
                              net->push_back("flatten", Flatten());
                              int64_t in = 784;
                              for (int i = 0; i < 3; ++i) {
                                  net->push_back(Linear(in, 50));
                                  net->push_back(ReLU());
                                  in = 50;
                              }
                              net->push_back(Linear(50, 10));
                              return net;
                          },
                          [] {
                              return torch::randn({4, 1, 28, 28});
                          }}});
            return v;
        }();
        return list;
    }
};

QTEST_GUILESS_MAIN(TestFamiliesTwins)
#include "test_families_twins.moc"
