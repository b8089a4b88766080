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

namespace {

// The step ends of the latest schedules, by their inputs. A remedy that changes only memory
// (fp16 on a model already in mixed precision, the optimizer state off chip, a serialized
// vocabulary, half partials) leaves every stage's time as it was, so the advice asks for the
// same schedule again: at 256 stages of 55 micro-batches each is 28,160 tasks. Per thread:
// simulations run on workers.
struct ScheduleMemo
{
    struct Entry
    {
        Schedule kind;
        int m;
        std::vector<double> forward, backward, links;
        double end;
    };
    static constexpr std::size_t kEntries = 8;
    std::vector<Entry> entries; // oldest first
    std::size_t next = 0;       // the entry the next store replaces once full

    const Entry* find(Schedule kind, int m, const std::vector<double>& f,
                      const std::vector<double>& b, const std::vector<double>& l) const
    {
        for (const auto& e : entries)
            if (e.kind == kind && e.m == m && e.forward == f && e.backward == b && e.links == l)
                return &e;
        return nullptr;
    }
    void store(Entry e)
    {
        if (entries.size() < kEntries) {
            entries.push_back(std::move(e));
            return;
        }
        entries[next] = std::move(e);
        next = (next + 1) % kEntries;
    }
};

double scheduleEndOnce(Schedule kind, const std::vector<double>& forward,
                       const std::vector<double>& backward, const std::vector<double>& links, int m,
                       std::vector<ScheduleEvent>* events)
{
    const int p = int(forward.size());
    // Stage s's k-th task of its 2m: `warmup` forwards, then a backward and a forward in turn
    // while forwards remain, then the backwards left. GPipe is the case warmup = m (every
    // forward, then every backward); 1F1B warms up with min(m, p - s).
    const auto warmupOf = [&](int s) {
        return kind == Schedule::GPipe ? m : std::min(m, p - s);
    };
    // End times, stage by stage (one array each: 256 stages of 55 micro-batches are thousands of
    // small vectors otherwise); -1 = not yet run.
    const std::size_t mm = std::size_t(m);
    std::vector<double> fEnd(std::size_t(p) * mm, -1);
    std::vector<double> bEnd = fEnd;
    std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
    std::vector<double> free(static_cast<std::size_t>(p), 0);
    if (events) {
        events->clear();
        events->reserve(2 * std::size_t(p) * mm);
    }
    double last = 0;
    // A stage whose next task was not ready stays so until a neighbour runs one (a forward feeds
    // the next stage, a backward the previous): passed over until then, in the same order.
    std::vector<char> waiting(static_cast<std::size_t>(p), 0);
    bool progress = true;
    while (progress) {
        progress = false;
        for (int s = 0; s < p; ++s) {
            const std::size_t si = std::size_t(s);
            if (waiting[si])
                continue;
            waiting[si] = 1;
            // Run every task of this stage whose input is ready, in order. The stage's own
            // arrays and its neighbours' are read through pointers: at 256 stages of 55
            // micro-batches this loop runs 28,160 tasks per simulation.
            double* const fMine = fEnd.data() + si * mm;
            double* const bMine = bEnd.data() + si * mm;
            const double* const fPrev = s > 0 ? fMine - mm : nullptr;
            const double* const bNext = s + 1 < p ? bMine + mm : nullptr;
            const int warmup = warmupOf(s);
            const int alternating = 2 * (m - warmup);
            std::size_t k = next[si];
            double stageFree = free[si];
            while (k < 2 * mm) {
                bool backwardTask = false;
                int micro = int(k);
                if (int(k) >= warmup) {
                    const int r = int(k) - warmup;
                    if (r < alternating) {
                        backwardTask = r % 2 == 0;
                        micro = backwardTask ? r / 2 : warmup + r / 2;
                    } else {
                        backwardTask = true;
                        micro = r - (m - warmup);
                    }
                }
                const std::size_t mi = std::size_t(micro);
                double ready = 0;
                if (!backwardTask) {
                    if (fPrev) {
                        const double e = fPrev[mi];
                        if (e < 0)
                            break;
                        ready = e + links[si - 1];
                    }
                } else if (bNext) {
                    const double e = bNext[mi];
                    if (e < 0)
                        break;
                    ready = e + links[si];
                } else {
                    const double e = fMine[mi];
                    if (e < 0)
                        break;
                    ready = e;
                }
                const double start = std::max(ready, stageFree);
                const double end = start + (backwardTask ? backward[si] : forward[si]);
                (backwardTask ? bMine : fMine)[mi] = end;
                stageFree = end;
                last = std::max(last, end);
                if (events)
                    events->push_back({s, micro, backwardTask, start, end});
                ++k;
            }
            if (k == next[si])
                continue;
            next[si] = k;
            free[si] = stageFree;
            if (s > 0)
                waiting[si - 1] = 0;
            if (s + 1 < p)
                waiting[si + 1] = 0;
            progress = true;
        }
    }
    return last;
}

} // namespace

double scheduleEnd(Schedule kind, const std::vector<double>& forward,
                   const std::vector<double>& backward, const std::vector<double>& linkSeconds,
                   int m, std::vector<ScheduleEvent>* events)
{
    m = std::max(1, m);
    // Link times padded with zeros to one per stage.
    std::vector<double> links(forward.size(), 0.0);
    std::copy_n(linkSeconds.begin(), std::min(linkSeconds.size(), links.size()), links.begin());
    thread_local ScheduleMemo memo;
    if (!events)
        if (const auto* e = memo.find(kind, m, forward, backward, links))
            return e->end;
    const double end = scheduleEndOnce(kind, forward, backward, links, m, events);
    memo.store({kind, m, forward, backward, std::move(links), end});
    return end;
}

} // namespace portolan::sim
