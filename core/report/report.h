#pragma once

// The compile report: versioned JSON holding everything the profile views show (schema in
// resources/report/compile-report.schema.json). Saves are atomic; loading a corrupt or
// truncated file gives a positioned error.

#include "core/sim/profile.h"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace portolan::report {

// Bumped when a field changes meaning or is removed; readers accept their own version only.
constexpr int kSchemaVersion = 1;

nlohmann::json toJson(const sim::CompileResult& r);
Result<sim::CompileResult> fromJson(const nlohmann::json& j, const std::string& file = {});

std::optional<Diagnostic> saveReport(const std::filesystem::path& file,
                                     const sim::CompileResult& r);
Result<sim::CompileResult> loadReport(const std::filesystem::path& file);

} // namespace portolan::report
