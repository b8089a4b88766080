#pragma once

// Differences between two compile reports (for example fp32 against fp16, or 4 against 8 IPUs).

#include "core/sim/profile.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace portolan::report {

struct Delta
{
    std::string metric;
    std::string unit; // bytes, samples/s, s, ratio, count, flag
    double a = 0;
    double b = 0;
    double delta() const { return b - a; }
    double relative() const { return a != 0 ? (b - a) / a : 0; }
};

struct Comparison
{
    std::vector<Delta> rows;
    std::vector<std::string> notes; // option differences, mismatched targets
};

Comparison compareReports(const sim::CompileResult& a, const sim::CompileResult& b);
std::string comparisonText(const Comparison& c);
nlohmann::json comparisonJson(const Comparison& c);

} // namespace portolan::report
