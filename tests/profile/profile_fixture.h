#pragma once

// Reports for the profile tests and benchmarks, made by the real compiler: a small recorded
// GPT-style graph compiled for a target, or a large CompileResult of many tiles and variables.

#include "core/sim/profile.h"

#include <memory>
#include <string>

namespace portolan::test {

// A small transformer (4 blocks, hidden 64) recorded through LibTorch by the Torch child
// (portolan-torch synthetic), once per process.
const graph::OpGraph& smallGraph();
// Compiles smallGraph(); fails the caller's QVERIFY through an empty pointer.
std::shared_ptr<sim::CompileResult> compileSmall(const std::string& target, int ipus,
                                                 int microBatch = 4, int gradAccum = 8);
// A 64-IPU (94,208-tile) result with about `variables` variables: the compiler's result for a
// 48-layer synthetic GPT, with its variables split into tile-sized pieces to reach the count.
std::shared_ptr<sim::CompileResult> bigResult(int variables = 1000000);

} // namespace portolan::test
