// Vision families: the Model Zoo UNet (conv blocks with norm and activation, max-pool or strided
// downscaling, transposed-conv upsampling with skip concatenation), DiT (patchified latents,
// timestep and label conditioning, adaLN-Zero blocks) and fc_mnist (a fully connected net).

#include "core/families/family_builders.h"

namespace portolan::families {

using params::ParamsSection;

namespace {

struct ConvBlock
{
    std::vector<std::string> convs; // "3x3_conv", "1x1_conv", "3x3_dw_conv"
    bool bias = true;
    std::string norm; // "", group, batchnorm2d, group_instance
    Activation act = Activation::Relu;
};

Tensor convNormAct(GraphBuilder& b, const ConvBlock& c, Tensor x, std::int64_t out,
                   std::int64_t kernel, std::int64_t stride)
{
    x = b.conv2d(x, out, kernel, stride, kernel / 2, c.bias);
    if (!c.norm.empty())
        x = c.norm.find("batch") != std::string::npos
                ? b.op("aten::batch_norm", {x}, x.shape, {{x.shape[1]}, {x.shape[1]}})
                : b.groupNorm(x);
    return activate(b, c.act, x);
}

Tensor unetBlock(GraphBuilder& b, const ConvBlock& c, Tensor x, std::int64_t out, bool downscale,
                 bool strided)
{
    for (std::size_t i = 0; i < c.convs.size(); ++i) {
        const std::string& type = c.convs[i];
        const std::int64_t k = type == "1x1_conv" ? 1 : 3;
        const bool last = i + 1 == c.convs.size();
        x = convNormAct(b, c, x, out, k, downscale && strided && last ? 2 : 1);
    }
    return x;
}

} // namespace

std::string buildUnet(BuildContext& ctx)
{
    const ParamsSection& m = ctx.model;
    GraphBuilder b(*ctx.graph);
    const bool conv3d = m.boolean("use_conv3d", false);
    std::vector<std::int64_t> shape{256, 256, 1};
    if (ctx.trainData.has("image_shape"))
        shape = ctx.trainData.integers("image_shape");
    else
        ctx.note("no image_shape in the data section: 256 x 256 x 1 assumed");
    if (shape.size() < (conv3d ? 3u : 2u))
        ctx.trainData.fail("image_shape", "families.image",
                           conv3d ? "a 3D UNet's image_shape wants [D, H, W]"
                                  : "image_shape wants [H, W, C]");
    // 2-D: [H, W, C]; 3-D: [D, H, W] with the channels in input_channels.
    Shape spatial(shape.begin(), shape.begin() + (conv3d ? 3 : 2));
    const std::int64_t channels =
        m.integer("input_channels", !conv3d && shape.size() > 2 ? shape[2] : 1, 1);
    const std::int64_t classes =
        ctx.trainData.integer("num_classes", m.integer("num_classes", 2, 1), 1);
    const std::string loss = m.text("loss", std::string(classes <= 2 ? "bce" : "ssce"));
    const std::int64_t outChannels =
        loss.find("bce") != std::string::npos && loss.find("multilabel") == std::string::npos
            ? 1
            : classes;
    ConvBlock c;
    if (m.has("convs_per_block")) {
        const YAML::Node n = m.node()["convs_per_block"];
        for (const auto& item : n)
            c.convs.push_back(item.as<std::string>());
    } else {
        c.convs = {"3x3_conv", "3x3_conv"};
    }
    c.norm = m.text("norm_layer", std::string());
    c.bias = m.boolean("enable_bias", c.norm.empty());
    c.act = activationFrom(m, "nonlinearity", "relu");
    const auto enc = m.integers("encoder_filters");
    const auto dec = m.integers("decoder_filters");
    if (enc.size() != dec.size() + 1)
        m.fail("decoder_filters", "families.unet",
               "the UNet needs one more encoder filter (the bottleneck) than decoder filters");
    const bool strided = m.text("downscale_method", std::string("max_pool")) == "strided_conv";
    const bool skip = m.boolean("skip_connect", true);

    Shape in{channels};
    in.insert(in.end(), spatial.begin(), spatial.end());
    Tensor x = b.input(in, DType::Float32);
    std::vector<Tensor> skips;
    ctx.graph->firstBlock = 0;
    ctx.graph->blockCount = 0;
    for (std::size_t i = 0; i + 1 < enc.size(); ++i) {
        b.beginLayer("encoder" + std::to_string(i));
        x = unetBlock(b, c, x, enc[i], true, strided);
        if (strided) {
            skips.push_back(x); // (the Model Zoo keeps the pre-stride output; sizes are close)
        } else {
            skips.push_back(x);
            x = b.maxPool2d(x, 2);
        }
    }
    b.beginLayer("bottleneck");
    x = unetBlock(b, c, x, enc.back(), false, strided);
    for (std::size_t i = 0; i < dec.size(); ++i) {
        b.beginLayer("decoder" + std::to_string(i));
        x = b.convTranspose2d(x, dec[i], 2, 2, c.bias);
        if (skip)
            x = b.concat({x, skips[skips.size() - 1 - i]}, 1);
        x = unetBlock(b, c, x, dec[i], false, false);
    }
    b.beginLayer("final_conv");
    b.conv2d(x, outChannels, 1, 1, 0, true);
    if (strided)
        ctx.note("strided-conv UNet: skip tensors taken after each block's last conv");
    return "unet";
}

std::string buildDit(BuildContext& ctx)
{
    const ParamsSection& m = ctx.model;
    GraphBuilder b(*ctx.graph);
    const std::int64_t hidden = m.integer("hidden_size", {}, 1);
    const ParamsSection vae = m.child("vae");
    std::int64_t latent = 32, latentChannels = 4;
    if (vae.has("latent_size"))
        latent = vae.integers("latent_size").front();
    latentChannels = vae.integer("latent_channels", 4, 1);
    const auto patch =
        m.has("patch_size") ? m.integers("patch_size") : std::vector<std::int64_t>{2, 2};
    const std::int64_t p = patch.front();
    const std::int64_t tokens = (latent / p) * (latent / p);
    const std::int64_t classes = m.integer("num_classes", 1000, 1);
    const std::int64_t freq = m.integer("frequency_embedding_size", 256, 1);
    const std::int64_t outChannels = 2 * latentChannels; // noise and variance (learned sigma)
    ctx.data.sequence = tokens;
    ctx.data.sequenceFrom = "model.vae.latent_size / model.patch_size";
    ctx.note("DiT trains on precomputed VAE latents: the VAE is not in the graph");

    b.beginLayer("embeddings");
    Tensor x = b.input({latentChannels, latent, latent}, DType::Float32);
    b.scope("embeddings.patch");
    x = b.conv2d(x, hidden, p, p, 0, true);
    x = b.copy(b.view(x, {1, hidden, tokens}), {1, tokens, hidden});
    b.scope("embeddings");
    x = b.add(x, b.constant({1, tokens, hidden}, DType::Float32)); // fixed sin-cos positions
    b.scope("embeddings.timestep");
    Tensor t = b.constant({1, 1, freq}, DType::Float32);
    t = b.linear(t, hidden, true);
    t = activate(b, activationFrom(m, "embedding_nonlinearity", "silu"), t);
    t = b.linear(t, hidden, true);
    b.scope("embeddings.label");
    const double labelDropout = m.number("label_dropout_rate", 0.1, 0, 1);
    const Tensor y =
        b.embedding(b.constant({1, 1}, DType::Int64), classes + (labelDropout > 0 ? 1 : 0), hidden);
    b.scope("embeddings");
    const Tensor cond = b.add(t, y);

    BlockSpec s;
    s.attention.hidden = hidden;
    s.attention.heads = s.attention.kvHeads = int(m.integer("num_heads", {}, 1, 100000));
    s.attention.headDim = hidden / s.attention.heads;
    s.attention.causal = false;
    s.attention.qkvBias = m.boolean("use_projection_bias_in_attention", true);
    s.attention.outBias = m.boolean("use_ffn_bias_in_attention", true);
    s.mlp.hidden = hidden;
    s.mlp.filter = m.integer("filter_size", 4 * hidden, 1);
    s.mlp.activation = activationFrom(m, "encoder_nonlinearity", "gelu");
    s.mlp.bias = m.boolean("use_ffn_bias", true);
    const int layers = int(m.integer("num_hidden_layers", {}, 1, 100000));
    ctx.graph->firstBlock = b.layerCount();
    ctx.graph->blockCount = layers;
    const auto modulate = [&](const Tensor& h, const Tensor& shiftScale) {
        return b.add(b.mul(h, shiftScale), shiftScale); // x * (1 + scale) + shift
    };
    x = b.repeatedLayers(layers, "block", x, [&](Tensor x) {
        const std::string name = b.currentScope(); // the layer's
        b.scope(name + ".adaLN");
        Tensor mod = b.linear(activate(b, Activation::Silu, cond), 6 * hidden, true);
        const Tensor part = b.view(mod, {1, 1, hidden});
        b.scope(name + ".attn_norm");
        Tensor hN = modulate(b.op("aten::layer_norm", {x}, x.shape), part);
        b.scope(name + ".attn");
        Tensor a = attention(b, s.attention, hN);
        b.scope(name);
        x = b.add(x, b.mul(a, part)); // gated residual
        b.scope(name + ".mlp_norm");
        hN = modulate(b.op("aten::layer_norm", {x}, x.shape), part);
        b.scope(name + ".mlp");
        Tensor f = mlp(b, s.mlp, hN);
        b.scope(name);
        return b.add(x, b.mul(f, part));
    });
    b.beginLayer("final_layer");
    b.scope("final_layer.adaLN");
    const Tensor mod = b.linear(activate(b, Activation::Silu, cond), 2 * hidden, true);
    b.scope("final_layer");
    x = modulate(b.op("aten::layer_norm", {x}, x.shape), b.view(mod, {1, 1, hidden}));
    b.linear(x, p * p * outChannels, true);
    return "dit";
}

std::string buildFcMnist(BuildContext& ctx)
{
    const ParamsSection& m = ctx.model;
    GraphBuilder b(*ctx.graph);
    std::vector<std::int64_t> sizes;
    if (m.has("hidden_sizes")) {
        sizes = m.integers("hidden_sizes");
    } else {
        const std::int64_t depth = m.integer("depth", {}, 1, 10000);
        sizes.assign(std::size_t(depth), m.integer("hidden_size", {}, 1));
    }
    const Activation act = activationFrom(m, "activation_fn", "relu");
    const double dropout = m.number("dropout", 0.0, 0, 1);
    b.beginLayer("input");
    Tensor x = b.input({784}, DType::Float32);
    x = b.view(x, {1, 784});
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        b.beginLayer("fc" + std::to_string(i));
        x = b.linear(x, sizes[i], true);
        x = activate(b, act, x);
        x = b.dropout(x, dropout);
    }
    b.beginLayer("last_layer");
    b.linear(x, 10, true);
    ctx.data.sequence = 0;
    ctx.data.sequenceFrom = "28 x 28 images";
    return "mlp";
}

} // namespace portolan::families
