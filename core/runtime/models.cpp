#include "core/runtime/models.h"

#include "core/runtime/blocks.h"
#include "core/runtime/params_access.h"

#include <torch/torch.h>

namespace portolan::runtime {

namespace {

constexpr int64_t kMnistSide = 28;
constexpr int64_t kClasses = 10;

torch::nn::AnyModule activation(const std::string& name)
{
    if (name == "tanh")
        return torch::nn::AnyModule(torch::nn::Tanh());
    if (name == "sigmoid")
        return torch::nn::AnyModule(torch::nn::Sigmoid());
    if (name == "gelu")
        return torch::nn::AnyModule(torch::nn::GELU());
    return torch::nn::AnyModule(torch::nn::ReLU());
}

// mnist-mlp-*: `depth` x (Linear, activation, Dropout), then Linear to 10 logits; the Python
// forward flattens first, so the Sequential starts with a Flatten.
BuiltModel buildMnistMlp(const ParamsSection& m)
{
    std::vector<int64_t> widths;
    if (m.has("hidden_sizes")) {
        widths = m.integers("hidden_sizes");
        if (m.has("depth") && m.integer("depth", {}, 1) != int64_t(widths.size()))
            m.fail("depth", "runtime.params-range",
                   m.keyPath("depth") + " does not match the length of " +
                       m.keyPath("hidden_sizes") + " (" + std::to_string(widths.size()) + ")");
    } else {
        const int64_t depth = m.integer("depth", {}, 1, 1000);
        const int64_t hidden = m.integer("hidden_size", {}, 1, 1 << 20);
        widths.assign(std::size_t(depth), hidden);
    }
    const std::string act =
        m.text("activation_fn", std::string("relu"), {"relu", "tanh", "sigmoid", "gelu"});
    const double dropout = m.number("dropout", 0.0, 0.0, 1.0);

    torch::nn::Sequential net;
    net->push_back("flatten", torch::nn::Flatten(torch::nn::FlattenOptions().start_dim(1)));
    int64_t in = kMnistSide * kMnistSide;
    for (std::size_t i = 0; i < widths.size(); ++i) {
        const std::string n = std::to_string(i + 1);
        net->push_back("fc" + n, torch::nn::Linear(in, widths[i]));
        net->push_back("act" + n, activation(act));
        net->push_back("dropout" + n, torch::nn::Dropout(dropout));
        in = widths[i];
    }
    net->push_back("output", torch::nn::Linear(in, kClasses));
    return {net, {1, kMnistSide, kMnistSide}, torch::kFloat32, kClasses, "fc_mnist"};
}

// alphabet-transformer-*: token lookup, sinusoidal positions, dropout, num_hidden_layers
// post-norm encoder layers under a causal mask, Linear to vocab_size logits.
BuiltModel buildAlphabetTransformer(const ParamsSection& m)
{
    const int64_t vocab = m.integer("vocab_size", {}, 2, 1 << 24);
    const int64_t dModel = m.integer("embedding_size", {}, 1, 1 << 16);
    const int64_t heads = m.integer("num_heads", {}, 1, 1024);
    const int64_t layers = m.integer("num_hidden_layers", {}, 1, 1000);
    const int64_t hidden = m.integer("hidden_size", {}, 1, 1 << 20);
    const double dropout = m.number("dropout", 0.0, 0.0, 1.0);
    const std::string nonlinearity = m.text("nonlinearity", std::string("relu"), {"relu", "gelu"});
    const int64_t seqLen = m.integer("seq_len", {}, 1, 1 << 20);
    if (dModel % heads != 0)
        m.fail("num_heads", "runtime.params-range",
               m.keyPath("embedding_size") + " = " + std::to_string(dModel) +
                   " must be divisible by " + m.keyPath("num_heads") + " = " +
                   std::to_string(heads));

    torch::nn::Sequential net;
    net->push_back("embedding", torch::nn::Embedding(vocab, dModel));
    net->push_back("position", PositionalEncoding(dModel, seqLen));
    net->push_back("dropout", torch::nn::Dropout(dropout));
    // torch.nn.TransformerEncoder deep-copies one layer, so every layer starts from the same
    // weights; do the same.
    CausalEncoderLayer first(dModel, heads, hidden, dropout, nonlinearity);
    for (int64_t i = 0; i < layers; ++i) {
        auto layer = i == 0 ? first
                            : CausalEncoderLayer(std::dynamic_pointer_cast<CausalEncoderLayerImpl>(
                                  first->clone()));
        net->push_back("layer" + std::to_string(i), layer);
    }
    net->push_back("head", torch::nn::Linear(dModel, vocab));
    return {net, {seqLen}, torch::kInt64, vocab, "alphabet_transformer"};
}

// small-cnn-*: conv/relu/pool twice (28 -> 14 -> 7, padding kernel/2), Linear, relu, dropout,
// Linear to 10 logits.
BuiltModel buildSmallCnn(const ParamsSection& m)
{
    const int64_t c1 = m.integer("conv1_channels", {}, 1, 4096);
    const int64_t c2 = m.integer("conv2_channels", {}, 1, 4096);
    const int64_t kernel = m.integer("kernel_size", {}, 1, 27);
    const int64_t hidden = m.integer("hidden_size", {}, 1, 1 << 20);
    const double dropout = m.number("dropout", 0.0, 0.0, 1.0);
    if (kernel % 2 == 0)
        m.fail("kernel_size", "runtime.params-range",
               m.keyPath("kernel_size") + " = " + std::to_string(kernel) +
                   " must be odd: padding kernel_size // 2 keeps 28x28 only for odd kernels");
    const int64_t pad = kernel / 2;
    using torch::nn::Conv2dOptions;
    torch::nn::Sequential net;
    net->push_back("conv1", torch::nn::Conv2d(Conv2dOptions(1, c1, kernel).padding(pad)));
    net->push_back("relu1", torch::nn::ReLU());
    net->push_back("pool1", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)));
    net->push_back("conv2", torch::nn::Conv2d(Conv2dOptions(c1, c2, kernel).padding(pad)));
    net->push_back("relu2", torch::nn::ReLU());
    net->push_back("pool2", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)));
    net->push_back("flatten", torch::nn::Flatten(torch::nn::FlattenOptions().start_dim(1)));
    net->push_back("fc1", torch::nn::Linear(c2 * (kMnistSide / 4) * (kMnistSide / 4), hidden));
    net->push_back("relu3", torch::nn::ReLU());
    net->push_back("dropout", torch::nn::Dropout(dropout));
    net->push_back("fc2", torch::nn::Linear(hidden, kClasses));
    return {net, {1, kMnistSide, kMnistSide}, torch::kFloat32, kClasses, "small_cnn"};
}

// image-classifier-*: SmallConvNet (features: conv3x3/relu/pool twice; classifier: flatten,
// Linear, relu, dropout, Linear) on CIFAR-10 [3, 32, 32].
BuiltModel buildCifarConvNet(const ParamsSection& m)
{
    const int64_t c1 = m.integer("conv1_channels", {}, 1, 4096);
    const int64_t c2 = m.integer("conv2_channels", {}, 1, 4096);
    const int64_t hidden = m.integer("hidden_size", {}, 1, 1 << 20);
    const double dropout = m.number("dropout", 0.0, 0.0, 1.0);
    using torch::nn::Conv2dOptions;
    torch::nn::Sequential net;
    net->push_back("features_conv1", torch::nn::Conv2d(Conv2dOptions(3, c1, 3).padding(1)));
    net->push_back("features_relu1", torch::nn::ReLU());
    net->push_back("features_pool1", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)));
    net->push_back("features_conv2", torch::nn::Conv2d(Conv2dOptions(c1, c2, 3).padding(1)));
    net->push_back("features_relu2", torch::nn::ReLU());
    net->push_back("features_pool2", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)));
    net->push_back("classifier_flatten",
                   torch::nn::Flatten(torch::nn::FlattenOptions().start_dim(1)));
    net->push_back("classifier_fc1", torch::nn::Linear(c2 * 8 * 8, hidden));
    net->push_back("classifier_relu", torch::nn::ReLU());
    net->push_back("classifier_dropout", torch::nn::Dropout(dropout));
    net->push_back("classifier_fc2", torch::nn::Linear(hidden, kClasses));
    return {net, {3, 32, 32}, torch::kFloat32, kClasses, "cifar_convnet"};
}

} // namespace

Result<BuiltModel> buildModel(const YAML::Node& modelSection, const std::string& paramsFile)
{
    try {
        if (!modelSection.IsDefined() || !modelSection.IsMap())
            throw ParamsError(diagnosticAt(modelSection, paramsFile, "runtime.params-type",
                                           "the model section must be a mapping"));
        const std::string path = modelSection["name"].IsDefined() ? "model" : "hyperparameters";
        ParamsSection m(modelSection, paramsFile, path);
        if (looksLikeDeterminedCifar(m))
            return Result<BuiltModel>::ok(buildCifarConvNet(m));
        const std::string name = m.text("name");
        if (name == "fc_mnist")
            return Result<BuiltModel>::ok(buildMnistMlp(m));
        if (name == "alphabet_transformer")
            return Result<BuiltModel>::ok(buildAlphabetTransformer(m));
        if (name == "small_cnn")
            return Result<BuiltModel>::ok(buildSmallCnn(m));
        if (name == "cifar_convnet")
            return Result<BuiltModel>::ok(buildCifarConvNet(m));
        std::string known;
        for (const auto& n : knownModelNames())
            known += (known.empty() ? "" : ", ") + n;
        m.fail("name", "runtime.unknown-model",
               "unknown model name '" + name + "' (Portolan's runtime knows: " + known + ")");
    } catch (const ParamsError& e) {
        return Result<BuiltModel>::fail(e.diagnostic());
    } catch (const c10::Error& e) {
        return Result<BuiltModel>::fail(
            diagnosticAt(modelSection, paramsFile, "runtime.model-build",
                         std::string("cannot build the model: ") + e.what_without_backtrace()));
    }
}

Result<BuiltModel> buildModelFromParams(const std::filesystem::path& paramsYaml)
{
    const std::string file = paramsYaml.string();
    try {
        const YAML::Node root = loadParamsFile(file);
        if (root.IsMap() && root["model"].IsDefined())
            return buildModel(root["model"], file);
        if (root.IsMap() && root["hyperparameters"].IsDefined())
            return buildModel(root["hyperparameters"], file);
        throw ParamsError(diagnosticAt(root, file, "runtime.params-missing",
                                       "no model: section (nor Determined hyperparameters:)"));
    } catch (const ParamsError& e) {
        return Result<BuiltModel>::fail(e.diagnostic());
    }
}

} // namespace portolan::runtime
