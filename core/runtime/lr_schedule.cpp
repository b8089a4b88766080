#include "core/runtime/lr_schedule.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>
#include <sstream>

namespace portolan::runtime {

namespace {

double segmentAt(const LrSegment& s, int64_t t)
{
    using K = LrSegment::Kind;
    switch (s.kind) {
    case K::Constant:
        return s.initial;
    case K::Linear: {
        if (s.length <= 0)
            return s.end;
        const double f = std::min<double>(double(t) / double(s.length), 1.0);
        return s.initial + (s.end - s.initial) * f;
    }
    case K::Step:
        // Whole periods elapsed: the division is meant to truncate.
        // NOLINTNEXTLINE(bugprone-integer-division)
        return s.initial * std::pow(s.gamma, double(t / std::max<int64_t>(s.period, 1)));
    case K::Exponential: {
        double p = double(t) / double(std::max<int64_t>(s.period, 1));
        if (s.staircase)
            p = std::floor(p);
        return s.initial * std::pow(s.gamma, p);
    }
    case K::Cosine: {
        const int64_t len = std::max<int64_t>(s.length, 1);
        const double f = std::min<double>(double(t) / double(len), 1.0);
        const double c = 0.5 * (1.0 + std::cos(std::numbers::pi * f));
        if (s.alpha >= 0)
            return s.initial * ((1.0 - s.alpha) * c + s.alpha);
        return s.end + (s.initial - s.end) * c;
    }
    case K::InverseSqrt:
        return s.initial * s.scale /
               std::sqrt(double(std::max<int64_t>(t, std::max<int64_t>(s.period, 1))));
    case K::Piecewise: {
        std::size_t i = 0;
        while (i < s.boundaries.size() && t >= s.boundaries[i])
            ++i;
        return s.values[std::min(i, s.values.size() - 1)];
    }
    }
    return s.initial;
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

LrSegment parseSegment(const ParamsSection& p, bool last)
{
    LrSegment s;
    const std::string name = lower(p.text("scheduler", std::string("constant")));
    const auto length = [&](bool required) -> int64_t {
        for (const char* key : {"steps", "total_iters", "decay_steps"})
            if (p.has(key))
                return p.integer(key, {}, 1);
        if (required && !last)
            p.fail("scheduler", "runtime.params-missing",
                   p.path() + ": a scheduler segment before the last needs steps, "
                              "total_iters or decay_steps");
        return 0;
    };
    using K = LrSegment::Kind;
    if (name == "constant" || name == "constantlr") {
        s.kind = K::Constant;
        s.initial = p.has("learning_rate") ? p.number("learning_rate", {}, 0.0)
                                           : p.number("initial_learning_rate", {}, 0.0);
        s.length = length(true);
    } else if (name == "linear" || name == "linearlr" || name == "polynomial" ||
               name == "polynomiallr") {
        s.kind = K::Linear;
        s.initial = p.number("initial_learning_rate", {}, 0.0);
        s.end = p.number("end_learning_rate", {}, 0.0);
        s.length = length(true);
        if (s.length == 0)
            p.fail("scheduler", "runtime.params-missing",
                   p.path() + ": Linear needs steps, total_iters or decay_steps");
    } else if (name == "step" || name == "steplr") {
        s.kind = K::Step;
        s.initial = p.number("initial_learning_rate", {}, 0.0);
        s.period = p.integer("step_size", {}, 1);
        s.gamma = p.number("gamma", {}, 0.0);
        s.length = length(false);
    } else if (name == "exponential" || name == "exponentiallr") {
        s.kind = K::Exponential;
        s.initial = p.number("initial_learning_rate", {}, 0.0);
        s.gamma =
            p.has("decay_rate") ? p.number("decay_rate", {}, 0.0) : p.number("gamma", {}, 0.0);
        s.period = p.has("decay_steps") ? p.integer("decay_steps", {}, 1) : 1;
        s.staircase = p.boolean("staircase", false);
        s.length = p.has("steps") ? p.integer("steps", {}, 1)
                                  : (p.has("total_iters") ? p.integer("total_iters", {}, 1) : 0);
        if (s.length == 0 && !last)
            length(true);
    } else if (name == "cosine" || name == "cosinedecay" || name == "cosinedecaylr" ||
               name == "cosineannealinglr") {
        s.kind = K::Cosine;
        s.initial = p.number("initial_learning_rate", {}, 0.0);
        if (p.has("alpha"))
            s.alpha = p.number("alpha", {}, 0.0, 1.0);
        else
            s.end = p.number("end_learning_rate", 0.0, 0.0);
        s.length = length(true);
        if (s.length == 0)
            p.fail("scheduler", "runtime.params-missing",
                   p.path() + ": Cosine needs steps, total_iters or decay_steps");
    } else if (name == "inversesquarerootdecay") {
        s.kind = K::InverseSqrt;
        s.initial = p.number("initial_learning_rate", 1.0, 0.0);
        s.scale = p.number("scale", 1.0, 0.0);
        s.period = p.integer("warmup_steps", 1, 1);
        s.length = length(false);
    } else if (name == "piecewiseconstant" || name == "piecewiseconstantlr") {
        s.kind = K::Piecewise;
        s.boundaries = p.integers("boundaries");
        const YAML::Node values = p.node()["values"];
        if (!values.IsSequence() || values.size() != s.boundaries.size() + 1)
            p.fail("values", "runtime.params-type",
                   p.keyPath("values") + " must list one value more than boundaries");
        for (const auto& v : values)
            s.values.push_back(v.as<double>());
        s.length = length(false);
    } else {
        p.fail("scheduler", "runtime.params-choice",
               "unknown learning-rate scheduler '" + p.text("scheduler") +
                   "' (known: Constant, Linear, Step, Exponential, Cosine, CosineDecay, "
                   "InverseSquareRootDecay, PiecewiseConstant)");
    }
    return s;
}

} // namespace

double LrSchedule::at(int64_t step) const
{
    if (segments.empty())
        return 0.0;
    int64_t start = 0;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const auto& s = segments[i];
        const bool last = i + 1 == segments.size();
        if (last || s.length == 0 || step < start + s.length)
            return segmentAt(s, step - start);
        start += s.length;
    }
    return segmentAt(segments.back(), step - start);
}

std::string LrSchedule::describe() const
{
    static const char* names[] = {"constant", "linear",       "step",     "exponential",
                                  "cosine",   "inverse-sqrt", "piecewise"};
    std::ostringstream out;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        if (i)
            out << " -> ";
        out << names[int(segments[i].kind)] << "(" << segments[i].initial;
        if (segments[i].length)
            out << ", " << segments[i].length << " steps";
        out << ")";
    }
    return out.str();
}

LrSchedule LrSchedule::constant(double lr)
{
    LrSchedule s;
    s.segments.push_back({});
    s.segments.back().initial = lr;
    return s;
}

LrSchedule LrSchedule::stepDecay(double lr, int64_t stepSize, double gamma)
{
    LrSchedule s;
    LrSegment seg;
    seg.kind = LrSegment::Kind::Step;
    seg.initial = lr;
    seg.period = std::max<int64_t>(stepSize, 1);
    seg.gamma = gamma;
    s.segments.push_back(seg);
    return s;
}

LrSchedule parseLrSchedule(const ParamsSection& optimizer, const std::string& key)
{
    const YAML::Node n = optimizer.node()[key];
    if (!n.IsDefined() || n.IsNull())
        optimizer.fail(key, "runtime.params-missing", optimizer.keyPath(key) + " is required");
    if (n.IsScalar()) {
        const double lr = optimizer.number(key, {}, 0.0);
        if (lr <= 0)
            optimizer.fail(key, "runtime.params-range",
                           optimizer.keyPath(key) + " must be positive");
        return LrSchedule::constant(lr);
    }
    LrSchedule schedule;
    if (n.IsMap()) {
        schedule.segments.push_back(
            parseSegment(ParamsSection(n, optimizer.file(), optimizer.keyPath(key)), true));
        return schedule;
    }
    if (!n.IsSequence() || n.size() == 0)
        optimizer.fail(key, "runtime.params-type",
                       optimizer.keyPath(key) +
                           " must be a number, a scheduler mapping or a list of them");
    for (std::size_t i = 0; i < n.size(); ++i) {
        const std::string path = optimizer.keyPath(key) + "[" + std::to_string(i) + "]";
        if (!n[i].IsMap())
            optimizer.failAt(n[i], "runtime.params-type", path + " must be a scheduler mapping");
        schedule.segments.push_back(
            parseSegment(ParamsSection(n[i], optimizer.file(), path), i + 1 == n.size()));
    }
    return schedule;
}

} // namespace portolan::runtime
