#include "core/families/graphcore_config.h"

#include "core/common/resources.h"
#include "core/families/family_builders.h"

#include <algorithm>
#include <cctype>
#include <mutex>

namespace portolan::families {

namespace {

// What resources/schemas/graphcore-application.yaml says about the layout.
struct Layout
{
    std::vector<std::string> settingKeys; // detect.nested_keys
    std::size_t minMatches = 2;
    struct FamilyRule
    {
        std::string family;
        std::vector<std::string> when;
    };
    std::vector<FamilyRule> families;
    // builder key -> the Graphcore keys that give it, first set wins
    std::vector<std::pair<std::string, std::vector<std::string>>> model, data;
    std::vector<std::string> pairs; // builder keys that take (height, width)
};

std::vector<std::string> strings(const YAML::Node& n)
{
    std::vector<std::string> out;
    if (n.IsSequence())
        for (const auto& item : n)
            if (item.IsScalar())
                out.push_back(item.Scalar());
    return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> keyMap(const YAML::Node& n)
{
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    if (n.IsMap())
        for (auto it = n.begin(); it != n.end(); ++it)
            out.emplace_back(it->first.as<std::string>(""), strings(it->second));
    return out;
}

// Read once; a missing or broken schema leaves the layout empty, so no file is recognised
// (the schema's own loader reports the error to the user).
const Layout& layout()
{
    static Layout l;
    static std::once_flag once;
    std::call_once(once, [] {
        try {
            const YAML::Node y = YAML::LoadFile(
                (resourcesDir() / "schemas" / "graphcore-application.yaml").string());
            l.settingKeys = strings(y["detect"]["nested_keys"]);
            if (y["detect"]["min_matches"])
                l.minMatches = y["detect"]["min_matches"].as<std::size_t>(2);
            const YAML::Node p = y["profile"];
            for (const auto& rule : p["families"])
                l.families.push_back({rule["family"].as<std::string>(""), strings(rule["when"])});
            l.model = keyMap(p["model"]);
            l.data = keyMap(p["data"]);
            l.pairs = strings(p["pairs"]);
        } catch (const YAML::Exception&) {
            l = Layout{};
        }
    });
    return l;
}

bool setsKey(const YAML::Node& config, const std::string& key)
{
    return config.IsMap() && config[key].IsDefined() && !config[key].IsNull();
}

template <typename T> std::optional<T> value(const YAML::Node& config, const char* key)
{
    if (!setsKey(config, key) || !config[key].IsScalar())
        return std::nullopt;
    try {
        return config[key].as<T>();
    } catch (const YAML::Exception&) {
        return std::nullopt; // a wrong type is the schema validation's to report
    }
}

int positive(const YAML::Node& config, const char* key)
{
    return std::max(0, value<int>(config, key).value_or(0));
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

ExecutionSettings readSettings(const YAML::Node& c)
{
    ExecutionSettings s;
    s.ipusPerReplica = positive(c, "ipus_per_replica");
    if (setsKey(c, "layers_per_ipu") && c["layers_per_ipu"].IsSequence())
        for (const auto& n : c["layers_per_ipu"])
            s.layersPerIpu.push_back(std::max(0, n.as<int>(0)));
    if (setsKey(c, "matmul_proportion")) {
        const YAML::Node m = c["matmul_proportion"];
        if (m.IsSequence())
            for (const auto& n : m)
                s.matmulProportion.push_back(n.as<double>(0.6));
        else if (auto v = value<double>(c, "matmul_proportion"))
            s.matmulProportion.push_back(*v);
    }
    s.replicationFactor = positive(c, "replication_factor");
    s.microBatchSize = positive(c, "micro_batch_size");
    s.gradientAccumulation = positive(c, "gradient_accumulation");
    s.deviceIterations = positive(c, "device_iterations");
    s.embeddingSerializationFactor = positive(c, "embedding_serialization_factor");
    s.recomputeEveryLayer = value<bool>(c, "recompute_checkpoint_every_layer");
    s.optimizerStateOffchip = value<bool>(c, "optimizer_state_offchip");
    s.replicatedTensorSharding = value<bool>(c, "replicated_tensor_sharding");
    if (!s.replicatedTensorSharding)
        s.replicatedTensorSharding = value<bool>(c, "enable_rts");
    s.halfPartials = value<bool>(c, "enable_half_partials");
    s.halfFirstOrderMomentum = value<bool>(c, "enable_half_first_order_momentum");
    s.precision = value<std::string>(c, "precision").value_or("");
    s.optimizer = lower(value<std::string>(c, "optimizer").value_or(""));
    return s;
}

// The builder the configuration's keys describe, and why.
std::string familyOf(const std::string& name, const YAML::Node& config, std::string* reason)
{
    for (const auto& rule : layout().families) {
        const bool all = !rule.when.empty() &&
                         std::all_of(rule.when.begin(), rule.when.end(),
                                     [&](const std::string& k) { return setsKey(config, k); });
        if (all) {
            *reason = "the key " + name + "." + rule.when.front();
            return rule.family;
        }
    }
    return {};
}

// The builder's section from the configuration's keys: the value nodes themselves, so the
// builders' errors point into the configuration.
YAML::Node section(const YAML::Node& config,
                   const std::vector<std::pair<std::string, std::vector<std::string>>>& keys)
{
    YAML::Node out(YAML::NodeType::Map);
    const auto& pairs = layout().pairs;
    for (const auto& [to, from] : keys)
        for (const std::string& k : from)
            if (setsKey(config, k)) {
                const YAML::Node v = config[k];
                if (v.IsScalar() && std::find(pairs.begin(), pairs.end(), to) != pairs.end()) {
                    YAML::Node square(YAML::NodeType::Sequence);
                    square.push_back(v);
                    square.push_back(v);
                    out[to] = square;
                } else {
                    out[to] = v;
                }
                break;
            }
    return out;
}

} // namespace

std::vector<std::string> namedConfigNames(const YAML::Node& root)
{
    std::vector<std::string> names;
    const Layout& l = layout();
    if (!root.IsMap() || l.settingKeys.empty())
        return names;
    for (auto it = root.begin(); it != root.end(); ++it) {
        const YAML::Node config = it->second;
        if (!it->first.IsScalar() || !config.IsMap())
            continue;
        const auto matches =
            std::count_if(l.settingKeys.begin(), l.settingKeys.end(),
                          [&](const std::string& k) { return setsKey(config, k); });
        if (std::size_t(matches) >= l.minMatches)
            names.push_back(it->first.Scalar());
    }
    return names;
}

std::optional<Result<NamedConfig>> namedConfig(const YAML::Node& root, const std::string& file,
                                               const std::string& name)
{
    resolveMerges(root);
    NamedConfig out;
    out.names = namedConfigNames(root);
    if (out.names.empty())
        return std::nullopt;
    const auto fail = [&](const std::string& id, const std::string& message) {
        return std::optional<Result<NamedConfig>>(
            Result<NamedConfig>::fail({Severity::Error, id, message, {file, 0, 0}}));
    };
    for (const std::string& candidate : out.names) {
        std::string reason;
        if (!familyOf(candidate, root[candidate], &reason).empty())
            out.modelNames.push_back(candidate);
    }
    std::vector<std::string> candidates = out.names;
    if (!name.empty()) {
        if (std::find(out.names.begin(), out.names.end(), name) == out.names.end()) {
            std::string known;
            for (const auto& n : out.names)
                known += (known.empty() ? "" : ", ") + n;
            return fail("families.no-named-config", "no named configuration '" + name +
                                                        "' in this file (it has: " + known + ")");
        }
        candidates = {name};
    }
    for (const std::string& candidate : candidates) {
        const YAML::Node config = root[candidate];
        std::string reason;
        const std::string family = familyOf(candidate, config, &reason);
        if (family.empty())
            continue;
        out.name = candidate;
        out.family = family;
        out.familyReason = reason;
        out.settings = readSettings(config);
        YAML::Node model = section(config, layout().model);
        model["name"] = family;
        YAML::Node data = section(config, layout().data);
        // The builders see one sample per micro-batch; the Profile applies the rest.
        data["batch_size"] = std::max(1, out.settings.microBatchSize);
        out.classic = YAML::Node(YAML::NodeType::Map);
        out.classic["model"] = model;
        out.classic["train_input"] = data;
        if (!out.settings.optimizer.empty())
            out.classic["optimizer"]["optimizer_type"] = out.settings.optimizer;
        if (out.settings.precision == "16.32")
            out.classic["model"]["mixed_precision"] = true;
        return Result<NamedConfig>::ok(std::move(out));
    }
    return fail("families.unknown",
                name.empty() ? "none of the named configurations (" + out.names.front() +
                                   ", ...) sets the keys of a model family the builders know"
                             : "the named configuration '" + name +
                                   "' does not set the keys of a model family the builders know");
}

} // namespace portolan::families
