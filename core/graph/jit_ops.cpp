#include "core/graph/jit_ops.h"

#include "core/graph/flop_rules.h"

#include <algorithm>
#include <set>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/scope.h>

namespace portolan::graph {

namespace {

using torch::jit::Node;
using torch::jit::Value;

DType toDType(c10::optional<c10::ScalarType> t)
{
    if (!t)
        return DType::Float32;
    switch (*t) {
    case c10::ScalarType::Float:
        return DType::Float32;
    case c10::ScalarType::Half:
        return DType::Float16;
    case c10::ScalarType::BFloat16:
        return DType::BFloat16;
    case c10::ScalarType::Double:
        return DType::Float64;
    case c10::ScalarType::Long:
        return DType::Int64;
    case c10::ScalarType::Int:
        return DType::Int32;
    case c10::ScalarType::Char:
    case c10::ScalarType::Byte:
        return DType::Int8;
    case c10::ScalarType::Bool:
        return DType::Bool;
    default:
        return DType::Other;
    }
}

std::optional<Shape> concreteShape(const Value* v)
{
    auto t = v->type()->cast<c10::TensorType>();
    if (!t)
        return std::nullopt;
    auto sizes = t->sizes().concrete_sizes();
    if (!sizes)
        return std::nullopt;
    return Shape(sizes->begin(), sizes->end());
}

bool isTensor(const Value* v)
{
    return v->type()->cast<c10::TensorType>() != nullptr;
}

SourceLocation locationOf(const Node* n, const std::string& fallbackFile)
{
    SourceLocation loc;
    loc.file = fallbackFile;
    const auto& range = n->sourceRange();
    if (auto flc = range.file_line_col()) {
        auto [file, line, col] = *flc;
        if (!file.empty())
            loc.file = file;
        loc.line = int(line);
        loc.column = int(col) + 1; // TorchScript columns are 0-based
    }
    return loc;
}

// Instance names from the inlined call stack: "features.0" for a conv inside features[0].
std::vector<std::string> moduleInstances(const Node* n)
{
    std::vector<std::string> names;
    if (auto cs = n->callstack()) {
        for (const auto& entry : (*cs)->vec()) {
            const auto& info = std::get<2>(entry);
            if (info && !info->instance_name().empty())
                names.push_back(info->instance_name());
        }
    }
    return names;
}

std::string join(const std::vector<std::string>& parts)
{
    std::string out;
    for (const auto& p : parts) {
        if (!out.empty())
            out += '.';
        out += p;
    }
    return out;
}

struct Importer
{
    JitImportContext& ctx;
    OpGraph& out;
    std::unordered_map<const Value*, std::vector<int>> producers;
    std::set<const void*> countedParams; // TensorImpl: a shared parameter counts once
    // Parameters packed into a list (aten::lstm's weights): counted by the op that reads it.
    std::unordered_map<const Value*, std::vector<std::pair<at::Tensor, bool>>> listParams;
    std::unordered_map<std::string, int> kindCounts;

    // Parameters reaching a node as graph inputs (traced) or attributes of the module (a
    // TorchScript file); `trained` says whether they count as parameters. Frozen constants of a
    // scripted module were parameters when frozen; other constants and buffers are not.
    std::optional<at::Tensor> paramOf(const Value* v, bool& trained)
    {
        trained = true;
        if (auto it = ctx.paramInputs.find(v); it != ctx.paramInputs.end())
            return it->second;
        trained = false;
        if (auto it = ctx.bufferInputs.find(v); it != ctx.bufferInputs.end())
            return it->second;
        const Node* def = v->node();
        if (def->kind() == c10::prim::Constant && isTensor(v) &&
            def->hasAttribute(c10::attr::value))
            return def->t(c10::attr::value);
        return std::nullopt;
    }

    std::vector<int> producersOf(const Value* v)
    {
        if (auto it = ctx.inputProducers.find(v); it != ctx.inputProducers.end())
            return {it->second};
        if (auto it = producers.find(v); it != producers.end())
            return it->second;
        return {};
    }

    void controlFlow(const Node* n)
    {
        Diagnostic d;
        d.severity = Severity::Warning;
        d.code = "compile.control-flow";
        d.message = std::string("data-dependent control flow (") + n->kind().toQualString() +
                    ") cannot be compiled into a static IPU or CS graph; only the ops outside "
                    "it are counted";
        d.location = locationOf(n, ctx.file);
        out.diagnostics.push_back(std::move(d));
    }

    int layerFor(const std::vector<std::string>& instances, const std::string& modulePath)
    {
        if (!ctx.moduleLayers)
            return ctx.layer;
        const std::string top = ctx.layerUnit       ? ctx.layerUnit(modulePath)
                                : instances.empty() ? std::string()
                                                    : instances.front();
        if (top.empty())
            return out.layerNames.empty() ? 0 : int(out.layerNames.size()) - 1;
        if (out.layerNames.empty() || out.layerNames.back() != top)
            out.layerNames.push_back(top);
        return int(out.layerNames.size()) - 1;
    }

    // Corrections the op kind alone cannot make: in-place ops write into their input's storage;
    // a tensor times a scalar keeps nothing for backward; contiguous() copies only after a
    // layout-changing view; dropout with p = 0 or in eval mode returns its input.
    void refineSaved(const Node* n, Op& op)
    {
        const std::string& k = op.kind;
        if (k.size() > 1 && k.back() == '_' && k[k.size() - 2] != '_') {
            op.aliasesInput = true;
            op.activationBytes = 0;
        }
        if ((k == "aten::mul" || k == "aten::div") && op.inputShapes.size() < 2)
            op.savesInputs = false;
        if (k == "aten::contiguous" && !op.inputOps.empty() && op.inputOps.front() >= 0) {
            const std::string& pk = out.ops[std::size_t(op.inputOps.front())].kind;
            static const std::set<std::string> layout{
                "aten::transpose", "aten::permute", "aten::t",      "prim::ListUnpack",
                "aten::select",    "aten::slice",   "aten::expand", "aten::narrow"};
            if (layout.count(pk)) {
                op.aliasesInput = false;
                op.activationBytes = op.inputBytes;
            }
        }
        if ((k == "aten::dropout" || k == "aten::feature_dropout") && n->inputs().size() >= 3) {
            const auto p = torch::jit::toIValue(n->input(1));
            const auto train = torch::jit::toIValue(n->input(2));
            const bool noop = (p && p->isDouble() && p->toDouble() == 0.0) ||
                              (train && train->isBool() && !train->toBool());
            if (noop) {
                op.aliasesInput = true;
                op.activationBytes = 0;
                op.extraSavedBytes = 0;
                op.extraSavedScales = false;
                op.forwardFlops = op.backwardFlops = 0;
            }
        }
    }

    void node(const Node* n)
    {
        if (n->kind() == c10::prim::If || n->kind() == c10::prim::Loop) {
            controlFlow(n);
            for (const Value* o : n->outputs()) {
                std::vector<int> all;
                for (const Value* i : n->inputs())
                    for (int p : producersOf(i))
                        all.push_back(p);
                producers[o] = all;
            }
            return;
        }
        std::vector<int> inputOps;
        std::vector<Shape> inputShapes;
        std::int64_t paramCount = 0, paramBytes = 0, inputBytes = 0;
        std::vector<std::pair<at::Tensor, bool>> params; // (parameter, trained), in order
        std::vector<Shape> listShapes;                   // those that came in a list
        for (const Value* in : n->inputs()) {
            bool trained = false;
            if (auto p = paramOf(in, trained)) {
                inputShapes.push_back(Shape(p->sizes().begin(), p->sizes().end()));
                params.emplace_back(*p, trained);
                continue;
            }
            if (auto it = listParams.find(in); it != listParams.end())
                for (const auto& [p, t] : it->second) {
                    listShapes.push_back(Shape(p.sizes().begin(), p.sizes().end()));
                    params.emplace_back(p, t);
                }
            for (int p : producersOf(in))
                if (std::find(inputOps.begin(), inputOps.end(), p) == inputOps.end())
                    inputOps.push_back(p);
            if (auto s = concreteShape(in)) {
                inputShapes.push_back(*s);
                inputBytes +=
                    elementCount(*s) *
                    dtypeBytes(toDType(in->type()->cast<c10::TensorType>()->scalarType()));
            }
        }
        const Value* firstTensor = nullptr;
        for (const Value* o : n->outputs())
            if (isTensor(o)) {
                firstTensor = o;
                break;
            }
        if (!firstTensor) {
            // Lists, sizes, scalars: not ops, but tensors flow through them (chunk, cat lists).
            for (const Value* o : n->outputs()) {
                producers[o] = inputOps;
                if (!params.empty())
                    listParams[o] = params;
            }
            return;
        }
        if (n->kind() == c10::prim::Constant || n->kind() == c10::prim::GetAttr)
            return; // parameters, buffers and constants: read by the ops that use them
        for (const auto& [p, trained] : params)
            if (trained && p.is_floating_point() &&
                countedParams.insert(p.unsafeGetTensorImpl()).second) {
                paramCount += p.numel();
                paramBytes += std::int64_t(p.nbytes());
            }

        Op op;
        op.kind = n->kind().toQualString();
        const auto instances = moduleInstances(n);
        op.modulePath =
            ctx.pathPrefix.empty()
                ? join(instances)
                : (instances.empty() ? ctx.pathPrefix : ctx.pathPrefix + "." + join(instances));
        op.layer = layerFor(instances, op.modulePath);
        op.name = (op.modulePath.empty() ? std::string() : op.modulePath + "/") + op.kind + "#" +
                  std::to_string(kindCounts[op.kind]++);
        op.location = locationOf(n, ctx.file);
        op.inputShapes = std::move(inputShapes);
        op.inputOps = inputOps.empty() ? std::vector<int>{-1} : inputOps;
        op.paramCount = paramCount;
        op.paramBytes = paramBytes;
        const double b = double(std::max<std::int64_t>(1, ctx.batch));
        op.inputBytes = std::int64_t(double(inputBytes) / b);
        std::int64_t outBytes = 0;
        bool shapesKnown = true;
        for (const Value* o : n->outputs()) {
            if (!isTensor(o))
                continue;
            auto s = concreteShape(o);
            if (!s) {
                shapesKnown = false;
                continue;
            }
            if (op.outputShape.empty() && o == firstTensor)
                op.outputShape = *s;
            outBytes += elementCount(*s) *
                        dtypeBytes(toDType(o->type()->cast<c10::TensorType>()->scalarType()));
        }
        op.dtype = toDType(firstTensor->type()->cast<c10::TensorType>()->scalarType());
        op.activationBytes = std::int64_t(double(outBytes) / b);
        OpShapes shapes{op.inputShapes, op.outputShape, listShapes};
        const bool unpack =
            n->kind() == c10::prim::ListUnpack || n->kind() == c10::prim::TupleUnpack;
        OpRule rule = unpack ? OpRule{0, false, false, true, 0, true} : atenRule(op.kind, shapes);
        applyRule(op, rule, ctx.batch);
        refineSaved(n, op);
        if (!shapesKnown) {
            Diagnostic d;
            d.severity = Severity::Warning;
            d.code = "compile.unknown-shape";
            d.message = "the output shape of " + op.kind +
                        " could not be inferred; its memory and FLOPs are not counted";
            d.location = op.location;
            out.diagnostics.push_back(std::move(d));
        }
        const int index = int(out.ops.size());
        out.ops.push_back(std::move(op));
        for (const Value* o : n->outputs())
            producers[o] = {index};
    }
};

} // namespace

void appendJitGraph(const torch::jit::Graph& graph, JitImportContext& ctx, OpGraph& out)
{
    Importer imp{ctx, out, {}, {}, {}};
    for (const Node* n : graph.nodes())
        imp.node(n);
}

} // namespace portolan::graph
