// The batch size, epochs and steps of the original's run, for every target's configuration
// (see run_values.h). Each is followed from the text the original uses to a number by the
// resolver (run_value_resolver.h); the loops that build their own batches are in
// run_values_loop.cpp.
#include "core/port/run_values.h"

#include "core/port/cerebras_schedule.h"
#include "core/port/run_value_resolver.h"
#include "core/port/syntax.h"

#include <algorithm>

namespace portolan::port::detail {

std::string runValueComment(const RunValue& v)
{
    if (v.from.empty())
        return {};
    return "  # " + oneLine(v.from);
}

RunValue trainBatchSize(const PortPlan& plan, const std::map<std::string, Hyper>& hp,
                        const std::string& fallback)
{
    const std::string text = trimmed(plan.train.batchSize);
    const std::string file =
        plan.train.construction.valid() ? plan.train.construction.file : plan.entry;
    RunValue v;
    if (const SourceFile* src = plan.source(file); src && !text.empty()) {
        v = Resolver(plan, hp).resolve(*src, text, plan.train.construction.start);
        if (!v.value.empty() && v.from.empty())
            v.from = "batch_size=" + text + " in the training DataLoader (" + file + ":" +
                     std::to_string(plan.train.construction.line) + ")";
    }
    if (!v.value.empty() && v.value != "0")
        return v;
    v = RunValue{};
    v.value = fallback;
    v.madeUp = true;
    v.from = "made up by the port: the training loader's batch size" +
             (text.empty() ? std::string(" is not given in the code")
                           : " (`" + text + "`) is not known from the code") +
             "; set the original's";
    return v;
}

CodeRef epochLoopOf(const PortPlan& plan)
{
    CodeRef out;
    if (!plan.loop)
        return out;
    static const std::map<std::string, Hyper> noValues;
    const auto e = Resolver(plan, noValues).epochLoop();
    if (!e.found || !e.src || !e.statement)
        return out;
    out.file = e.src->path();
    out.start = e.statement->start;
    out.end = e.statement->end;
    out.line = e.statement->line;
    out.column = e.statement->column;
    // The loop's head, not its body: what the plan shows and cites.
    const std::string text = e.src->text(e.statement->start, e.statement->end);
    out.text = text.substr(0, text.find('\n'));
    return out;
}

RunValue trainEpochs(const PortPlan& plan, const std::map<std::string, Hyper>& hp)
{
    RunValue v;
    if (plan.loop) {
        const Resolver r(plan, hp);
        const auto e = r.epochLoop();
        if (!e.found) {
            v.value = "1";
            v.from = "one pass over the data: the batch loop (" + plan.loop->loop.where() +
                     ") has no epoch loop around it";
            return v;
        }
        std::string from, to;
        if (e.loop && rangeCount(*e.src, e.loop->forIter, &from, &to)) {
            const std::uint32_t pos = e.loop->start;
            // range(1, n + 1): n epochs, n being the end less one.
            std::string end = trimmed(to);
            bool plusOne = false;
            if (end.size() > 4 && end.ends_with("+ 1")) {
                end = trimmed(end.substr(0, end.size() - 3));
                plusOne = true;
            } else if (end.size() > 2 && end.ends_with("+1")) {
                end = trimmed(end.substr(0, end.size() - 2));
                plusOne = true;
            }
            const RunValue a = r.resolve(*e.src, from, pos);
            const RunValue b = r.resolve(*e.src, end, pos);
            if (!a.value.empty() && !b.value.empty()) {
                const long count = std::stol(b.value) + (plusOne ? 1 : 0) - std::stol(a.value);
                if (count > 0) {
                    v = b;
                    v.value = std::to_string(count);
                    if (count != std::stol(b.value))
                        v.flag.clear(); // not the flag's own value
                    const std::string loop = "`for " + e.src->text(e.loop->forTarget) + " in " +
                                             oneLine(e.src->text(e.loop->forIter)) + "` (" +
                                             at(*e.src, e.loop->node) + ")";
                    v.from = b.from.empty() ? loop : loop + ", " + b.from;
                    return v;
                }
            }
        }
    }
    // The loop's count is not known from the code: a flag named for epochs, else one made up.
    for (const auto& [dest, h] : hp)
        if ((dest == "epochs" || dest == "num_epochs" || dest == "niter" || dest == "n_epochs") &&
            isCount(h.value)) {
            const auto* f = plan.flag(dest);
            v.value = h.value;
            v.flag = dest;
            v.byName = true;
            v.from = "the flag " + (f && !f->options.empty() ? f->options.front() : dest);
            return v;
        }
    v.value = "1";
    v.madeUp = true;
    v.from = "made up by the port: the count of the original's epoch loop is not known from the "
             "code; set the original's";
    return v;
}

RunValue boundSteps(const PortPlan& plan, const std::map<std::string, Hyper>& hp)
{
    RunValue v;
    if (plan.loop && plan.loop->untilStopped) {
        v.value = "100";
        v.madeUp = true;
        v.from = "made up by the port: the original trains until it is stopped (`while True` at " +
                 plan.loop->loop.where() + " has no way out); set how many steps to train";
        return v;
    }
    if (!plan.loop || plan.loop->stepBound.empty())
        return v;
    const LoopPlan& lp = *plan.loop;
    const SourceFile* src = plan.source(lp.loop.file);
    if (!src)
        return v;
    v = Resolver(plan, hp).resolve(*src, lp.stepBound, lp.loop.start);
    if (v.value.empty() || v.value == "0") {
        v = RunValue{};
        v.value = "100";
        v.madeUp = true;
        v.from = "made up by the port: the bound `" + lp.stepBound +
                 "` of the loop drawing its batches (" + lp.loop.where() +
                 ") is not known from the code; set the original's";
        return v;
    }
    const std::string loop = "the bound `" + lp.stepBound + "` of the loop drawing its batches (" +
                             lp.loop.where() + ")";
    v.from = v.from.empty() ? loop : loop + ", " + v.from;
    return v;
}

RunValue trainSteps(const PortPlan& plan, const std::map<std::string, Hyper>& hp,
                    const std::string& fallback)
{
    if (RunValue bound = boundSteps(plan, hp); !bound.value.empty())
        return bound;
    const RunValue epochs = trainEpochs(plan, hp);
    // A loop over values written in the code (a list, a range): one step per value.
    // Not with epochs guessed from a flag's name: the loop over values may be that very count.
    if (const RunValue values = loopValueCount(plan, hp);
        !values.value.empty() && !epochs.madeUp && !epochs.byName) {
        RunValue v;
        v.value = std::to_string(std::stol(values.value) * std::stol(epochs.value));
        v.from = epochs.value + (epochs.value == "1" ? " epoch (" : " epochs (") + epochs.from +
                 ") x " + values.value + " steps: " + values.from;
        return v;
    }
    const RunValue batch = trainBatchSize(plan, hp);
    std::string why;
    bool synthetic = false;
    const SourceFile* src =
        plan.source(plan.train.construction.valid() ? plan.train.construction.file : plan.entry);
    const auto samples = src ? epochSamples(plan, *src, hp, &why, &synthetic) : std::nullopt;
    RunValue v;
    if (!batch.madeUp && !epochs.madeUp && samples && !synthetic && std::stol(batch.value) > 0) {
        const long perEpoch = *samples / std::stol(batch.value);
        if (perEpoch > 0) {
            v.value = std::to_string(perEpoch * std::stol(epochs.value));
            v.from = epochs.value + (epochs.value == "1" ? " epoch (" : " epochs (") + epochs.from +
                     ") x " + std::to_string(perEpoch) + " steps: " + why + " // batch size " +
                     batch.value;
            return v;
        }
    }
    v.value = fallback;
    v.madeUp = true;
    v.from = std::string("made up by the port: the original's steps (epochs x samples // batch "
                         "size) are not known from the code") +
             (epochs.madeUp
                  ? ""
                  : "; it trains " + epochs.value + (epochs.value == "1" ? " epoch" : " epochs")) +
             "; set them";
    return v;
}

} // namespace portolan::port::detail
