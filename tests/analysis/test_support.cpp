#include "tests/analysis/test_support.h"

#include "core/common/atomic_file.h"

#include <QtGlobal>

namespace portolan::testing {

const guides::GuideSet& sourceGuides()
{
    static const guides::GuideSet set =
        guides::loadGuides(std::string(PORTOLAN_SOURCE_DIR) + "/resources/guides");
    return set;
}

std::optional<analysis::ProjectAnalysis> analyse(const std::string& path)
{
    auto r = analysis::analyzeProject(path);
    if (!r)
        return std::nullopt;
    return std::move(*r.value);
}

std::string projectPath(const std::string& spec)
{
    if (spec.starts_with("sample:"))
        return std::string(PORTOLAN_SAMPLES) + "/" + spec.substr(7);
    if (spec.starts_with("fixture:"))
        return std::string(PORTOLAN_ANALYSIS_FIXTURES) + "/projects/" + spec.substr(8);
    // The dry-run fixture projects (tests/fixtures/projects), such as the cstorch and Trainer
    // ports a generator would write.
    if (spec.starts_with("project:"))
        return std::string(PORTOLAN_ANALYSIS_FIXTURES) + "/../../fixtures/projects/" +
               spec.substr(8);
    return spec;
}

const guides::Guide* guideOfCheck(const std::string& checkId)
{
    for (const auto& g : sourceGuides().guides)
        if (g.findCheck(checkId))
            return &g;
    return nullptr;
}

const analysis::ProjectAnalysis& cachedAnalysis(const std::string& spec)
{
    static std::map<std::string, analysis::ProjectAnalysis> cache;
    auto it = cache.find(spec);
    if (it == cache.end()) {
        auto a = analyse(projectPath(spec));
        if (!a)
            qFatal("cannot analyse %s", spec.c_str());
        it = cache.emplace(spec, std::move(*a)).first;
    }
    return it->second;
}

YAML::Node checkCases()
{
    return YAML::LoadFile(std::string(PORTOLAN_ANALYSIS_FIXTURES) + "/check_cases.yaml");
}

void copyTree(const std::filesystem::path& from, const std::filesystem::path& to)
{
    namespace fs = std::filesystem;
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

std::map<std::string, std::string> snapshot(const std::filesystem::path& root)
{
    namespace fs = std::filesystem;
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file())
            files[fs::relative(e.path(), root).generic_string()] = *readFile(e.path()).value;
    return files;
}

} // namespace portolan::testing
