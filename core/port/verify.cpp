// Verification of a port: its target guide's checks, its dry run, and the replay of the
// original's initial weights and first batches (resources/python/portolan_dryrun/replay.py).
// The original's dry run runs on a copy, so that nothing it writes lands in the original.
#include "core/analysis/analysis.h"
#include "core/common/resources.h"
#include "core/dryrun/dry_run.h"
#include "core/guides/guide.h"
#include "core/port/generate.h"
#include "core/port/verify_outcome.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <unistd.h>

namespace portolan::port {

namespace {

namespace fs = std::filesystem;

struct RunOutcome
{
    std::vector<double> losses;
    int steps = 0;
    bool finished = false;
    std::string error;
    nlohmann::json replay;
    nlohmann::json record; // the original's `record` event
};

RunOutcome dryRun(const fs::path& project, const std::string& flavour,
                  const std::vector<std::string>& extra, const std::vector<std::string>& args,
                  const VerifyOptions& o, int side, const std::string& seedAt = {},
                  const std::string& trainFrom = {}, const std::string& entry = {})
{
    RunOutcome out;
    dryrun::DryRunOptions d;
    d.project = project;
    d.flavour = flavour.empty() ? dryrun::detectFlavour(project) : flavour;
    d.steps = o.steps;
    d.python = o.python;
    d.args = args;
    d.entry = entry;
    const fs::path pythonDir = resourcesDir() / "python";
    auto cmd = dryrun::childCommand(d, pythonDir);
    auto at = std::find(cmd.begin(), cmd.end(), "--");
    cmd.insert(at, extra.begin(), extra.end());
    dryrun::ChildLimits limits;
    limits.timeoutSeconds = o.timeoutSeconds;
    limits.prestarted = o.prestarted;
    limits.memoryLimitMb = dryrun::defaultMemoryLimitMb();
    limits.workingDirectory = project;
    limits.environment = dryrun::childEnvironment(pythonDir);
    // The two dry runs are two processes: with Python's per-process string hashing, a set of
    // words (`vocab = set(text.split())`) iterates in another order in each, and a vocabulary
    // numbered from it differs between the original and the port. One hash seed for both.
    limits.environment.emplace_back("PYTHONHASHSEED", "0");
    // replay.py seeds the random state where a step of the original begins (see
    // PortResult::originalStepStart).
    if (!seedAt.empty())
        limits.environment.emplace_back("PORTOLAN_REPLAY_SEED_AT", seedAt);
    // The original trains other models before the ported training (PortResult::
    // originalTrainingFrom): replay.py counts the steps from there.
    if (!trainFrom.empty())
        limits.environment.emplace_back("PORTOLAN_REPLAY_TRAIN_FROM", trainFrom);
    std::string stderrTail;
    const auto outcome = dryrun::runChild(
        cmd, limits,
        [&](dryrun::Stream s, const std::string& line) {
            if (s == dryrun::Stream::Stderr) {
                stderrTail += line + "\n";
                if (stderrTail.size() > 2000)
                    stderrTail.erase(0, stderrTail.size() - 2000);
            }
            if (s != dryrun::Stream::Events)
                return;
            const auto e = dryrun::readEventLine(line, 0).event;
            const std::string kind = e.value("event", "");
            if (kind == "step") {
                ++out.steps;
                out.losses.push_back(e.contains("loss") && e["loss"].is_number()
                                         ? e["loss"].get<double>()
                                         : std::nan(""));
                if (o.onStep)
                    o.onStep(side, out.steps, out.losses.back());
            } else if (kind == "replay") {
                out.replay = e;
            } else if (kind == "record") {
                out.record = e;
            } else if (kind == "finished") {
                out.finished = true;
            } else if (kind == "failed") {
                out.error = e.value("diagnostic", e.value("message", std::string("failed")));
            }
        },
        o.stop);
    if (!outcome.started)
        out.error = "cannot start " + o.python.string() + ": " + outcome.startError;
    else if (!out.finished && out.error.empty())
        out.error = "the dry run ended without its final event" +
                    (stderrTail.empty() ? std::string() : ": " + stderrTail.substr(0, 400));
    return out;
}

std::string flavourOf(const std::string& target)
{
    if (target == "determined-pytorchtrial")
        return "determined-pytorchtrial";
    if (target == "graphcore-poptorch")
        return "graphcore-poptorch";
    return "cerebras-pytorch";
}

fs::path tempDir(const std::string& what)
{
    std::string tmpl = (fs::temp_directory_path() / ("portolan-" + what + "-XXXXXX")).string();
    if (!::mkdtemp(tmpl.data()))
        return fs::temp_directory_path() / ("portolan-" + what);
    return tmpl;
}

void copyProject(const fs::path& from, const fs::path& to)
{
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(
             from, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec)
            break;
        const auto name = it->path().filename().string();
        if (name == ".git" || name == ".portolan" || name == "__pycache__") {
            it.disable_recursion_pending();
            continue;
        }
        const fs::path rel = fs::relative(it->path(), from, ec);
        if (it->is_directory(ec))
            fs::create_directories(to / rel, ec);
        else if (it->is_regular_file(ec))
            fs::copy_file(it->path(), to / rel, fs::copy_options::overwrite_existing, ec);
    }
}

// The original's dry run, seeded where its step begins (`seedAt`, PortResult::originalStepStart).
OriginalRun runOriginalAt(const fs::path& original, const std::string& seedAt,
                          const std::string& trainFrom, const std::string& entry,
                          const VerifyOptions& o)
{
    const auto t0 = std::chrono::steady_clock::now();
    OriginalRun run;
    run.workDir = o.workDir.empty() ? tempDir("verify") : o.workDir;
    const fs::path copy = run.workDir / "original";
    const fs::path record = run.workDir / "record";
    std::error_code ec;
    fs::create_directories(copy, ec);
    copyProject(original, copy);
    const auto orig = dryRun(
        copy, "",
        {"--record", record.string(), "--capture-dir", (run.workDir / "capture-original").string()},
        o.originalArgs, o, 0, seedAt, trainFrom, entry);
    run.losses = orig.losses;
    run.error = orig.error;
    run.cancelled = o.stop && o.stop->load();
    run.recorded = fs::exists(record / "record.pt", ec);
    if (orig.record.is_object() && orig.record.contains("train_samples") &&
        orig.record["train_samples"].is_number_integer()) {
        run.trainSamples = orig.record["train_samples"].get<long>();
        run.trainSamplesSynthetic = orig.record.value("train_samples_synthetic", false);
    }
    if (orig.record.is_object() && orig.record.contains("weight_change") &&
        orig.record["weight_change"].is_number())
        run.weightChange = orig.record["weight_change"].get<double>();
    if (orig.record.is_object() && orig.record.contains("files_read") &&
        orig.record["files_read"].is_array())
        for (const auto& f : orig.record["files_read"])
            if (f.is_string())
                run.filesRead.push_back(f.get<std::string>());
    run.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return run;
}

double relativeDiff(double a, double b)
{
    const double rel = std::abs(a - b) / std::max(std::abs(a), 1e-12);
    return std::isnan(rel) ? 1e300 : rel;
}

// Each backward() loss of the first n steps, when a step has several (the replay event's
// `*_backward_losses`): a port that computes a step's losses otherwise, or another number of
// them, diverges at that step even when the step's last loss agrees.
void compareBackwardLosses(const nlohmann::json& replay, std::size_t n, VerifyResult& v,
                           double& worst)
{
    const auto lists = [&](const char* key) {
        std::vector<std::vector<double>> out;
        if (!replay.is_object() || !replay.contains(key) || !replay[key].is_array())
            return out;
        for (const auto& step : replay[key]) {
            out.emplace_back();
            if (step.is_array())
                for (const auto& x : step)
                    out.back().push_back(x.is_number() ? x.get<double>() : std::nan(""));
        }
        return out;
    };
    auto theirs = lists("original_backward_losses");
    auto mine = lists("port_backward_losses");
    const auto several = [](const auto& steps) {
        return std::any_of(steps.begin(), steps.end(), [](const auto& s) { return s.size() > 1; });
    };
    if (!several(theirs) && !several(mine))
        return;
    theirs.resize(std::min(theirs.size(), n));
    mine.resize(std::min(mine.size(), n));
    for (std::size_t i = 0; i < std::min(theirs.size(), mine.size()); ++i) {
        double r = theirs[i].size() == mine[i].size() ? 0 : 1e300;
        for (std::size_t k = 0; k < std::min(theirs[i].size(), mine[i].size()); ++k)
            r = std::max(r, relativeDiff(theirs[i][k], mine[i][k]));
        worst = std::max(worst, r);
        if (r > 1e-5 && (v.firstDivergence == 0 || v.firstDivergence > int(i) + 1))
            v.firstDivergence = int(i) + 1;
    }
    v.originalBackwardLosses = std::move(theirs);
    v.portBackwardLosses = std::move(mine);
}

// Whether a manual item names the finding's spot in the port (its related places).
bool namedByItem(const std::vector<guides::Finding>& manual, const guides::Finding& f)
{
    return std::any_of(manual.begin(), manual.end(), [&](const auto& m) {
        return std::any_of(m.related.begin(), m.related.end(), [&](const auto& r) {
            return r.file == f.location.file && r.line == f.location.line;
        });
    });
}

// The same finding (check, place, message) in the same file of the original.
bool sameFinding(const guides::Finding& a, const guides::Finding& b)
{
    return a.checkId == b.checkId && a.location.line == b.location.line &&
           a.location.column == b.location.column && a.message == b.message;
}

// An error in a file the port carries over unchanged (a helper module, the model's file) that
// the guide reports in the original's file too, at the same place (a name the original's own
// dead code never imported): the original's, not the port's making. Moved to
// VerifyResult::inheritedFindings, reported, not counted. The original is checked only when
// such a file has an error.
void separateInherited(const fs::path& original, const PortResult& result,
                       const guides::Guide& guide, VerifyResult& v)
{
    std::set<std::string> unchanged;
    for (const auto& g : result.files) {
        if (g.from.empty() || g.from != g.path)
            continue;
        std::ifstream in(original / g.from, std::ios::binary);
        const std::string text{std::istreambuf_iterator<char>(in),
                               std::istreambuf_iterator<char>()};
        if (in.good() || in.eof())
            if (text == g.text)
                unchanged.insert(g.path);
    }
    const bool any = std::any_of(v.checkFindings.begin(), v.checkFindings.end(),
                                 [&](const auto& f) { return unchanged.count(f.location.file); });
    if (!any)
        return;
    auto analysed = analysis::analyzeProject(original);
    if (!analysed)
        return;
    const guides::GuideResult before = guides::runGuide(guide, *analysed.value);
    const auto all = before.allFindings();
    std::erase_if(v.checkFindings, [&](const guides::Finding& f) {
        if (!unchanged.count(f.location.file))
            return false;
        const bool there = std::any_of(all.begin(), all.end(), [&](const guides::Finding& o) {
            return o.location.file == f.location.file && sameFinding(o, f);
        });
        if (there)
            v.inheritedFindings.push_back(f);
        return there;
    });
}

} // namespace

OriginalRun runOriginal(const fs::path& original, const PortPlan& plan, const VerifyOptions& o)
{
    return runOriginalAt(original, originalStepStart(plan), originalTrainingFrom(plan),
                         plan.launcher, o);
}

VerifyResult verifyPort(const fs::path& original, const fs::path& port, const PortResult& result,
                        const VerifyOptions& o)
{
    const auto t0 = std::chrono::steady_clock::now();
    VerifyResult v;
    v.stepsAsked = o.steps;
    // 1. The target guide's checks. The guide is the port's target, so there is none to choose
    // (that rule, for the user's project, is the workflow layer's PortingSession).
    const guides::GuideSet guideSet = guides::loadGuides(resourcesDir() / "guides");
    const guides::Guide* guide = guideSet.find(result.target);
    auto analysed = analysis::analyzeProject(port);
    if (guide && analysed) {
        const guides::GuideResult checked = guides::runGuide(*guide, *analysed.value);
        // An error at a spot of the port that a manual item names (PopTorch keeping an optimizer
        // it does not train with) is that item's consequence: listed with it, not counted again.
        for (const auto& f : checked.allFindings())
            if (f.severity == Severity::Error)
                (namedByItem(result.manual, f) ? v.itemFindings : v.checkFindings).push_back(f);
        separateInherited(original, result, *guide, v);
        v.checkErrors = int(v.checkFindings.size());
    } else {
        v.checkErrors = -1;
        v.dryRunError = analysed ? "no guide '" + result.target + "'" : analysed.error.message;
    }
    // 2. The original's dry run on a copy, recording (unless it ran before generation); then
    // the port's, replaying.
    const OriginalRun orig =
        o.original ? *o.original
                   : runOriginalAt(original, result.originalStepStart, result.originalTrainingFrom,
                                   result.originalEntry, o);
    const fs::path work = orig.workDir;
    const fs::path record = work / "record";
    const fs::path portCopy = work / "port";
    std::error_code ec;
    v.originalLosses = orig.losses;
    v.originalWeightChange = orig.weightChange;
    if (orig.cancelled || (o.stop && o.stop->load())) {
        v.cancelled = true;
        v.originalError = "cancelled";
        fs::remove_all(work, ec);
        return v;
    }
    if (!orig.error.empty())
        v.originalError = orig.error;
    fs::create_directories(portCopy, ec);
    copyProject(port, portCopy);
    // The data the original read that the port's folder lacks (a data set too large to copy
    // into the port, noted there): in place for the port's dry run, as it is where the port runs.
    for (const auto& rel : orig.filesRead) {
        const fs::path from = original / rel, to = portCopy / rel;
        if (fs::exists(to, ec) || !fs::is_regular_file(from, ec) ||
            rel.find("..") != std::string::npos)
            continue;
        fs::create_directories(to.parent_path(), ec);
        fs::copy_file(from, to, ec);
    }
    const bool recorded = orig.recorded;
    std::vector<std::string> extra{"--capture-dir", (work / "capture-port").string()};
    if (recorded)
        extra.insert(extra.end(), {"--replay", record.string()});
    const std::vector<std::string> portArgs =
        result.target == "graphcore-poptorch" ? o.originalArgs : std::vector<std::string>{};
    const auto mine = dryRun(portCopy, flavourOf(result.target), extra, portArgs, o, 1);
    v.dryRunSteps = mine.steps;
    v.cancelled = o.stop && o.stop->load();
    v.portLosses = mine.losses;
    if (!mine.error.empty())
        v.dryRunError = mine.error;
    // 3. Agreement.
    if (recorded) {
        const std::size_t n =
            std::min({v.originalLosses.size(), v.portLosses.size(), std::size_t(o.steps)});
        v.stepsCompared = int(n);
        double worst = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double a = v.originalLosses[i], b = v.portLosses[i];
            const double rel = std::abs(a - b) / std::max(std::abs(a), 1e-12);
            const double r = std::isnan(rel) ? 1e300 : rel;
            worst = std::max(worst, r);
            if (r > 1e-5 && v.firstDivergence == 0)
                v.firstDivergence = int(i) + 1;
        }
        const auto& rp = mine.replay;
        compareBackwardLosses(rp, n, v, worst);
        v.maxRelLossDiff = n ? worst : -1;
        if (rp.is_object() && rp.contains("max_abs_weight_diff") &&
            rp["max_abs_weight_diff"].is_number())
            v.maxAbsWeightDiff = rp["max_abs_weight_diff"].get<double>();
        const bool loaded = rp.is_object() && rp.value("weights_loaded", false);
        v.agrees = loaded && int(n) == o.steps && v.firstDivergence == 0 &&
                   v.maxAbsWeightDiff >= 0 && v.maxAbsWeightDiff <= WeightTolerance &&
                   v.checkErrors == 0;
        if (!loaded && v.dryRunError.empty() && rp.is_object())
            v.dryRunError = "the port's model has other parameters than the original's";
    }
    fs::remove_all(work, ec);
    // The original's run before generation counts as verification time too.
    v.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() +
        (o.original ? o.original->milliseconds : 0);
    return v;
}

} // namespace portolan::port
