#pragma once

// Small LibTorch models for the simulator tests: an MLP, a CNN and a transformer-like model
// whose blocks are composite modules (attention with a residual), as the runtime builds them.
// Included before any Qt header (LibTorch declares a member named `slots`).

#include <torch/torch.h>

namespace portolan::test {

inline torch::nn::Sequential mlp(int in = 784, int hidden = 256, int classes = 10)
{
    torch::nn::Sequential net;
    net->push_back("flatten", torch::nn::Flatten());
    net->push_back("fc1", torch::nn::Linear(in, hidden));
    net->push_back("relu1", torch::nn::ReLU());
    net->push_back("fc2", torch::nn::Linear(hidden, hidden));
    net->push_back("relu2", torch::nn::ReLU());
    net->push_back("fc3", torch::nn::Linear(hidden, classes));
    return net;
}

inline torch::nn::Sequential cnn()
{
    using namespace torch::nn;
    Sequential net;
    net->push_back("conv1", Conv2d(Conv2dOptions(3, 16, 3).padding(1)));
    net->push_back("relu1", ReLU());
    net->push_back("pool1", MaxPool2d(MaxPool2dOptions(2)));
    net->push_back("conv2", Conv2d(Conv2dOptions(16, 32, 3).padding(1)));
    net->push_back("bn2", BatchNorm2d(32));
    net->push_back("relu2", ReLU());
    net->push_back("pool2", MaxPool2d(MaxPool2dOptions(2)));
    net->push_back("flatten", Flatten());
    net->push_back("fc", Linear(32 * 8 * 8, 10));
    return net;
}

// A pre-norm transformer block: x + attn(ln1(x)), then x + mlp(ln2(x)). Input [B, T, D].
struct BlockImpl : torch::nn::Module
{
    BlockImpl(int d, int heads)
        : ln1(register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})))),
          attn(register_module("attn", torch::nn::MultiheadAttention(
                                           torch::nn::MultiheadAttentionOptions(d, heads)))),
          ln2(register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})))),
          fc1(register_module("fc1", torch::nn::Linear(d, 4 * d))),
          fc2(register_module("fc2", torch::nn::Linear(4 * d, d)))
    {}
    torch::Tensor forward(torch::Tensor x)
    {
        auto h = ln1(x).transpose(0, 1); // MultiheadAttention is sequence-first
        auto a = std::get<0>(attn->forward(h, h, h, torch::Tensor(), false)).transpose(0, 1);
        x = x + a;
        return x + fc2(torch::gelu(fc1(ln2(x))));
    }
    torch::nn::LayerNorm ln1;
    torch::nn::MultiheadAttention attn;
    torch::nn::LayerNorm ln2;
    torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Block);

inline torch::nn::Sequential transformer(int vocab = 64, int d = 64, int heads = 4, int layers = 2)
{
    torch::nn::Sequential net;
    net->push_back("embed", torch::nn::Embedding(vocab, d));
    for (int i = 0; i < layers; ++i)
        net->push_back("block" + std::to_string(i), Block(d, heads));
    net->push_back("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
    net->push_back("head", torch::nn::Linear(d, vocab));
    return net;
}

} // namespace portolan::test
