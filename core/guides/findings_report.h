#pragma once

#include "core/guides/guide.h"

#include <nlohmann/json.hpp>
#include <string>

namespace portolan::guides {

// Machine-readable forms of a guide run, for `portolan-cli check --format json|sarif`.
nlohmann::json toJson(const Finding& finding);
nlohmann::json toJson(const Guide& guide, const GuideResult& result);

// SARIF 2.1.0: one run, tool.driver.rules = every check of the guide (id, shortDescription,
// help), results with ruleId, level and a location relative to %SRCROOT% (uriBaseId), which
// originalUriBaseIds maps to `projectRoot`.
nlohmann::json toSarif(const Guide& guide, const GuideResult& result,
                       const std::string& projectRoot);

// The suggested order of a guide's steps as DOT: one node per step with its checks counted, and
// with a result, each step coloured by its status.
std::string guideOrderDot(const Guide& guide, const GuideResult* result = nullptr);

} // namespace portolan::guides
