#pragma once

// How PopLibs plans a matmul or convolution on the tiles of one IPU, as far as memory goes
// (docs/ARCHITECTURE.md, Simulated compilation, IPU). A matmul is planned as a convolution
// (poplin::matMul calls the convolution planner). The planner splits the operation across tiles by
// its dimensions: the rows (batch and output field), the contraction (input channels times kernel)
// and the columns (output channels), and groups (heads of a batched matmul) go to tiles of their
// own. Each tile then holds, for the duration of the operation, its slice of the two operands
// exchanged onto it and its slice of the partial sums (fp32 unless half partials): PopLibs'
// temporary memory estimate (poplin ConvPlan.cpp, addConvTempMemoryEstimate: input, weights and
// partials per tile). The planner keeps that estimate under availableMemoryProportion x the tile's
// bytes (ConvPlan.cpp: maxTileTempMemory <= availableMemoryProportion * target.getBytesPerTile()).

#include "core/graph/op_graph.h"

#include <cstdint>
#include <optional>

namespace portolan::sim {

// One contraction per sample: `groups` independent products of [rows x inner] by
// [inner x cols].
struct ContractionShape
{
    std::int64_t groups = 1;
    std::int64_t rows = 0;
    std::int64_t inner = 0;
    std::int64_t cols = 0;
    bool batchInGroups = false; // a product of activations: the batch adds groups, not rows
};

// The shape of a linear layer, matmul or convolution op (per sample), or nothing when the op's
// shapes do not say it.
std::optional<ContractionShape> contractionShape(const graph::Op& op);

struct TilePlan
{
    std::int64_t bytesPerTile = 0; // operand slices and partials on the fullest tile
    std::int64_t tiles = 0;        // tiles the plan uses
};

// The split of one pass over `tiles` tiles that holds the fewest bytes per tile: operands of
// `operandBytes` per element, partials of `partialsBytes`. Holding fewer bytes is receiving
// fewer: the same split is the one with the least exchange, which the planner's cycle
// estimate also favours.
TilePlan planContraction(const ContractionShape& s, int operandBytes, int partialsBytes, int tiles);

// The same contraction for `microBatch` samples, with its columns in `serialization` chunks
// (a serialized vocabulary projection plans one chunk at a time).
ContractionShape atMicroBatch(ContractionShape s, int microBatch, int serialization);

// The passes of training: the forward product, the input gradient (contracting the columns)
// and the weight gradient (contracting the rows).
ContractionShape inputGradientPass(const ContractionShape& s);
ContractionShape weightGradientPass(const ContractionShape& s);

} // namespace portolan::sim
