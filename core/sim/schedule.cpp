#include "core/sim/schedule.h"

#include <algorithm>

namespace portolan::sim {

double bubbleFraction(int stages, int microBatches)
{
    if (stages <= 1)
        return 0;
    return double(stages - 1) / double(microBatches + stages - 1);
}

std::vector<ScheduleEvent> simulateSchedule(Schedule kind, const std::vector<double>& forward,
                                            const std::vector<double>& backward,
                                            const std::vector<double>& linkSeconds, int m)
{
    std::vector<ScheduleEvent> events;
    scheduleEnd(kind, forward, backward, linkSeconds, m, &events);
    return events;
}

double scheduleEnd(Schedule kind, const std::vector<double>& forward,
                   const std::vector<double>& backward, const std::vector<double>& linkSeconds,
                   int m, std::vector<ScheduleEvent>* events)
{
    const int p = int(forward.size());
    m = std::max(1, m);
    struct Task
    {
        bool backward;
        int micro;
    };
    // Each stage's task order.
    std::vector<std::vector<Task>> order(static_cast<std::size_t>(p));
    for (int s = 0; s < p; ++s) {
        auto& o = order[std::size_t(s)];
        o.reserve(2 * std::size_t(m));
        if (kind == Schedule::GPipe) {
            for (int j = 0; j < m; ++j)
                o.push_back({false, j});
            for (int j = 0; j < m; ++j)
                o.push_back({true, j});
        } else {
            const int warmup = std::min(m, p - s);
            int f = 0, b = 0;
            for (; f < warmup; ++f)
                o.push_back({false, f});
            while (b < m) {
                o.push_back({true, b++});
                if (f < m)
                    o.push_back({false, f++});
            }
        }
    }
    const auto link = [&](int s) {
        return s >= 0 && std::size_t(s) < linkSeconds.size() ? linkSeconds[std::size_t(s)] : 0.0;
    };
    // End times, stage by stage (one array each: 256 stages of 55 micro-batches are thousands of
    // small vectors otherwise); -1 = not yet run.
    const auto at = [m](int s, int micro) {
        return std::size_t(s) * std::size_t(m) + std::size_t(micro);
    };
    std::vector<double> fEnd(std::size_t(p) * std::size_t(m), -1);
    std::vector<double> bEnd = fEnd;
    std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
    std::vector<double> free(static_cast<std::size_t>(p), 0);
    if (events) {
        events->clear();
        events->reserve(2 * std::size_t(p) * std::size_t(m));
    }
    double last = 0;
    bool progress = true;
    while (progress) {
        progress = false;
        for (int s = 0; s < p; ++s) {
            auto& o = order[std::size_t(s)];
            // Run every task of this stage whose input is ready, in order.
            while (next[std::size_t(s)] < o.size()) {
                const Task t = o[next[std::size_t(s)]];
                double ready = 0;
                if (!t.backward) {
                    if (s > 0) {
                        const double e = fEnd[at(s - 1, t.micro)];
                        if (e < 0)
                            break;
                        ready = e + link(s - 1);
                    }
                } else {
                    if (s + 1 < p) {
                        const double e = bEnd[at(s + 1, t.micro)];
                        if (e < 0)
                            break;
                        ready = e + link(s);
                    } else {
                        const double e = fEnd[at(s, t.micro)];
                        if (e < 0)
                            break;
                        ready = e;
                    }
                }
                const double start = std::max(ready, free[std::size_t(s)]);
                const double dur = t.backward ? backward[std::size_t(s)] : forward[std::size_t(s)];
                const double end = start + dur;
                (t.backward ? bEnd : fEnd)[at(s, t.micro)] = end;
                free[std::size_t(s)] = end;
                last = std::max(last, end);
                if (events)
                    events->push_back({s, t.micro, t.backward, start, end});
                ++next[std::size_t(s)];
                progress = true;
            }
        }
    }
    return last;
}

} // namespace portolan::sim
