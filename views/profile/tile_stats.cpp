#include "views/profile/tile_stats.h"

#include <algorithm>

namespace portolan::views {

TileStats TileStats::from(const sim::IpuProfile& ipu)
{
    TileStats s;
    s.tileCount = int(ipu.tileBytes[0].size());
    s.tilesPerIpu = std::max(1, ipu.tilesPerIpu);
    s.capacity = ipu.tileCapacity;
    s.total.assign(std::size_t(s.tileCount), 0);
    for (const auto& category : ipu.tileBytes)
        for (std::size_t t = 0; t < category.size() && t < s.total.size(); ++t)
            s.total[t] += category[t];
    for (int t = 0; t < s.tileCount; ++t)
        if (s.capacity > 0 && s.total[std::size_t(t)] > s.capacity)
            s.oomTiles.push_back(t);
    return s;
}

Envelope decimate(const TileStats& s, int first, int end, int columns)
{
    Envelope e;
    first = std::clamp(first, 0, s.tileCount);
    end = std::clamp(end, first, s.tileCount);
    const int n = end - first;
    if (n <= 0 || columns <= 0)
        return e;
    columns = std::min(columns, n);
    e.key.reserve(columns);
    e.min.reserve(columns);
    e.mean.reserve(columns);
    e.max.reserve(columns);
    for (int c = 0; c < columns; ++c) {
        const int a = first + int(std::int64_t(n) * c / columns);
        const int b = first + int(std::int64_t(n) * (c + 1) / columns);
        std::int64_t lo = s.total[std::size_t(a)], hi = lo;
        double sum = 0;
        for (int t = a; t < b; ++t) {
            const std::int64_t v = s.total[std::size_t(t)];
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            sum += double(v);
        }
        e.key.push_back(0.5 * (a + b - 1));
        e.min.push_back(double(lo));
        e.max.push_back(double(hi));
        e.mean.push_back(sum / std::max(1, b - a));
    }
    return e;
}

} // namespace portolan::views
