#include "core/port/loss_scaling.h"

#include "core/common/resources.h"

#include <cmath>
#include <yaml-cpp/yaml.h>

namespace portolan::port::detail {

namespace {

std::map<std::string, std::string> scalarMap(const YAML::Node& n)
{
    std::map<std::string, std::string> out;
    if (n && n.IsMap())
        for (const auto& kv : n)
            if (kv.second.IsScalar())
                out[kv.first.as<std::string>()] = kv.second.as<std::string>();
    return out;
}

bool isNumber(const std::string& s)
{
    return !s.empty() && s.find_first_not_of("0123456789.eE+-*") == std::string::npos;
}

// `2**16` and `65536.0` are the same value: compared as numbers.
double numberOf(const std::string& s)
{
    if (const auto p = s.find("**"); p != std::string::npos)
        return std::pow(std::stod(s.substr(0, p)), std::stod(s.substr(p + 2)));
    return std::stod(s);
}

std::string scalerWhere(const LossScaling& ls)
{
    return "torch's GradScaler (`" + ls.scaler + "`, " + ls.constructor + ", " +
           ls.construction.where() + ")";
}

} // namespace

std::string ScalingForm::value(const std::string& key) const
{
    const auto i = values.find(key);
    return i == values.end() ? std::string() : i->second;
}

std::optional<ScalingForm> scalingForm(const std::string& contract)
{
    // Read at each generation, as clipForm does: no state shared between threads.
    YAML::Node root;
    try {
        root = YAML::LoadFile((resourcesDir() / "contracts" / (contract + ".yaml")).string());
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (!root.IsMap() || !root["port"] || !root["port"]["mixed-precision"])
        return std::nullopt;
    const YAML::Node n = root["port"]["mixed-precision"];
    ScalingForm f;
    f.values = scalarMap(n);
    f.keywords = scalarMap(n["keywords"]);
    f.defaults = scalarMap(n["defaults"]);
    f.fixed = scalarMap(n["fixed"]);
    return f;
}

std::string scalerAttribute(const PortPlan& plan)
{
    std::string name = plan.lossScaling ? plan.lossScaling->scaler : "scaler";
    if (name.starts_with("self."))
        name = name.substr(5);
    for (auto& c : name)
        if (c == '.')
            c = '_';
    return "self." + name;
}

std::string determinedScalerWrap(const PortPlan& plan, const SourceFile& src,
                                 const RenderRules& rules, const std::string& indent)
{
    if (!plan.lossScaling)
        return {};
    const auto form = scalingForm("determined");
    const std::string wrap = form ? form->value("wrap") : "";
    const CodeRef& c = plan.lossScaling->construction;
    return indent + "# The original's GradScaler (" + c.where() +
           "), wrapped before wrap_model.\n" + indent + scalerAttribute(plan) + " = self.context." +
           (wrap.empty() ? "wrap_scaler" : wrap) + "(" +
           render(src, src.nodeAt(c.start, c.end), rules) + ")\n";
}

std::string determinedBackwardValue(const PortPlan& plan, const std::string& loss)
{
    return plan.lossScaling ? scalerAttribute(plan) + ".scale(" + loss + ")" : loss;
}

std::string determinedUnscales(const PortPlan& plan, const std::string& indent)
{
    if (!plan.lossScaling || plan.lossScaling->unscales.empty())
        return {};
    std::string out;
    for (const auto& o : plan.optimizers)
        if (!o.variable.starts_with("self."))
            out += indent + scalerAttribute(plan) + ".unscale_(self." + o.variable + ")\n";
    return out;
}

std::string determinedStepScaler(const PortPlan& plan)
{
    if (!plan.lossScaling)
        return {};
    const auto form = scalingForm("determined");
    const std::string kw = form ? form->value("step-keyword") : "";
    return ", " + (kw.empty() ? std::string("scaler") : kw) + "=" + scalerAttribute(plan);
}

std::string determinedUpdates(const PortPlan& plan, const std::string& indent)
{
    return plan.lossScaling && !plan.lossScaling->updates.empty()
               ? indent + scalerAttribute(plan) + ".update()\n"
               : std::string();
}

std::vector<std::pair<std::string, std::string>> runnerScalingKeys(const PortPlan& plan,
                                                                   PortResult& out)
{
    if (!plan.lossScaling)
        return {};
    const LossScaling& ls = *plan.lossScaling;
    const auto form = scalingForm("cerebras-modelzoo");
    const auto item = [&](const std::string& why) {
        out.manual.push_back(
            manualFinding("mixed precision: " + scalerWhere(ls) + " " + why, ls.construction,
                          form ? form->value("source") : "the runner's mixed-precision settings"));
        return std::vector<std::pair<std::string, std::string>>{};
    };
    if (!form || form->value("enabled").empty())
        return item("has no form in this generation's contract");
    if (!ls.enabled)
        return item("is enabled by `" + ls.enabledSaid +
                    "`, whose value in the original's run is not known: set " +
                    form->value("enabled") + " by hand");
    std::vector<std::pair<std::string, std::string>> keys{
        {form->value("enabled"), *ls.enabled ? "true" : "false"}};
    if (!*ls.enabled) {
        out.notes.push_back("mixed precision: " + scalerWhere(ls) +
                            " is off in the original's run (" + ls.enabledSaid +
                            "): " + form->value("enabled") + " is false in configs/params.yaml");
        return keys;
    }
    keys.push_back({form->value("scaling"), "\"" + form->value("scaling-value") + "\""});
    for (const auto& [kw, text] : ls.keywords) {
        const auto fixed = form->fixed.find(kw);
        if (kw == "enabled" || form->keywords.count(kw) ||
            (fixed != form->fixed.end() && isNumber(text) &&
             numberOf(text) == numberOf(fixed->second)))
            continue;
        return item("has " + kw + "=" + text + ", which the runner does not take" +
                    (fixed != form->fixed.end() ? " (it uses " + fixed->second + ")" : ""));
    }
    for (const auto& [kw, key] : form->keywords) {
        const auto given = ls.keywords.find(kw);
        const std::string text = given != ls.keywords.end() ? given->second
                                 : form->defaults.count(kw) ? form->defaults.at(kw)
                                                            : std::string();
        if (!isNumber(text))
            return item("has " + kw + "=" + text + ", not a number: set " + key + " by hand");
        keys.push_back({key, text.find("**") != std::string::npos
                                 ? std::to_string(static_cast<long long>(numberOf(text)))
                                 : text});
    }
    out.notes.push_back("mixed precision: " + scalerWhere(ls) + " is the runner's own (" +
                        form->value("source") + ") in configs/params.yaml; the loss the model " +
                        "returns is the unscaled one");
    return keys;
}

void noteScalingDropped(const PortPlan& plan, const std::string& contract, PortResult& out)
{
    if (!plan.lossScaling)
        return;
    const LossScaling& ls = *plan.lossScaling;
    const auto form = scalingForm(contract);
    const std::string float16 = form ? form->value("float16") : "";
    if (float16.empty()) {
        out.manual.push_back(
            manualFinding("mixed precision: " + scalerWhere(ls) +
                              " scales the loss; this target's form for it is not written here",
                          ls.construction, "the target's mixed-precision settings"));
        return;
    }
    // The scaler changes the numbers only by skipping a step whose float16 gradients overflow,
    // and where CUDA is absent it is off (identity): without it, the port trains as the original
    // does in float32.
    out.notes.push_back(
        "mixed precision: the port hands the target the unscaled loss and drops " +
        scalerWhere(ls) +
        ", which changes the training only by skipping a step whose float16 gradients overflow; "
        "the forward keeps the original's autocast as written (a CUDA autocast is off where "
        "CUDA is absent, as on this target's host: the port trains in float32). The target's "
        "float16 form: " +
        float16);
}

} // namespace portolan::port::detail
