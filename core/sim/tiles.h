#pragma once

// Where a tensor lies on an IPU's tiles, as the IPU simulator maps it: `tileCount` consecutive
// compute tiles of one IPU from `firstTile` (a global index), wrapping within that IPU's compute
// tiles (the I/O tiles at the end of each IPU hold no variable). The simulator and the views ask
// the same questions here, so the wrap rule is written once.

#include "core/sim/profile.h"

#include <cstdint>
#include <vector>

namespace portolan::sim {

// Adds `bytes` to local tiles [first, first + count) of one IPU in a difference array of
// `wrapTiles` + 1 entries, wrapping at `wrapTiles`. `touched`, when given, gets a bit set (bit i
// of word i / 64) for each entry written, so that a sweep can visit only those.
void addTileRange(std::vector<std::int64_t>& diff, int wrapTiles, int first, int count,
                  std::int64_t bytes, std::vector<std::uint64_t>* touched = nullptr);

// The compute tiles of each IPU of a profile (tiles per IPU minus I/O tiles).
int computeTilesPerIpu(const IpuProfile& ipu);

// `computeTiles` 0: every tile of the IPU holds variables.
bool variableCoversTile(const Variable& v, int tile, int tilesPerIpu, int computeTiles = 0);
// Indices of the variables that hold bytes on `tile`.
std::vector<int> variablesOnTile(const IpuProfile& ipu, int tile);
// Indices of the variables live during program step `step`.
std::vector<int> variablesLiveAt(const IpuProfile& ipu, int step);

} // namespace portolan::sim
