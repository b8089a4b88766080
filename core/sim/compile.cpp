#include "core/sim/compile.h"

#include "core/sim/cs_sim.h"
#include "core/sim/ipu_memory.h"
#include "core/sim/ipu_sim.h"
#include "core/sim/remedies.h"

#include <algorithm>
#include <chrono>

namespace portolan::sim {

namespace {

Result<CompileResult> simulate(const graph::OpGraph& g, const targets::Target& t,
                               const CompileOptions& o, IpuSimCache* cache, SimDetail detail,
                               const OpKinds* kinds = nullptr)
{
    if (t.kind == targets::TargetKind::Cs)
        return simulateCs(g, t, o);
    return simulateIpu(g, t, o, ipuModelConstants(), cache, detail, kinds);
}

std::vector<Remedy> advise(const graph::OpGraph& g, const targets::Target& t,
                           const CompileResult& base, IpuSimCache* cache, const OpKinds& kinds)
{
    const auto& vocab = kinds.vocabulary;
    const bool hasVocabulary = std::find(vocab.begin(), vocab.end(), true) != vocab.end();
    std::vector<Remedy> out;
    for (auto& c : remedyOptions(base.options, t)) {
        if (c.id == "serialize-embedding" && !hasVocabulary)
            continue;
        // A remedy's line reads only the figures: the simulation skips the names and the tiles.
        auto r = simulate(g, t, c.options, cache, SimDetail::Figures, &kinds);
        if (!r)
            continue;
        Remedy rem;
        rem.id = c.id;
        rem.description = c.description;
        if (r.value->cs)
            rem.description += " [" + r.value->cs->mode + "]";
        rem.peakBytesAfter = r.value->peakBytes;
        rem.bytesSaved = base.peakBytes - r.value->peakBytes;
        rem.fitsAfter = r.value->fits;
        rem.samplesPerSecondAfter = r.value->samplesPerSecond;
        out.push_back(std::move(rem));
    }
    return out;
}

} // namespace

std::vector<Remedy> adviseRemedies(const graph::OpGraph& g, const targets::Target& t,
                                   const CompileResult& base, IpuSimCache* cache)
{
    // What each op is, worked out once for every remedy's simulation of the same graph.
    return advise(g, t, base, cache, opKinds(g, ipuModelConstants().vocabularyMinRows));
}

std::optional<ProjectSplit> simulateProjectSplit(const graph::OpGraph& g, const targets::Target& t,
                                                 const CompileOptions& base, IpuSimCache* cache)
{
    const auto& d = g.declaredSplit;
    if (d.empty() || t.kind == targets::TargetKind::Cs)
        return std::nullopt;
    ProjectSplit p;
    p.source = d.source;
    p.strategy = d.strategy;
    p.ipus = d.ipus;
    p.ipuCount = d.ipus.empty() ? 0 : *std::max_element(d.ipus.begin(), d.ipus.end()) + 1;
    p.deviceIterations = base.deviceIterations;
    p.gradAccum = base.training.gradAccum;
    p.microBatch = base.training.microBatch;
    p.replicas = base.training.replicas;
    const int layers = int(std::max<std::size_t>(1, g.layerNames.size()));
    for (std::size_t s = 0; s < d.layerStarts.size(); ++s) {
        const int end = s + 1 < d.layerStarts.size() ? d.layerStarts[s + 1] : layers;
        p.layersPerStage.push_back(end - d.layerStarts[s]);
    }
    CompileOptions o = base;
    o.advice = false;
    o.split = p.layersPerStage;
    o.ipus = int(o.split.size());
    // Per-IPU settings follow each stage to the IPU the project gives it (a stage is simulated
    // on an IPU of its own, so an IPU the project comes back to counts once per stage).
    const auto perStage = [&](auto values) {
        if (values.empty())
            return values;
        decltype(values) out;
        for (int ipu : d.ipus) {
            if (ipu < 0 || std::size_t(ipu) >= values.size())
                return decltype(values){};
            out.push_back(values[std::size_t(ipu)]);
        }
        return out;
    };
    o.training.availableMemoryProportionPerStage =
        perStage(o.training.availableMemoryProportionPerStage);
    o.training.recomputePerStage = perStage(o.training.recomputePerStage);
    auto r = simulateIpu(g, t, o, ipuModelConstants(), cache, SimDetail::Figures);
    if (!r || !r.value->ipu) {
        p.error = r ? std::string("no IPU profile") : r.error.message;
        return p;
    }
    const IpuProfile& ipu = *r.value->ipu;
    p.fits = r.value->fits;
    p.maxTileBytes = ipu.maxTileBytes;
    p.oomTiles = ipu.oomTiles;
    p.stepSeconds = ipu.stepSeconds;
    p.samplesPerSecond = ipu.samplesPerSecond;
    p.balance = ipu.balance;
    p.bubble = ipu.bubble;
    return p;
}

Result<CompileResult> compileGraph(const graph::OpGraph& g, const targets::Target& t,
                                   const CompileOptions& o, IpuSimCache* cache, SimDetail detail)
{
    const auto start = std::chrono::steady_clock::now();
    if (o.training.microBatch < 1 || o.training.gradAccum < 1 || o.training.replicas < 1 ||
        o.ipus < 1)
        return Result<CompileResult>::fail(
            {Severity::Error,
             "compile.options",
             "micro-batch, gradient accumulation, replicas and IPUs must be at least 1",
             {}});
    // What each op is, worked out once for the simulation and every remedy's; and the per-op
    // figures that the remedies' settings leave alone, once.
    const PerOpMemoryScope memo(g);
    const OpKinds kinds = opKinds(g, ipuModelConstants().vocabularyMinRows);
    auto r = simulate(g, t, o, cache, detail, &kinds);
    if (!r)
        return r;
    // A result either fits or does not: an error of the compilation itself (a mode or an option
    // the target does not support, state that overflows streaming memory) is never a fit.
    for (const auto& d : r.value->diagnostics)
        if (d.severity == Severity::Error && d.code.rfind("compile.", 0) == 0)
            r.value->fits = false;
    if (r.value->ipu) {
        // Reports name their system, whichever front end saved them.
        const int ipus = o.ipus * std::max(1, o.training.replicas);
        if (auto systems = targets::loadIpuSystems())
            r.value->ipu->systemName =
                targets::ipuSystemName(*systems.value, o.ipus) +
                (o.training.replicas > 1
                     ? " x " + std::to_string(o.training.replicas) + " replicas (" +
                           targets::ipuSystemName(*systems.value, ipus) + ")"
                     : std::string());
    }
    if (o.advice && !r.value->fits)
        r.value->advice = advise(g, t, *r.value, cache, kinds);
    r.value->projectSplit = simulateProjectSplit(g, t, o, cache);
    r.value->compileMilliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return r;
}

Result<CompileResult> compileGraph(const graph::OpGraph& g, const CompileOptions& o,
                                   IpuSimCache* cache, SimDetail detail)
{
    auto t = targets::loadTarget(o.target);
    if (!t)
        return Result<CompileResult>::fail(t.error);
    return compileGraph(g, *t.value, o, cache, detail);
}

} // namespace portolan::sim
