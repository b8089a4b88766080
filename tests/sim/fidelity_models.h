#pragma once

// What the fidelity tests share (test_sim_fidelity, test_sim_fidelity_splits): the models they
// simulate (torchvision's ResNet-50 recorded with LibTorch, the families built from
// tests/sim/fixtures/fidelity) and Graphcore's published training options for them.

#include "core/families/families.h"
#include "core/graph/recorder.h" // LibTorch before Qt
#include "core/sim/compile.h"

#include <QString>
#include <map>
#include <string>
#include <vector>

namespace portolan::sim::fidelity {

// torchvision's ResNet-50 in torch::nn (bottleneck blocks of 3, 4, 6, 3), recorded at 224x224.
struct BottleneckImpl : torch::nn::Module
{
    BottleneckImpl(int64_t in, int64_t mid, int64_t stride)
    {
        using namespace torch::nn;
        const int64_t out = mid * 4;
        conv1 = register_module("conv1", Conv2d(Conv2dOptions(in, mid, 1).bias(false)));
        bn1 = register_module("bn1", BatchNorm2d(mid));
        conv2 = register_module(
            "conv2", Conv2d(Conv2dOptions(mid, mid, 3).stride(stride).padding(1).bias(false)));
        bn2 = register_module("bn2", BatchNorm2d(mid));
        conv3 = register_module("conv3", Conv2d(Conv2dOptions(mid, out, 1).bias(false)));
        bn3 = register_module("bn3", BatchNorm2d(out));
        if (stride != 1 || in != out) {
            down = register_module("down",
                                   Conv2d(Conv2dOptions(in, out, 1).stride(stride).bias(false)));
            downBn = register_module("down_bn", BatchNorm2d(out));
        }
    }
    torch::Tensor forward(torch::Tensor x)
    {
        auto y = torch::relu(bn1(conv1(x)));
        y = torch::relu(bn2(conv2(y)));
        y = bn3(conv3(y));
        return torch::relu(y + (down ? downBn(down(x)) : x));
    }
    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr}, down{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr}, downBn{nullptr};
};
TORCH_MODULE(Bottleneck);

inline graph::OpGraph resnet50()
{
    using namespace torch::nn;
    Sequential net;
    net->push_back("conv1", Conv2d(Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)));
    net->push_back("bn1", BatchNorm2d(64));
    net->push_back("relu", ReLU());
    net->push_back("maxpool", MaxPool2d(MaxPool2dOptions(3).stride(2).padding(1)));
    int64_t in = 64;
    const int blocks[4] = {3, 4, 6, 3};
    for (int stage = 0; stage < 4; ++stage)
        for (int b = 0; b < blocks[stage]; ++b) {
            const int64_t mid = 64 << stage;
            net->push_back("layer" + std::to_string(stage + 1) + "_" + std::to_string(b),
                           Bottleneck(in, mid, b == 0 && stage > 0 ? 2 : 1));
            in = mid * 4;
        }
    net->push_back("avgpool", AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions(1)));
    net->push_back("flatten", Flatten());
    net->push_back("fc", Linear(2048, 1000));
    torch::manual_seed(0);
    return *graph::recordSequential(net, torch::zeros({1, 3, 224, 224}), "resnet50").value;
}

inline const graph::OpGraph& modelGraph(const QString& model)
{
    static std::map<QString, graph::OpGraph> cache;
    auto it = cache.find(model);
    if (it != cache.end())
        return it->second;
    graph::OpGraph g;
    if (model == "resnet50") {
        g = resnet50();
    } else {
        auto built = families::buildFromParamsFile(std::string(PORTOLAN_SOURCE_DIR) +
                                                   "/tests/sim/fixtures/fidelity/" +
                                                   model.toStdString() + ".yaml");
        if (built)
            g = std::move(built.value->graph);
    }
    return cache.emplace(model, std::move(g)).first->second;
}

inline CompileOptions ipuOptions(int ipus, std::vector<int> split, int replicas, int mb, int accum,
                                 Optimizer opt)
{
    CompileOptions o;
    o.target = "ipu-mk2";
    o.ipus = ipus;
    o.split = std::move(split);
    o.advice = false;
    auto& t = o.training;
    t.replicas = replicas;
    t.microBatch = mb;
    t.gradAccum = accum;
    t.precision = Precision::Fp16;
    t.optimizer = opt;
    return o;
}

// Graphcore's BERT pretraining options (configs_pretraining.yml defaults): fp16, LAMB with its
// state off chip, sharded across replicas, recompute every layer, half partials.
inline CompileOptions bert(int ipus, std::vector<int> split, int mb, double amp, int serialization)
{
    CompileOptions o = ipuOptions(ipus, std::move(split), 4, mb, 2048, Optimizer::Lamb);
    o.training.recompute = true;
    o.training.optimizerOffChip = true;
    o.training.replicatedTensorSharding = true;
    o.training.halfPartials = true;
    o.training.availableMemoryProportion = amp;
    o.training.serializationFactor = serialization;
    return o;
}

// Graphcore's GPT-2 training benchmarks (nlp/gpt2/pytorch/benchmarks.yml): fp16 (.half()),
// AdamW with its state off chip (the script's default) and sharded, recompute every layer,
// half partials, embedding serialization 4, AMP 0.15, micro-batch 1 at sequence 1024.
inline CompileOptions gpt2Training(int ipus, std::vector<int> split, int replicas)
{
    CompileOptions o = ipuOptions(ipus, std::move(split), replicas, 1, 2048, Optimizer::AdamW);
    o.training.recompute = true;
    o.training.optimizerOffChip = true;
    o.training.replicatedTensorSharding = true;
    o.training.halfPartials = true;
    o.training.availableMemoryProportion = 0.15;
    o.training.serializationFactor = 4;
    return o;
}

// ResNet-50 (applications/pytorch/cnns, SDK 2.0 era): precision 16.16, SGD with momentum, half
// partials, one IPU, Poplar's default available memory proportion unless `amp` is given.
inline CompileOptions resnet(int mb, bool recompute, double amp = 0.6)
{
    CompileOptions o = ipuOptions(1, {}, 16, mb, 16, Optimizer::SgdMomentum);
    o.training.halfPartials = true;
    o.training.recompute = recompute;
    o.training.availableMemoryProportion = amp;
    return o;
}

} // namespace portolan::sim::fidelity
