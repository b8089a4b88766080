#include "core/analysis/analysis.h"
#include "core/guides/guide.h"
#include "core/guides/rules.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <iterator>
#include <thread>

namespace portolan::guides {

std::string Finding::toString() const
{
    return location.toString() + ": " + std::string(severityName(severity)) + ": " + message +
           " [" + checkId + "]";
}

namespace {

struct CheckOutcome
{
    std::vector<Finding> findings;
    bool applicable = false;
};

CheckOutcome runCheck(const Check& check, const std::string& stepId,
                      const analysis::ProjectAnalysis& analysis)
{
    CheckOutcome out;
    RuleContext ctx{check, stepId, analysis, out.findings};
    try {
        evaluateCheck(ctx);
    } catch (const std::exception& e) {
        // A check with bad parameters must not take the others down with it.
        Finding f;
        f.checkId = "guide.bad-check";
        f.stepId = stepId;
        f.severity = Severity::Error;
        f.message = "check " + check.id + " could not run: " + e.what();
        f.location = check.definedAt;
        out.findings.push_back(std::move(f));
    }
    out.applicable = ctx.applicable;
    return out;
}

} // namespace

GuideResult runGuide(const Guide& guide, const analysis::ProjectAnalysis& analysis)
{
    // Checks only read the analysis, so they run on a few threads; each keeps its own findings,
    // which are put together in guide order afterwards (the result does not depend on timing).
    struct Job
    {
        const Check* check;
        const std::string* stepId;
    };
    std::vector<Job> jobs;
    for (const auto& step : guide.steps)
        for (const auto& check : step.checks)
            jobs.push_back({&check, &step.id});
    std::vector<CheckOutcome> outcomes(jobs.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i = next++; i < jobs.size(); i = next++)
            outcomes[i] = runCheck(*jobs[i].check, *jobs[i].stepId, analysis);
    };
    const unsigned workers = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
    std::vector<std::thread> threads;
    for (unsigned w = 1; w < workers && jobs.size() > 1; ++w)
        threads.emplace_back(work);
    work();
    for (auto& t : threads)
        t.join();

    GuideResult result;
    result.guideId = guide.id;
    std::size_t job = 0;
    for (const auto& step : guide.steps) {
        StepResult sr;
        sr.stepId = step.id;
        bool anyApplicable = false;
        for (std::size_t c = 0; c < step.checks.size(); ++c, ++job) {
            CheckOutcome& o = outcomes[job];
            std::move(o.findings.begin(), o.findings.end(), std::back_inserter(sr.findings));
            anyApplicable = anyApplicable || o.applicable;
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
        // A step passes when nothing in it provably fails: notes ("could not verify") are listed
        // but do not hold the step back.
        // A step only a compile or a run can verify is not "passed" on reading the code alone;
        // its notes and the reason say what would verify it.
        if (sr.errors + sr.warnings > 0)
            sr.status = StepStatus::Findings;
        else if (step.verifiedBy != VerifyAction::None && (anyApplicable || !sr.findings.empty())) {
            sr.status = StepStatus::NotVerified;
            sr.verifyAction = step.verifiedBy;
            sr.notVerifiedReason = step.verifiedByReason;
        } else
            sr.status = anyApplicable || !sr.findings.empty() ? StepStatus::Passed
                                                              : StepStatus::NotApplicable;
        result.errors += sr.errors;
        result.warnings += sr.warnings;
        result.infos += sr.infos;
        result.steps.push_back(std::move(sr));
    }
    return result;
}

} // namespace portolan::guides
