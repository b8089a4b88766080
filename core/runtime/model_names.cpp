#include "core/runtime/model_names.h"

#include "core/params/model_section.h"

#include <algorithm>

namespace portolan::runtime {

const std::vector<std::string>& knownModelNames()
{
    static const std::vector<std::string> names{"fc_mnist", "alphabet_transformer", "small_cnn",
                                                "cifar_convnet"};
    return names;
}

bool looksLikeDeterminedCifar(const ParamsSection& m)
{
    return !m.has("name") && m.has("conv1_channels") && m.has("conv2_channels") &&
           !m.has("kernel_size");
}

std::optional<std::string> knownModelIn(const YAML::Node& root)
{
    try {
        if (!root.IsMap())
            return std::nullopt;
        // The Model Zoo's model section in any API generation (params::modelSectionOf), else a
        // Determined experiment's hyperparameters.
        const auto section = params::modelSectionOf(root);
        const YAML::Node model = section ? section->node : root["hyperparameters"];
        if (!model.IsDefined() || !model.IsMap())
            return std::nullopt;
        const ParamsSection m(model, {}, "model");
        if (looksLikeDeterminedCifar(m))
            return "cifar_convnet";
        if (!model["name"].IsDefined() || !model["name"].IsScalar())
            return std::nullopt;
        const std::string name = model["name"].Scalar();
        const auto& known = knownModelNames();
        if (std::find(known.begin(), known.end(), name) == known.end())
            return std::nullopt;
        return name;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

} // namespace portolan::runtime
