// Torch LR schedulers as Cerebras schedules: counts in epochs become counts in steps when the
// steps of an epoch are known exactly (see cerebras_schedule.h).
#include "core/port/cerebras_schedule.h"

#include "core/common/resources.h"
#include "core/port/syntax.h"

#include <cmath>
#include <functional>
#include <sstream>
#include <yaml-cpp/yaml.h>

namespace portolan::port::detail {

namespace {

// A call's arguments: positional texts in order, keywords by name.
struct CallArgs
{
    std::vector<std::string> positional;
    std::map<std::string, std::string> keyword;
};

CallArgs callArgs(const SourceFile& src, TSNode call)
{
    CallArgs out;
    const TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
    if (ts_node_is_null(args))
        return out;
    for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
        const TSNode a = ts_node_named_child(args, i);
        if (nodeType(a) == "keyword_argument")
            out.keyword[src.text(ts_node_child_by_field_name(a, "name", 4))] =
                src.text(ts_node_child_by_field_name(a, "value", 5));
        else if (nodeType(a) != "comment")
            out.positional.push_back(src.text(a));
    }
    return out;
}

std::string calleeName(const SourceFile& src, TSNode call)
{
    const std::string f = src.text(ts_node_child_by_field_name(call, "function", 8));
    const auto dot = f.rfind('.');
    return dot == std::string::npos ? f : f.substr(dot + 1);
}

bool isNumber(const std::string& t)
{
    return !t.empty() && t.find_first_not_of("0123456789.-+eE_") == std::string::npos &&
           std::isdigit(static_cast<unsigned char>(t.back()));
}

} // namespace

std::optional<long> torchvisionSamples(const SourceFile& src, TSNode call, std::string* name,
                                       const std::function<std::string(const std::string&)>& value)
{
    if (nodeType(call) != "call")
        return std::nullopt;
    static const YAML::Node table = [] {
        try {
            return YAML::LoadFile((resourcesDir() / "datasets" / "torchvision.yaml").string());
        } catch (const std::exception&) {
            return YAML::Node();
        }
    }();
    const std::string cls = calleeName(src, call);
    if (!table.IsMap() || !table[cls] || !table[cls].IsMap())
        return std::nullopt;
    const CallArgs a = callArgs(src, call);
    if (const YAML::Node sized = table[cls]["size_argument"]) {
        // FakeData(size, ...): the size is the call's, a value or a flag's default.
        const std::string key = sized.as<std::string>();
        const auto position = table[cls]["position"].as<std::size_t>(0);
        const std::string text = a.keyword.count(key) ? a.keyword.at(key)
                                 : a.positional.size() > position
                                     ? a.positional[position]
                                     : table[cls]["default"].as<std::string>("");
        const std::string v = value ? value(text) : trimmed(text);
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        if (name)
            *name = "torchvision.datasets." + cls + " (" + v + " samples)";
        return std::stol(v);
    }
    std::string split;
    if (a.keyword.count("split")) {
        split = trimmed(a.keyword.at("split"));
        if (split.size() < 2 || (split.front() != '\'' && split.front() != '"'))
            return std::nullopt; // a split chosen at run time
        split = split.substr(1, split.size() - 2);
    } else {
        // train=True by default; the second positional argument of the MNIST and CIFAR classes.
        std::string train = a.keyword.count("train")  ? a.keyword.at("train")
                            : a.positional.size() > 1 ? a.positional[1]
                                                      : "True";
        train = trimmed(train);
        if (train != "True" && train != "False")
            return std::nullopt;
        split = train == "True" ? "train" : "test";
    }
    const YAML::Node n = table[cls][split];
    if (!n || !n.IsScalar())
        return std::nullopt;
    if (name)
        *name =
            "torchvision.datasets." + cls + " (" + split + ", " + n.as<std::string>() + " samples)";
    return n.as<long>();
}

TSNode assignedValue(const SourceFile& src, const std::string& name, std::uint32_t before)
{
    TSNode found{};
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& stmts) {
        for (const auto& s : stmts) {
            if (s.start >= before)
                return;
            if (s.type == "expression_statement" && s.defines.count(name)) {
                const TSNode a = ts_node_named_child(s.node, 0);
                const TSNode left = ts_node_child_by_field_name(a, "left", 4);
                const TSNode right = ts_node_child_by_field_name(a, "right", 5);
                if (nodeType(a) == "assignment" && src.text(left) == name)
                    found = right;
                // `epochs, lr = 1000, 0.001`: the value in the name's place.
                const auto many = [](TSNode n) {
                    const auto t = nodeType(n);
                    return t == "pattern_list" || t == "tuple_pattern" || t == "expression_list" ||
                           t == "tuple";
                };
                if (nodeType(a) == "assignment" && many(left) && many(right) &&
                    ts_node_named_child_count(left) == ts_node_named_child_count(right))
                    for (uint32_t i = 0; i < ts_node_named_child_count(left); ++i)
                        if (src.text(ts_node_named_child(left, i)) == name)
                            found = ts_node_named_child(right, i);
            }
            walk(s.body);
            walk(s.other);
        }
    };
    walk(src.statements());
    return found;
}

std::string constantNumber(const SourceFile& src, const std::string& name, std::uint32_t before)
{
    static const std::string word =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
    if (name.empty() || name.find_first_not_of(word) != std::string::npos)
        return {};
    const TSNode v = assignedValue(src, name, before);
    if (ts_node_is_null(v))
        return {};
    const std::string t = trimmed(src.text(v));
    return isNumber(t) ? t : std::string();
}

namespace {
// A number's text, a flag's default (`args.batch_size`), a name holding a number
// (`learning_rate = 0.001` above), or "" (not a value).
std::function<std::string(std::string)> valuesOf(const PortPlan& plan, const SourceFile& src,
                                                 const std::map<std::string, Hyper>& hp)
{
    return [&plan, &src, &hp](std::string t) -> std::string {
        t = trimmed(t);
        if (const std::string dest = plan.flagDest(t); !dest.empty()) {
            const auto it = hp.find(dest);
            return it == hp.end() || !isNumber(it->second.value) ? std::string() : it->second.value;
        }
        if (isNumber(t))
            return t;
        const std::uint32_t before =
            plan.loop ? plan.loop->loop.start : std::uint32_t(src.text().size());
        return constantNumber(src, t, before);
    };
}

} // namespace

std::optional<long> epochSamples(const PortPlan& plan, const SourceFile& src,
                                 const std::map<std::string, Hyper>& hp, std::string* why,
                                 bool* synthetic)
{
    if (synthetic)
        *synthetic = false;
    if (plan.train.dataset.valid()) {
        TSNode ds = src.nodeAt(plan.train.dataset.start, plan.train.dataset.end);
        if (nodeType(ds) == "identifier")
            ds = assignedValue(src, src.text(ds), plan.train.construction.start);
        const auto valueOf = valuesOf(plan, src, hp);
        if (const auto n = torchvisionSamples(src, ds, why, valueOf))
            return n;
    }
    // Not in the code: the data the original's dry run read, when it ran before generation.
    if (plan.train.observedSamples <= 0)
        return std::nullopt;
    const std::string dataset = plan.train.dataset.valid()
                                    ? src.text(plan.train.dataset.start, plan.train.dataset.end)
                                    : std::string("the train data");
    if (why)
        *why = "the " + std::to_string(plan.train.observedSamples) + " samples of `" + dataset +
               "` in the original's dry run" +
               (plan.train.observedSynthetic ? " (data the dry run made up)" : "");
    if (synthetic)
        *synthetic = plan.train.observedSynthetic;
    return plan.train.observedSamples;
}

namespace {
using ValueOf = std::function<std::string(std::string)>;

// A MultiStepLR's milestones as numbers (`[30, 80]`, or names with values), nothing when one
// of them is not a value.
std::optional<std::vector<long>> milestonesOf(const CallArgs& a, const ValueOf& valueOf)
{
    std::string m = a.keyword.count("milestones") ? a.keyword.at("milestones")
                    : a.positional.size() > 1     ? a.positional[1]
                                                  : "";
    m = trimmed(m);
    if (m.size() <= 2 || (m.front() != '[' && m.front() != '('))
        return std::nullopt;
    std::vector<long> milestones;
    std::stringstream in(m.substr(1, m.size() - 2));
    for (std::string e; std::getline(in, e, ',');) {
        const std::string v = valueOf(e);
        if (trimmed(e).empty())
            continue;
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        milestones.push_back(std::stol(v));
    }
    return milestones;
}

// One torch scheduler read as a Cerebras schedule: its kind, its values, and the steps one of
// its counts is (1 for a scheduler stepped every batch, the steps of an epoch otherwise).
struct ScheduleArgs
{
    std::string kind;
    std::string gamma;
    std::string stepSize;
    std::vector<long> milestones;
    long scale = 0;
    bool known = false;
};

// A decay by hand that holds `offset` epochs off StepLR's (plan_lr.cpp) over a known number of
// epochs: the epochs it decays after, n = K - offset, 2K - offset, ... up to the last, are the
// milestones of a MultiStepLR, the same decays for that run.
void offsetMilestones(const SchedulerPlan& s, const ValueOf& valueOf, ScheduleArgs& r)
{
    r.kind = "LambdaLR"; // unknown, unless the epochs have a value
    const auto number = [](const std::string& t) {
        return !t.empty() && t.size() <= 9 && t.find_first_not_of("0123456789") == std::string::npos
                   ? std::optional<long>(std::stol(t))
                   : std::nullopt;
    };
    // The range's end: a value, or a value plus or minus a literal (`args.epochs + 1`).
    std::optional<long> end = number(valueOf(s.epochsEnd));
    for (const char op : {'+', '-'})
        if (const auto at = s.epochsEnd.rfind(op); !end && at != std::string::npos) {
            auto trim = [](std::string t) {
                t.erase(0, t.find_first_not_of(' '));
                t.erase(t.find_last_not_of(' ') + 1);
                return t;
            };
            const auto left = number(valueOf(trim(s.epochsEnd.substr(0, at))));
            const auto right = number(trim(s.epochsEnd.substr(at + 1)));
            if (left && right)
                end = op == '+' ? *left + *right : *left - *right;
        }
    const long every = std::stol(s.stepSize);
    if (!end)
        return;
    const long epochs = *end - s.epochsStart;
    for (long n = every - s.offset; n <= epochs; n += every)
        r.milestones.push_back(n);
    if (!r.milestones.empty())
        r.kind = "MultiStepLR";
}

// The PyTorch schedulers whose Cerebras form this file writes (scheduleArgs, writeSchedule).
bool isWrittenKind(const std::string& kind)
{
    return kind == "StepLR" || kind == "MultiStepLR" || kind == "ExponentialLR";
}

ScheduleArgs scheduleArgs(const SchedulerPlan& s, const SourceFile& src, const ValueOf& valueOf,
                          const std::string& learningRate, std::optional<long> stepsPerEpoch)
{
    ScheduleArgs r;
    r.kind = s.qualified.substr(s.qualified.rfind('.') + 1);
    const std::string& kind = r.kind;
    // A scheduler the plan made (a decay by hand) has its StepLR arguments, not a call.
    const TSNode call =
        s.synthesized.empty() ? src.nodeAt(s.construction.start, s.construction.end) : TSNode{};
    CallArgs a = s.synthesized.empty() ? callArgs(src, call) : CallArgs{};
    if (!s.synthesized.empty())
        a.keyword = {{"step_size", s.stepSize}, {"gamma", s.gamma}};
    auto arg = [&](std::size_t pos, const std::string& key, const std::string& fallback) {
        if (a.keyword.count(key))
            return valueOf(a.keyword.at(key));
        return a.positional.size() > pos ? valueOf(a.positional[pos]) : fallback;
    };
    r.scale = s.perBatch ? 1 : stepsPerEpoch.value_or(0);
    r.gamma = arg(kind == "MultiStepLR" ? 2
                  : kind == "StepLR"    ? 2
                                        : 1,
                  "gamma", kind == "ExponentialLR" ? "" : "0.1");
    r.stepSize = kind == "StepLR" ? arg(1, "step_size", "") : "1";
    bool milestonesOk = kind != "MultiStepLR";
    if (kind == "MultiStepLR")
        if (auto m = milestonesOf(a, valueOf)) {
            r.milestones = std::move(*m);
            milestonesOk = true;
        }
    if (!s.synthesized.empty() && s.offset != 0)
        offsetMilestones(s, valueOf, r);
    r.known =
        isWrittenKind(kind) && !r.gamma.empty() && !learningRate.empty() && milestonesOk &&
        (kind != "StepLR" || (!r.stepSize.empty() &&
                              r.stepSize.find_first_not_of("0123456789") == std::string::npos)) &&
        !a.keyword.count("last_epoch") && r.scale > 0;
    return r;
}

// The Trainer's and the runner's YAML for one known schedule, and the note that says where
// its counts in steps come from (`steps`).
void writeSchedule(const SchedulerPlan& s, const ScheduleArgs& r, const std::string& learningRate,
                   const std::string& steps, std::string& trainer, std::string& runner,
                   std::vector<std::string>& notes)
{
    const long scale = r.scale;
    const std::string& gamma = r.gamma;
    if (r.kind == "StepLR") {
        const long size = std::stol(r.stepSize) * scale;
        trainer += "      - StepLR:\n          initial_learning_rate: " + learningRate +
                   "\n          step_size: " + std::to_string(size) +
                   "\n          gamma: " + gamma + "\n";
        runner += "    scheduler: \"Exponential\"\n    initial_learning_rate: " + learningRate +
                  "\n    decay_steps: " + std::to_string(size) + "\n    decay_rate: " + gamma +
                  "\n    staircase: true\n";
        notes.push_back("LR scheduler " + s.variable + ": StepLR(step_size=" + r.stepSize +
                        (s.perBatch ? " steps" : " epochs") + ") steps every " +
                        std::to_string(size) + " steps" + steps);
    } else if (r.kind == "ExponentialLR") {
        trainer += "      - ExponentialLR:\n          initial_learning_rate: " + learningRate +
                   "\n          total_iters: " + std::to_string(scale) +
                   "\n          decay_rate: " + gamma + "\n          staircase: true\n";
        runner += "    scheduler: \"Exponential\"\n    initial_learning_rate: " + learningRate +
                  "\n    decay_steps: " + std::to_string(scale) + "\n    decay_rate: " + gamma +
                  "\n    staircase: true\n";
        notes.push_back("LR scheduler " + s.variable + ": ExponentialLR decays every " +
                        std::to_string(scale) + " steps" + steps);
    } else {
        std::string list;
        for (long m : r.milestones)
            list += (list.empty() ? "" : ", ") + std::to_string(m * scale);
        trainer += "      - MultiStepLR:\n          initial_learning_rate: " + learningRate +
                   "\n          gamma: " + gamma + "\n          milestones: [" + list + "]\n";
        notes.push_back("LR scheduler " + s.variable + ": MultiStepLR milestones in steps [" +
                        list + "]" + steps);
        // The runner's piecewise-constant schedule: the rate of each interval.
        std::string values = learningRate, bounds;
        double lr = std::stod(learningRate);
        for (long m : r.milestones) {
            lr *= std::stod(gamma);
            std::ostringstream v;
            v.precision(17);
            v << lr;
            values += ", " + v.str();
            bounds += (bounds.empty() ? "" : ", ") + std::to_string(m * scale);
        }
        runner += "    scheduler: \"PiecewiseConstant\"\n    values: [" + values +
                  "]\n    boundaries: [" + bounds + "]\n";
    }
}

// The dry runs shrink the batch (to 2 unless --batch says otherwise), the original's and the
// port's alike, and a schedule counted in epochs then parts: the original's dry run decays after
// its own, longer epochs, the port's after the steps written here, which count the configured
// batch, as a real run does. It matters where the first decay falls within the steps a
// verification compares (3 by default): the note says so there, and why.
std::string dryRunBatchNote(const SchedulerPlan& s, const ScheduleArgs& r, const std::string& batch)
{
    constexpr long dryRunBatch = 2, comparedSteps = 3;
    if (s.perBatch || batch.empty() || batch.find_first_not_of("0123456789") != std::string::npos ||
        batch.size() > 9 || std::stol(batch) <= dryRunBatch)
        return {};
    const long first = r.kind == "StepLR" ? std::stol(r.stepSize) * r.scale
                       : r.kind == "MultiStepLR" && !r.milestones.empty()
                           ? r.milestones.front() * r.scale
                           : r.scale;
    if (first > comparedSteps)
        return {};
    return "LR scheduler " + s.variable + " first decays after " + std::to_string(first) +
           " steps at batch " + batch +
           ", within the steps a verification compares: the dry "
           "runs shrink the batch to " +
           std::to_string(dryRunBatch) +
           ", so the original's dry run decays after its longer epochs and the two dry runs part "
           "there, while a real run at batch " +
           batch + " decays at the step the original does";
}

} // namespace

CerebrasSchedule cerebrasSchedule(const PortPlan& plan, const SourceFile& src,
                                  const std::map<std::string, Hyper>& hp,
                                  const std::string& learningRate)
{
    CerebrasSchedule out;
    if (plan.schedulers.empty())
        return out;
    const auto valueOf = valuesOf(plan, src, hp);

    // The steps of an epoch of the port: its loader drops the last partial batch. Samples the
    // dry run made up are not the real data's: no schedule is counted from them.
    std::optional<long> stepsPerEpoch;
    std::string why;
    const std::string batch = valueOf(plan.train.batchSize);
    bool synthetic = false;
    if (!batch.empty() && std::stol(batch) > 0)
        if (const auto n = epochSamples(plan, src, hp, &why, &synthetic); n && !synthetic) {
            stepsPerEpoch = *n / std::stol(batch);
            why += " // batch size " + batch;
        }
    const std::string datasetText = plan.train.dataset.valid()
                                        ? src.text(plan.train.dataset.start, plan.train.dataset.end)
                                        : std::string("the train data");

    std::string trainer, runner;
    for (const auto& s : plan.schedulers) {
        const ScheduleArgs r = scheduleArgs(s, src, valueOf, learningRate, stepsPerEpoch);
        if (!r.known) {
            const std::string unit = s.perBatch ? "step" : "epoch";
            std::string msg = "LR scheduler " + s.variable + " (" + s.qualified +
                              ", stepped once per " + unit + "): ";
            if (s.offset != 0)
                // A decay by hand that holds off StepLR's epochs (plan_lr.cpp): a MultiStepLR
                // over the run's epochs is the same, when its counts are known.
                msg += s.replaces + " holds after epochs " +
                       std::to_string(std::stol(s.stepSize) - s.offset) + ", " +
                       std::to_string(2 * std::stol(s.stepSize) - s.offset) + ", ... (" +
                       s.synthesized +
                       "); a MultiStepLR whose milestones are those epochs in steps is the same, "
                       "but " +
                       (r.kind == "LambdaLR"
                            ? "the number of epochs (" + s.epochsEnd + ") has no value here"
                        : !stepsPerEpoch ? "the steps of an epoch are not known from the code"
                                         : "the optimizer's rate is not a value") +
                       ": write it in configs/params.yaml (a MultiStepLR for the Trainer, a "
                       "PiecewiseConstant for the runner)";
            else if (r.kind == "ReduceLROnPlateau")
                // A vendor fact, not a gap of the port: cerebras.pytorch.optim.lr_scheduler's
                // schedules (Constant, Linear, Exponential, Step, MultiStep, Cosine,
                // Polynomial, Sequential, ...) are functions of the step count that run on the
                // device; none takes a metric.
                msg += "a Cerebras schedule is a function of the step count, computed on the "
                       "device; none reads a metric as ReduceLROnPlateau's step(metric) does: "
                       "keep a constant rate, or write in configs/params.yaml the steps where "
                       "the original's rate fell in a run of yours (a PiecewiseConstant)";
            else if (!s.perBatch && !stepsPerEpoch)
                msg += "the Cerebras schedulers count steps, and the steps of an epoch (the "
                       "samples of `" +
                       datasetText + "` // batch size " +
                       (batch.empty() ? plan.train.batchSize : batch) +
                       ") are not known from the code: write it in configs/params.yaml with its "
                       "counts in epochs (step_size, milestones, T_max) times that, and the "
                       "optimizer's rate as initial_learning_rate";
            else
                msg += "no Cerebras schedule is written for it (" +
                       std::string(learningRate.empty() ? "the optimizer's rate is not a value"
                                   : isWrittenKind(r.kind)
                                       ? "its arguments are not values"
                                       : "Portolan writes StepLR, MultiStepLR and ExponentialLR "
                                         "only, and this is a " +
                                             r.kind) +
                       "): write it in configs/params.yaml";
            out.manual.push_back(manualFinding(
                msg, s.construction, "trainer.init.schedulers / optimizer.learning_rate"));
            continue;
        }
        // Where the count in steps comes from, said once per scheduler.
        const std::string steps =
            s.perBatch ? std::string(" (stepped every batch, as in the original)")
                       : " (an epoch of the port is " + std::to_string(r.scale) + " steps: " + why +
                             "; its loader drops the last partial batch)";
        writeSchedule(s, r, learningRate, steps, trainer, runner, out.notes);
        if (const auto note = dryRunBatchNote(s, r, batch); !note.empty())
            out.notes.push_back(note);
    }
    if (!trainer.empty())
        out.trainerYaml = "    schedulers:\n" + trainer;
    // The runner takes one schedule (a list runs them one after the other): several torch
    // schedulers at once are not one runner schedule.
    if (plan.schedulers.size() == 1)
        out.runnerLearningRate = runner;
    else if (!runner.empty())
        out.manual.push_back(manualFinding(
            "several LR schedulers act together: the runner's learning_rate takes one schedule",
            plan.schedulers[1].construction, "optimizer.learning_rate in params.yaml"));
    return out;
}

} // namespace portolan::port::detail
