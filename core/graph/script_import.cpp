#include "core/graph/script_import.h"

#include "core/common/number_format.h"
#include "core/graph/jit_ops.h"

#include <optional>
#include <set>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/runtime/interpreter.h>

namespace portolan::graph {

namespace {

using torch::jit::Node;
using torch::jit::Value;

std::string firstLine(std::string s)
{
    if (auto nl = s.find('\n'); nl != std::string::npos)
        s.resize(nl);
    return s;
}

Shape shapeOf(const at::Tensor& t)
{
    return Shape(t.sizes().begin(), t.sizes().end());
}

DType dtypeOf(const at::Tensor& t)
{
    switch (t.scalar_type()) {
    case at::kFloat:
        return DType::Float32;
    case at::kHalf:
        return DType::Float16;
    case at::kBFloat16:
        return DType::BFloat16;
    case at::kDouble:
        return DType::Float64;
    case at::kLong:
        return DType::Int64;
    case at::kInt:
        return DType::Int32;
    case at::kBool:
        return DType::Bool;
    default:
        return DType::Other;
    }
}

std::string describeInputs(const std::vector<torch::jit::IValue>& inputs)
{
    std::string s;
    for (const auto& i : inputs) {
        if (!s.empty())
            s += ", ";
        s += i.isTensor() ? shapeToString(shapeOf(i.toTensor())) : i.tagKind();
    }
    return s;
}

// Parameters and buffers reach the inlined graph through chains of prim::GetAttr from `self`.
void resolveAttributes(torch::jit::Block* block,
                       std::unordered_map<const Value*, c10::IValue>& objects,
                       JitImportContext& ctx)
{
    for (Node* n : block->nodes()) {
        for (torch::jit::Block* b : n->blocks())
            resolveAttributes(b, objects, ctx);
        if (n->kind() != c10::prim::GetAttr)
            continue;
        const auto it = objects.find(n->input(0));
        if (it == objects.end() || !it->second.isObject())
            continue;
        const auto obj = it->second.toObject();
        const auto type = obj->type();
        const auto slot = type->findAttributeSlot(n->s(c10::attr::name));
        if (!slot)
            continue;
        const c10::IValue value = obj->getSlot(*slot);
        if (value.isObject())
            objects[n->output()] = value;
        else if (value.isTensor())
            (type->is_parameter(*slot) ? ctx.paramInputs : ctx.bufferInputs)[n->output()] =
                value.toTensor();
    }
}

} // namespace

c10::ScalarType scalarTypeOf(DType t)
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
    case DType::Int8:
        return c10::ScalarType::Char;
    case DType::Bool:
        return c10::ScalarType::Bool;
    default:
        return c10::ScalarType::Float;
    }
}

Result<torch::jit::Module> loadTorchScript(const std::filesystem::path& file)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        return Result<torch::jit::Module>::fail(
            {Severity::Error, "compile.unreadable", "no such TorchScript file", {file.string()}});
    try {
        return Result<torch::jit::Module>::ok(torch::jit::load(file.string()));
    } catch (const std::exception& e) {
        return Result<torch::jit::Module>::fail(
            {Severity::Error,
             "compile.corrupt-torchscript",
             "not a readable TorchScript archive: " + firstLine(e.what()),
             {file.string()}});
    }
}

std::vector<CaptureModule> scriptModules(const torch::jit::Module& module)
{
    std::vector<CaptureModule> out;
    for (const auto& nm : module.named_modules()) {
        CaptureModule m;
        m.path = nm.name;
        if (const auto& name = nm.value.type()->name())
            m.type = name->qualifiedName();
        for (const auto& p : nm.value.named_parameters(/*recurse=*/false)) {
            m.params += p.value.numel();
            m.paramBytes += std::int64_t(p.value.nbytes());
        }
        m.trainableParams = m.params;
        m.leaf = nm.value.children().size() == 0;
        out.push_back(std::move(m));
    }
    return out;
}

namespace {

// Runs the model as it is, then its graph once more with every op's tensor output as an extra
// output, and gives each value the complete type of what it held. A message when either fails.
std::optional<Diagnostic> recordValueTypes(torch::jit::Module& module,
                                           const torch::jit::Module& frozen,
                                           const std::shared_ptr<torch::jit::Graph>& graph,
                                           const ScriptImportOptions& o)
{
    torch::jit::Graph& g = *graph;
    const auto fail = [&](const std::string& code, const std::string& message) {
        return Diagnostic{Severity::Error, code, message, {o.file, 0, 0}};
    };
    std::vector<Value*> recorded;
    for (Node* n : g.nodes()) {
        if (n->kind() == c10::prim::Constant || n->kind() == c10::prim::GetAttr)
            continue;
        for (Value* v : n->outputs())
            if (v->type()->cast<c10::TensorType>())
                recorded.push_back(v);
    }
    // The model itself runs first, so that inputs it does not accept are reported as it reports
    // them (an exception inside the instrumented graph below is not always survivable).
    try {
        torch::NoGradGuard noGrad;
        module.forward(o.inputs);
    } catch (const std::exception& e) {
        const bool one = o.inputs.size() == 1 && o.inputs.front().isTensor();
        return fail("compile.bad-shape", std::string("the model does not accept ") +
                                             (one ? "an input of shape " : "inputs ") +
                                             describeInputs(o.inputs) + ": " + firstLine(e.what()));
    }
    const std::size_t baseOutputs = g.outputs().size();
    for (Value* v : recorded)
        g.registerOutput(v);
    torch::jit::Stack stack;
    stack.emplace_back(frozen._ivalue());
    for (const auto& i : o.inputs)
        stack.push_back(i);
    try {
        torch::NoGradGuard noGrad;
        torch::jit::Code code(graph, "portolan_shapes");
        torch::jit::InterpreterState state(code);
        state.run(stack);
    } catch (const std::exception& e) {
        return fail("compile.torchscript",
                    "could not run the graph to record its shapes: " + firstLine(e.what()));
    }
    for (std::size_t i = 0; i < o.inputs.size(); ++i)
        if (o.inputs[i].isTensor())
            g.inputs()[i + 1]->setType(c10::TensorType::create(o.inputs[i].toTensor()));
    if (stack.size() == baseOutputs + recorded.size())
        for (std::size_t i = 0; i < recorded.size(); ++i)
            if (const auto& v = stack[baseOutputs + i]; v.isTensor())
                recorded[i]->setType(c10::TensorType::create(v.toTensor()));
    stack.clear();
    for (std::size_t i = g.outputs().size(); i-- > baseOutputs;)
        g.eraseOutput(i);
    return std::nullopt;
}

// The first tensor input past the batch dimension gives the recorded batch (where the capture
// says: dimension 1 for a sequence-first model) and the per-sample shape, the rest of it.
void takeInputShape(const ScriptImportOptions& o, OpGraph& graph)
{
    for (const auto& i : o.inputs)
        if (i.isTensor() && i.toTensor().dim() > o.batchDim) {
            const at::Tensor& t = i.toTensor();
            Shape sizes(t.sizes().begin(), t.sizes().end());
            graph.recordedBatch = o.batch.value_or(sizes[std::size_t(o.batchDim)]);
            sizes.erase(sizes.begin() + o.batchDim);
            graph.inputShape = sizes;
            graph.inputDtype = dtypeOf(t);
            return;
        }
}

// Parameters the traced forward never reads still take memory: say how many.
void warnOfUnusedParameters(const torch::jit::Module& module, const std::string& file,
                            OpGraph& graph)
{
    std::set<const void*> seen;
    std::int64_t all = 0;
    for (const auto& p : module.parameters())
        if (p.is_floating_point() && seen.insert(p.unsafeGetTensorImpl()).second)
            all += p.numel();
    if (all <= graph.totalParams())
        return;
    Diagnostic d;
    d.severity = Severity::Warning;
    d.code = "compile.unused-parameters";
    d.message = std::to_string(all - graph.totalParams()) + " of the model's " +
                std::to_string(all) +
                " parameters are not used by its forward pass; they are not counted";
    d.location.file = file;
    graph.diagnostics.push_back(std::move(d));
}

} // namespace

// The phases: freeze and inline, check the inputs, record every value's type by running the
// graph, then translate the graph op by op (appendJitGraph) into the module's layers.
Result<OpGraph> importScriptModule(torch::jit::Module& module, const ScriptImportOptions& o,
                                   std::vector<std::string>* layerUnits)
{
    const auto fail = [&](const std::string& code, const std::string& message) {
        Diagnostic d{Severity::Error, code, message, {o.file, 0, 0}};
        return Result<OpGraph>::fail(std::move(d));
    };
    // Freezing folds attributes (strings, flags, buffers) into constants, so that a scripted
    // module's branches on them (Conv2d's padding_mode) fold away; parameters stay attributes
    // and are resolved below, so that they are told apart from buffers and counted once.
    std::shared_ptr<torch::jit::Graph> g;
    torch::jit::Module frozen;
    try {
        frozen = torch::jit::freeze_module(module, {}, true, /*preserveParameters=*/true);
        g = frozen.get_method("forward").graph()->copy();
        torch::jit::Inline(*g);
    } catch (const std::exception& e) {
        return fail("compile.torchscript", "could not analyse the graph: " + firstLine(e.what()));
    }
    const std::size_t declared = g->inputs().size() - 1; // after `self`
    if (declared != o.inputs.size())
        return fail("compile.inputs", "the model's forward takes " +
                                          format::counted(long(declared), "input") + ", but " +
                                          std::to_string(o.inputs.size()) +
                                          (o.inputs.size() == 1 ? " was" : " were") + " given (" +
                                          describeInputs(o.inputs) + ")");

    JitImportContext ctx;
    std::unordered_map<const Value*, c10::IValue> objects{{g->inputs()[0], frozen._ivalue()}};
    resolveAttributes(g->block(), objects, ctx);
    if (auto failed = recordValueTypes(module, frozen, g, o))
        return Result<OpGraph>::fail(std::move(*failed));

    OpGraph graph;
    graph.name = o.name;
    graph.origin = o.origin;
    takeInputShape(o, graph);
    const CaptureLayering layering =
        captureLayering(o.modules.empty() ? scriptModules(module) : o.modules);
    ctx.batch = graph.recordedBatch;
    ctx.file = o.file;
    ctx.moduleLayers = true;
    ctx.layerUnit = [&layering](const std::string& path) {
        return layering.unitOf(path);
    };
    for (std::size_t i = 1; i < g->inputs().size(); ++i)
        ctx.inputProducers[g->inputs()[i]] = -1;
    appendJitGraph(*g, ctx, graph);
    if (layerUnits)
        *layerUnits = graph.layerNames;
    for (auto& name : graph.layerNames)
        if (name.empty())
            name = "forward";
    if (graph.layerNames.empty())
        graph.layerNames.push_back("forward");
    warnOfUnusedParameters(module, o.file, graph);
    return Result<OpGraph>::ok(std::move(graph));
}

} // namespace portolan::graph
