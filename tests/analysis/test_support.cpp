#include "tests/analysis/test_support.h"

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

} // namespace portolan::testing
