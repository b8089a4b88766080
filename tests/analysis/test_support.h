#pragma once

#include "core/analysis/analysis.h"
#include "core/guides/guide.h"

#include <filesystem>
#include <map>
#include <string>
#include <yaml-cpp/yaml.h>

namespace portolan::testing {

// Guides from the source tree's resources/guides.
const guides::GuideSet& sourceGuides();
// Analyses a project folder; fails the calling test (QVERIFY) through an empty optional.
std::optional<analysis::ProjectAnalysis> analyse(const std::string& path);
// "sample:NAME" -> sample_projects/NAME, "fixture:NAME" -> tests/analysis/fixtures/projects/NAME.
std::string projectPath(const std::string& spec);
const guides::Guide* guideOfCheck(const std::string& checkId);
// The analysis of a project spec, analysed once per test process (fatal if it cannot be).
const analysis::ProjectAnalysis& cachedAnalysis(const std::string& spec);
// tests/analysis/fixtures/check_cases.yaml: for each check, a project where it fires and one
// where it is silent.
YAML::Node checkCases();
// Copies a fixture project into a scratch folder, so a test may edit it.
void copyTree(const std::filesystem::path& from, const std::filesystem::path& to);
// Every regular file under root, by relative path, with its bytes: what a fix must restore.
std::map<std::string, std::string> snapshot(const std::filesystem::path& root);

} // namespace portolan::testing
