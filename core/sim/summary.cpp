#include "core/sim/summary.h"

#include "core/common/number_format.h"
#include "core/common/text.h"

#include <cstdio>

namespace portolan::sim {

namespace {

// "1 stage on 1 IPU", "5 stages on 4 IPUs".
std::string countOf(long long n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string fmt(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string bytes(std::int64_t b)
{
    return humanBytes(double(b));
}

std::string trainingLine(const CompileOptions& o, bool ipu)
{
    const auto& t = o.training;
    std::string s = "  precision " + std::string(precisionName(t.precision));
    if (t.inference)
        return s + ", inference (forward only), micro-batch " + std::to_string(t.microBatch);
    s += ", optimizer " + std::string(optimizerName(t.optimizer)) + ", micro-batch " +
         std::to_string(t.microBatch) + ", gradient accumulation " + std::to_string(t.gradAccum);
    if (!t.recomputePerStage.empty())
        s += ", recomputation per stage " + stageValuesText(t.recomputePerStage);
    else if (t.recompute)
        s += ", recomputation";
    if (t.optimizerOffChip)
        s += ", optimizer state off chip";
    if (t.halfFirstOrderMomentum && optimizerSlots(t.optimizer) > 0)
        s += ", fp16 first-order momentum";
    if (ipu) {
        if (t.replicatedTensorSharding)
            s += ", state sharded over " + std::to_string(t.replicas) + " replicas";
        if (t.serializationFactor > 1)
            s += ", embedding serialized x" + std::to_string(t.serializationFactor);
        if (t.halfPartials)
            s += ", half partials";
        s += ", available memory proportion " +
             (t.availableMemoryProportionPerStage.empty()
                  ? fmt("%.2g", t.availableMemoryProportion)
                  : stageValuesText(t.availableMemoryProportionPerStage) + " per stage");
        if (t.ioTiles > 0)
            s += ", " + std::to_string(t.ioTiles) + " I/O tiles";
        if (o.deviceIterations > 1)
            s += ", " + std::to_string(o.deviceIterations) + " device iterations";
    }
    return s;
}

} // namespace

std::string projectSplitLine(const ProjectSplit& p)
{
    std::string stages, ipus;
    for (std::size_t i = 0; i < p.layersPerStage.size(); ++i) {
        stages += (i ? "," : "") + std::to_string(p.layersPerStage[i]);
        ipus += (i ? "," : "") + std::to_string(i < p.ipus.size() ? p.ipus[i] : int(i));
    }
    std::string settings;
    if (p.ipuCount > 0)
        settings += ", " + std::to_string(p.ipuCount) + " IPU" + (p.ipuCount == 1 ? "" : "s") +
                    " per replica";
    if (p.replicas > 1)
        settings += " x " + std::to_string(p.replicas) + " replicas";
    if (p.deviceIterations > 1)
        settings += ", " + std::to_string(p.deviceIterations) + " device iterations";
    settings += ", micro-batch " + std::to_string(p.microBatch) + ", gradient accumulation " +
                std::to_string(p.gradAccum);
    const std::string head = "The project's split (" + p.source +
                             (p.strategy.empty() ? std::string() : ", " + p.strategy) +
                             "): layers per stage " + stages + " on IPUs " + ipus + settings;
    if (!p.error.empty())
        return head + ": cannot be simulated: " + p.error;
    return head + ": " + (p.fits ? "fits" : "does not fit") + ", fullest tile " +
           bytes(p.maxTileBytes) + ", " + countOf(p.oomTiles, "tile", "tiles") +
           " out of memory, balance " + fmt("%.2f", p.balance) + ", bubble " +
           fmt("%.1f", 100 * p.bubble) + "%, step " + humanSeconds(p.stepSeconds) + ", " +
           format::samplesPerSecond(p.samplesPerSecond);
}

CompileSummary summarize(const CompileResult& r, std::size_t maxRows)
{
    CompileSummary s;
    const auto& g = r.graph;
    const auto& t = r.options.training;
    s.fits = r.fits;
    s.margin =
        r.capacityBytes > 0 ? double(r.capacityBytes - r.peakBytes) / double(r.capacityBytes) : 0;
    s.lines.push_back("Model: " + g.name + " (" + g.origin + ")");
    s.lines.push_back("  " + std::to_string(g.ops.size()) + " ops in " +
                      std::to_string(g.layerNames.size()) + " layers, " +
                      format::parameters(double(g.totalParams())) + ", " +
                      format::flop(g.totalForwardFlops()) + " forward per sample");
    std::string target = "Target: " + r.targetName;
    if (r.ipu && !r.ipu->systemName.empty())
        target += ", " + r.ipu->systemName;
    s.lines.push_back(target);
    s.lines.push_back(trainingLine(r.options, bool(r.ipu)));
    // On a CS system the wafer never holds all of this at once (layers stream through it, or
    // the weights do), so the line says it is the model's footprint, not what must fit.
    s.lines.push_back(std::string(r.cs ? "Model footprint, all at once (one replica): "
                                       : "Memory (model, one replica): ") +
                      bytes(r.memory.total()) + " = weights " + bytes(r.memory.weights) +
                      " + gradients " + bytes(r.memory.gradients) + " + optimizer " +
                      bytes(r.memory.optimizerState + r.memory.masterWeights) + " + activations " +
                      bytes(r.memory.stashedActivations) + " + temporaries " +
                      bytes(r.memory.temporaries));
    if (r.ipu) {
        const auto& p = *r.ipu;
        s.lines.push_back("Pipeline (" + p.splitSource +
                          (p.splitUnit.empty() ? "" : " split in " + p.splitUnit + ", ") +
                          (p.splitUnit.empty() ? " split, " : "") +
                          std::string(scheduleName(t.schedule)) +
                          "): " + countOf((long long)p.stages.size(), "stage", "stages") + " on " +
                          countOf(p.ipusPerReplica, "IPU", "IPUs"));
        s.lines.push_back("  Tile memory: fullest " + bytes(p.maxTileBytes) + " of " +
                          bytes(p.tileCapacity) + ", " + countOf(p.oomTiles, "tile", "tiles") +
                          " out of memory");
        s.lines.push_back("  bubble " + fmt("%.1f", 100 * p.bubble) + "%, balance " +
                          fmt("%.2f", p.balance) + ", step " + format::seconds(p.stepSeconds) +
                          ", " + format::samplesPerSecond(p.samplesPerSecond));
        s.tableHeader = {"stage", "IPU", "ops", "layers", "max tile", "IPU used", "OOM", "time"};
        for (const auto& st : p.stages) {
            if (s.table.size() >= maxRows) {
                ++s.tableRowsOmitted;
                continue;
            }
            s.table.push_back(
                {std::to_string(st.index), std::to_string(st.ipu),
                 std::to_string(st.firstOp) + "-" + std::to_string(st.endOp - 1),
                 std::to_string(st.firstLayer) + "-" + std::to_string(st.endLayer - 1),
                 bytes(st.maxTileBytes), st.usedBytes ? bytes(st.usedBytes) : "(shared)",
                 std::to_string(st.oomTiles),
                 format::seconds(st.forwardSeconds + st.backwardSeconds)});
        }
    }
    if (r.projectSplit)
        s.lines.push_back(projectSplitLine(*r.projectSplit));
    if (r.cs) {
        const auto& c = *r.cs;
        s.lines.push_back("Mode: " + c.mode + " (" + c.modeReason + ")");
        s.lines.push_back("  held on the wafer " + bytes(c.onWaferBytes) + " of " +
                          bytes(c.sramBytes) + ", " + format::samplesPerSecond(r.samplesPerSecond) +
                          " (bottleneck: " + c.bottleneck + ")");
        s.tableHeader = {"kernel", "PEs", "memory", "samples/s", "compute", "transmit", "util"};
        for (const auto& k : c.kernels) {
            if (s.table.size() >= maxRows) {
                ++s.tableRowsOmitted;
                continue;
            }
            s.table.push_back(
                {k.name, std::to_string(k.activePes), bytes(k.memoryBytes),
                 format::count(k.samplesPerSecond), format::count(k.computeSamplesPerSecond),
                 format::count(k.transmissionSamplesPerSecond), format::percent(k.utilisation)});
        }
    }
    const std::string where = r.ipu ? " per tile" : " of wafer SRAM";
    // One verdict: a configuration the target cannot run (an error of the compilation) does not
    // fit whatever its memory says, and the headline says why first.
    std::string unsupported;
    for (const auto& d : r.diagnostics)
        if (!r.fits && d.severity == Severity::Error && d.code.rfind("compile.", 0) == 0) {
            unsupported = d.message;
            break;
        }
    s.headline = std::string(r.fits ? "FITS" : "DOES NOT FIT") + ": " +
                 (unsupported.empty() ? std::string() : unsupported + "; memory: ") + "peak " +
                 bytes(r.peakBytes) + " of " + bytes(r.capacityBytes) + where + " (" +
                 fmt("%+.1f", 100 * s.margin) + "% margin)";
    if (r.cs)
        s.headline += " in " + r.cs->mode + " mode";
    for (const auto& a : r.advice)
        s.advice.push_back(std::string(a.fitsAfter ? "fits   " : "no     ") + a.id + ": " +
                           a.description + "; saves " + bytes(a.bytesSaved) + " on the fullest " +
                           (r.ipu ? "tile" : "wafer"));
    for (const auto& d : r.diagnostics)
        s.diagnostics.push_back(d.toString());
    s.timing = "Compiled in " + format::milliseconds(r.compileMilliseconds);
    return s;
}

} // namespace portolan::sim
