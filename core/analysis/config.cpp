#include "core/analysis/config.h"

#include <algorithm>
#include <set>
#include <yaml-cpp/yaml.h>

namespace portolan::analysis {

std::string_view configKindName(ConfigKind k)
{
    switch (k) {
    case ConfigKind::ModelZooParams:
        return "model-zoo-params";
    case ConfigKind::DeterminedExperiment:
        return "determined-experiment";
    case ConfigKind::TrainerParams:
        return "trainer-params";
    case ConfigKind::OtherYaml:
        return "yaml";
    }
    return "yaml";
}

const ConfigKey* ConfigFile::find(std::string_view dottedPath) const
{
    for (const auto& k : keys)
        if (k.path == dottedPath)
            return &k;
    return nullptr;
}

std::vector<const ConfigKey*> ConfigFile::children(std::string_view dottedPath) const
{
    std::vector<const ConfigKey*> out;
    const std::string prefix = dottedPath.empty() ? std::string() : std::string(dottedPath) + ".";
    const int depth =
        dottedPath.empty() ? 1 : (find(dottedPath) ? find(dottedPath)->depth + 1 : -1);
    for (const auto& k : keys)
        if (k.depth == depth && k.path.starts_with(prefix))
            out.push_back(&k);
    return out;
}

namespace {

// Deeper documents are not flattened further: configs are a few levels deep, and a hostile file
// must not exhaust the stack.
constexpr int MaxDepth = 64;
// Aliases can expand a small file into a huge tree ("billion laughs"); stop flattening there.
constexpr std::size_t MaxKeys = 100'000;

void flatten(const YAML::Node& node, const std::string& prefix, int depth,
             std::vector<ConfigKey>& out);

void addKey(const YAML::Node& key, const YAML::Node& value, const std::string& prefix, int depth,
            std::vector<ConfigKey>& out)
{
    if (out.size() >= MaxKeys)
        return;
    ConfigKey k;
    const std::string& name = key.Scalar();
    k.path = prefix.empty() ? name : prefix + "." + name;
    k.isMapping = value.IsMap();
    if (value.IsScalar())
        k.value = value.Scalar();
    const YAML::Mark m = key.Mark();
    k.line = m.line >= 0 ? m.line + 1 : 0;
    k.column = m.column >= 0 ? m.column + 1 : 0;
    k.depth = depth;
    out.push_back(k);
    flatten(value, k.path, depth + 1, out);
}

// YAML merge keys (`<<: *train_input`, or a list of anchors): the merged mapping's keys belong to
// this mapping too, unless the mapping sets them itself. yaml-cpp leaves `<<` as a plain key. The
// merged keys keep the position where the anchor defines them.
void flattenMerged(const YAML::Node& node, const std::string& prefix, int depth,
                   std::vector<ConfigKey>& out)
{
    std::vector<YAML::Node> sources;
    for (auto it = node.begin(); it != node.end(); ++it)
        if (it->first.IsScalar() && it->first.Scalar() == "<<") {
            // A copy, not `for (... : it->second)`: the proxy behind yaml-cpp's operator-> is a
            // temporary, and a range-for over its member would outlive it.
            const YAML::Node merged = it->second;
            if (merged.IsMap())
                sources.push_back(merged);
            else if (merged.IsSequence())
                for (const auto& s : merged)
                    if (s.IsMap())
                        sources.push_back(s);
        }
    std::vector<std::string> present;
    for (auto it = node.begin(); it != node.end(); ++it)
        if (it->first.IsScalar())
            present.push_back(it->first.Scalar());
    for (const auto& src : sources)
        for (auto it = src.begin(); it != src.end(); ++it) {
            if (!it->first.IsScalar() || it->first.Scalar() == "<<")
                continue;
            const std::string name = it->first.Scalar();
            if (std::find(present.begin(), present.end(), name) != present.end())
                continue; // set here (it overrides the merged value) or by an earlier source
            present.push_back(name);
            addKey(it->first, it->second, prefix, depth, out);
        }
}

void flatten(const YAML::Node& node, const std::string& prefix, int depth,
             std::vector<ConfigKey>& out)
{
    if (!node.IsMap() || depth > MaxDepth)
        return;
    bool merges = false;
    for (auto it = node.begin(); it != node.end(); ++it) {
        if (!it->first.IsScalar())
            continue;
        if (it->first.Scalar() == "<<") {
            merges = true;
            continue;
        }
        addKey(it->first, it->second, prefix, depth, out);
    }
    if (merges)
        flattenMerged(node, prefix, depth, out);
}

} // namespace

std::vector<std::string> namedConfigurations(const ConfigFile& file)
{
    const std::vector<const ConfigKey*> tops = file.children("");
    if (tops.size() < 2)
        return {};
    std::vector<std::set<std::string>> shapes;
    for (const ConfigKey* top : tops) {
        if (!top->isMapping)
            return {};
        std::set<std::string> keys;
        for (const ConfigKey* k : file.children(top->path))
            keys.insert(k->path.substr(top->path.size() + 1));
        shapes.push_back(std::move(keys));
    }
    const auto sameShape = [](const std::set<std::string>& a, const std::set<std::string>& b) {
        std::size_t shared = 0;
        for (const auto& k : a)
            shared += b.count(k);
        return !a.empty() && 2 * shared >= a.size();
    };
    std::vector<std::string> names;
    for (std::size_t i = 0; i < tops.size(); ++i) {
        bool like = shapes[i].count("<<") > 0;
        for (std::size_t j = 0; j < tops.size() && !like; ++j)
            like = j != i && sameShape(shapes[i], shapes[j]);
        if (!like)
            return {};
        names.push_back(tops[i]->path);
    }
    return names;
}

ConfigFile readConfig(std::string_view text, const std::string& path)
{
    ConfigFile cfg;
    cfg.path = path;
    try {
        const YAML::Node root = YAML::Load(std::string(text));
        flatten(root, "", 1, cfg.keys);
    } catch (const YAML::Exception& e) {
        Diagnostic d;
        d.code = "yaml.syntax";
        d.message = "YAML cannot be read: " + e.msg;
        d.location = {path, e.mark.line >= 0 ? e.mark.line + 1 : 0,
                      e.mark.column >= 0 ? e.mark.column + 1 : 0};
        cfg.parseError = std::move(d);
        cfg.keys.clear();
        return cfg;
    }
    const bool determined = cfg.hasSection("entrypoint") ||
                            (cfg.hasSection("searcher") && cfg.hasSection("hyperparameters"));
    int zoo = 0;
    for (const char* s : {"train_input", "eval_input", "model", "optimizer", "runconfig"})
        zoo += cfg.hasSection(s) ? 1 : 0;
    if (determined)
        cfg.kind = ConfigKind::DeterminedExperiment;
    else if (cfg.hasSection("trainer.init") || cfg.hasSection("trainer.fit"))
        cfg.kind = ConfigKind::TrainerParams;
    else if (zoo >= 2)
        cfg.kind = ConfigKind::ModelZooParams;
    return cfg;
}

} // namespace portolan::analysis
