#include "core/sim/tiles.h"

#include <algorithm>

namespace portolan::sim {

void addTileRange(std::vector<std::int64_t>& diff, int wrapTiles, int first, int count,
                  std::int64_t bytes, std::vector<std::uint64_t>* touched)
{
    if (count <= 0 || wrapTiles <= 0)
        return;
    count = std::min(count, wrapTiles);
    first = ((first % wrapTiles) + wrapTiles) % wrapTiles;
    const int end = first + count;
    diff[std::size_t(first)] += bytes;
    if (end <= wrapTiles) {
        diff[std::size_t(end)] -= bytes;
    } else {
        diff[std::size_t(wrapTiles)] -= bytes;
        diff[0] += bytes;
        diff[std::size_t(end - wrapTiles)] -= bytes;
    }
    if (touched) {
        const auto mark = [touched](int i) {
            (*touched)[std::size_t(i) / 64] |= std::uint64_t(1) << (unsigned(i) % 64);
        };
        mark(first);
        if (end <= wrapTiles) {
            mark(end);
        } else {
            mark(wrapTiles);
            mark(0);
            mark(end - wrapTiles);
        }
    }
}

int computeTilesPerIpu(const IpuProfile& ipu)
{
    return std::max(1, ipu.tilesPerIpu - ipu.ioTilesPerIpu);
}

bool variableCoversTile(const Variable& v, int tile, int tilesPerIpu, int computeTiles)
{
    if (computeTiles <= 0)
        computeTiles = tilesPerIpu;
    if (v.tileCount <= 0 || tilesPerIpu <= 0)
        return false;
    const int ipu = v.firstTile / tilesPerIpu;
    if (tile / tilesPerIpu != ipu)
        return false;
    const int local = tile % tilesPerIpu;
    if (local >= computeTiles)
        return false;
    const int offset = (local - v.firstTile % tilesPerIpu + computeTiles) % computeTiles;
    return offset < std::min(v.tileCount, computeTiles);
}

std::vector<int> variablesOnTile(const IpuProfile& ipu, int tile)
{
    std::vector<int> out;
    const int compute = computeTilesPerIpu(ipu);
    for (std::size_t i = 0; i < ipu.variables.size(); ++i)
        if (variableCoversTile(ipu.variables[i], tile, ipu.tilesPerIpu, compute))
            out.push_back(int(i));
    return out;
}

std::vector<int> variablesLiveAt(const IpuProfile& ipu, int step)
{
    std::vector<int> out;
    for (std::size_t i = 0; i < ipu.variables.size(); ++i) {
        const auto& v = ipu.variables[i];
        if (v.alwaysLive || (v.liveFrom <= step && step <= v.liveTo))
            out.push_back(int(i));
    }
    return out;
}

} // namespace portolan::sim
