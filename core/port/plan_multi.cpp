// A training step that trains several models in turn (a GAN: the discriminator's losses, its
// optimizer's step, then the generator's loss and step, all per batch): the whole loop body in
// the user's order, each backward() and optimizer step named, and which zero_grad() calls the
// target would make redundant.
#include "core/port/plan_internal.h"

#include <algorithm>

namespace portolan::port::planning {

namespace {

bool isIdentifier(const std::string& s)
{
    return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
           std::all_of(s.begin(), s.end(), [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
           });
}

// `receiver.method(arguments)` as the whole of an expression statement: {receiver, arguments}.
std::optional<std::pair<std::string, std::string>> soleCall(const SourceFile& f, const Stmt& s,
                                                            const std::string& method)
{
    if (s.type != "expression_statement" || ts_node_named_child_count(s.node) != 1)
        return std::nullopt;
    const TSNode call = ts_node_named_child(s.node, 0);
    if (nodeType(call) != "call")
        return std::nullopt;
    const TSNode fn = fieldOf(call, "function");
    if (nodeType(fn) != "attribute" || f.text(fieldOf(fn, "attribute")) != method)
        return std::nullopt;
    const std::string receiver = f.text(fieldOf(fn, "object"));
    std::string args = f.text(fieldOf(call, "arguments"));
    if (args.size() >= 2)
        args = args.substr(1, args.size() - 2);
    return std::make_pair(receiver, args);
}

// Every use of `name` in `text` is `name.detach()`: the value flows on without its graph.
bool onlyDetached(const std::string& text, const std::string& name)
{
    const auto isId = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    bool any = false;
    for (auto at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
        const auto end = at + name.size();
        if ((at > 0 && (isId(text[at - 1]) || text[at - 1] == '.')) ||
            (end < text.size() && isId(text[end])))
            continue;
        any = true;
        if (text.compare(end, 10, ".detach()") != 0 && text.compare(end, 9, ".detach()") != 0)
            return false;
    }
    return any;
}

} // namespace

// The models whose parameters a backward at sequence[index] reaches: the loss's statements
// followed back through the names they read, a `.detach()` cutting the way. Over-approximates
// (a model read anywhere on the way counts), which only keeps more zero_grad() calls.
std::set<std::string> Planner::modelsReached(std::size_t index) const
{
    const auto& seq = m_p.loop->sequence;
    std::set<std::string> models, names{seq[index].target};
    std::set<std::string> known;
    for (const auto& m : m_p.models)
        known.insert(m.variable);
    for (std::size_t k = index; k-- > 0;) {
        if (seq[k].kind != StepAction::Kind::Statement)
            continue;
        const Stmt* s = nullptr;
        for (const Stmt* c : src().chainAt(seq[k].at.start, seq[k].at.end))
            if (c->start == seq[k].at.start && c->end == seq[k].at.end)
                s = c;
        if (!s)
            continue;
        bool feeds = false;
        for (const auto& d : s->defines)
            feeds = feeds || names.count(d);
        if (!feeds)
            continue;
        for (const auto& d : s->defines)
            names.erase(d);
        const std::string text = src().text(s->start, s->end);
        for (const auto& u : s->uses) {
            if (onlyDetached(text, u))
                continue;
            if (known.count(u))
                models.insert(u);
            else
                names.insert(u);
        }
    }
    return models;
}

// A step with several backward() calls, each its own statement of the loop body, and optimizers
// each stepped by a statement `opt.step()`: the sequence the port replays in order. Returns false
// (the step stays the user's) when a backward or a step is inside a compound statement, or an
// optimizer steps with a closure.
bool Planner::placeSequence(const Stmt& loop)
{
    const auto& f = src();
    auto& lp = *m_p.loop;
    std::vector<StepAction> seq;
    std::set<std::string> optimizers;
    for (const auto& o : m_p.optimizers)
        if (!o.synthesized)
            optimizers.insert(o.variable);
    for (const auto& s : loop.body) {
        if (s.isComment())
            continue;
        StepAction a;
        a.at = refOf(m_p.entry, f, s);
        if (containsMethodCall(f, s.node, "backward")) {
            const auto call = soleCall(f, s, "backward");
            if (!call || !isIdentifier(call->first))
                return false;
            a.kind = StepAction::Kind::Backward;
            a.target = call->first;
            a.arguments = call->second;
        } else if (containsMethodCall(f, s.node, "step") && s.type != "expression_statement") {
            return false;
        } else if (const auto step = soleCall(f, s, "step");
                   step && optimizers.count(step->first)) {
            if (!step->second.empty())
                return false; // a closure (LBFGS)
            a.kind = StepAction::Kind::Step;
            a.target = step->first;
        } else if (const auto zero = soleCall(f, s, "zero_grad"); zero) {
            a.kind = StepAction::Kind::ZeroGrad;
            a.target = zero->first;
        } else if (containsMethodCall(f, s.node, "zero_grad") ||
                   (containsMethodCall(f, s.node, "step") && !seq.empty() &&
                    std::none_of(m_p.schedulers.begin(), m_p.schedulers.end(),
                                 [&](const SchedulerPlan& sc) {
                                     return containsMethodCall(f, s.node, "step", sc.variable);
                                 }))) {
            return false;
        }
        seq.push_back(a);
    }
    // What follows the last optimizer step (logging, samples, checkpoints) is left over.
    while (!seq.empty() && seq.back().kind != StepAction::Kind::Step)
        seq.pop_back();
    if (std::none_of(seq.begin(), seq.end(),
                     [](const StepAction& a) { return a.kind == StepAction::Kind::Step; }))
        return false;
    lp.sequence = std::move(seq);
    // Every model an optimizer trains, in the optimizers' order.
    for (const auto& o : m_p.optimizers) {
        if (o.synthesized)
            continue;
        if (o.madeBy.valid()) { // built by a factory: the model its caller hands over
            if (!o.trains.empty())
                m_p.models.push_back(ModelPlan{o.trains, o.variable});
            continue;
        }
        for (const auto& c : idx().calls)
            if (c.span.startByte == o.construction.start && !c.arguments.empty())
                if (const std::string owner = parametersOwner(c); isIdentifier(owner))
                    m_p.models.push_back(ModelPlan{owner, o.variable});
    }
    markZeroGrads();
    return true;
}

// Determined's step_optimizer zeroes the gradients of the optimizer it steps, right after the
// step. A zero_grad() of the original is then redundant when no backward since that optimizer's
// last step (going round the loop) reached the models it clears; otherwise (a later loss went
// through this model, as the generator's loss goes through the discriminator) it stays.
void Planner::markZeroGrads()
{
    auto& seq = m_p.loop->sequence;
    std::map<std::string, std::string> ownerOf; // optimizer -> model
    std::set<std::string> models;
    for (const auto& m : m_p.models) {
        ownerOf[m.optimizer] = m.variable;
        models.insert(m.variable);
    }
    for (std::size_t i = 0; i < seq.size(); ++i) {
        auto& z = seq[i];
        if (z.kind != StepAction::Kind::ZeroGrad)
            continue;
        std::string cleared = ownerOf.count(z.target) ? ownerOf[z.target] : z.target;
        if (!models.count(cleared)) {
            z.keep = true; // not a model an optimizer trains: the port does not know it
            continue;
        }
        z.keep = true;
        for (std::size_t n = 1; n <= seq.size(); ++n) {
            const std::size_t k = (i + seq.size() - n) % seq.size();
            const auto& a = seq[k];
            if (a.kind == StepAction::Kind::Step && ownerOf[a.target] == cleared) {
                z.keep = false;
                break;
            }
            if (a.kind == StepAction::Kind::Backward && modelsReached(k).count(cleared))
                break;
        }
    }
}

} // namespace portolan::port::planning
