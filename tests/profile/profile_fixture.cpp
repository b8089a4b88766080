#include "profile_fixture.h"

#include "core/graph/synthetic.h"
#include "core/sim/compile.h"

#include <cstdio>

namespace portolan::test {

const graph::OpGraph& smallGraph()
{
    static const graph::OpGraph g = [] {
        graph::SyntheticTransformer s;
        s.layers = 4;
        s.hidden = 64;
        s.heads = 4;
        s.sequence = 32;
        s.vocab = 200;
        auto r = graph::recordSyntheticTransformer(s);
        if (!r)
            std::fprintf(stderr, "recording failed: %s\n", r.error.toString().c_str());
        return r ? *r.value : graph::OpGraph{};
    }();
    return g;
}

std::shared_ptr<sim::CompileResult> compileSmall(const std::string& target, int ipus,
                                                 int microBatch, int gradAccum)
{
    sim::CompileOptions o;
    o.target = target;
    o.ipus = ipus;
    o.training.microBatch = microBatch;
    o.training.gradAccum = gradAccum;
    auto r = sim::compileGraph(smallGraph(), o);
    if (!r) {
        std::fprintf(stderr, "compile failed: %s\n", r.error.toString().c_str());
        return nullptr;
    }
    return std::make_shared<sim::CompileResult>(std::move(*r.value));
}

std::shared_ptr<sim::CompileResult> bigResult(int variables)
{
    graph::SyntheticTransformer s; // GPT-2 XL shape, 48 blocks
    auto g = graph::recordSyntheticTransformer(s);
    if (!g)
        return nullptr;
    sim::CompileOptions o;
    o.target = "ipu-mk2";
    o.ipus = 64;
    o.training.microBatch = 1;
    o.training.gradAccum = 64;
    o.advice = false;
    auto r = sim::compileGraph(*g.value, o);
    if (!r)
        return nullptr;
    auto result = std::make_shared<sim::CompileResult>(std::move(*r.value));
    auto& vars = result->ipu->variables;
    // The simulator maps whole tensors; split them into pieces (as Poplar's per-tile variable
    // pieces) until the report holds the requested count, keeping bytes per tile unchanged.
    const int tilesPerIpu = result->ipu->tilesPerIpu;
    std::vector<sim::Variable> pieces;
    pieces.reserve(std::size_t(variables));
    std::size_t source = 0;
    const std::size_t n = vars.size();
    for (std::size_t i = 0; i < n && int(pieces.size()) < variables; ++i) {
        const int wanted =
            std::max(1, int((variables - int(pieces.size())) / std::max<std::size_t>(1, n - i)));
        const sim::Variable& v = vars[i];
        const int parts = std::max(1, std::min(wanted, v.tileCount));
        int first = v.firstTile;
        for (int p = 0; p < parts; ++p) {
            sim::Variable piece = v;
            const int count = v.tileCount / parts + (p < v.tileCount % parts ? 1 : 0);
            piece.name = v.name + "#" + std::to_string(p);
            piece.firstTile = first;
            piece.tileCount = count;
            piece.bytes = v.bytesPerTile * count;
            const int ipuBase = (v.firstTile / tilesPerIpu) * tilesPerIpu;
            first = ipuBase + (first - ipuBase + count) % tilesPerIpu;
            pieces.push_back(std::move(piece));
        }
        source = i;
    }
    (void)source;
    vars = std::move(pieces);
    return result;
}

} // namespace portolan::test
