#include "core/families/graph_builder.h"

#include "core/graph/flop_rules.h"

#include <algorithm>
#include <tuple>

namespace portolan::families {

namespace {

// Every field of two ops, for the check that a copied layer is the layer built.
bool sameOp(const graph::Op& a, const graph::Op& b)
{
    const auto fields = [](const graph::Op& o) {
        return std::tie(o.name, o.kind, o.modulePath, o.layer, o.inputShapes, o.outputShape,
                        o.dtype, o.paramCount, o.paramBytes, o.forwardFlops, o.backwardFlops,
                        o.activationBytes, o.inputBytes, o.savesInputs, o.savesOutput,
                        o.aliasesInput, o.extraSavedBytes, o.extraSavedScales, o.inputOps, o.tiedTo,
                        o.location.file, o.location.line, o.location.column);
    };
    return fields(a) == fields(b);
}

} // namespace

Shape Tensor::withLast(std::int64_t n) const
{
    Shape s = shape;
    if (s.empty())
        s.push_back(n);
    else
        s.back() = n;
    return s;
}

void GraphBuilder::beginLayer(const std::string& name)
{
    // Once the first repeated block is built, room for the others: at 80 blocks the ops vector
    // would otherwise grow a dozen times, moving every op and touching twice its final memory.
    // The layers after the blocks (a final norm, a head) take a few ops more.
    const std::size_t layer = m_g.layerNames.size();
    if (m_g.blockCount > 1 && layer == std::size_t(m_g.firstBlock) + 1) {
        const std::size_t perBlock = m_g.ops.size() - m_layerFirstOp;
        m_g.ops.reserve(m_g.ops.size() + perBlock * std::size_t(m_g.blockCount - 1) + 64);
    }
    m_layerFirstOp = m_g.ops.size();
    m_g.layerNames.push_back(name);
    m_layer = int(m_g.layerNames.size()) - 1;
    m_scope = name;
}

bool GraphBuilder::copyLayer(const LayerSpan& from, const std::string& fromName,
                             const std::string& toName, const Tensor& in, std::size_t at,
                             int counter, std::vector<graph::Op>& ops) const
{
    const int delta = int(at) - int(from.first);
    // An edge inside the layer moves with it, the edge from its input follows the new input, and
    // an edge to anything before (a condition, an encoder's output) stays.
    const auto moved = [&](int r) {
        if (r >= int(from.first))
            return r + delta;
        return r == from.in.op ? in.op : r;
    };
    ops.clear();
    ops.reserve(from.end - from.first);
    for (std::size_t i = from.first; i < from.end; ++i) {
        const graph::Op& src = m_g.ops[i];
        if (src.modulePath.compare(0, fromName.size(), fromName) != 0)
            return false;
        graph::Op& o = ops.emplace_back(src);
        o.layer = std::max(0, m_layer);
        o.modulePath.replace(0, fromName.size(), toName);
        const std::string number = std::to_string(counter++);
        o.name.clear();
        o.name.reserve(o.modulePath.size() + 1 + o.kind.size() + 1 + number.size());
        if (!o.modulePath.empty())
            o.name.append(o.modulePath).append("/");
        o.name.append(o.kind).append("#").append(number);
        for (int& r : o.inputOps)
            r = moved(r);
        if (o.tiedTo >= 0)
            o.tiedTo = moved(o.tiedTo);
    }
    return true;
}

Tensor GraphBuilder::repeatedLayers(int count, const std::string& namePrefix, Tensor x,
                                    const std::function<Tensor(const Tensor&)>& build)
{
    LayerSpan last; // the latest layer, built or copied
    std::string lastName, lastScope;
    bool verified = false, copies = true;
    std::vector<graph::Op> copy;
    for (int l = 0; l < count; ++l) {
        const std::string name = namePrefix + std::to_string(l);
        // A copy needs the same input, and edges it can tell apart: a layer fed by the graph
        // input itself is built.
        const bool sameInput = l > 0 && x.op >= 0 && last.in.op >= 0 && x.shape == last.in.shape &&
                               x.dtype == last.in.dtype;
        beginLayer(name);
        LayerSpan span{m_g.ops.size(), 0, x, {}};
        const auto outOf = [&](const LayerSpan& from) {
            Tensor t = from.out;
            if (t.op >= int(from.first))
                t.op += int(span.first) - int(from.first);
            else if (t.op == from.in.op)
                t.op = x.op;
            return t;
        };
        const auto renamed = [&](const std::string& scope) {
            return scope.compare(0, lastName.size(), lastName) == 0
                       ? name + scope.substr(lastName.size())
                       : scope;
        };
        if (copies && verified && sameInput &&
            copyLayer(last, lastName, name, x, span.first, m_counter, copy)) {
            m_counter += int(copy.size());
            std::move(copy.begin(), copy.end(), std::back_inserter(m_g.ops));
            span.out = outOf(last);
            m_scope = renamed(lastScope);
        } else {
            const int counter = m_counter;
            span.out = build(x);
            if (copies && !verified && l >= 2 && sameInput) {
                // The first layer that could have been a copy is built and compared with one.
                const bool same = copyLayer(last, lastName, name, x, span.first, counter, copy) &&
                                  copy.size() == m_g.ops.size() - span.first &&
                                  std::equal(copy.begin(), copy.end(),
                                             m_g.ops.begin() + std::ptrdiff_t(span.first), sameOp);
                const Tensor expected = outOf(last);
                verified = same && expected.op == span.out.op && expected.shape == span.out.shape &&
                           expected.dtype == span.out.dtype && renamed(lastScope) == m_scope;
                copies = verified;
            }
        }
        span.end = m_g.ops.size();
        last = std::move(span);
        lastName = name;
        lastScope = m_scope;
        x = last.out;
    }
    return x;
}

Tensor GraphBuilder::input(const Shape& shapeWithoutBatch, DType dtype)
{
    m_g.inputShape = shapeWithoutBatch;
    m_g.inputDtype = dtype;
    m_g.recordedBatch = 1;
    Shape s{1};
    s.insert(s.end(), shapeWithoutBatch.begin(), shapeWithoutBatch.end());
    return {-1, s, dtype};
}

Tensor GraphBuilder::entry(const Shape& shapeWithoutBatch, DType dtype)
{
    if (m_g.ops.empty())
        return input(shapeWithoutBatch, dtype);
    Shape s{1};
    s.insert(s.end(), shapeWithoutBatch.begin(), shapeWithoutBatch.end());
    return constant(s, dtype);
}

Tensor GraphBuilder::op(std::string_view kind, const std::vector<Tensor>& inputs, const Shape& out,
                        const std::vector<Shape>& params, DType dtype)
{
    graph::Op o;
    o.kind = std::string(kind);
    o.modulePath = m_scope;
    o.layer = std::max(0, m_layer);
    // One string built in place: a 70 B model names 4,648 ops, and each temporary of a chain of
    // `+` was an allocation of its own.
    const std::string counter = std::to_string(m_counter++);
    o.name.reserve(m_scope.size() + 1 + o.kind.size() + 1 + counter.size());
    if (!m_scope.empty())
        o.name.append(m_scope).append("/");
    o.name.append(o.kind).append("#").append(counter);
    o.inputShapes.reserve(inputs.size() + params.size());
    for (const Tensor& t : inputs) {
        o.inputShapes.push_back(t.shape);
        o.inputBytes += graph::elementCount(t.shape) * graph::dtypeBytes(t.dtype);
        if (std::find(o.inputOps.begin(), o.inputOps.end(), t.op) == o.inputOps.end())
            o.inputOps.push_back(t.op);
    }
    if (o.inputOps.empty())
        o.inputOps.push_back(-1);
    for (const Shape& p : params) {
        o.inputShapes.push_back(p);
        o.paramCount += graph::elementCount(p);
    }
    o.paramBytes = o.paramCount * 4; // parameters are created in fp32, as LibTorch records them
    if (dtype == DType::Other)
        dtype = inputs.empty() ? DType::Float32 : inputs.front().dtype;
    o.dtype = dtype;
    o.outputShape = out;
    o.activationBytes = graph::elementCount(out) * graph::dtypeBytes(dtype);
    // The rule reads the shapes where they are (moved in and back, not copied).
    graph::OpShapes shapes{std::move(o.inputShapes), std::move(o.outputShape), {}};
    const graph::OpRule rule = graph::atenRule(o.kind, shapes);
    o.inputShapes = std::move(shapes.inputs);
    o.outputShape = std::move(shapes.output);
    graph::applyRule(o, rule, 1);
    // As the TorchScript importer refines it: a tensor times a scalar keeps nothing.
    if ((o.kind == "aten::mul" || o.kind == "aten::div") && o.inputShapes.size() < 2)
        o.savesInputs = false;
    m_g.ops.push_back(std::move(o));
    return {int(m_g.ops.size()) - 1, out, dtype};
}

Tensor GraphBuilder::linear(const Tensor& x, std::int64_t outFeatures, bool bias)
{
    std::vector<Shape> params{{outFeatures, x.last()}};
    if (bias)
        params.push_back({outFeatures});
    return op("aten::linear", {x}, x.withLast(outFeatures), params);
}

Tensor GraphBuilder::embedding(const Tensor& ids, std::int64_t rows, std::int64_t dim)
{
    Shape out = ids.shape;
    out.push_back(dim);
    return op("aten::embedding", {ids}, out, {{rows, dim}}, DType::Float32);
}

Tensor GraphBuilder::layerNorm(const Tensor& x, bool bias)
{
    std::vector<Shape> params{{x.last()}};
    if (bias)
        params.push_back({x.last()});
    return op("aten::layer_norm", {x}, x.shape, params);
}

Tensor GraphBuilder::rmsNorm(const Tensor& x)
{
    // x * rsqrt(mean(x^2) + eps) * weight, op by op as LibTorch runs it.
    const Tensor sq = op("aten::pow", {x}, x.shape);
    const Tensor mean = op("aten::mean", {sq}, x.withLast(1));
    const Tensor eps = op("aten::add", {mean}, mean.shape);
    const Tensor inv = op("aten::rsqrt", {eps}, mean.shape);
    const Tensor normed = op("aten::mul", {x, inv}, x.shape);
    return op("aten::mul", {normed}, x.shape, {{x.last()}});
}

Tensor GraphBuilder::groupNorm(const Tensor& x, bool affine)
{
    const std::int64_t c = x.shape.size() > 1 ? x.shape[1] : 1;
    std::vector<Shape> params;
    if (affine)
        params = {{c}, {c}};
    return op("aten::group_norm", {x}, x.shape, params);
}

Tensor GraphBuilder::unary(std::string_view kind, const Tensor& x)
{
    return op(kind, {x}, x.shape);
}

Tensor GraphBuilder::add(const Tensor& a, const Tensor& b)
{
    return op("aten::add", {a, b},
              graph::elementCount(a.shape) >= graph::elementCount(b.shape) ? a.shape : b.shape);
}

Tensor GraphBuilder::mul(const Tensor& a, const Tensor& b)
{
    return op("aten::mul", {a, b},
              graph::elementCount(a.shape) >= graph::elementCount(b.shape) ? a.shape : b.shape);
}

Tensor GraphBuilder::scale(const Tensor& x)
{
    return op("aten::mul", {x}, x.shape);
}

Tensor GraphBuilder::view(const Tensor& x, const Shape& shape)
{
    return op("aten::view", {x}, shape);
}

Tensor GraphBuilder::copy(const Tensor& x, const Shape& shape)
{
    // A contiguous() after a transpose: a real copy, no arithmetic.
    Tensor t = op("aten::contiguous", {x}, shape);
    graph::Op& o = m_g.ops.back();
    o.aliasesInput = false;
    o.activationBytes = o.inputBytes;
    return t;
}

Tensor GraphBuilder::matmul(const Tensor& a, const Tensor& b, const Shape& out)
{
    return op("aten::matmul", {a, b}, out);
}

Tensor GraphBuilder::softmax(const Tensor& x)
{
    return op("aten::softmax", {x}, x.shape);
}

Tensor GraphBuilder::dropout(const Tensor& x, double p)
{
    if (p <= 0)
        return x; // LibTorch returns the input itself: nothing to count
    return op("aten::dropout", {x}, x.shape);
}

namespace {
std::int64_t convOut(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p)
{
    return (in + 2 * p - k) / s + 1;
}
} // namespace

Tensor GraphBuilder::conv2d(const Tensor& x, std::int64_t outChannels, std::int64_t kernel,
                            std::int64_t stride, std::int64_t padding, bool bias)
{
    // [1, C, spatial...]: 2-D or 3-D by the rank of the input.
    const Shape& s = x.shape;
    Shape out{s[0], outChannels};
    Shape weight{outChannels, s[1]};
    for (std::size_t d = 2; d < s.size(); ++d) {
        out.push_back(convOut(s[d], kernel, stride, padding));
        weight.push_back(kernel);
    }
    std::vector<Shape> params{weight};
    if (bias)
        params.push_back({outChannels});
    return op(s.size() == 5 ? "aten::conv3d" : "aten::conv2d", {x}, out, params);
}

Tensor GraphBuilder::convTranspose2d(const Tensor& x, std::int64_t outChannels, std::int64_t kernel,
                                     std::int64_t stride, bool bias)
{
    const Shape& s = x.shape;
    Shape out{s[0], outChannels};
    Shape weight{s[1], outChannels};
    for (std::size_t d = 2; d < s.size(); ++d) {
        out.push_back((s[d] - 1) * stride + kernel);
        weight.push_back(kernel);
    }
    std::vector<Shape> params{weight};
    if (bias)
        params.push_back({outChannels});
    // The rule counts each input element scattered into outChannels x kernel taps.
    return op(s.size() == 5 ? "aten::conv_transpose3d" : "aten::conv_transpose2d", {x}, out,
              params);
}

Tensor GraphBuilder::maxPool2d(const Tensor& x, std::int64_t kernel)
{
    Shape out = x.shape;
    for (std::size_t d = 2; d < out.size(); ++d)
        out[d] /= kernel;
    return op(out.size() == 5 ? "aten::max_pool3d" : "aten::max_pool2d", {x}, out);
}

Tensor GraphBuilder::concat(const std::vector<Tensor>& parts, int dim)
{
    Shape out = parts.front().shape;
    const auto d = std::size_t(dim < 0 ? int(out.size()) + dim : dim);
    out[d] = 0;
    for (const Tensor& p : parts)
        out[d] += p.shape[d];
    return op("aten::cat", parts, out);
}

Tensor GraphBuilder::constant(const Shape& shape, DType dtype)
{
    return op("aten::arange", {}, shape, {}, dtype);
}

} // namespace portolan::families
