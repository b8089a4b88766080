#include "core/graph/recorder.h"

#include "core/graph/flop_rules.h"
#include "core/graph/jit_ops.h"

#include <torch/csrc/jit/frontend/tracer.h>

namespace portolan::graph {

namespace {

DType dtypeOf(const torch::Tensor& t)
{
    switch (t.scalar_type()) {
    case torch::kFloat:
        return DType::Float32;
    case torch::kHalf:
        return DType::Float16;
    case torch::kBFloat16:
        return DType::BFloat16;
    case torch::kDouble:
        return DType::Float64;
    case torch::kLong:
        return DType::Int64;
    case torch::kInt:
        return DType::Int32;
    case torch::kBool:
        return DType::Bool;
    default:
        return DType::Other;
    }
}

Shape shapeOf(const torch::Tensor& t)
{
    return Shape(t.sizes().begin(), t.sizes().end());
}

std::string childPath(const std::string& prefix, const std::string& name)
{
    return prefix.empty() ? name : prefix + "." + name;
}

struct Recorder
{
    OpGraph& graph;
    std::int64_t batch = 1;
    int layer = 0;
    int lastOp = -1; // producer of the tensor flowing along the chain

    void leaf(const std::shared_ptr<torch::nn::Module>& m, const std::string& path,
              const torch::Tensor& in, const torch::Tensor& outTensor)
    {
        Op op;
        op.kind = cleanModuleName(m->name());
        op.modulePath = path;
        op.name = path;
        op.layer = layer;
        op.inputShapes = {shapeOf(in)};
        op.outputShape = shapeOf(outTensor);
        op.dtype = dtypeOf(outTensor);
        OpShapes shapes{op.inputShapes, op.outputShape, {}};
        for (const auto& p : m->parameters(true)) {
            op.paramCount += p.numel();
            op.paramBytes += std::int64_t(p.nbytes());
            shapes.params.push_back(shapeOf(p));
        }
        op.inputBytes = std::int64_t(in.nbytes()) / batch;
        op.activationBytes = std::int64_t(outTensor.nbytes()) / batch;
        op.inputOps = {lastOp};
        OpRule rule = moduleRule(op.kind, shapes);
        if (auto d = std::dynamic_pointer_cast<torch::nn::DropoutImpl>(m);
            d && (d->options.p() == 0.0 || !d->is_training())) {
            rule = OpRule{};
            rule.aliasesInput = true; // returns its input unchanged
        }
        applyRule(op, rule, batch);
        if (!rule.known) {
            // No rule for this module type: count it like a dense layer over its parameters, and
            // say so, rather than pretend it is free.
            const double rows = op.outputShape.empty()
                                    ? 1.0
                                    : double(elementCount(op.outputShape)) /
                                          double(std::max<std::int64_t>(1, op.outputShape.back()));
            op.forwardFlops = 2.0 * double(op.paramCount) * rows / double(batch);
            op.backwardFlops = 2.0 * op.forwardFlops;
            Diagnostic d;
            d.severity = Severity::Info;
            d.code = "compile.no-flop-rule";
            d.message = "no FLOP rule for module type " + op.kind + " at " + path +
                        "; FLOPs estimated from its parameters";
            graph.diagnostics.push_back(std::move(d));
        }
        lastOp = int(graph.ops.size());
        graph.ops.push_back(std::move(op));
    }

    // A composite module that is not a Sequential: trace its forward to see its ATen ops.
    bool traced(torch::nn::AnyModule& any, const std::string& path, const torch::Tensor& in,
                torch::Tensor& outTensor)
    {
        auto m = any.ptr();
        std::vector<torch::Tensor> params = m->parameters(true);
        torch::jit::Stack inputs;
        inputs.emplace_back(in);
        for (const auto& p : params)
            inputs.emplace_back(p);
        try {
            auto [state, outputs] = torch::jit::tracer::trace(
                inputs,
                [&any](const torch::jit::Stack& s) {
                    return torch::jit::Stack{any.forward(s.at(0).toTensor())};
                },
                [](const torch::autograd::Variable&) { return std::string(); }, false);
            outTensor = outputs.at(0).toTensor();
            JitImportContext ctx;
            ctx.pathPrefix = path;
            ctx.layer = layer;
            ctx.batch = batch;
            auto graphInputs = state->graph->inputs();
            ctx.inputProducers[graphInputs.at(0)] = lastOp;
            for (std::size_t i = 1; i < graphInputs.size() && i - 1 < params.size(); ++i)
                ctx.paramInputs[graphInputs[i]] = params[i - 1];
            const auto before = graph.ops.size();
            appendJitGraph(*state->graph, ctx, graph);
            if (graph.ops.size() > before)
                lastOp = int(graph.ops.size()) - 1;
            return true;
        } catch (const std::exception&) {
            torch::jit::tracer::abandon();
            return false;
        }
    }

    torch::Tensor run(torch::nn::AnyModule& any, const std::string& path, const torch::Tensor& in)
    {
        auto m = any.ptr();
        if (auto seq = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(m)) {
            torch::Tensor x = in;
            std::size_t i = 0;
            auto names = seq->named_children();
            for (auto& child : *seq) {
                const std::string name = i < names.size() ? names[i].key() : std::to_string(i);
                x = run(child, childPath(path, name), x);
                ++i;
            }
            return x;
        }
        torch::Tensor out;
        if (!m->children().empty() && traced(any, path, in, out))
            return out;
        out = any.forward(in);
        leaf(m, path, in, out);
        return out;
    }
};

} // namespace

Result<OpGraph> recordSequential(torch::nn::Sequential net, const torch::Tensor& example,
                                 const std::string& name, const ProgressCallback& progress)
{
    OpGraph graph;
    graph.name = name;
    graph.origin = "libtorch";
    if (!example.defined() || example.dim() < 1) {
        Diagnostic d{Severity::Error,
                     "compile.bad-input",
                     "the example input must have a batch dimension",
                     {}};
        return Result<OpGraph>::fail(d);
    }
    graph.recordedBatch = example.size(0);
    graph.inputShape = Shape(example.sizes().begin() + 1, example.sizes().end());
    graph.inputDtype = dtypeOf(example);
    torch::NoGradGuard noGrad;
    Recorder rec{graph, std::max<std::int64_t>(1, example.size(0))};
    torch::Tensor x = example;
    auto children = net->named_children();
    std::size_t i = 0;
    try {
        for (auto& child : *net) {
            const std::string childName =
                i < children.size() ? children[i].key() : std::to_string(i);
            graph.layerNames.push_back(childName);
            rec.layer = int(i);
            x = rec.run(child, childName, x);
            ++i;
            if (progress && !progress(i, net->size())) {
                Diagnostic d{Severity::Error, "compile.cancelled", "recording was cancelled", {}};
                return Result<OpGraph>::fail(d);
            }
        }
    } catch (const std::exception& e) {
        std::string what = e.what();
        if (auto nl = what.find('\n'); nl != std::string::npos)
            what.resize(nl); // LibTorch appends a C++ backtrace after the first line
        Diagnostic d{Severity::Error,
                     "compile.forward-failed",
                     "the forward pass failed in layer '" +
                         (i < children.size() ? children[i].key() : std::to_string(i)) +
                         "' with input " + shapeToString(shapeOf(x)) + ": " + what,
                     {}};
        return Result<OpGraph>::fail(d);
    }
    return Result<OpGraph>::ok(std::move(graph));
}

} // namespace portolan::graph
