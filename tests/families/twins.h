#pragma once

// LibTorch twins of the family architectures at a small size, written with torch::nn for the
// twin test: each is a Sequential whose forward pass the recorder traces, to compare with the
// graph the family builder emits from params. They are built from explicit sizes, not from the
// params, so a key the builder misreads shows up as a difference. Included before Qt headers.

#include <set>
#include <torch/torch.h>

namespace portolan::twins {

using torch::Tensor;

struct Spec
{
    int64_t vocab = 97, hidden = 64, heads = 4, kvHeads = 4, headDim = 16, filter = 128;
    int64_t sequence = 16, layers = 2, maxPositions = 32;
    std::string positions = "learned"; // learned, fixed, rotary, alibi, relative, none
    int64_t rotaryDim = 16;
    std::string norm = "layernorm";  // layernorm, biasless, rmsnorm
    std::string activation = "gelu"; // gelu, relu, swiglu, geglu, quick_gelu
    bool qkvBias = true, outBias = true, ffnBias = true, headBias = false;
    bool tied = true, preNorm = true, parallel = false, twoNorms = false, sandwich = false;
    bool causal = true, embeddingNorm = false, segments = false, embeddingScale = false;
    int64_t experts = 0, topK = 1;
    double dropout = 0;
};

struct NormImpl : torch::nn::Module
{
    NormImpl(std::string kind, int64_t d) : kind(std::move(kind))
    {
        weight = register_parameter("weight", torch::ones({d}));
        if (this->kind == "layernorm")
            bias = register_parameter("bias", torch::zeros({d}));
    }
    Tensor forward(Tensor x)
    {
        if (kind == "rmsnorm")
            return x * torch::rsqrt(x.pow(2).mean(-1, true) + 1e-5) * weight;
        return torch::layer_norm(x, {x.size(-1)}, weight, bias);
    }
    std::string kind;
    Tensor weight, bias;
};
TORCH_MODULE(Norm);

inline Tensor activate(const std::string& a, Tensor x)
{
    if (a == "relu" || a == "reglu")
        return torch::relu(x);
    if (a == "swiglu" || a == "silu")
        return torch::silu(x);
    if (a == "quick_gelu")
        return x * torch::sigmoid(x * 1.702);
    return torch::gelu(x);
}

inline Tensor rotateHalf(Tensor x)
{
    const int64_t half = x.size(-1) / 2;
    return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

struct AttentionImpl : torch::nn::Module
{
    AttentionImpl(const Spec& s, bool cross = false) : s(s), cross(cross)
    {
        const int64_t kv = cross ? s.heads : s.kvHeads;
        q = register_module(
            "q", torch::nn::Linear(
                     torch::nn::LinearOptions(s.hidden, s.heads * s.headDim).bias(s.qkvBias)));
        k = register_module(
            "k",
            torch::nn::Linear(torch::nn::LinearOptions(s.hidden, kv * s.headDim).bias(s.qkvBias)));
        v = register_module(
            "v",
            torch::nn::Linear(torch::nn::LinearOptions(s.hidden, kv * s.headDim).bias(s.qkvBias)));
        o = register_module(
            "o", torch::nn::Linear(
                     torch::nn::LinearOptions(s.heads * s.headDim, s.hidden).bias(s.outBias)));
    }
    Tensor rotary(Tensor t) const
    {
        const int64_t S = t.size(2), r = s.rotaryDim, D = t.size(3);
        auto pos = torch::arange(S, torch::kFloat);
        auto inv = torch::pow(10000.0, torch::arange(0, r, 2, torch::kFloat) / double(-r));
        auto freqs = torch::outer(pos, inv);
        auto emb = torch::cat({freqs, freqs}, -1);
        auto rot = r < D ? t.narrow(-1, 0, r) : t;
        auto out = rot * emb.cos() + rotateHalf(rot) * emb.sin();
        return r < D ? torch::cat({out, t.narrow(-1, r, D - r)}, -1) : out;
    }
    Tensor forward(Tensor x, Tensor memory = {}, Tensor relativeTable = {})
    {
        const int64_t B = x.size(0), S = x.size(1), h = s.heads, D = s.headDim;
        const Tensor kvIn = memory.defined() ? memory : x;
        const int64_t T = kvIn.size(1);
        const int64_t kv = cross ? h : s.kvHeads;
        auto qh = q(x).view({B, S, h, D}).transpose(1, 2);
        auto kh = k(kvIn).view({B, T, kv, D}).transpose(1, 2);
        auto vh = v(kvIn).view({B, T, kv, D}).transpose(1, 2);
        if (s.positions == "rotary" && !cross) {
            qh = rotary(qh);
            kh = rotary(kh);
        }
        if (kv != h) {
            kh = kh.unsqueeze(2).expand({B, kv, h / kv, T, D}).reshape({B, h, T, D});
            vh = vh.unsqueeze(2).expand({B, kv, h / kv, T, D}).reshape({B, h, T, D});
        }
        auto scores = torch::matmul(qh, kh.transpose(-2, -1)) / std::sqrt(double(D));
        if (s.positions == "alibi" && !cross) {
            auto dist = torch::arange(T).unsqueeze(0) - torch::arange(S).unsqueeze(1);
            auto slopes = torch::pow(2.0, torch::arange(1, h + 1, torch::kFloat) * (-8.0 / h));
            scores = scores + slopes.view({h, 1, 1}) * dist;
        }
        if (s.positions == "relative" && !cross) {
            auto dist = torch::arange(T).unsqueeze(0) - torch::arange(S).unsqueeze(1);
            auto bucket = dist.clamp(-16, 15) + 16;
            auto bias = torch::embedding(relativeTable, bucket).permute({2, 0, 1});
            scores = scores + bias;
        }
        if (s.causal && !cross) {
            auto mask = torch::ones({S, T}, torch::kBool).triu(1);
            scores = scores.masked_fill(mask, -1e4);
        }
        auto probs = torch::softmax(scores, -1);
        if (s.dropout > 0)
            probs = torch::dropout(probs, s.dropout, is_training());
        auto ctx = torch::matmul(probs, vh).transpose(1, 2).contiguous().view({B, S, h * D});
        return o(ctx);
    }
    Spec s;
    bool cross;
    torch::nn::Linear q{nullptr}, k{nullptr}, v{nullptr}, o{nullptr};
};
TORCH_MODULE(Attention);

struct MlpImpl : torch::nn::Module
{
    explicit MlpImpl(const Spec& s) : s(s)
    {
        const bool gated = s.activation.ends_with("glu");
        fc = register_module(
            "fc", torch::nn::Linear(torch::nn::LinearOptions(s.hidden, s.filter).bias(s.ffnBias)));
        if (gated)
            up = register_module(
                "up",
                torch::nn::Linear(torch::nn::LinearOptions(s.hidden, s.filter).bias(s.ffnBias)));
        proj = register_module(
            "proj",
            torch::nn::Linear(torch::nn::LinearOptions(s.filter, s.hidden).bias(s.ffnBias)));
    }
    Tensor forward(Tensor x)
    {
        auto h = activate(s.activation, fc(x));
        if (up)
            h = h * up(x);
        return proj(h);
    }
    Spec s;
    torch::nn::Linear fc{nullptr}, up{nullptr}, proj{nullptr};
};
TORCH_MODULE(Mlp);

// Top-k routing: each expert runs on the tokens routed to it, weighted, scattered back.
struct MoeImpl : torch::nn::Module
{
    explicit MoeImpl(const Spec& s) : s(s)
    {
        router = register_module(
            "router", torch::nn::Linear(torch::nn::LinearOptions(s.hidden, s.experts).bias(false)));
        for (int64_t e = 0; e < s.experts; ++e)
            experts.push_back(register_module("expert" + std::to_string(e), Mlp(s)));
    }
    Tensor forward(Tensor x)
    {
        const auto shape = x.sizes().vec();
        auto flat = x.reshape({-1, s.hidden});
        auto probs = torch::softmax(router(flat), -1);
        auto [topv, topi] = probs.topk(s.topK, -1);
        auto out = torch::zeros_like(flat);
        for (int64_t e = 0; e < s.experts; ++e) {
            auto hit = (topi == e);
            auto rows = hit.any(-1).nonzero().squeeze(-1);
            auto weight = (topv * hit).sum(-1).index_select(0, rows).unsqueeze(-1);
            auto y = experts[std::size_t(e)](flat.index_select(0, rows)) * weight;
            out = out.index_add(0, rows, y);
        }
        return out.view(shape);
    }
    Spec s;
    torch::nn::Linear router{nullptr};
    std::vector<Mlp> experts;
};
TORCH_MODULE(Moe);

struct BlockImpl : torch::nn::Module
{
    BlockImpl(const Spec& s, bool cross = false) : s(s)
    {
        ln1 = register_module("ln1", Norm(s.norm, s.hidden));
        attn = register_module("attn", Attention(s));
        if (cross) {
            lnx = register_module("lnx", Norm(s.norm, s.hidden));
            xattn = register_module("xattn", Attention(s, true));
        }
        if (!s.parallel || s.twoNorms)
            ln2 = register_module("ln2", Norm(s.norm, s.hidden));
        if (s.sandwich) {
            post1 = register_module("post1", Norm(s.norm, s.hidden));
            post2 = register_module("post2", Norm(s.norm, s.hidden));
        }
        if (s.experts > 0)
            moe = register_module("moe", Moe(s));
        else
            mlp = register_module("mlp", Mlp(s));
    }
    Tensor ffn(Tensor x) { return moe ? moe(x) : mlp(x); }
    Tensor forward(Tensor x, Tensor memory = {}, Tensor table = {})
    {
        // (Sequential calls forward(x); the defaults are declared below for AnyModule.)
        if (s.parallel) {
            auto n1 = ln1(x);
            auto n2 = s.twoNorms ? ln2(x) : n1;
            return attn->forward(n1, Tensor(), table) + ffn(n2) + x;
        }
        if (!s.preNorm) {
            x = ln1(x + attn->forward(x, Tensor(), table));
            if (xattn)
                x = lnx(x + xattn->forward(x, memory, Tensor()));
            return ln2(x + ffn(x));
        }
        auto a = attn->forward(ln1(x), Tensor(), table);
        if (s.sandwich)
            a = post1(a);
        x = x + a;
        if (xattn)
            x = x + xattn->forward(lnx(x), memory, Tensor());
        auto f = ffn(ln2(x));
        if (s.sandwich)
            f = post2(f);
        return x + f;
    }
    FORWARD_HAS_DEFAULT_ARGS({1, torch::nn::AnyValue(Tensor())}, {2, torch::nn::AnyValue(Tensor())})
    Spec s;
    Norm ln1{nullptr}, ln2{nullptr}, lnx{nullptr}, post1{nullptr}, post2{nullptr};
    Attention attn{nullptr}, xattn{nullptr};
    Mlp mlp{nullptr};
    Moe moe{nullptr};
};
TORCH_MODULE(Block);

// Decoder-only LM: embeddings, blocks, final norm, head (tied to the embedding or not).
struct EmbedImpl : torch::nn::Module
{
    explicit EmbedImpl(const Spec& s) : s(s)
    {
        wte = register_module("wte", torch::nn::Embedding(s.vocab, s.hidden));
        if (s.positions == "learned")
            wpe = register_module("wpe", torch::nn::Embedding(s.maxPositions, s.hidden));
        if (s.segments)
            seg = register_module("seg", torch::nn::Embedding(2, s.hidden));
        if (s.embeddingNorm)
            ln = register_module("ln", Norm("layernorm", s.hidden));
    }
    Tensor forward(Tensor ids)
    {
        auto x = wte(ids);
        const int64_t S = ids.size(1);
        if (wpe)
            x = x + wpe(torch::arange(S).unsqueeze(0));
        if (s.positions == "fixed")
            x = x + torch::zeros({1, S, s.hidden});
        if (seg)
            x = x + seg(torch::zeros({1, S}, torch::kLong));
        if (s.embeddingScale)
            x = x * 2.0;
        if (ln)
            x = ln(x);
        return x;
    }
    Spec s;
    torch::nn::Embedding wte{nullptr}, wpe{nullptr}, seg{nullptr};
    Norm ln{nullptr};
};
TORCH_MODULE(Embed);

// A module without children is recorded as one opaque op; these wrappers have an (empty) child
// so that the recorder traces their ATen ops, as it does for the blocks.
struct FinalNormImpl : torch::nn::Module
{
    FinalNormImpl(const std::string& kind, int64_t d)
    {
        norm = register_module("norm", Norm(kind, d));
    }
    Tensor forward(Tensor x) { return norm(x); }
    Norm norm{nullptr};
};
TORCH_MODULE(FinalNorm);

struct HeadImpl : torch::nn::Module
{
    HeadImpl(const Spec& s, Tensor tiedWeight)
    {
        register_module("traced", torch::nn::Identity());
        // A tied weight is registered here too, so the tracer sees it as an input (a constant
        // that requires grad cannot be traced); the test counts unique parameters.
        weight = register_parameter(
            "weight", tiedWeight.defined() ? tiedWeight : torch::randn({s.vocab, s.hidden}) * 0.02);
        if (s.headBias)
            bias = register_parameter("bias", torch::zeros({s.vocab}));
    }
    Tensor forward(Tensor x) { return torch::linear(x, weight, bias); }
    Tensor weight, bias;
};
TORCH_MODULE(Head);

inline torch::nn::Sequential decoder(const Spec& s)
{
    torch::nn::Sequential net;
    Embed emb(s);
    net->push_back("embeddings", emb);
    for (int64_t l = 0; l < s.layers; ++l)
        net->push_back("h" + std::to_string(l), Block(s));
    net->push_back("ln_f", FinalNorm(s.norm, s.hidden));
    net->push_back("lm_head", Head(s, s.tied ? emb->wte->weight : Tensor()));
    return net;
}

// Unique parameters (a tied weight once).
inline int64_t uniqueParameters(const torch::nn::Module& m)
{
    std::set<const void*> seen;
    int64_t n = 0;
    for (const auto& p : m.parameters())
        if (seen.insert(p.data_ptr()).second)
            n += p.numel();
    return n;
}

} // namespace portolan::twins
