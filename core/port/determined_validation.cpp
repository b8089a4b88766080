// Determined's validation (issue 24): the trial runs the original's own validation statements in
// evaluate_full_dataset (Determined's documented method for a validation computed over the whole
// data set at once), where the original's sums are summed over every batch before it divides
// them, so the metrics are the original's ratios. A call of the original's evaluation function
// is written out in place (its parameters read as the call's arguments, its `return` as the
// call's result), so the method reports the function's own sums and ratios, and reads the model
// and what __init__ builds as the trial's attributes.
#include "core/port/determined_validation.h"

#include "core/port/plan_internal.h"
#include "core/port/validation_pass.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <regex>

namespace portolan::port::detail {

namespace {

using planning::fieldOf;
using planning::nodeType;


bool isAugmented(const Stmt& s)
{
    return s.type == "expression_statement" &&
           nodeType(ts_node_named_child(s.node, 0)) == "augmented_assignment";
}

bool isPlainAssignment(const Stmt& s)
{
    return s.type == "expression_statement" && !s.defines.empty() &&
           (nodeType(ts_node_named_child(s.node, 0)) == "assignment" || isAugmented(s));
}

// The names an augmented assignment binds anywhere in `stmts`: the original's sums.
void sums(const std::vector<Stmt>& stmts, std::set<std::string>& out)
{
    for (const auto& s : stmts) {
        if (isAugmented(s))
            out.insert(s.defines.begin(), s.defines.end());
        sums(s.body, out);
        sums(s.other, out);
    }
}

bool returnsIn(const std::vector<Stmt>& stmts)
{
    for (const auto& s : stmts)
        if (s.type == "return_statement" || returnsIn(s.body) || returnsIn(s.other))
            return true;
    return false;
}

// The statement's call of `function`: `x = f(...)` (target "x") or `f(...)`.
struct EvalCall
{
    TSNode node{};
    std::string target;
};
std::optional<EvalCall> callOf(const SourceFile& src, const Stmt& s, const std::string& function)
{
    if (s.type != "expression_statement")
        return std::nullopt;
    EvalCall c;
    c.node = ts_node_named_child(s.node, 0);
    if (nodeType(c.node) == "assignment") {
        if (nodeType(fieldOf(c.node, "left")) != "identifier")
            return std::nullopt;
        c.target = src.text(fieldOf(c.node, "left"));
        c.node = fieldOf(c.node, "right");
    }
    if (nodeType(c.node) != "call" || src.text(fieldOf(c.node, "function")) != function)
        return std::nullopt;
    return c;
}

// The function's parameters bound to the call's arguments (a default where none is given), as
// the arguments' nodes; nullopt for a form it does not bind (`*args`, a missing argument).
std::optional<std::vector<std::pair<std::string, TSNode>>> bind(const SourceFile& src,
                                                                const Stmt& def, TSNode call)
{
    std::vector<std::pair<std::string, TSNode>> params; // name, default
    const TSNode list = fieldOf(def.node, "parameters");
    for (std::uint32_t i = 0; i < ts_node_named_child_count(list); ++i) {
        const TSNode p = ts_node_named_child(list, i);
        const std::string t(nodeType(p));
        if (t == "identifier" || t == "typed_parameter")
            params.emplace_back(src.text(t == "identifier" ? p : ts_node_named_child(p, 0)),
                                TSNode{});
        else if (t == "default_parameter" || t == "typed_default_parameter")
            params.emplace_back(src.text(fieldOf(p, "name")), fieldOf(p, "value"));
        else if (t != "comment")
            return std::nullopt;
    }
    std::map<std::string, TSNode> given;
    const TSNode args = fieldOf(call, "arguments");
    std::size_t position = 0;
    for (std::uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
        const TSNode a = ts_node_named_child(args, i);
        const std::string t(nodeType(a));
        if (t == "comment")
            continue;
        if (t == "keyword_argument")
            given[src.text(fieldOf(a, "name"))] = fieldOf(a, "value");
        else if (t == "list_splat" || t == "dictionary_splat" || position >= params.size())
            return std::nullopt;
        else
            given[params[position++].first] = a;
    }
    std::vector<std::pair<std::string, TSNode>> out;
    for (const auto& [name, fallback] : params) {
        const auto it = given.find(name);
        const TSNode value = it != given.end() ? it->second : fallback;
        if (ts_node_is_null(value))
            return std::nullopt;
        out.emplace_back(name, value);
    }
    return out;
}

bool namesLoss(std::string name)
{
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name.find("loss") != std::string::npos;
}

// The phases of determinedValidation; the state they share is the struct's.
struct Writer
{
    const PortPlan& plan;
    const Slicer& slicer;
    const SourceFile& src;
    const StepCode& sc;
    const RenderRules& rules;
    ValidationPass pass;
    DeterminedValidation& out;
    RenderRules run;                  // how evaluate_full_dataset reads names
    std::vector<const Stmt*> before;  // the epoch loop's statements before the call
    std::vector<const Stmt*> inlined; // the evaluation function's body, its return aside
    std::vector<const Stmt*> after;   // the epoch loop's statements after it
    const Stmt* returned = nullptr;   // the function's final `return`
    std::optional<EvalCall> call;
    std::string bindings; // parameters given an argument that is not a plain name
    std::set<std::string> params;
    std::vector<std::pair<std::string, TSNode>> arguments; // parameter -> the call's argument
    std::set<std::string> argumentNames;                   // the names the arguments read

    // The epoch loop's statements this method runs: a print, or a statement that reads the
    // epoch's number or what the epoch set before its training, belongs to the epoch loop,
    // which Determined runs.
    bool choose()
    {
        std::set<std::string> epochOnly = identifiersOf(src.text(pass.epoch->forTarget));
        for (const Stmt* s : pass.early)
            epochOnly.insert(s->defines.begin(), s->defines.end());
        const Stmt* anchor = &pass.body()[pass.anchor];
        for (const Stmt* s : pass.chosen) {
            bool epochRead = false;
            for (const auto& n : slicer.freeNames({s}))
                epochRead = epochRead || epochOnly.count(n) > 0;
            if (s == anchor && epochRead)
                return false;
            if (s != anchor && (epochRead || isPrint(src, *s)))
                continue;
            if (s != anchor)
                (s->start < anchor->start ? before : after).push_back(s);
        }
        if (pass.function.empty())
            return true;
        call = callOf(src, *anchor, pass.function);
        if (!call || !pass.evalDef || pass.evalDef->type != "function_definition")
            return false;
        for (const auto& s : pass.evalDef->body) {
            if (s.isComment())
                continue;
            if (returned)
                return false; // code after the return
            if (s.type == "return_statement")
                returned = &s;
            else if (returnsIn({s}))
                return false; // a return inside a block: not one result
            else
                inlined.push_back(&s);
        }
        return true;
    }

    // The call's arguments as the function's parameters (bindParameters), then as the trial
    // reads them (renderBindings): a name is renamed to the argument's text; any other
    // expression is assigned first.
    bool bindParameters()
    {
        if (!call)
            return true;
        auto found = bind(src, *pass.evalDef, call->node);
        if (!found)
            return false;
        arguments = std::move(*found);
        for (const auto& [name, value] : arguments) {
            params.insert(name);
            for (const auto& n : identifiersOf(src.text(value)))
                argumentNames.insert(n);
        }
        return true;
    }

    void renderBindings()
    {
        std::set<std::string> assigned;
        if (call)
            boundIn(pass.evalDef->body, assigned);
        for (const auto& [name, value] : arguments) {
            const std::string text = render(src, value, run);
            if (nodeType(value) == "identifier" && !assigned.count(name))
                run.rename[name] = text;
            else
                bindings += "        " + name + " = " + text + "\n";
        }
    }

    // What the statements read that neither they nor the trial bind: kept by __init__ (what it
    // builds already, or the original's statements that build it) and read as attributes;
    // module code stays module code.
    bool setup()
    {
        std::vector<const Stmt*> all = before;
        all.insert(all.end(), inlined.begin(), inlined.end());
        if (returned)
            all.push_back(returned);
        all.insert(all.end(), after.begin(), after.end());
        if (!call)
            all.push_back(&pass.body()[pass.anchor]);
        std::set<std::string> bound;
        for (const Stmt* s : all) {
            bound.insert(s->defines.begin(), s->defines.end());
            boundIn(s->body, bound);
            boundIn(s->other, bound);
        }
        // The validation's own names are its locals, not the trial's attributes of the same
        // name (a hidden state the training step carries).
        for (const auto& b : bound)
            if (b != plan.modelVariable && b != plan.modelBinding)
                run.rename.erase(b);
        // What the function's body reads but its parameters, and what the call's arguments
        // read in the epoch loop.
        std::set<std::string> names = argumentNames;
        for (const auto& n : slicer.freeNames(all))
            if (!bound.count(n) && !params.count(n))
                names.insert(n);
        std::set<std::string> given{plan.modelVariable, plan.modelBinding, plan.argsName, "self"};
        given.insert(plan.deviceNames.begin(), plan.deviceNames.end());
        for (const auto& [n, r] : run.rename)
            given.insert(n);
        std::set<std::string> wanted, fromInit;
        for (const auto& n : names)
            if (!n.empty() && !isBuiltin(n) && !given.count(n))
                (sc.init.localDefines.count(n) ? fromInit : wanted).insert(n);
        std::set<std::string> exclude = given;
        exclude.insert(sc.init.localDefines.begin(), sc.init.localDefines.end());
        const std::uint32_t at = pass.body()[pass.anchor].start;
        Slice sl = slicer.slice(wanted, exclude, {}, at);
        // A value the original computes at module level (`val_data = batchify(corpus.valid,
        // 10)`) may read what the trial builds in __init__: __init__ computes it too.
        std::set<std::string> values;
        for (const Stmt* s : sl.module)
            if (s->type == "expression_statement")
                for (const auto& d : s->defines)
                    if (wanted.count(d))
                        values.insert(d);
        if (!values.empty())
            sl = slicer.slice(wanted, exclude, values, at);
        for (const auto& n : sl.unresolved)
            if (wanted.count(n))
                return false;
        std::vector<const Stmt*> local;
        for (const Stmt* s : sl.local)
            if (std::find(sc.init.local.begin(), sc.init.local.end(), s) == sc.init.local.end() &&
                !(pass.epoch->start <= s->start && s->end <= pass.epoch->end))
                local.push_back(s);
        out.module = sl.module;
        out.init += renderLocal(slicer, local, rules, "        ");
        std::set<std::string> kept = fromInit;
        for (const auto& n : wanted)
            if (sl.localDefines.count(n))
                kept.insert(n);
        if (!kept.empty())
            out.init += "        # What the validation reads, kept for evaluate_full_dataset.\n";
        for (const auto& n : kept) {
            out.init += "        self." + n + " = " + n + "\n";
            run.rename[n] = "self." + n;
        }
        return true;
    }

    // The original's sums, and what it computes from them (`accuracy = correct / n`), in the
    // order it binds them.
    std::vector<std::string> metricNames() const
    {
        std::vector<const Stmt*> top = before;
        top.insert(top.end(), inlined.begin(), inlined.end());
        top.insert(top.end(), after.begin(), after.end());
        if (!call)
            top.push_back(&pass.body()[pass.anchor]);
        std::sort(top.begin(), top.end(),
                  [](const Stmt* a, const Stmt* b) { return a->start < b->start; });
        std::set<std::string> made;
        for (const Stmt* s : top) {
            if (isAugmented(*s))
                made.insert(s->defines.begin(), s->defines.end());
            sums(s->body, made);
            sums(s->other, made);
        }
        std::vector<std::string> names;
        const auto add = [&](const std::string& n) {
            if (std::find(names.begin(), names.end(), n) == names.end())
                names.push_back(n);
        };
        for (const Stmt* s : top) {
            bool readsSum = false;
            for (const auto& n : s->uses)
                readsSum = readsSum || made.count(n) > 0;
            if (isPlainAssignment(*s) && (isAugmented(*s) || readsSum))
                for (const auto& d : s->defines) {
                    made.insert(d);
                    add(d);
                }
            else if (!isPlainAssignment(*s)) {
                std::set<std::string> inner;
                sums(s->body, inner);
                sums(s->other, inner);
                for (const auto& d : inner)
                    add(d);
            }
        }
        if (call && !call->target.empty())
            add(call->target);
        return names;
    }
};

} // namespace

DeterminedValidation determinedValidation(const PortPlan& plan, const Slicer& slicer,
                                          const StepCode& sc, const RenderRules& rules,
                                          const RenderRules& body,
                                          const std::set<std::string>& loaders,
                                          const std::vector<MetricStep>& metricSteps)
{
    DeterminedValidation out;
    auto found = findValidationPass(plan, slicer);
    // A validation inside the training function (found->call) reads that function's parameters
    // as the call's arguments, which this writer does not bind yet: the trial keeps its
    // evaluate_batch of the training step.
    if (!found || found->call || plan.optimizers.size() > 1)
        return out;
    Writer w{plan, slicer, slicer.source(), sc, rules, std::move(*found), out, body};
    for (const auto& m : {plan.modelVariable, plan.modelBinding})
        if (!m.empty())
            w.run.rename[m] = "self.model";
    for (const auto& l : loaders)
        w.run.rename[l] = "data_loader";
    if (!w.choose() || !w.bindParameters() || !w.setup())
        return DeterminedValidation{};
    w.renderBindings();
    // The searcher's metric: the loss a plateau decay compares, else the last loss it computes.
    const auto proven =
        provenPlateaus(plan, w.src, w.pass.defines, w.pass.after(), w.pass.loopEnd());
    std::vector<std::string> metrics = w.metricNames();
    std::string loss;
    for (const auto& m : metrics)
        if (namesLoss(m))
            loss = m;
    if (w.call && namesLoss(w.call->target))
        loss = w.call->target;
    std::string step;
    const std::string ind = "        ";
    const auto& optimizer = plan.optimizers.empty() ? std::string() : plan.optimizers[0].variable;
    if (proven && !optimizer.empty() && !optimizer.starts_with("self.") &&
        std::find(metrics.begin(), metrics.end(), proven->front().plateau->metric) !=
            metrics.end()) {
        std::string name = "plateau";
        for (const auto used = identifiersOf(w.src.text()); used.count(name);)
            name = "lr_" + name;
        for (const auto& p : *proven) {
            out.placed.insert(out.placed.end(), p.placed.begin(), p.placed.end());
            out.init += plateauComment(p, ind) + ind + "# Determined steps it by hand " +
                        "(MANUAL_STEP), in evaluate_full_dataset.\n" + ind + "self." + name +
                        " = self.context.wrap_lr_scheduler(\n" + ind + "    " +
                        plateauConstruction(p, "self." + optimizer, ind + "        ") + ",\n" +
                        ind + "    step_mode=LRScheduler.StepMode.MANUAL_STEP)\n";
            step += ind + "self." + name + ".step(" + p.plateau->metric + ")\n";
            loss = p.plateau->metric;
        }
    }
    // A scheduler the original steps with the validation's metric: stepped after it, with it.
    for (const auto& ms : metricSteps)
        if (ms.from == MetricStep::From::Validation && step.empty() &&
            std::find(metrics.begin(), metrics.end(), ms.metric) != metrics.end()) {
            step += ind + "# The original steps " + ms.scheduler->variable + " with `" + ms.metric +
                    "` after its validation (" + plan.entry + ":" + std::to_string(ms.step->line) +
                    ").\n" + ind + "self." + ms.scheduler->variable + ".step(" + ms.metric + ")\n";
            out.stepped.insert(ms.scheduler->variable);
            loss = ms.metric;
        }
    if (loss.empty())
        return DeterminedValidation{};
    const Stmt& anchor = w.pass.body()[w.pass.anchor];
    const std::string where = plan.entry + ":" + std::to_string(anchor.line);
    // One loop over Determined's loader adding up sums: evaluate_batch and a reducer, which
    // Determined runs on every slot; a plateau's scheduler steps where the whole validation is.
    if (step.empty() && !loaders.empty() && w.bindings.empty()) {
        ValidationStatements vs;
        vs.top = w.before;
        if (w.call)
            vs.top.insert(vs.top.end(), w.inlined.begin(), w.inlined.end());
        else
            vs.top.push_back(&anchor);
        vs.top.insert(vs.top.end(), w.after.begin(), w.after.end());
        vs.returned = w.returned;
        vs.target = w.call ? w.call->target : std::string();
        vs.metrics = metrics;
        vs.loss = loss;
        vs.where = where;
        if (auto b = batchValidation(slicer, w.run, vs)) {
            out.init += b->init;
            out.method = b->methods;
            out.helper = b->helper;
            out.metrics = metrics;
            out.ok = true;
            return out;
        }
    }
    std::string& m = out.method;
    m += "    def evaluate_full_dataset(self, data_loader: DataLoader) -> Dict[str, Any]:\n";
    m += ind + "# The original's validation (" + where +
         (w.call ? ", " + w.pass.function + "() written out here" : std::string()) +
         ") over the whole\n" + ind +
         "# validation data: its sums and the ratios it computes from them are its metrics.\n";
    std::string statements = renderLocal(slicer, w.before, w.run, ind);
    if (w.call) {
        statements += w.bindings + renderLocal(slicer, w.inlined, w.run, ind);
        if (w.returned && !w.call->target.empty())
            statements += ind + w.call->target + " = " +
                          render(w.src, ts_node_named_child(w.returned->node, 0), w.run) + "\n";
    } else {
        statements += renderLocal(slicer, {&anchor}, w.run, ind);
    }
    statements += renderLocal(slicer, w.after, w.run, ind);
    if (!std::regex_search(statements, std::regex(R"(\bdata_loader\b)")))
        m += ind + "# It validates the data the original builds itself: data_loader is not read.\n";
    m += statements + step;
    m += ind + "return {\"validation_loss\": " + loss;
    for (const auto& n : metrics)
        if (n != "validation_loss") {
            m += ", \"" + n + "\": " + n;
            out.metrics.push_back(n);
        }
    m += "}\n";
    out.ok = true;
    return out;
}

} // namespace portolan::port::detail
