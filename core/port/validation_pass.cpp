// The original's validation pass and the plateau decays that follow it, found once for every
// target that runs them (validation_pass.h).
#include "core/port/validation_pass.h"

#include "core/port/epoch_loop.h"

#include <algorithm>
#include <map>
#include <regex>

namespace portolan::port::detail {

namespace {

bool contains(const Stmt& s, std::uint32_t at)
{
    return s.start <= at && at < s.end;
}

bool isAssignment(const Stmt& s)
{
    if (s.type != "expression_statement" || s.defines.empty())
        return false;
    const std::string type = ts_node_type(ts_node_named_child(s.node, 0));
    return type == "assignment" || type == "augmented_assignment";
}

// The lines of `stmts` (nested blocks included) that write `rate` into an optimizer's group
// (`g["lr"] = lr`).
void writesRate(const SourceFile& src, const std::vector<Stmt>& stmts, const std::string& rate,
                const std::string& file, std::vector<std::string>& lines)
{
    for (const auto& s : stmts) {
        const std::string t = src.text(s.start, s.end);
        if (s.type == "expression_statement" &&
            (t.find("[\"lr\"] = " + rate) != std::string::npos ||
             t.find("['lr'] = " + rate) != std::string::npos))
            lines.push_back(file + ":" + std::to_string(s.line));
        writesRate(src, s.body, rate, file, lines);
        writesRate(src, s.other, rate, file, lines);
    }
}

// Whether `text` reads `name` as an identifier.
bool readsName(const std::string& text, const std::string& name)
{
    return !name.empty() && identifiersOf(text).count(name) > 0;
}

// The phases of findValidationPass; the state they share is the struct's.
struct Finder
{
    const PortPlan& plan;
    const Slicer& slicer;
    const SourceFile& src;
    const LoopPlan& lp;
    ValidationPass& v;

    const std::vector<Stmt>& body() const { return v.body(); }

    // Whether the epoch loop calls the evaluation function at statement `i`; with no planned
    // evaluation (its loop is a `range` over a tensor), a function of the entry that calls the
    // model and runs no backward counts.
    bool callsEvaluation(std::size_t i)
    {
        const auto& ev = plan.evaluation;
        if (ev && !ev->function.empty() && ev->function != lp.function) {
            if (!body()[i].uses.count(ev->function))
                return false;
            v.function = ev->function;
            return true;
        }
        if (ev)
            return contains(body()[i], ev->loop.start);
        for (const auto& name : body()[i].uses) {
            const Stmt* def = src.topDefinition(name);
            if (!def || def->type != "function_definition" || name == lp.function)
                continue;
            const std::string text = src.text(def->start, def->end);
            if (readsName(text, plan.modelVariable) &&
                text.find(".backward(") == std::string::npos) {
                v.function = name;
                return true;
            }
        }
        return false;
    }

    // The training pass: the batch loop written in the block, or the call of its function;
    // then the validation after it.
    bool findAnchor()
    {
        std::size_t& train = v.train;
        std::size_t& anchor = v.anchor;
        train = anchor = body().size();
        for (std::size_t i = 0; i < body().size() && train == body().size(); ++i)
            if (contains(body()[i], lp.loop.start) ||
                (!lp.function.empty() && body()[i].uses.count(lp.function)))
                train = i;
        for (std::size_t i = train + 1; i < body().size() && anchor == body().size(); ++i)
            if (callsEvaluation(i))
                anchor = i;
        return train < body().size() && anchor < body().size();
    }

    // The validation after the batch loop inside the training function the epoch loop calls:
    // that function's body is the block, and its parameters read the call's arguments.
    bool inTrainingFunction()
    {
        const auto& loopBody = v.epoch->body;
        if (v.train >= loopBody.size() || lp.function.empty() ||
            contains(loopBody[v.train], lp.loop.start))
            return false;
        const Stmt* def = src.topDefinition(lp.function);
        if (!def || def->type != "function_definition" || !contains(*def, lp.loop.start))
            return false;
        const Stmt* call = &loopBody[v.train];
        const auto given = callArguments(src, call->node, lp.function);
        if (!given)
            return false;
        const auto params = parameterNames(src, *def);
        std::size_t positional = 0;
        for (const auto& [keyword, text] : *given) {
            if (!keyword.empty())
                v.arguments[keyword] = text;
            else if (positional < params.size())
                v.arguments[params[positional++]] = text;
        }
        v.call = call;
        v.block = &def->body;
        v.blockStart = def->start;
        return findAnchor();
    }

    bool findPasses()
    {
        v.epoch = epochLoopStatement(plan, src);
        if (!v.epoch || v.epoch->type != "for_statement")
            return false;
        v.block = &v.epoch->body;
        v.blockStart = v.epoch->start;
        if (!findAnchor() && !inTrainingFunction())
            return false;
        v.evalDef = v.function.empty() ? nullptr : src.topDefinition(v.function);
        if (const Stmt* evalDef = v.evalDef) {
            const auto params = parameterNames(src, *evalDef);
            const std::string text = src.text(evalDef->start, evalDef->end);
            const auto given = [&](const std::string& n) {
                return std::find(params.begin(), params.end(), n) != params.end();
            };
            v.modelGlobal = readsName(text, plan.modelVariable) && !given(plan.modelVariable);
            // A device global (`DEVICE`) read otherwise than by a device move, which the port
            // drops, is not the port's: in main(), the CPU stands for it.
            RenderRules moves;
            moves.deviceNames = plan.deviceNames;
            const std::string kept = render(src, evalDef->node, moves);
            for (const auto& d : plan.deviceNames)
                v.deviceGlobal = v.deviceGlobal || (readsName(kept, d) && !given(d));
            v.nested = v.modelGlobal || v.deviceGlobal;
        }
        return true;
    }

    // Before the validation, what it starts from (`running_vloss = 0.0`, `model.eval()`);
    // after it, what reads its results (`avg = running / n`, the prints). A statement reading
    // what the port does not compute (the training function's returned loss) is named, not run;
    // one reading a value set before the training pass (`start = time.time()`) takes it along.
    void chooseStatements()
    {
        const std::size_t train = v.train, anchor = v.anchor;
        auto& chosen = v.chosen;
        auto& early = v.early;
        const std::set<std::string> anchorReads = slicer.freeNames({&body()[anchor]});
        for (std::size_t i = train + 1; i < anchor; ++i) {
            bool startsIt = isModeSwitch(src, body()[i]);
            if (isAssignment(body()[i]))
                for (const auto& d : body()[i].defines)
                    startsIt = startsIt || anchorReads.count(d) > 0;
            if (startsIt)
                chosen.push_back(&body()[i]);
        }
        chosen.push_back(&body()[anchor]);
        std::set<std::string> made, lost;
        std::map<std::string, const Stmt*> before;
        for (const Stmt* s : chosen)
            made.insert(s->defines.begin(), s->defines.end());
        for (std::size_t i = 0; i < anchor; ++i) {
            const Stmt& s = body()[i];
            if (std::find(chosen.begin(), chosen.end(), &s) != chosen.end())
                continue;
            const bool plain = i < train && isAssignment(s) && !s.uses.count(plan.modelVariable) &&
                               !s.uses.count(lp.function);
            for (const auto& d : s.defines)
                plain ? void(before[d] = &s) : void(lost.insert(d));
        }
        for (std::size_t i = anchor + 1; i < body().size(); ++i) {
            const Stmt& s = body()[i];
            bool readsResult = false, readsLost = false, readsLoop = false;
            for (const auto& n : slicer.freeNames({&s})) {
                readsResult = readsResult || made.count(n) > 0;
                readsLost = readsLost || lost.count(n) > 0;
                readsLoop = readsLoop || (!made.count(n) && before.count(n) == 0 && n != "print" &&
                                          identifiersOf(src.text(v.blockStart, s.start)).count(n));
            }
            const bool kept = (readsResult && (isPrint(src, s) || isAssignment(s))) ||
                              (isPrint(src, s) && !readsLoop);
            if (kept && readsLost) {
                std::string names;
                for (const auto& n : slicer.freeNames({&s}))
                    if (lost.count(n))
                        names += std::string(names.empty() ? "" : ", ") + "`" + n + "`";
                v.unrun.emplace_back(&s, names);
            }
            if (!kept || readsLost) {
                lost.insert(s.defines.begin(), s.defines.end());
                continue;
            }
            for (const auto& n : slicer.freeNames({&s}))
                if (before.count(n) &&
                    std::find(early.begin(), early.end(), before.at(n)) == early.end())
                    early.push_back(before.at(n));
            chosen.push_back(&s);
            made.insert(s.defines.begin(), s.defines.end());
        }
        std::sort(early.begin(), early.end(),
                  [](const Stmt* a, const Stmt* b) { return a->start < b->start; });
        v.defines = made;
    }
};

} // namespace

bool isModeSwitch(const SourceFile& src, const Stmt& s)
{
    static const std::regex form(R"(^[A-Za-z_][A-Za-z_0-9.]*\.(eval|train)\([^()]*\)$)");
    return s.type == "expression_statement" && std::regex_match(src.text(s.start, s.end), form);
}

bool isPrint(const SourceFile& src, const Stmt& s)
{
    return s.type == "expression_statement" && src.text(s.start, s.end).starts_with("print(");
}

void boundIn(const std::vector<Stmt>& stmts, std::set<std::string>& out)
{
    for (const auto& s : stmts) {
        out.insert(s.defines.begin(), s.defines.end());
        boundIn(s.body, out);
        boundIn(s.other, out);
    }
}

std::optional<ValidationPass> findValidationPass(const PortPlan& plan, const Slicer& slicer)
{
    if (!plan.loop || plan.modelBinding.empty())
        return std::nullopt;
    ValidationPass v;
    Finder f{plan, slicer, slicer.source(), *plan.loop, v};
    if (!f.findPasses())
        return std::nullopt;
    f.chooseStatements();
    return v;
}

std::optional<std::vector<ProvenPlateau>> provenPlateaus(const PortPlan& plan,
                                                         const SourceFile& src,
                                                         const std::set<std::string>& defines,
                                                         std::uint32_t after, std::uint32_t loopEnd)
{
    if (plan.optimizers.size() != 1 || plan.plateaus.size() != 1)
        return std::nullopt;
    const OptimizerPlan& o = plan.optimizers.front();
    std::vector<ProvenPlateau> out;
    for (const auto& p : plan.plateaus) {
        if (p.branch.start < after || p.branch.end > loopEnd || !defines.count(p.metric))
            return std::nullopt;
        // The rate it divides is the optimizer's: the one a hand-written update reads, or the
        // one the original writes back into the optimizer's groups in the same branch.
        std::vector<std::string> written;
        for (const Stmt* s : src.chainAt(p.decay.start, p.decay.end))
            if (s->type == "if_statement" && s->start == p.branch.start)
                writesRate(src, s->other, p.rate, plan.entry, written);
        const bool read = o.synthesized && (o.rateName == p.rate || o.learningRate == p.rate);
        if (!read && written.empty())
            return std::nullopt;
        ProvenPlateau proven;
        proven.plateau = &p;
        proven.placed.push_back(p.decay.where());
        proven.placed.insert(proven.placed.end(), written.begin(), written.end());
        // `lr / k` and ReduceLROnPlateau's `lr * (1 / k)` are the same number when k is a
        // power of two; otherwise they may differ in the last bit.
        const std::string k = p.factor.starts_with("1 / ") ? p.factor.substr(4) : std::string();
        proven.exact = k.empty() || k == "2" || k == "2.0" || k == "4" || k == "4.0" || k == "8" ||
                       k == "8.0" || k == "16" || k == "16.0";
        out.push_back(std::move(proven));
    }
    return out;
}

std::string plateauComment(const ProvenPlateau& proven, const std::string& indent)
{
    const PlateauPlan& p = *proven.plateau;
    return indent + "# The original multiplies the learning rate by " + p.factor + " when `" +
           p.metric + "` does not improve on\n" + indent + "# its best (" + p.decay.where() +
           "): ReduceLROnPlateau with patience 0 and threshold 0 is that rule\n" + indent +
           "# (they part only at a best of exactly 0.0, once a reduction is " +
           "under its eps of 1e-8" + (proven.exact ? "" : ", and in the last bit of the rate") +
           ").\n";
}

std::string plateauConstruction(const ProvenPlateau& proven, const std::string& optimizer,
                                const std::string& continuation)
{
    return "torch.optim.lr_scheduler.ReduceLROnPlateau(\n" + continuation + optimizer +
           ", mode=\"min\", factor=" + proven.plateau->factor +
           ", patience=0, threshold=0, threshold_mode=\"abs\")";
}

} // namespace portolan::port::detail
