#include "core/graph/synthetic.h"

#include "core/graph/recorder.h"

#include <cctype>
#include <torch/torch.h>

namespace portolan::graph {

namespace {

struct GptBlockImpl : torch::nn::Module
{
    GptBlockImpl(int d, int heads)
        : ln1(register_module("ln_1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})))),
          attn(register_module("attn", torch::nn::MultiheadAttention(
                                           torch::nn::MultiheadAttentionOptions(d, heads)))),
          ln2(register_module("ln_2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})))),
          fc(register_module("mlp_fc", torch::nn::Linear(d, 4 * d))),
          proj(register_module("mlp_proj", torch::nn::Linear(4 * d, d)))
    {}
    torch::Tensor forward(torch::Tensor x)
    {
        auto h = ln1(x).transpose(0, 1);
        x = x + std::get<0>(attn->forward(h, h, h, torch::Tensor(), false)).transpose(0, 1);
        return x + proj(torch::gelu(fc(ln2(x))));
    }
    torch::nn::LayerNorm ln1;
    torch::nn::MultiheadAttention attn;
    torch::nn::LayerNorm ln2;
    torch::nn::Linear fc, proj;
};
TORCH_MODULE(GptBlock);

// The name of the c-th copy of a layer: the block's own numbering continued ("h0" gives "h1",
// "h2", ...), not its position among the graph's layers (the embedding before it is layer 0, so
// numbering by position skipped "h1"); a name without a number gets one ("block" -> "block_1").
std::string copyName(const std::string& base, int c)
{
    std::size_t digits = base.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(base[digits - 1])))
        --digits;
    if (digits == base.size())
        return base + "_" + std::to_string(c);
    return base.substr(0, digits) + std::to_string(std::stoll(base.substr(digits)) + c);
}

} // namespace

void replicateLayer(OpGraph& g, int layer, int copies)
{
    int first = -1, end = -1;
    for (int i = 0; i < int(g.ops.size()); ++i)
        if (g.ops[std::size_t(i)].layer == layer) {
            if (first < 0)
                first = i;
            end = i + 1;
        }
    if (first < 0 || copies <= 1)
        return;
    const int len = end - first;
    const int extra = copies - 1;
    std::vector<Op> out(g.ops.begin(), g.ops.begin() + end);
    out.reserve(g.ops.size() + std::size_t(len * extra));
    const std::string base = g.layerNames[std::size_t(layer)];
    std::vector<std::string> names(g.layerNames.begin(), g.layerNames.begin() + layer + 1);
    for (int c = 1; c <= extra; ++c) {
        const int shift = c * len;
        const std::string name = copyName(base, c);
        names.push_back(name);
        for (int i = first; i < end; ++i) {
            Op op = g.ops[std::size_t(i)];
            op.layer = layer + c;
            auto rename = [&](std::string& s) {
                if (s.rfind(base, 0) == 0)
                    s.replace(0, base.size(), name);
            };
            rename(op.name);
            rename(op.modulePath);
            // Inside the block: the same op of this copy. Before it (the block's input, the
            // residual stream): the previous copy's output.
            for (int& p : op.inputOps)
                p = p >= first ? p + shift : first + shift - 1;
            out.push_back(std::move(op));
        }
    }
    for (int i = end; i < int(g.ops.size()); ++i) {
        Op op = g.ops[std::size_t(i)];
        op.layer += extra;
        for (int& p : op.inputOps)
            if (p >= first)
                p += len * extra;
        out.push_back(std::move(op));
    }
    for (std::size_t l = std::size_t(layer) + 1; l < g.layerNames.size(); ++l)
        names.push_back(g.layerNames[l]);
    g.ops = std::move(out);
    g.layerNames = std::move(names);
}

Result<OpGraph> recordSyntheticTransformer(const SyntheticTransformer& s)
{
    if (s.layers < 1 || s.hidden < 1 || s.heads < 1 || s.hidden % s.heads != 0 || s.sequence < 1 ||
        s.vocab < 1)
        return Result<OpGraph>::fail({Severity::Error,
                                      "compile.synthetic",
                                      "layers, hidden, heads, sequence and vocab must be positive "
                                      "and hidden divisible by heads",
                                      {}});
    torch::nn::Sequential net;
    net->push_back("wte", torch::nn::Embedding(s.vocab, s.hidden));
    net->push_back("h0", GptBlock(s.hidden, s.heads));
    net->push_back("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.hidden})));
    net->push_back("lm_head",
                   torch::nn::Linear(torch::nn::LinearOptions(s.hidden, s.vocab).bias(false)));
    auto r = recordSequential(net, torch::zeros({1, s.sequence}, torch::kLong), "gpt");
    if (!r)
        return r;
    OpGraph& g = *r.value;
    if (s.tiedHead) {
        Op& head = g.ops.back();
        head.paramCount = 0; // its weight is the embedding's
        head.paramBytes = 0;
    }
    replicateLayer(g, 1, s.layers);
    g.name = "gpt-" + std::to_string(s.layers) + "x" + std::to_string(s.hidden);
    g.origin = "synthetic: one GPT block recorded with LibTorch (hidden " +
               std::to_string(s.hidden) + ", sequence " + std::to_string(s.sequence) +
               "), replicated " + std::to_string(s.layers) + " times";
    return r;
}

} // namespace portolan::graph
