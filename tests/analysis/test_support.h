#pragma once

#include "core/analysis/analysis.h"
#include "core/guides/guide.h"

#include <string>

namespace portolan::testing {

// Guides from the source tree's resources/guides.
const guides::GuideSet& sourceGuides();
// Analyses a project folder; fails the calling test (QVERIFY) through an empty optional.
std::optional<analysis::ProjectAnalysis> analyse(const std::string& path);
// "sample:NAME" -> sample_projects/NAME, "fixture:NAME" -> tests/analysis/fixtures/projects/NAME.
std::string projectPath(const std::string& spec);
const guides::Guide* guideOfCheck(const std::string& checkId);

} // namespace portolan::testing
