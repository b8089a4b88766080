#include "core/port/gradient_clip.h"

#include "core/common/resources.h"
#include "core/port/static_branch.h"

#include <cstring>
#include <yaml-cpp/yaml.h>

namespace portolan::port::detail {

namespace {

std::string nodeText(const SourceFile& src, TSNode n)
{
    return ts_node_is_null(n) ? std::string() : src.text(n);
}

} // namespace

std::optional<GradientClip> gradientClip(const PortPlan& plan, const Slicer& slicer,
                                         const StepCode& sc)
{
    // One optimizer (a hand-written SGD update counts: the port makes it an SGD optimizer).
    if (sc.between.size() != 1 || plan.optimizers.size() != 1 || plan.optimizers[0].closure)
        return std::nullopt;
    const SourceFile& src = slicer.source();
    const Stmt* s = sc.between.front();
    const TSNode call = ts_node_named_child(s->node, 0);
    if (s->type != "expression_statement" || ts_node_is_null(call) ||
        std::strcmp(ts_node_type(call), "call") != 0)
        return std::nullopt;
    // The callee as written (`clip_grad_norm_`, `nn.utils.clip_grad_norm_`, ...): torch's.
    const std::string callee = nodeText(src, ts_node_child_by_field_name(call, "function", 8));
    const std::string name =
        callee.substr(callee.rfind('.') == std::string::npos ? 0 : callee.rfind('.') + 1);
    GradientClip clip;
    clip.at = s;
    if (name == "clip_grad_norm_" || name == "clip_grad_norm")
        clip.kind = "norm";
    else if (name == "clip_grad_value_")
        clip.kind = "value";
    else
        return std::nullopt;
    // Its arguments: the parameters, then the limit; a norm other than the 2-norm is not the
    // targets' clip.
    const TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
    TSNode params{}, limit{};
    int positional = 0;
    for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
        const TSNode a = ts_node_named_child(args, i);
        if (std::strcmp(ts_node_type(a), "keyword_argument") == 0) {
            const std::string key = nodeText(src, ts_node_child_by_field_name(a, "name", 4));
            const TSNode value = ts_node_child_by_field_name(a, "value", 5);
            if (key == "parameters")
                params = value;
            else if (key == "max_norm" || key == "clip_value")
                limit = value;
            else if (key == "norm_type" && nodeText(src, value) != "2" &&
                     nodeText(src, value) != "2.0")
                return std::nullopt;
            else if (key != "norm_type" && key != "error_if_nonfinite" && key != "foreach")
                return std::nullopt;
            continue;
        }
        if (positional == 0)
            params = a;
        else if (positional == 1)
            limit = a;
        else if (clip.kind == "norm" && positional == 2 && nodeText(src, a) != "2" &&
                 nodeText(src, a) != "2.0")
            return std::nullopt;
        ++positional;
    }
    // The parameters the optimizer trains: the model's, as the target clips them.
    const std::string p = nodeText(src, params);
    const bool model = (!plan.modelVariable.empty() && p == plan.modelVariable + ".parameters()") ||
                       (!plan.modelBinding.empty() && p == plan.modelBinding + ".parameters()");
    if (!model || ts_node_is_null(limit))
        return std::nullopt;
    clip.limit = nodeText(src, limit);
    clip.limitNode = limit;
    return clip;
}

std::optional<ClipForm> clipForm(const std::string& contract, const std::string& kind)
{
    // Read at each generation (a few milliseconds at most): no state shared between threads.
    YAML::Node root;
    try {
        root = YAML::LoadFile((resourcesDir() / "contracts" / (contract + ".yaml")).string());
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (!root.IsMap() || !root["port"] || !root["port"]["gradient-clipping"])
        return std::nullopt;
    const YAML::Node n = root["port"]["gradient-clipping"][kind];
    if (!n || !n.IsMap())
        return std::nullopt;
    ClipForm f;
    f.config = n["config"] ? n["config"].as<std::string>() : "";
    f.argument = n["argument"] ? n["argument"].as<std::string>() : "";
    f.source = n["source"] ? n["source"].as<std::string>() : "";
    if (const YAML::Node o = n["optimizers"]; o && o.IsMap())
        for (const auto& kv : o)
            f.optimizers[kv.first.as<std::string>()] = kv.second.as<std::string>();
    return f;
}

std::vector<std::string> dropUntakenBetween(const PortPlan& plan, const SourceFile& src,
                                            std::vector<const Stmt*>& between)
{
    std::vector<std::string> notes;
    const StaticBranches branches(plan, src);
    std::erase_if(between, [&](const Stmt* s) {
        if (s->type != "if_statement" || !s->other.empty() || ts_node_is_null(s->condition))
            return false;
        const auto runs = branches.holds(s->condition);
        if (!runs || *runs)
            return false;
        notes.push_back("`if " + src.text(s->condition) + ":` between backward() and the step (" +
                        plan.entry + ":" + std::to_string(s->line) +
                        ") does not run with the original's flags, so the port leaves it out; "
                        "with flags that make it run, write it in the target's form (gradient "
                        "clipping: the optimizer's max_grad_norm)");
        return true;
    });
    return notes;
}

} // namespace portolan::port::detail
