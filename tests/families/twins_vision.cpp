// The twins of the families that read images (UNet, DiT, ViT, LLaVA, FC MNIST) for
// test_families_twins: each family's params, written here at a small size, and a torch::nn model
// of the same architecture built from the same sizes (twins.h).
#include "twin_case.h" // LibTorch before Qt

using namespace portolan;
using twins::Spec;
using twins::TwinCases;

namespace {

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

const TwinCases& portolan::twins::visionCases()
{
    static const TwinCases list = [] {
        TwinCases v;
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
                                  net->push_back("encoder" + std::to_string(l), twins::Block(s));
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
