#include "core/project/params_file.h"

#include "core/common/atomic_file.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace portolan {

namespace fs = std::filesystem;

namespace {

constexpr const char* SavedChoiceFile = ".portolan/params-file";

bool isYaml(const fs::path& p)
{
    const std::string ext = p.extension().string();
    return ext == ".yaml" || ext == ".yml";
}

// Regular YAML files directly in `dir`, by name (byte order, not the file system's order).
std::vector<std::string> yamlFilesIn(const fs::path& dir, const std::string& prefix)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || name[0] == '.' || !isYaml(it->path()))
            continue;
        std::error_code fec;
        if (fs::is_regular_file(it->path(), fec))
            out.push_back(prefix + name);
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool isFile(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

std::string trimmed(std::string s)
{
    const auto notSpace = [](unsigned char c) {
        return !std::isspace(c);
    };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
    s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
    return s;
}

// `p` relative to `root` with '/' separators when it lies inside; else absolute.
std::string projectRelative(const fs::path& root, const fs::path& p)
{
    std::error_code ec;
    const fs::path canonRoot = fs::weakly_canonical(root, ec);
    const fs::path canonP = fs::weakly_canonical(p, ec);
    const auto [r, q] =
        std::mismatch(canonRoot.begin(), canonRoot.end(), canonP.begin(), canonP.end());
    if (r == canonRoot.end())
        return canonP.lexically_relative(canonRoot).generic_string();
    return canonP.generic_string();
}

// Files that configure a tool, not the model: a benchmark runner's list of commands
// (Graphcore's benchmarks.yml), CI, documentation, environments. They are offered in the picker
// but never chosen by default.
bool isToolConfig(std::string_view relative)
{
    const std::string name = fs::path(std::string(relative)).filename().string();
    std::string lower;
    for (const char ch : name)
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const std::string stem = lower.substr(0, lower.rfind('.'));
    static const std::vector<std::string> tools{
        "benchmarks",     "benchmark", "environment", "env",         "mkdocs",
        "docker-compose", "compose",   "codecov",     "readthedocs", "pre-commit-config",
        "requirements",   "conda",     "travis",      "gitlab-ci",   "azure-pipelines",
        "appveyor",       "pipeline",  "tests",       "test"};
    if (std::find(tools.begin(), tools.end(), stem) != tools.end())
        return true;
    return stem.ends_with("-ci") || stem.ends_with("_ci") || stem.starts_with("ci-") ||
           stem.starts_with("ci_");
}

// The first YAML candidate that the project's own top-level Python code names in a string
// literal ("./configs.yml", os.path.join(root, "configs/configs.yaml")): that is the file its
// entry point reads. Returns the candidate and "file:line" of the mention.
std::optional<std::pair<std::string, std::string>>
namedByCode(const fs::path& root, const std::vector<std::string>& candidates)
{
    std::vector<std::string> scripts;
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".py" && isFile(it->path()))
            scripts.push_back(it->path().filename().string());
    std::sort(scripts.begin(), scripts.end());
    if (scripts.size() > 200)
        scripts.resize(200);
    for (const auto& script : scripts) {
        const auto text = readFile(root / script);
        if (!text || text.value->size() > (1u << 20))
            continue;
        const std::string& t = *text.value;
        for (const auto& c : candidates) {
            if (isToolConfig(c))
                continue;
            // The path as the project writes it: relative ("configs/x.yaml", "./x.yml") or
            // its file name alone, in quotes.
            const std::string name = fs::path(c).filename().string();
            for (const std::string& needle : {c, "./" + c, name, "./" + name}) {
                for (const char q : {'"', '\''}) {
                    const std::string quoted = std::string(1, q) + needle + q;
                    const auto at = t.find(quoted);
                    const auto atEnd = t.find("/" + needle + q);
                    const auto pos = at != std::string::npos ? at : atEnd;
                    if (pos == std::string::npos)
                        continue;
                    const auto line =
                        1 +
                        std::count(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(pos), '\n');
                    return std::make_pair(c, script + ":" + std::to_string(line));
                }
            }
        }
    }
    return std::nullopt;
}

// Does a YAML file have `key:` at the top level? Read as text (the first 256 KiB): the rule must
// stay cheap and must not depend on the file parsing.
bool hasTopLevelKey(const fs::path& file, std::string_view key)
{
    const auto text = readFile(file);
    if (!text)
        return false;
    const std::string_view t(text.value->data(),
                             std::min<std::size_t>(text.value->size(), 1u << 18));
    for (std::size_t pos = 0; pos < t.size();) {
        const auto eol = t.find('\n', pos);
        const std::string_view line =
            t.substr(pos, eol == std::string_view::npos ? eol : eol - pos);
        if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == ':')
            return true;
        if (eol == std::string_view::npos)
            break;
        pos = eol + 1;
    }
    return false;
}

// A model's size for the dry run's choice: hidden size squared times layers, from the Model Zoo
// keys under model:. Nothing when the file is not a Model Zoo params file (model: with
// train_input: or runconfig:) or gives no width.
std::optional<double> modelZooModelSize(const fs::path& file)
{
    YAML::Node doc;
    try {
        doc = YAML::LoadFile(file.string());
    } catch (const YAML::Exception&) {
        return std::nullopt;
    }
    const YAML::Node& top = doc;
    if (!top.IsMap() || !top["model"] || !top["model"].IsMap() ||
        !(top["train_input"] || top["runconfig"]))
        return std::nullopt;
    const YAML::Node model = top["model"];
    const auto number = [&](std::initializer_list<const char*> keys) -> std::optional<double> {
        for (const char* key : keys) {
            const YAML::Node v = model[key];
            if (!v || !v.IsScalar())
                continue;
            try {
                return v.as<double>();
            } catch (const YAML::Exception&) {
                continue;
            }
        }
        return std::nullopt;
    };
    const auto width = number({"hidden_size", "d_model", "embedding_size"});
    if (!width)
        return std::nullopt;
    const double depth =
        number({"num_hidden_layers", "num_layers", "encoder_num_hidden_layers"}).value_or(1.0);
    return *width * *width * depth;
}

// The CPU dry run's pick among several usable files (see the header): the first experiment
// config, else the smallest Model Zoo model; with its reason. Nothing when none is runnable.
std::optional<std::pair<std::string, std::string>>
runnableForDryRun(const fs::path& root, const std::vector<std::string>& usable)
{
    for (const auto& cand : usable)
        if (hasTopLevelKey(root / cand, "entrypoint"))
            return std::make_pair(cand, "the first Determined experiment config by name "
                                        "(entrypoint: at the top level)");
    std::optional<std::pair<double, std::string>> smallest;
    for (const auto& cand : usable)
        if (const auto size = modelZooModelSize(root / cand);
            size && (!smallest || *size < smallest->first))
            smallest = std::make_pair(*size, cand);
    if (!smallest)
        return std::nullopt;
    return std::make_pair(smallest->second,
                          "the smallest model of " + std::to_string(usable.size()) +
                              " YAML files (hidden size squared x layers), for a CPU dry run; "
                              "pick another to use it");
}

} // namespace

std::string_view paramsSourceName(ParamsSource s)
{
    switch (s) {
    case ParamsSource::None:
        return "none";
    case ParamsSource::Override:
        return "override";
    case ParamsSource::Saved:
        return "saved";
    case ParamsSource::Default:
        return "default";
    }
    return "none";
}

fs::path ParamsFileChoice::absolute(const fs::path& projectRoot) const
{
    if (path.empty())
        return {};
    const fs::path p(path);
    return p.is_absolute() ? p : (projectRoot / p).lexically_normal();
}

std::vector<std::string> paramsFileCandidates(const fs::path& root)
{
    std::vector<std::string> out = yamlFilesIn(root / "configs", "configs/");
    const auto top = yamlFilesIn(root, "");
    out.insert(out.end(), top.begin(), top.end());
    return out;
}

std::optional<std::string> savedParamsFile(const fs::path& root)
{
    auto text = readFile(root / SavedChoiceFile);
    if (!text)
        return std::nullopt;
    std::string line = text.value->substr(0, text.value->find('\n'));
    line = trimmed(line);
    if (line.empty())
        return std::nullopt;
    return line;
}

std::optional<Diagnostic> saveParamsFile(const fs::path& root, const std::string& relativePath)
{
    const fs::path file = root / SavedChoiceFile;
    std::error_code ec;
    if (relativePath.empty()) {
        fs::remove(file, ec);
        if (ec)
            return Diagnostic{Severity::Error,
                              "project.params-choice",
                              "cannot forget the saved params file: " + ec.message(),
                              {file.string()}};
        return std::nullopt;
    }
    fs::create_directories(file.parent_path(), ec);
    if (ec)
        return Diagnostic{Severity::Error,
                          "project.params-choice",
                          "cannot create the folder for the saved params file: " + ec.message(),
                          {file.parent_path().string()}};
    return writeFileAtomically(file, relativePath + "\n");
}

ParamsFileChoice paramsFileFor(const fs::path& root, const std::string& overridePath, ParamsUse use)
{
    ParamsFileChoice c;
    c.candidates = paramsFileCandidates(root);
    if (!overridePath.empty()) {
        fs::path p(overridePath);
        if (!p.is_absolute())
            p = isFile(root / p) || !isFile(fs::absolute(p)) ? root / p : fs::absolute(p);
        c.path = projectRelative(root, p.lexically_normal());
        c.source = ParamsSource::Override;
        c.reason = isFile(p) ? "given with --params" : "given with --params (the file is missing)";
        return c;
    }
    std::string staleNote;
    if (const auto saved = savedParamsFile(root)) {
        const fs::path p = fs::path(*saved).is_absolute() ? fs::path(*saved) : root / *saved;
        if (isFile(p)) {
            c.path = *saved;
            c.source = ParamsSource::Saved;
            c.reason = "chosen by the user (saved in .portolan/params-file)";
            if (std::find(c.candidates.begin(), c.candidates.end(), *saved) == c.candidates.end())
                c.candidates.push_back(*saved);
            return c;
        }
        staleNote = "; the saved choice " + *saved + " no longer exists";
    }
    // The Model Zoo's current layout: a Trainer YAML (trainer: at the top level) beside a legacy
    // classic params.yaml is what the current release runs (the legacy file is converted).
    for (const auto& cand : c.candidates)
        if (!isToolConfig(cand) && hasTopLevelKey(root / cand, "trainer")) {
            c.path = cand;
            c.source = ParamsSource::Default;
            c.reason =
                "the Model Zoo Trainer configuration (trainer: at the top level)" + staleNote;
            return c;
        }
    // A run starts from a Determined experiment config (entrypoint: at the top level), which
    // names the code it runs: a YAML file that code reads (`yaml.safe_load(open("knobs.yml"))`)
    // is the code's data, which a dry run cannot start. const.yaml by convention, else the first
    // by name.
    if (use == ParamsUse::CpuDryRun) {
        std::vector<std::string> experiments;
        for (const auto& cand : c.candidates)
            if (!isToolConfig(cand) && hasTopLevelKey(root / cand, "entrypoint"))
                experiments.push_back(cand);
        if (!experiments.empty()) {
            const bool conventional = std::find(experiments.begin(), experiments.end(),
                                                "const.yaml") != experiments.end();
            c.path = conventional ? std::string("const.yaml") : experiments.front();
            c.source = ParamsSource::Default;
            c.reason = conventional ? "const.yaml, the Determined experiment config by convention"
                                    : "the first Determined experiment config by name "
                                      "(entrypoint: at the top level)";
            c.reason += staleNote;
            return c;
        }
    }
    // Then the file the project's own code reads: it is what its entry point runs.
    if (const auto named = namedByCode(root, c.candidates)) {
        c.path = named->first;
        c.source = ParamsSource::Default;
        c.reason = "the file the project's code names (" + named->second + ")" + staleNote;
        return c;
    }
    for (const char* conventional : {"configs/params.yaml", "params.yaml", "const.yaml"}) {
        if (isFile(root / conventional)) {
            c.path = conventional;
            c.source = ParamsSource::Default;
            c.reason = std::string(conventional) + " by convention" + staleNote;
            return c;
        }
    }
    // The first candidate that is not a tool's.
    std::vector<std::string> usable;
    for (const auto& cand : c.candidates)
        if (!isToolConfig(cand))
            usable.push_back(cand);
    if (usable.empty() && !c.candidates.empty()) {
        c.reason = "no params file: only tool configuration (" + c.candidates.front() +
                   (c.candidates.size() > 1 ? ", ..." : "") +
                   "), which is never chosen by default; pick one to use it" + staleNote;
        return c;
    }
    if (use == ParamsUse::CpuDryRun && usable.size() > 1)
        if (const auto runnable = runnableForDryRun(root, usable)) {
            c.path = runnable->first;
            c.source = ParamsSource::Default;
            c.reason = runnable->second + staleNote;
            return c;
        }
    if (!usable.empty()) {
        c.path = usable.front();
        c.source = ParamsSource::Default;
        const bool inConfigs = c.path.starts_with("configs/");
        const auto count = std::count_if(usable.begin(), usable.end(), [&](const std::string& s) {
            return s.starts_with("configs/") == inConfigs;
        });
        c.reason = count == 1 ? "the only YAML file " +
                                    std::string(inConfigs ? "in configs/" : "at the top level")
                              : "the first by name of " + std::to_string(count) + " YAML files " +
                                    (inConfigs ? "in configs/" : "at the top level") +
                                    "; pick another to use it";
        if (usable.size() < c.candidates.size())
            c.reason += " (tool configuration such as benchmarks.yml is not chosen by default)";
        c.reason += staleNote;
        return c;
    }
    c.reason = "no params file: no configs/params.yaml, params.yaml, const.yaml or other YAML "
               "file in configs/ or at the top level" +
               staleNote;
    return c;
}

} // namespace portolan
