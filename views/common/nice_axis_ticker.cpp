#include "views/common/nice_axis_ticker.h"

#include <cmath>

namespace portolan::views {

NiceAxisTicker::NiceAxisTicker(format::Axis axis, int target) : m_axis(axis), m_target(target)
{
    setTickCount(target);
}

QSharedPointer<NiceAxisTicker> NiceAxisTicker::make(format::Axis axis, int target)
{
    return QSharedPointer<NiceAxisTicker>(new NiceAxisTicker(axis, target));
}

void NiceAxisTicker::generate(const QCPRange& range, const QLocale&, QChar, int,
                              QVector<double>& ticks, QVector<double>* subTicks,
                              QVector<QString>* tickLabels)
{
    const format::Ticks t = format::niceTicks(range.lower, range.upper, m_axis, m_target);
    ticks.clear();
    ticks.reserve(qsizetype(t.values.size()));
    for (const double v : t.values)
        ticks.append(v);
    if (tickLabels) {
        tickLabels->clear();
        for (const auto& l : t.labels)
            tickLabels->append(QString::fromStdString(l));
    }
    if (subTicks) {
        subTicks->clear();
        // No sub-ticks between whole steps: a sub-tick at 1.5 would suggest a half step again.
        if (t.step > 0 && !(m_axis == format::Axis::Integer && t.step <= 1)) {
            const double sub = t.step / 5;
            const double first = std::ceil(range.lower / sub);
            for (int i = 0; i < 1000; ++i) {
                const double k = first + i;
                if (k * sub > range.upper)
                    break;
                if (std::fmod(k, 5.0) != 0.0)
                    subTicks->append(k * sub);
            }
        }
    }
}

} // namespace portolan::views
