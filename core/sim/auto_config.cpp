#include "core/sim/auto_config.h"

#include "core/sim/compile.h"
#include "core/sim/ipu_memory.h"
#include "core/sim/ipu_sim.h"
#include "core/sim/remedies.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>

namespace portolan::sim {

std::string describeOptions(const CompileOptions& o)
{
    const auto& t = o.training;
    std::string s;
    if (o.target.rfind("ipu", 0) == 0)
        s += std::to_string(o.ipus) + " IPU" + (o.ipus == 1 ? "" : "s") + ", ";
    s += std::string(precisionName(t.precision)) + ", micro-batch " + std::to_string(t.microBatch) +
         " x " + std::to_string(t.gradAccum);
    if (!t.recomputePerStage.empty())
        s += ", recompute per stage " + stageValuesText(t.recomputePerStage);
    else if (t.recompute)
        s += ", recompute";
    if (!t.availableMemoryProportionPerStage.empty())
        s += ", AMP per stage " + stageValuesText(t.availableMemoryProportionPerStage);
    if (t.optimizerOffChip)
        s += ", optimizer state off chip";
    if (t.replicatedTensorSharding)
        s += ", sharded state";
    if (t.halfFirstOrderMomentum && optimizerSlots(t.optimizer) > 0)
        s += ", fp16 first-order momentum";
    if (t.serializationFactor > 1)
        s += ", embedding serialized x" + std::to_string(t.serializationFactor);
    if (t.halfPartials)
        s += ", half partials";
    if (!o.split.empty()) {
        s += ", split ";
        for (std::size_t i = 0; i < o.split.size(); ++i)
            s += (i ? "," : "") + std::to_string(o.split[i]);
    }
    return s;
}

namespace {

// The grid the search walks: the stage counts to try, and for each the micro-batches that divide
// the batch (largest first), the precisions and with or without recomputation.
struct SearchSpace
{
    std::vector<int> counts, micro;
    std::vector<Precision> precisions;
    std::vector<bool> recomputes;
};

SearchSpace searchSpace(const AutoRequest& req, const CompileOptions& base, bool cs)
{
    const auto& bt = base.training;
    const std::int64_t batch = std::int64_t(bt.microBatch) * bt.gradAccum;
    SearchSpace s;
    for (int m = bt.microBatch; m >= 1; m /= 2)
        if (batch % m == 0)
            s.micro.push_back(m);
    s.precisions = {bt.precision};
    if (req.allowFp16 && bt.precision != Precision::Fp16)
        s.precisions.push_back(Precision::Fp16);
    s.recomputes = {false};
    if (!bt.inference)
        s.recomputes.push_back(true);
    if (cs) {
        s.counts = {1};
    } else if (req.goal == AutoRequest::Goal::HighestThroughput) {
        s.counts = {req.ipus > 0 ? req.ipus : std::max(1, base.ipus)};
    } else {
        const int cap = req.maxIpus > 0 ? req.maxIpus : maxIpus();
        for (int p = 1; p <= cap; p *= 2)
            s.counts.push_back(p);
    }
    return s;
}

using Trial = std::function<std::optional<CompileResult>(const CompileOptions&)>;

// Turns off the savers the chosen configuration `best` does not need: each stays off when the
// model still fits at the same throughput (`run` simulates and counts a trial).
void relaxSavers(const Trial& run, CompileResult& best)
{
    CompileOptions o = best.options;
    const auto tryWithout = [&](auto&& change) {
        CompileOptions x = o;
        change(x);
        if (auto r = run(x); r && r->fits && r->samplesPerSecond >= best.samplesPerSecond * 0.999) {
            o = x;
            best = std::move(*r);
        }
    };
    // Recomputation only where the memory needs it: the stash is deepest on the first
    // stages of a pipeline, so the last stages are the first to do without (each stage
    // that stops recomputing saves a forward pass).
    const int stages = o.ipus; // per-IPU lists: one value per IPU
    if (o.training.recompute && !o.training.inference && stages > 1)
        for (int s = stages - 1; s >= 0; --s)
            tryWithout([s, stages](CompileOptions& x) {
                auto& v = x.training.recomputePerStage;
                if (v.empty())
                    v.assign(std::size_t(stages), 1);
                v[std::size_t(s)] = 0;
                if (std::all_of(v.begin(), v.end(), [](int r) { return r == 0; })) {
                    v.clear();
                    x.training.recompute = false;
                }
            });
    tryWithout([](CompileOptions& x) { x.training.halfPartials = false; });
    for (int f : {1, 2, 4})
        if (f < o.training.serializationFactor)
            tryWithout([f](CompileOptions& x) { x.training.serializationFactor = f; });
    tryWithout([](CompileOptions& x) { x.training.replicatedTensorSharding = false; });
    tryWithout([](CompileOptions& x) { x.training.optimizerOffChip = false; });
}

} // namespace

Result<AutoResult> findFittingConfiguration(const graph::OpGraph& g, const targets::Target& t,
                                            const AutoRequest& req,
                                            const ProgressCallback& progress)
{
    const auto start = std::chrono::steady_clock::now();
    AutoResult out;
    CompileOptions base = req.base;
    base.advice = false;
    base.split.clear();
    auto& bt = base.training;
    // The search picks the stage count; per-stage values are its own result (below).
    bt.availableMemoryProportionPerStage.clear();
    bt.recomputePerStage.clear();
    if (bt.microBatch < 1 || bt.gradAccum < 1)
        return Result<AutoResult>::fail({Severity::Error,
                                         "compile.options",
                                         "micro-batch and accumulation must be at least 1",
                                         {}});
    const std::int64_t batch = std::int64_t(bt.microBatch) * bt.gradAccum;
    const bool cs = t.kind == targets::TargetKind::Cs;
    const bool hasState = optimizerSlots(bt.optimizer) > 0 || bt.precision == Precision::Mixed;
    const auto vocab = vocabularyOps(g, ipuModelConstants().vocabularyMinRows);
    const bool hasVocabulary = std::find(vocab.begin(), vocab.end(), true) != vocab.end();
    // Only what the target can do: no state off chip without streaming memory (IPU Mk1).
    const bool offChipOk = canKeepStateOffChip(t);
    if (!cs && !offChipOk && bt.optimizerOffChip) {
        bt.optimizerOffChip = false;
        out.pruned.push_back(t.name + " has no streaming memory (" + t.file.filename().string() +
                             "): optimizer state stays on chip");
    }

    const SearchSpace space = searchSpace(req, base, cs);
    const auto& [counts, micro, precisions, recomputes] = space;
    const int total =
        int(counts.size()) * (1 + int(micro.size() * precisions.size() * recomputes.size()));
    int done = 0;

    const Trial run = [&](const CompileOptions& o) -> std::optional<CompileResult> {
        auto r = compileGraph(g, t, o);
        ++out.simulated;
        if (progress && !progress(std::uint64_t(++done), std::uint64_t(std::max(done, total))))
            return std::nullopt;
        if (!r)
            return std::nullopt;
        out.trials.push_back({o, r.value->fits, r.value->peakBytes, r.value->samplesPerSecond});
        return std::move(*r.value);
    };
    // The savers with no simulated time cost, at their frugal value.
    const auto frugalSavers = [&](CompileOptions& o) {
        if (cs || o.training.inference)
            return;
        o.training.optimizerOffChip = hasState && offChipOk;
        o.training.replicatedTensorSharding = hasState && o.training.replicas > 1;
        o.training.serializationFactor = hasVocabulary ? 8 : 1;
        o.training.halfPartials = o.training.precision != Precision::Fp32;
    };

    std::optional<CompileResult> best;
    for (int p : counts) {
        CompileOptions frugal = base;
        frugal.ipus = p;
        frugal.training.recompute = !bt.inference;
        frugal.training.microBatch = micro.back();
        frugal.training.gradAccum = int(batch / micro.back());
        frugal.training.precision = precisions.back();
        frugalSavers(frugal);
        auto f = run(frugal);
        if (!f)
            continue;
        if (!f->fits) {
            out.pruned.push_back(std::to_string(p) + (cs ? " system" : " IPUs") +
                                 ": the most frugal setting (" + describeOptions(frugal) +
                                 ") does not fit, so no other setting does");
            continue;
        }
        for (Precision prec : precisions)
            for (bool rc : recomputes)
                for (int m : micro) {
                    CompileOptions o = base;
                    o.ipus = p;
                    o.training.precision = prec;
                    o.training.recompute = rc;
                    o.training.microBatch = m;
                    o.training.gradAccum = int(batch / m);
                    frugalSavers(o);
                    auto r = run(o);
                    if (!r || !r->fits)
                        continue;
                    // The time model has no per-micro-batch overhead, so near-equal
                    // throughputs go to the larger micro-batch, as real runs favour.
                    const double bestRate = best ? best->samplesPerSecond : 0;
                    const bool better =
                        !best || r->samplesPerSecond > bestRate * 1.001 ||
                        (r->samplesPerSecond >= bestRate * 0.999 &&
                         r->options.training.microBatch > best->options.training.microBatch);
                    if (better)
                        best = std::move(*r);
                }
        if (best && req.goal == AutoRequest::Goal::FewestIpus) {
            if (p != counts.back())
                out.pruned.push_back("more than " + std::to_string(p) +
                                     " IPUs: not tried, fewer IPUs already fit");
            break;
        }
    }
    if (best) {
        relaxSavers(run, *best);
        out.found = true;
        out.best = std::move(*best);
    }
    out.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return Result<AutoResult>::ok(std::move(out));
}

} // namespace portolan::sim
