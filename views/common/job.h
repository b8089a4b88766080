#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>
#include <QtGlobal>
#include <utility>

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

// Runs `work` on the thread pool and then `done(result)` on `context`'s thread. If `context` is
// destroyed first, `done` is simply never called. (Qt 6.4's QFuture::then(context, ...) asserts
// when the context dies before the job ends, so the continuation goes through a watcher owned by
// the context instead.) Inputs must be captured by value.
template <typename Work, typename Done> void runAsync(QObject* context, Work work, Done done)
{
    using Result = decltype(work());
    auto* watcher = new QFutureWatcher<Result>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                     [watcher, done = std::move(done)]() mutable {
                         watcher->deleteLater();
                         done(watcher->result());
                     });
    watcher->setFuture(QtConcurrent::run(std::move(work)));
}

} // namespace portolan::views
