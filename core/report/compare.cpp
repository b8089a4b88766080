#include "core/report/compare.h"

#include "core/common/number_format.h"
#include "core/common/text.h"

#include <cmath>
#include <cstdio>

namespace portolan::report {

using namespace portolan::sim;

namespace {

void memoryRows(std::vector<Delta>& rows, const std::string& prefix, const MemoryBreakdown& a,
                const MemoryBreakdown& b)
{
    const auto add = [&](const char* name, std::int64_t x, std::int64_t y) {
        rows.push_back({prefix + name, "bytes", double(x), double(y)});
    };
    add("memory.total", a.total(), b.total());
    add("memory.weights", a.weights, b.weights);
    add("memory.gradients", a.gradients, b.gradients);
    add("memory.optimizer_state", a.optimizerState, b.optimizerState);
    add("memory.master_weights", a.masterWeights, b.masterWeights);
    add("memory.stashed_activations", a.stashedActivations, b.stashedActivations);
    add("memory.temporaries", a.temporaries, b.temporaries);
}

std::string value(double v, const std::string& unit)
{
    return format::withUnit(v, unit);
}

} // namespace

Comparison compareReports(const CompileResult& a, const CompileResult& b)
{
    Comparison c;
    const auto note = [&](const std::string& what, const std::string& x, const std::string& y) {
        if (x != y)
            c.notes.push_back(what + ": " + x + " -> " + y);
    };
    note("target", a.options.target, b.options.target);
    note("model", a.graph.name, b.graph.name);
    note("ipus", std::to_string(a.options.ipus), std::to_string(b.options.ipus));
    note("precision", std::string(precisionName(a.options.training.precision)),
         std::string(precisionName(b.options.training.precision)));
    note("micro-batch", std::to_string(a.options.training.microBatch),
         std::to_string(b.options.training.microBatch));
    note("recompute", a.options.training.recompute ? "on" : "off",
         b.options.training.recompute ? "on" : "off");
    auto& rows = c.rows;
    rows.push_back({"fits", "flag", a.fits ? 1.0 : 0.0, b.fits ? 1.0 : 0.0});
    rows.push_back({"peak_bytes", "bytes", double(a.peakBytes), double(b.peakBytes)});
    rows.push_back({"capacity_bytes", "bytes", double(a.capacityBytes), double(b.capacityBytes)});
    rows.push_back({"samples_per_second", "samples/s", a.samplesPerSecond, b.samplesPerSecond});
    memoryRows(rows, "", a.memory, b.memory);
    if (a.ipu && b.ipu) {
        const auto &x = *a.ipu, &y = *b.ipu;
        rows.push_back({"ipu.oom_tiles", "count", double(x.oomTiles), double(y.oomTiles)});
        rows.push_back(
            {"ipu.max_tile_bytes", "bytes", double(x.maxTileBytes), double(y.maxTileBytes)});
        rows.push_back({"ipu.total_bytes", "bytes", double(x.totalBytes), double(y.totalBytes)});
        rows.push_back({"ipu.bubble", "ratio", x.bubble, y.bubble});
        rows.push_back({"ipu.balance", "ratio", x.balance, y.balance});
        rows.push_back({"ipu.step_seconds", "s", x.stepSeconds, y.stepSeconds});
        rows.push_back({"ipu.stages", "count", double(x.stages.size()), double(y.stages.size())});
        for (std::size_t s = 0; s < std::min(x.stages.size(), y.stages.size()); ++s) {
            const std::string p = "ipu.stage" + std::to_string(s) + ".";
            rows.push_back({p + "max_tile_bytes", "bytes", double(x.stages[s].maxTileBytes),
                            double(y.stages[s].maxTileBytes)});
            rows.push_back({p + "seconds", "s",
                            x.stages[s].forwardSeconds + x.stages[s].backwardSeconds,
                            y.stages[s].forwardSeconds + y.stages[s].backwardSeconds});
        }
    }
    if (a.cs && b.cs) {
        note("cs mode", a.cs->mode, b.cs->mode);
        rows.push_back(
            {"cs.on_wafer_bytes", "bytes", double(a.cs->onWaferBytes), double(b.cs->onWaferBytes)});
        rows.push_back(
            {"cs.kernels", "count", double(a.cs->kernels.size()), double(b.cs->kernels.size())});
        rows.push_back({"cs.streamed_bytes", "bytes", double(a.cs->streamedBytes),
                        double(b.cs->streamedBytes)});
    }
    return c;
}

std::string comparisonText(const Comparison& c)
{
    std::string out;
    for (const auto& n : c.notes)
        out += "  " + n + "\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-32s %14s %14s %10s\n", "metric", "A", "B", "change");
    out += line;
    for (const auto& r : c.rows) {
        std::string change = r.a == r.b ? "=" : "";
        if (change.empty()) {
            char buf[32];
            if (r.a != 0 && r.unit != "flag")
                std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * r.relative());
            else
                std::snprintf(buf, sizeof buf, "changed");
            change = buf;
        }
        std::snprintf(line, sizeof line, "%-32s %14s %14s %10s\n", r.metric.c_str(),
                      value(r.a, r.unit).c_str(), value(r.b, r.unit).c_str(), change.c_str());
        out += line;
    }
    return out;
}

nlohmann::json comparisonJson(const Comparison& c)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : c.rows)
        rows.push_back({{"metric", r.metric},
                        {"unit", r.unit},
                        {"a", r.a},
                        {"b", r.b},
                        {"delta", r.delta()},
                        {"relative", r.relative()}});
    return {{"notes", c.notes}, {"rows", rows}};
}

} // namespace portolan::report
