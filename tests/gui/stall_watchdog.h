#pragma once

// Measures how long the GUI thread stops answering: a QTimer that should fire every `period` ms
// records by how much it was late. The longest lateness is the longest stall a user would feel
// (a click or a repaint waits that long). Lateness also counts time the OS gave the CPU to other
// processes; the busy stall counts only the GUI thread's own CPU time between two ticks, which is
// what the GUI code is responsible for.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>
#include <ctime>

namespace portolan::test {

class StallWatchdog : public QObject
{
public:
    explicit StallWatchdog(int periodMs = 5) : m_period(periodMs)
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(periodMs);
        QObject::connect(&m_timer, &QTimer::timeout, this, [this] { tick(); });
    }
    void start()
    {
        m_longest = m_longestBusy = 0;
        m_ticks = 0;
        m_clock.start();
        m_last = 0;
        m_lastCpu = threadCpuMs();
        m_timer.start();
    }
    void stop() { m_timer.stop(); }
    // The longest time, in ms, the event loop went without running the timer, minus its period.
    qint64 longestStallMs() const { return m_longest; }
    // The same, counting only the CPU time the GUI thread itself used in that gap.
    qint64 longestBusyStallMs() const { return m_longestBusy; }
    int ticks() const { return m_ticks; }

private:
    static qint64 threadCpuMs()
    {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
    }
    void tick()
    {
        const qint64 now = m_clock.elapsed();
        const qint64 cpu = threadCpuMs();
        const qint64 late = now - m_last - m_period;
        m_longest = std::max(m_longest, late);
        m_longestBusy = std::max(m_longestBusy, std::min(late, cpu - m_lastCpu));
        m_last = now;
        m_lastCpu = cpu;
        ++m_ticks;
    }

    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_lastCpu = 0;
    qint64 m_longest = 0;
    qint64 m_longestBusy = 0;
    int m_period;
    int m_ticks = 0;
};

} // namespace portolan::test
