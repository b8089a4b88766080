#include "core/sim/training_config.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace portolan::sim {

std::string_view precisionName(Precision p)
{
    switch (p) {
    case Precision::Fp32:
        return "fp32";
    case Precision::Fp16:
        return "fp16";
    case Precision::Mixed:
        return "mixed";
    }
    return "fp32";
}

std::optional<Precision> precisionFromName(std::string_view s)
{
    for (auto p : {Precision::Fp32, Precision::Fp16, Precision::Mixed})
        if (precisionName(p) == s)
            return p;
    return std::nullopt;
}

std::string_view optimizerName(Optimizer o)
{
    switch (o) {
    case Optimizer::Sgd:
        return "sgd";
    case Optimizer::SgdMomentum:
        return "sgd-momentum";
    case Optimizer::Adam:
        return "adam";
    case Optimizer::AdamW:
        return "adamw";
    case Optimizer::Lamb:
        return "lamb";
    }
    return "sgd";
}

std::optional<Optimizer> optimizerFromName(std::string_view s)
{
    for (auto o : {Optimizer::Sgd, Optimizer::SgdMomentum, Optimizer::Adam, Optimizer::AdamW,
                   Optimizer::Lamb})
        if (optimizerName(o) == s)
            return o;
    return std::nullopt;
}

std::string_view scheduleName(Schedule s)
{
    return s == Schedule::GPipe ? "gpipe" : "1f1b";
}

std::optional<Schedule> scheduleFromName(std::string_view s)
{
    if (s == "gpipe")
        return Schedule::GPipe;
    if (s == "1f1b")
        return Schedule::OneFOneB;
    return std::nullopt;
}

int optimizerSlots(Optimizer o)
{
    switch (o) {
    case Optimizer::Sgd:
        return 0;
    case Optimizer::SgdMomentum:
        return 1;
    case Optimizer::Adam:
    case Optimizer::AdamW:
    case Optimizer::Lamb:
        return 2;
    }
    return 0;
}

std::string_view momentumTypeName(bool half)
{
    return half ? "fp16" : "fp32";
}

std::optional<bool> momentumTypeFromName(std::string_view s)
{
    if (s == "fp16")
        return true;
    if (s == "fp32")
        return false;
    return std::nullopt;
}

TrainingConfig TrainingConfig::forStage(int stage) const
{
    TrainingConfig c = *this;
    if (stage >= 0 && std::size_t(stage) < availableMemoryProportionPerStage.size())
        c.availableMemoryProportion = availableMemoryProportionPerStage[std::size_t(stage)];
    if (stage >= 0 && std::size_t(stage) < recomputePerStage.size())
        c.recompute = recomputePerStage[std::size_t(stage)] != 0;
    return c;
}

std::string stageValuesText(const std::vector<int>& values)
{
    std::string s;
    for (std::size_t i = 0; i < values.size(); ++i)
        s += (i ? "," : "") + std::to_string(values[i]);
    return s;
}

std::string stageValuesText(const std::vector<double>& values)
{
    std::string s;
    char buf[32];
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%.3g", values[i]);
        s += (i ? "," : "") + std::string(buf);
    }
    return s;
}

std::optional<std::vector<double>> parseStageValues(std::string_view text, double lo, double hi,
                                                    std::string* error)
{
    std::vector<double> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item(text.substr(pos, comma - pos));
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || end != item.c_str() + item.size() || !(v >= lo && v <= hi)) {
            if (error)
                *error = "'" + item + "' in '" + std::string(text) + "' is not a number in [" +
                         std::to_string(lo).substr(0, 4) + ", " + std::to_string(hi).substr(0, 4) +
                         "] (one value per stage, comma-separated)";
            return std::nullopt;
        }
        out.push_back(v);
        pos = comma + 1;
    }
    return out;
}

} // namespace portolan::sim
