#pragma once

// Per-tile figures precomputed once per report, and the per-pixel-column decimation that lets the
// memory chart draw 94,208 tiles as a min/mean/max envelope in well under a frame.

#include "core/sim/profile.h"
#include "core/sim/tiles.h" // which variables are on a tile or live at a step

#include <QVector>
#include <cstdint>
#include <vector>

namespace portolan::views {

struct TileStats
{
    int tileCount = 0;
    int tilesPerIpu = 0;
    std::int64_t capacity = 0;
    std::vector<std::int64_t> total; // all categories, per tile
    std::vector<int> oomTiles;       // ascending

    static TileStats from(const sim::IpuProfile& ipu);
};

// One point per column: the min, mean and max of tile totals over [first, end).
struct Envelope
{
    QVector<double> key, min, mean, max;
};
Envelope decimate(const TileStats& s, int first, int end, int columns);

} // namespace portolan::views
