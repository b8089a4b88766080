#pragma once

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QObject>
#include <QPromise>
#include <QRunnable>
#include <QThreadPool>
#include <QtGlobal>
#include <memory>
#include <optional>
#include <utility>

#if defined(__SANITIZE_THREAD__)
#define PORTOLAN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PORTOLAN_TSAN 1
#endif
#endif
#ifdef PORTOLAN_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace portolan::views {

// Long jobs run off the GUI thread (hotspot's pattern). Every start takes a new id; a finished
// job whose id is no longer the current one is stale and its result is dropped, so a slow old job
// never overwrites a newer one.
class JobTicket
{
public:
    quint64 next() { return ++m_current; }
    bool isCurrent(quint64 id) const { return id == m_current; }
    void invalidate() { ++m_current; }

private:
    quint64 m_current = 0;
};

namespace detail {

// The hand-offs between the GUI thread and the pool (QThreadPool's queue, QPromise, the queued
// finished() signal) synchronise inside Qt, which Debian does not build with ThreadSanitizer; so
// in the tsan build every job's inputs and results looked like races. These two calls state
// those hand-offs to ThreadSanitizer (release on the side that hands over, acquire on the side
// that takes over, on the same address); in other builds they are empty.
inline void handOver([[maybe_unused]] void* key)
{
#ifdef PORTOLAN_TSAN
    __tsan_release(key);
#endif
}
inline void takeOver([[maybe_unused]] void* key)
{
#ifdef PORTOLAN_TSAN
    __tsan_acquire(key);
#endif
}

// What every pool job did is handed over on this address when it ends. The thread that destroys
// the QCoreApplication waits for the pool first and then takes over from all of them (TSan builds
// only; Qt drains the pool in its destructor anyway), so that the exit-time destructors of
// statics the jobs used are ordered after the jobs.
inline char g_poolJobsEnded = 0;
inline void takeOverFromEndedJobsAtExit()
{
#ifdef PORTOLAN_TSAN
    static const bool registered = [] {
        qAddPostRoutine([] {
            QThreadPool::globalInstance()->waitForDone();
            takeOver(&g_poolJobsEnded);
        });
        return true;
    }();
    (void)registered;
#endif
}

// A QRunnable that takes over from the starting thread before touching anything it wrote (its
// own members included), keyed on its own address: no member is read to find the key. The work,
// with what it captured, is destroyed before the job hands over its end.
template <typename Work> class PoolJob final : public QRunnable
{
public:
    explicit PoolJob(Work work) : m_work(std::move(work)) {}
    void run() override
    {
        takeOver(this);
        (*m_work)();
        m_work.reset();
        handOver(&g_poolJobsEnded);
    }

private:
    std::optional<Work> m_work;
};

} // namespace detail

// Runs `work` on the global thread pool with no result (QThreadPool deletes it when done).
// Inputs must be captured by value.
template <typename Work> void runInPool(Work work)
{
    detail::takeOverFromEndedJobsAtExit();
    auto* job = new detail::PoolJob<Work>(std::move(work));
    detail::handOver(job);
    QThreadPool::globalInstance()->start(job);
}

// Runs `work` on the thread pool and then `done(result)` on `context`'s thread. If `context` is
// destroyed first, `done` is simply never called. (Qt 6.4's QFuture::then(context, ...) asserts
// when the context dies before the job ends, so the continuation goes through a watcher owned by
// the context instead.) Inputs must be captured by value. The result travels in a slot shared by
// both sides rather than in the future, so that it is handed over after it is written.
template <typename Work, typename Done> void runAsync(QObject* context, Work work, Done done)
{
    using Result = decltype(work());
    auto slot = std::make_shared<std::optional<Result>>();
    QPromise<void> promise;
    promise.start();
    auto* watcher = new QFutureWatcher<void>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                     [watcher, slot, done = std::move(done)]() mutable {
                         watcher->deleteLater();
                         detail::takeOver(slot.get());
                         if (*slot) // empty if the pool dropped the job unrun
                             done(std::move(**slot));
                     });
    watcher->setFuture(promise.future());
    runInPool([slot, work = std::move(work), promise = std::move(promise)]() mutable {
        slot->emplace(work());
        detail::handOver(slot.get());
        promise.finish();
    });
}

} // namespace portolan::views
