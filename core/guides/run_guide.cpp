#include "core/analysis/analysis.h"
#include "core/guides/guide.h"
#include "core/guides/rules.h"

#include <algorithm>
#include <exception>

namespace portolan::guides {

std::string Finding::toString() const
{
    return location.toString() + ": " + std::string(severityName(severity)) + ": " + message +
           " [" + checkId + "]";
}

GuideResult runGuide(const Guide& guide, const analysis::ProjectAnalysis& analysis)
{
    GuideResult result;
    result.guideId = guide.id;
    for (const auto& step : guide.steps) {
        StepResult sr;
        sr.stepId = step.id;
        bool anyApplicable = step.checks.empty() ? false : false;
        for (const auto& check : step.checks) {
            RuleContext ctx{check, step.id, analysis, sr.findings};
            try {
                evaluateCheck(ctx);
            } catch (const std::exception& e) {
                // A check with bad parameters must not take the others down with it.
                Finding f;
                f.checkId = "guide.bad-check";
                f.stepId = step.id;
                f.severity = Severity::Error;
                f.message = "check " + check.id + " could not run: " + e.what();
                f.location = check.definedAt;
                sr.findings.push_back(std::move(f));
            }
            anyApplicable = anyApplicable || ctx.applicable;
        }
        std::stable_sort(sr.findings.begin(), sr.findings.end(),
                         [](const Finding& a, const Finding& b) {
                             return std::tie(a.location.file, a.location.line, a.location.column) <
                                    std::tie(b.location.file, b.location.line, b.location.column);
                         });
        for (const auto& f : sr.findings) {
            if (f.severity == Severity::Error)
                ++sr.errors;
            else if (f.severity == Severity::Warning)
                ++sr.warnings;
            else
                ++sr.infos;
        }
        if (!sr.findings.empty())
            sr.status = StepStatus::Findings;
        else
            sr.status = anyApplicable ? StepStatus::Passed : StepStatus::NotApplicable;
        result.errors += sr.errors;
        result.warnings += sr.warnings;
        result.infos += sr.infos;
        result.steps.push_back(std::move(sr));
    }
    return result;
}

} // namespace portolan::guides
