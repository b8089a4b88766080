#include "core/project/params_file.h"

#include "core/common/atomic_file.h"

#include <algorithm>
#include <cctype>

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

ParamsFileChoice paramsFileFor(const fs::path& root, const std::string& overridePath)
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
    for (const char* conventional : {"configs/params.yaml", "params.yaml", "const.yaml"}) {
        if (isFile(root / conventional)) {
            c.path = conventional;
            c.source = ParamsSource::Default;
            c.reason = std::string(conventional) + " by convention" + staleNote;
            return c;
        }
    }
    if (!c.candidates.empty()) {
        c.path = c.candidates.front();
        c.source = ParamsSource::Default;
        const bool inConfigs = c.path.starts_with("configs/");
        const auto count =
            std::count_if(c.candidates.begin(), c.candidates.end(), [&](const std::string& s) {
                return s.starts_with("configs/") == inConfigs;
            });
        c.reason = count == 1 ? "the only YAML file " +
                                    std::string(inConfigs ? "in configs/" : "at the top level")
                              : "the first by name of " + std::to_string(count) + " YAML files " +
                                    (inConfigs ? "in configs/" : "at the top level") +
                                    "; pick another to use it";
        c.reason += staleNote;
        return c;
    }
    c.reason = "no params file: no configs/params.yaml, params.yaml, const.yaml or other YAML "
               "file in configs/ or at the top level" +
               staleNote;
    return c;
}

} // namespace portolan
