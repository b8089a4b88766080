#include "core/graph/torchscript.h"

#include "core/graph/script_import.h"

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

} // namespace

Result<OpGraph> recordTorchScript(const std::filesystem::path& file, const Shape& inputShape,
                                  DType inputDtype)
{
    if (inputShape.empty())
        return Result<OpGraph>::fail(
            error("compile.bad-shape", "an input shape with a batch dimension is needed", file));
    auto module = loadTorchScript(file);
    if (!module)
        return Result<OpGraph>::fail(module.error);
    // The model as it is compiled for: in eval mode, as a TorchScript file given with an input
    // shape is an inference model unless its trace says otherwise (trace constants win).
    module.value->eval();
    ScriptImportOptions o;
    o.name = file.stem().string();
    o.origin = "torchscript";
    o.file = file.string();
    o.inputs.emplace_back(
        torch::zeros(inputShape, torch::TensorOptions().dtype(scalarTypeOf(inputDtype))));
    return importScriptModule(*module.value, o);
}

} // namespace portolan::graph
