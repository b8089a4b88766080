#pragma once
// Custom modules for the sample models: the ones torch::nn does not offer in the exact form the
// Python code uses (batch-first post-norm encoder layer with a causal mask built inside, the
// sinusoidal position table). Each has forward(Tensor) -> Tensor so it sits in a Sequential.
#include <string>
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

namespace portolan::runtime {

// x + pe[:, :seq_len], with pe the fixed sinusoidal table [1, max_len, d] of the samples.
class PositionalEncodingImpl : public torch::nn::Cloneable<PositionalEncodingImpl>
{
public:
    PositionalEncodingImpl(int64_t dModel, int64_t maxLen);
    void reset() override;
    torch::Tensor forward(const torch::Tensor& x);

    int64_t m_dModel;
    int64_t m_maxLen;
    torch::Tensor m_table;
};
TORCH_MODULE(PositionalEncoding);

// One post-norm transformer encoder layer, batch-first, like torch.nn.TransformerEncoderLayer(
// d_model, nhead, dim_feedforward, dropout, activation, batch_first=True) called with the
// additive causal mask the samples build (smallest finite fp16 value above the diagonal).
// Parameter names and initialisation follow PyTorch's (in_proj xavier-uniform with zero bias,
// out_proj zero bias), so the memory and FLOP counts match the Python model.
class CausalEncoderLayerImpl : public torch::nn::Cloneable<CausalEncoderLayerImpl>
{
public:
    CausalEncoderLayerImpl(int64_t dModel, int64_t numHeads, int64_t feedForward, double dropout,
                           std::string activation);
    void reset() override;
    torch::Tensor forward(const torch::Tensor& x);

    int64_t m_dModel;
    int64_t m_numHeads;
    int64_t m_feedForward;
    double m_dropout;
    std::string m_activation; // "relu" or "gelu"

    torch::Tensor in_proj_weight; // [3d, d]
    torch::Tensor in_proj_bias;   // [3d]
    torch::nn::Linear out_proj{nullptr};
    torch::nn::Linear linear1{nullptr};
    torch::nn::Linear linear2{nullptr};
    torch::nn::LayerNorm norm1{nullptr};
    torch::nn::LayerNorm norm2{nullptr};

private:
    const torch::Tensor& causalMask(int64_t seqLen, const torch::TensorOptions& options);
    torch::Tensor m_mask; // cached per sequence length; not state
};
TORCH_MODULE(CausalEncoderLayer);

} // namespace portolan::runtime
