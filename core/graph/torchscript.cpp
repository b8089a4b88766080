#include "core/graph/torchscript.h"

#include "core/graph/jit_ops.h"

#include <fstream>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/symbolic_shape_analysis.h>
#include <torch/script.h>

namespace portolan::graph {

namespace {

Diagnostic error(const std::string& code, const std::string& message,
                 const std::filesystem::path& file)
{
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = code;
    d.message = message;
    d.location.file = file.string();
    return d;
}

std::string firstLine(std::string s)
{
    if (auto nl = s.find('\n'); nl != std::string::npos)
        s.resize(nl);
    return s;
}

c10::ScalarType scalarType(DType t)
{
    switch (t) {
    case DType::Float16:
        return c10::ScalarType::Half;
    case DType::BFloat16:
        return c10::ScalarType::BFloat16;
    case DType::Float64:
        return c10::ScalarType::Double;
    case DType::Int64:
        return c10::ScalarType::Long;
    case DType::Int32:
        return c10::ScalarType::Int;
    default:
        return c10::ScalarType::Float;
    }
}

} // namespace

Result<Shape> parseShape(const std::string& text)
{
    Shape shape;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        auto end = text.find_first_of(",x", pos);
        if (end == std::string::npos)
            end = text.size();
        const std::string part = text.substr(pos, end - pos);
        std::int64_t v = 0;
        bool ok = !part.empty();
        for (char c : part)
            if (c < '0' || c > '9')
                ok = false;
        if (ok) {
            try {
                v = std::stoll(part);
            } catch (...) {
                ok = false;
            }
        }
        if (!ok || v <= 0) {
            Diagnostic d{Severity::Error,
                         "compile.bad-shape",
                         "input shape '" + text + "': element '" + part +
                             "' is not a positive integer",
                         {"", 1, int(pos) + 1}};
            return Result<Shape>::fail(d);
        }
        shape.push_back(v);
        pos = end + 1;
    }
    return Result<Shape>::ok(shape);
}

Result<OpGraph> recordTorchScript(const std::filesystem::path& file, const Shape& inputShape,
                                  DType inputDtype)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        return Result<OpGraph>::fail(error("compile.unreadable", "no such TorchScript file", file));
    if (inputShape.empty())
        return Result<OpGraph>::fail(
            error("compile.bad-shape", "an input shape with a batch dimension is needed", file));
    torch::jit::Module module;
    try {
        module = torch::jit::load(file.string());
    } catch (const std::exception& e) {
        return Result<OpGraph>::fail(
            error("compile.corrupt-torchscript",
                  "not a readable TorchScript archive: " + firstLine(e.what()), file));
    }
    const auto example =
        torch::zeros(inputShape, torch::TensorOptions().dtype(scalarType(inputDtype)));
    try {
        torch::NoGradGuard noGrad;
        module.eval();
        module.forward({example});
    } catch (const std::exception& e) {
        return Result<OpGraph>::fail(error("compile.bad-shape",
                                           "the model does not accept an input of shape " +
                                               shapeToString(inputShape) + ": " +
                                               firstLine(e.what()),
                                           file));
    }
    std::shared_ptr<torch::jit::Graph> g;
    try {
        auto frozen = torch::jit::freeze_module(module);
        g = frozen.get_method("forward").graph()->copy();
        torch::jit::Inline(*g);
        const auto inputs = g->inputs();
        std::size_t tensorInputs = 0;
        for (std::size_t i = 1; i < inputs.size(); ++i)
            ++tensorInputs;
        if (tensorInputs != 1)
            return Result<OpGraph>::fail(
                error("compile.inputs",
                      "the model's forward takes " + std::to_string(tensorInputs) +
                          " inputs; only single-input models can be compiled",
                      file));
        inputs[1]->setType(c10::TensorType::create(example));
        torch::jit::PropagateShapesOnGraph(g);
    } catch (const std::exception& e) {
        return Result<OpGraph>::fail(error(
            "compile.torchscript", "could not analyse the graph: " + firstLine(e.what()), file));
    }
    OpGraph graph;
    graph.name = file.stem().string();
    graph.origin = "torchscript";
    graph.recordedBatch = inputShape.front();
    graph.inputShape = Shape(inputShape.begin() + 1, inputShape.end());
    graph.inputDtype = inputDtype;
    JitImportContext ctx;
    ctx.batch = inputShape.front();
    ctx.file = file.string();
    ctx.moduleLayers = true;
    ctx.inputProducers[g->inputs()[1]] = -1;
    appendJitGraph(*g, ctx, graph);
    if (graph.layerNames.empty())
        graph.layerNames.push_back("forward");
    return Result<OpGraph>::ok(std::move(graph));
}

} // namespace portolan::graph
