#include "core/sim/training_config.h"

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

int computeBytes(Precision p)
{
    return p == Precision::Fp32 ? 4 : 2;
}
int stateBytes(Precision p)
{
    return p == Precision::Fp16 ? 2 : 4;
}

} // namespace portolan::sim
