#include "core/runtime/blocks.h"

#include <cmath>
#include <limits>
#include <torch/nn/functional/activation.h>
#include <torch/nn/init.h>
#include <torch/torch.h>

namespace portolan::runtime {

PositionalEncodingImpl::PositionalEncodingImpl(int64_t dModel, int64_t maxLen)
    : m_dModel(dModel), m_maxLen(maxLen)
{
    reset();
}

void PositionalEncodingImpl::reset()
{
    torch::NoGradGuard noGrad;
    auto positions = torch::arange(m_maxLen, torch::kFloat32).unsqueeze(1);
    auto frequencies = torch::exp(torch::arange(0, m_dModel, 2).to(torch::kFloat32) *
                                  (-std::log(10000.0) / double(m_dModel)));
    auto table = torch::zeros({1, m_maxLen, m_dModel});
    using torch::indexing::None;
    using torch::indexing::Slice;
    table.index_put_({0, Slice(), Slice(0, None, 2)}, torch::sin(positions * frequencies));
    // An odd d_model has one column fewer of cosines, as in the Python formula.
    const int64_t cosColumns = m_dModel / 2;
    table.index_put_({0, Slice(), Slice(1, None, 2)},
                     torch::cos(positions * frequencies).narrow(1, 0, cosColumns));
    m_table = register_buffer("pe", table);
}

torch::Tensor PositionalEncodingImpl::forward(const torch::Tensor& x)
{
    return x + m_table.narrow(1, 0, x.size(1));
}

CausalEncoderLayerImpl::CausalEncoderLayerImpl(int64_t dModel, int64_t numHeads,
                                               int64_t feedForward, double dropout,
                                               std::string activation)
    : m_dModel(dModel), m_numHeads(numHeads), m_feedForward(feedForward), m_dropout(dropout),
      m_activation(std::move(activation))
{
    reset();
}

void CausalEncoderLayerImpl::reset()
{
    // Same construction order as torch.nn.TransformerEncoderLayer: attention, linear1,
    // linear2, norms; so that a given seed gives the same initial weights.
    in_proj_weight = register_parameter("in_proj_weight", torch::empty({3 * m_dModel, m_dModel}));
    in_proj_bias = register_parameter("in_proj_bias", torch::empty({3 * m_dModel}));
    out_proj = register_module("out_proj", torch::nn::Linear(m_dModel, m_dModel));
    linear1 = register_module("linear1", torch::nn::Linear(m_dModel, m_feedForward));
    linear2 = register_module("linear2", torch::nn::Linear(m_feedForward, m_dModel));
    norm1 = register_module(
        "norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({m_dModel}).eps(1e-5)));
    norm2 = register_module(
        "norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({m_dModel}).eps(1e-5)));
    torch::NoGradGuard noGrad;
    torch::nn::init::xavier_uniform_(in_proj_weight);
    in_proj_bias.zero_();
    out_proj->bias.zero_();
    m_mask = torch::Tensor();
}

const torch::Tensor& CausalEncoderLayerImpl::causalMask(int64_t seqLen,
                                                        const torch::TensorOptions& options)
{
    if (!m_mask.defined() || m_mask.size(0) != seqLen || m_mask.dtype() != options.dtype()) {
        // The samples' mask: torch.finfo(float16).min above the diagonal, which drives the
        // softmax weight to zero without the NaNs that -inf gives in fp16.
        const double fp16Min = -65504.0;
        m_mask = torch::triu(torch::full({seqLen, seqLen}, fp16Min, options), 1);
    }
    return m_mask;
}

torch::Tensor CausalEncoderLayerImpl::forward(const torch::Tensor& x)
{
    const int64_t batch = x.size(0);
    const int64_t seq = x.size(1);
    const int64_t headDim = m_dModel / m_numHeads;
    const bool drop = is_training() && m_dropout > 0.0;

    // Self-attention: one fused projection for q, k and v, then [batch*heads, seq, head_dim].
    auto qkv = torch::linear(x, in_proj_weight, in_proj_bias)
                   .view({batch, seq, 3, m_numHeads, headDim})
                   .permute({2, 0, 3, 1, 4});
    auto q = qkv[0].reshape({batch * m_numHeads, seq, headDim});
    auto k = qkv[1].reshape({batch * m_numHeads, seq, headDim});
    auto v = qkv[2].reshape({batch * m_numHeads, seq, headDim});
    q = q * (1.0 / std::sqrt(double(headDim)));
    // mask + q k^T in one kernel, as PyTorch's multi_head_attention_forward does.
    auto weights = torch::baddbmm(causalMask(seq, x.options()), q, k.transpose(1, 2));
    weights = torch::softmax(weights, -1);
    if (drop)
        weights = torch::dropout(weights, m_dropout, true);
    auto attended = torch::bmm(weights, v)
                        .view({batch, m_numHeads, seq, headDim})
                        .transpose(1, 2)
                        .reshape({batch, seq, m_dModel});
    auto attention = out_proj->forward(attended);
    if (drop)
        attention = torch::dropout(attention, m_dropout, true);
    auto h = norm1->forward(x + attention);

    auto ff = linear1->forward(h);
    ff = m_activation == "gelu" ? torch::gelu(ff) : torch::relu(ff);
    if (drop)
        ff = torch::dropout(ff, m_dropout, true);
    ff = linear2->forward(ff);
    if (drop)
        ff = torch::dropout(ff, m_dropout, true);
    return norm2->forward(h + ff);
}

} // namespace portolan::runtime
