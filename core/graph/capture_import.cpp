#include "core/graph/capture_import.h"

#include "core/graph/script_import.h"

#include <functional>

namespace portolan::graph {

// Example inputs of the recorded shapes: floats are random, integers (token ids, labels) zero so
// that they index any table, and masks one so that nothing is masked out.
Result<std::vector<torch::jit::IValue>> captureExampleInputs(const Capture& c)
{
    std::vector<torch::jit::IValue> out;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
        const auto& t = c.inputs[i];
        if (!t.shape)
            return Result<std::vector<torch::jit::IValue>>::fail(
                {Severity::Error,
                 "capture.inputs",
                 "capture.json: inputs[" + std::to_string(i) + "] (" + t.name +
                     ") has no shape, so the model cannot be run",
                 {c.file.string()}});
        const DType d = dtypeFromName(t.dtype.empty() ? std::string("float32") : t.dtype);
        const auto options = torch::TensorOptions().dtype(scalarTypeOf(d));
        const bool mask = t.name.find("mask") != std::string::npos;
        if (d == DType::Float32 || d == DType::Float16 || d == DType::BFloat16 ||
            d == DType::Float64)
            out.emplace_back(mask ? torch::ones(*t.shape, options)
                                  : torch::randn(*t.shape, options));
        else
            out.emplace_back(mask ? torch::ones(*t.shape, options)
                                  : torch::zeros(*t.shape, options));
    }
    if (c.inputStructure.empty())
        return Result<std::vector<torch::jit::IValue>>::ok(std::move(out));
    // Nested arguments: a tuple argument becomes a tuple of the inputs it names.
    std::function<torch::jit::IValue(const CaptureArgument&)> build =
        [&](const CaptureArgument& a) -> torch::jit::IValue {
        if (a.input >= 0)
            return out[std::size_t(a.input)];
        std::vector<torch::jit::IValue> items;
        for (const auto& item : a.items)
            items.push_back(build(item));
        return c10::ivalue::Tuple::create(std::move(items));
    };
    std::vector<torch::jit::IValue> arguments;
    for (const auto& a : c.inputStructure)
        arguments.push_back(build(a));
    return Result<std::vector<torch::jit::IValue>>::ok(std::move(arguments));
}

Result<OpGraph> importCapture(const Capture& c)
{
    std::error_code ec;
    if (!c.trace || !std::filesystem::is_regular_file(*c.trace, ec))
        return graphFromModules(c);
    auto module = loadTorchScript(*c.trace);
    if (!module)
        return Result<OpGraph>::fail(module.error);
    module.value->train(c.training);
    auto inputs = captureExampleInputs(c);
    if (!inputs)
        return Result<OpGraph>::fail(inputs.error);
    ScriptImportOptions o;
    const auto dot = c.modelClass.rfind('.');
    o.name = c.modelClass.empty() ? std::string("model")
                                  : c.modelClass.substr(dot == std::string::npos ? 0 : dot + 1);
    o.origin = c.origin();
    o.file = c.trace->string();
    o.inputs = std::move(*inputs.value);
    o.modules = c.modules;
    o.batch = c.dryRunBatch;
    o.batchDim = c.batchDim;
    torch::manual_seed(0);
    std::vector<std::string> layerUnits;
    auto g = importScriptModule(*module.value, o, &layerUnits);
    if (!g)
        return g;
    g.value->declaredSplit = declaredSplit(c, captureLayering(c.modules), layerUnits);
    const std::int64_t declared = c.totalParams();
    if (declared > 0 && declared != g.value->totalParams()) {
        Diagnostic d;
        d.severity = Severity::Info;
        d.code = "capture.parameters";
        d.message = "the capture lists " + std::to_string(declared) +
                    " parameters; the traced forward uses " +
                    std::to_string(g.value->totalParams());
        d.location.file = c.file.string();
        g.value->diagnostics.push_back(std::move(d));
    }
    return g;
}

Result<OpGraph> importCapture(const std::filesystem::path& dirOrFile)
{
    auto c = loadCapture(dirOrFile);
    if (!c)
        return Result<OpGraph>::fail(c.error);
    return importCapture(*c.value);
}

} // namespace portolan::graph
