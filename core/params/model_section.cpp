#include "core/params/model_section.h"

namespace portolan::params {

namespace {

// n[key], or a null node: yaml-cpp's node for an absent key throws when it is used further.
YAML::Node child(const YAML::Node& n, const char* key)
{
    if (!n.IsDefined() || !n.IsMap())
        return YAML::Node();
    const YAML::Node c = n[key];
    return c.IsDefined() ? c : YAML::Node();
}

} // namespace

std::optional<ModelSectionAt> modelSectionOf(const YAML::Node& root)
{
    try {
        if (!root.IsMap())
            return std::nullopt;
        if (const YAML::Node model = child(root, "model"); model.IsMap())
            return ModelSectionAt{model, "model", ParamsLayout::Classic};
        if (const YAML::Node model = child(child(child(root, "trainer"), "init"), "model");
            model.IsMap())
            return ModelSectionAt{model, "trainer.init.model", ParamsLayout::Trainer};
    } catch (const YAML::Exception&) {
        // A malformed node has no model section.
    }
    return std::nullopt;
}

std::string modelNameOf(const YAML::Node& root)
{
    const auto section = modelSectionOf(root);
    if (!section)
        return {};
    const YAML::Node name = section->node["name"];
    return name.IsDefined() && name.IsScalar() ? name.Scalar() : std::string();
}

} // namespace portolan::params
