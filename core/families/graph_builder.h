#pragma once

// Emits op graphs from architecture numbers, without allocating a tensor (internal to
// core/families). Every op goes through the recorder's own FLOP and saved-tensor rules
// (core/graph/flop_rules.h) with the same input/output conventions as a recorded ATen op, so a
// built graph and the LibTorch recording of the same architecture count alike. Shapes carry a
// batch of 1, so per-sample figures are the op's own.

#include "core/graph/op_graph.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::families {

using graph::DType;
using graph::Shape;

// A tensor flowing between ops: the op that produced it (-1 for the graph input), its shape and
// element type.
struct Tensor
{
    int op = -1;
    Shape shape;
    DType dtype = DType::Float32;

    std::int64_t last() const { return shape.empty() ? 1 : shape.back(); }
    Shape withLast(std::int64_t n) const; // same shape, last dimension n
};

class GraphBuilder
{
public:
    explicit GraphBuilder(graph::OpGraph& g) : m_g(g) {}

    // Starts a top-level layer (the unit of a user's pipeline split) and sets the module path.
    void beginLayer(const std::string& name);
    // Module path of the next ops, under the current layer ("h3.attn").
    void scope(const std::string& path) { m_scope = path; }
    const std::string& currentScope() const { return m_scope; }
    int layerCount() const { return int(m_g.layerNames.size()); }

    // `count` layers named namePrefix + index (the repeated blocks), each emitted by
    // `build(x)` under its layer's scope, the output of one the input of the next. `build` must
    // emit the same ops for an input of the same shape and type, apart from the names. The first
    // three are built op by op; from the fourth, a layer whose input has the shape and type of
    // the previous layer's input is a copy of that layer (its ops renamed, its edges moved),
    // which is what building it again emits: the third is built and compared with such a copy
    // first, and a difference builds them all. At 80 blocks, building each one op by op was most
    // of a 70 B model's build.
    Tensor repeatedLayers(int count, const std::string& namePrefix, Tensor x,
                          const std::function<Tensor(const Tensor&)>& build);

    // The model input: token ids [1, S] (int64) or an image [1, C, H, W].
    Tensor input(const Shape& shapeWithoutBatch, DType dtype);
    // The graph input when nothing has been emitted yet, else a further input of a composite
    // model (LLaVA's text after its image) as a constant.
    Tensor entry(const Shape& shapeWithoutBatch, DType dtype);

    // One ATen-style op. `params` are parameter shapes (weight first); the rule for `kind` gives
    // FLOPs and what backward keeps. Outputs take `dtype` (the first input's by default).
    Tensor op(std::string_view kind, const std::vector<Tensor>& inputs, const Shape& out,
              const std::vector<Shape>& params = {}, DType dtype = DType::Other);

    // Common ops.
    Tensor linear(const Tensor& x, std::int64_t outFeatures, bool bias);
    Tensor embedding(const Tensor& ids, std::int64_t rows, std::int64_t dim);
    Tensor layerNorm(const Tensor& x, bool bias = true);
    Tensor rmsNorm(const Tensor& x); // pow, mean, add, rsqrt, mul, mul by the weight
    Tensor groupNorm(const Tensor& x, bool affine = true);
    Tensor unary(std::string_view kind, const Tensor& x); // gelu, relu, silu, tanh, sigmoid...
    Tensor add(const Tensor& a, const Tensor& b);
    Tensor mul(const Tensor& a, const Tensor& b);
    Tensor scale(const Tensor& x); // times a scalar (kept for nothing in backward)
    Tensor view(const Tensor& x, const Shape& shape);
    Tensor copy(const Tensor& x, const Shape& shape); // a layout change that copies (contiguous)
    Tensor matmul(const Tensor& a, const Tensor& b, const Shape& out);
    Tensor softmax(const Tensor& x);
    Tensor dropout(const Tensor& x, double p); // no op when p == 0, as in LibTorch
    Tensor conv2d(const Tensor& x, std::int64_t outChannels, std::int64_t kernel,
                  std::int64_t stride, std::int64_t padding, bool bias);
    Tensor convTranspose2d(const Tensor& x, std::int64_t outChannels, std::int64_t kernel,
                           std::int64_t stride, bool bias);
    Tensor maxPool2d(const Tensor& x, std::int64_t kernel);
    Tensor concat(const std::vector<Tensor>& parts, int dim);
    // A tensor computed from no model tensor (position ids, masks): a zero-cost graph input
    // stand-in whose bytes count as an activation.
    Tensor constant(const Shape& shape, DType dtype);

    // The last op emitted, for callers that adjust it (tied weights).
    graph::Op& lastOp() { return m_g.ops.back(); }
    int lastIndex() const { return int(m_g.ops.size()) - 1; }

private:
    // A layer as built: its ops [first, end) and the tensors in and out.
    struct LayerSpan
    {
        std::size_t first = 0, end = 0;
        Tensor in, out;
    };
    // The ops of `from` renamed for the current layer (`fromName` -> `toName`), numbered from
    // `counter`, and their edges moved to follow input `in` with the copy's first op at index
    // `at`, into `ops`; false when a module path is not under `fromName`.
    bool copyLayer(const LayerSpan& from, const std::string& fromName, const std::string& toName,
                   const Tensor& in, std::size_t at, int counter,
                   std::vector<graph::Op>& ops) const;

    graph::OpGraph& m_g;
    std::string m_scope;
    int m_layer = -1;
    int m_counter = 0;
    std::size_t m_layerFirstOp = 0; // the current layer's first op
};

} // namespace portolan::families
