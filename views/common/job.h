#pragma once

#include <QtGlobal>

namespace portolan::views {

// Long jobs run off the GUI thread (hotspot's pattern: QtConcurrent::run(...).then(this, ...)).
// Every start takes a new id; a finished job whose id is no longer the current one is stale and
// its result is dropped, so a slow old job never overwrites a newer one.
class JobTicket
{
public:
    quint64 next() { return ++m_current; }
    bool isCurrent(quint64 id) const { return id == m_current; }
    void invalidate() { ++m_current; }

private:
    quint64 m_current = 0;
};

} // namespace portolan::views
