#include "core/families/transformer.h"

#include <algorithm>

namespace portolan::families {

bool isGated(Activation a)
{
    return a == Activation::SwiGlu || a == Activation::GeGlu || a == Activation::ReGlu;
}

Tensor norm(GraphBuilder& b, Norm kind, const Tensor& x)
{
    switch (kind) {
    case Norm::LayerNorm:
        return b.layerNorm(x, true);
    case Norm::BiaslessLayerNorm:
        return b.layerNorm(x, false);
    case Norm::RmsNorm:
        return b.rmsNorm(x);
    }
    return x;
}

Tensor activate(GraphBuilder& b, Activation a, const Tensor& x)
{
    switch (a) {
    case Activation::Gelu:
    case Activation::GeGlu:
        return b.unary("aten::gelu", x);
    case Activation::QuickGelu: {
        // x * sigmoid(1.702 x)
        const Tensor s = b.unary("aten::sigmoid", b.scale(x));
        return b.mul(x, s);
    }
    case Activation::Relu:
    case Activation::ReGlu:
        return b.unary("aten::relu", x);
    case Activation::Silu:
    case Activation::SwiGlu:
        return b.unary("aten::silu", x);
    case Activation::Tanh:
        return b.unary("aten::tanh", x);
    }
    return x;
}

namespace {

// rotate-half rotary embedding on t [1, h, S, D] over its first `r` channels.
Tensor rotary(GraphBuilder& b, const Tensor& t, std::int64_t r)
{
    const Shape& s = t.shape;
    const Shape rotShape{s[0], s[1], s[2], r};
    const Shape halfShape{s[0], s[1], s[2], r / 2};
    const Tensor rot = r < s[3] ? b.view(t, rotShape) : t; // a slice: a view
    const Tensor x2 = b.view(rot, halfShape);
    const Tensor neg = b.op("aten::neg", {x2}, halfShape);
    const Tensor rotated = b.concat({neg, b.view(rot, halfShape)}, -1);
    const Tensor cos = b.mul(rot, b.constant({s[2], r}, DType::Float32));
    const Tensor sin = b.mul(rotated, b.constant({s[2], r}, DType::Float32));
    Tensor out = b.add(cos, sin);
    if (r >= s[3])
        return out;
    return b.concat({out, b.view(t, {s[0], s[1], s[2], s[3] - r})}, -1);
}

} // namespace

Tensor attention(GraphBuilder& b, const AttentionSpec& a, const Tensor& x, const Tensor* memory)
{
    const std::string base = b.currentScope();
    const std::int64_t S = x.shape[1];
    const Tensor& kvIn = memory ? *memory : x;
    const std::int64_t T = kvIn.shape[1];
    const std::int64_t D = a.headDim;
    const std::int64_t h = a.heads, kv = a.kvHeads;

    b.scope(base + ".q");
    Tensor q = b.linear(x, h * D, a.qkvBias);
    b.scope(base + ".k");
    Tensor k = b.linear(kvIn, kv * D, a.qkvBias);
    b.scope(base + ".v");
    Tensor v = b.linear(kvIn, kv * D, a.qkvBias);
    b.scope(base);
    // [1, S, h*D] -> [1, h, S, D]: a view and a transpose (a view too).
    q = b.view(b.view(q, {1, S, h, D}), {1, h, S, D});
    k = b.view(b.view(k, {1, T, kv, D}), {1, kv, T, D});
    v = b.view(b.view(v, {1, T, kv, D}), {1, kv, T, D});
    if (a.positions == Positions::Rotary && a.rotaryDim > 0 && !memory) {
        const std::int64_t r = std::min(a.rotaryDim, D);
        q = rotary(b, q, r);
        k = rotary(b, k, r);
    }
    if (kv != h) {
        // Each key/value head serves h/kv query heads: an expand, then a reshape.
        k = b.view(k, {1, h, T, D});
        v = b.view(v, {1, h, T, D});
    }
    const Tensor kt = b.view(k, {1, h, D, T});
    Tensor scores = b.matmul(q, kt, {1, h, S, T});
    scores = b.op("aten::div", {scores}, scores.shape);
    if (a.positions == Positions::Alibi) {
        // slope x (j - i): the distance matrix, the per-head slopes, added to the scores.
        const Tensor dist = b.op("aten::sub", {b.constant({S, 1}, DType::Int64)}, {S, T});
        const Tensor bias = b.op("aten::mul", {dist}, {h, S, T});
        scores = b.add(scores, bias);
    } else if (a.positions == Positions::Relative && !memory) {
        // Distance buckets (three elementwise steps), a lookup in the per-head table, added.
        Tensor bucket =
            b.op("aten::sub", {b.constant({S, 1}, DType::Int64)}, {S, T}, {}, DType::Int64);
        bucket = b.op("aten::clamp", {bucket}, {S, T}, {}, DType::Int64);
        bucket = b.op("aten::add", {bucket}, {S, T}, {}, DType::Int64);
        Tensor bias = a.ownsRelativeTable ? b.embedding(bucket, a.relativeBuckets, h)
                                          : b.op("aten::embedding", {bucket}, {S, T, h});
        bias = b.view(bias, {1, h, S, T});
        scores = b.add(scores, bias);
    }
    if (a.causal && !memory)
        scores = b.op("aten::masked_fill", {scores}, scores.shape);
    Tensor probs = b.softmax(scores);
    probs = b.dropout(probs, a.dropout);
    Tensor ctx = b.matmul(probs, v, {1, h, S, D});
    ctx = b.copy(b.view(ctx, {1, S, h, D}), {1, S, h, D});
    ctx = b.view(ctx, {1, S, h * D});
    b.scope(base + ".out");
    Tensor out = b.linear(ctx, a.hidden, a.outBias);
    b.scope(base);
    return out;
}

Tensor mlp(GraphBuilder& b, const MlpSpec& m, const Tensor& x)
{
    const std::string base = b.currentScope();
    Tensor hdn;
    if (isGated(m.activation)) {
        b.scope(base + ".gate");
        const Tensor gate = b.linear(x, m.filter, m.bias);
        b.scope(base + ".up");
        const Tensor up = b.linear(x, m.filter, m.bias);
        b.scope(base);
        hdn = b.mul(activate(b, m.activation, gate), up);
    } else {
        b.scope(base + ".fc");
        hdn = b.linear(x, m.filter, m.bias);
        b.scope(base);
        hdn = activate(b, m.activation, hdn);
    }
    hdn = b.dropout(hdn, m.dropout);
    b.scope(base + ".proj");
    Tensor out = b.linear(hdn, m.hidden, m.bias);
    b.scope(base);
    return out;
}

std::int64_t expertTokens(std::int64_t tokens, int topK, int experts, int expert)
{
    const std::int64_t total = tokens * topK;
    return total / experts + (expert < total % experts ? 1 : 0);
}

Tensor moe(GraphBuilder& b, const MlpSpec& m, const MoeSpec& e, const Tensor& x)
{
    const std::string base = b.currentScope();
    const std::int64_t S = x.shape[1];
    b.scope(base + ".router");
    const Tensor logits = b.linear(x, e.experts, false);
    const Tensor probs = b.softmax(logits);
    b.op("aten::topk", {probs}, {1, S, e.topK});
    Tensor sum;
    for (int i = 0; i < e.experts + e.sharedExperts; ++i) {
        const bool shared = i >= e.experts;
        b.scope(base + (shared ? ".shared" + std::to_string(i - e.experts)
                               : ".experts." + std::to_string(i)));
        const std::int64_t n = shared ? S : expertTokens(S, e.topK, e.experts, i);
        // The tokens routed here (a gather), the expert, its routing weight, scattered back.
        const Tensor in = b.op("aten::index_select", {x}, {1, n, x.last()});
        Tensor y = mlp(b, m, in);
        if (!shared)
            y = b.mul(y, b.constant({1, n, 1}, DType::Float32));
        sum =
            b.op("aten::index_add",
                 sum.shape.empty() ? std::vector<Tensor>{y} : std::vector<Tensor>{sum, y}, x.shape);
    }
    b.scope(base);
    return sum;
}

Tensor block(GraphBuilder& b, const BlockSpec& s, const Tensor& x, const Tensor* memory)
{
    const std::string base = b.currentScope();
    const auto scoped = [&](const std::string& part) {
        b.scope(base + "." + part);
    };
    const auto ffn = [&](const Tensor& in) {
        return s.moe.experts > 0 ? moe(b, s.mlp, s.moe, in) : mlp(b, s.mlp, in);
    };
    if (s.parallel) {
        scoped("ln_1");
        const Tensor n1 = norm(b, s.norm, x);
        Tensor n2 = n1;
        if (s.parallelTwoNorms) {
            scoped("ln_2");
            n2 = norm(b, s.norm, x);
        }
        scoped("attn");
        const Tensor a = attention(b, s.attention, n1);
        scoped("mlp");
        const Tensor m = ffn(n2);
        b.scope(base);
        return b.add(b.add(a, m), x);
    }
    Tensor h = x;
    const auto sublayer = [&](const std::string& name, auto&& f) {
        if (s.preNorm) {
            scoped("ln_" + name);
            Tensor y = f(norm(b, s.norm, h));
            if (s.sandwich) {
                scoped("ln_post_" + name);
                y = norm(b, s.norm, y);
            }
            y = b.dropout(y, s.residualDropout);
            b.scope(base);
            h = b.add(h, y);
        } else {
            Tensor y = f(h);
            y = b.dropout(y, s.residualDropout);
            b.scope(base);
            h = b.add(h, y);
            scoped("ln_" + name);
            h = norm(b, s.norm, h);
        }
    };
    sublayer("attn", [&](const Tensor& in) {
        scoped("attn");
        return attention(b, s.attention, in);
    });
    if (s.crossAttention && memory) {
        AttentionSpec cross = s.attention;
        cross.causal = false;
        cross.positions = Positions::None;
        cross.kvHeads = cross.heads;
        sublayer("cross", [&](const Tensor& in) {
            scoped("cross_attn");
            return attention(b, cross, in, memory);
        });
    }
    sublayer("mlp", [&](const Tensor& in) {
        scoped("mlp");
        return ffn(in);
    });
    b.scope(base);
    return h;
}

} // namespace portolan::families
