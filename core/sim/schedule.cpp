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
    // Stage s's k-th task of its 2m. GPipe: every forward, then every backward. 1F1B: `warmup`
    // forwards, then a backward and a forward in turn while forwards remain, then the backwards
    // left.
    const auto taskAt = [&](int s, int k) -> Task {
        if (kind == Schedule::GPipe)
            return k < m ? Task{false, k} : Task{true, k - m};
        const int warmup = std::min(m, p - s);
        if (k < warmup)
            return {false, k};
        const int r = k - warmup, alternating = 2 * (m - warmup);
        if (r < alternating)
            return r % 2 == 0 ? Task{true, r / 2} : Task{false, warmup + r / 2};
        return {true, r - (m - warmup)};
    };
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
    // A stage whose next task was not ready stays so until a neighbour runs one (a forward feeds
    // the next stage, a backward the previous): passed over until then, in the same order.
    std::vector<char> waiting(static_cast<std::size_t>(p), 0);
    bool progress = true;
    while (progress) {
        progress = false;
        for (int s = 0; s < p; ++s) {
            if (waiting[std::size_t(s)])
                continue;
            waiting[std::size_t(s)] = 1;
            // Run every task of this stage whose input is ready, in order.
            while (next[std::size_t(s)] < 2 * std::size_t(m)) {
                const Task t = taskAt(s, int(next[std::size_t(s)]));
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
                if (s > 0)
                    waiting[std::size_t(s) - 1] = 0;
                if (s + 1 < p)
                    waiting[std::size_t(s) + 1] = 0;
                ++next[std::size_t(s)];
                progress = true;
            }
        }
    }
    return last;
}

} // namespace portolan::sim
