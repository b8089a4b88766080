// A weight update written by hand instead of an optimizer's step: plain SGD, which the port
// replaces with torch.optim.SGD at the rate that scales the gradient. Each target then steps an
// optimizer of its own kind (Determined's step_optimizer, PopTorch's and Cerebras' compiled
// step), none of which can run an update written around the parameters.
#include "core/port/plan_internal.h"

namespace portolan::port::planning {

namespace {

// `w -= rate * w.grad` (or `w.data -= ...`), a statement of the loop over `variable`.
bool subtractsScaledGradient(const SourceFile& f, const Stmt& s, const std::string& variable)
{
    if (s.type != "expression_statement" || ts_node_named_child_count(s.node) != 1)
        return false;
    const TSNode a = ts_node_named_child(s.node, 0);
    if (nodeType(a) != "augmented_assignment" || f.text(fieldOf(a, "operator")) != "-=")
        return false;
    const std::string left = f.text(fieldOf(a, "left"));
    return (left == variable || left == variable + ".data") &&
           f.text(fieldOf(a, "right")).find(".grad") != std::string::npos;
}

std::string trimmed(std::string s)
{
    const auto first = s.find_first_not_of(" \t\n");
    if (first == std::string::npos)
        return {};
    const auto last = s.find_last_not_of(" \t\n");
    return s.substr(first, last - first + 1);
}

// The rate of `rate * w.grad` / `w.grad * rate`: the factor that is not the gradient; a bare
// gradient is a rate of 1.
std::string rateOfProduct(const std::string& product)
{
    const auto star = product.find('*');
    if (star == std::string::npos)
        return product.find(".grad") != std::string::npos ? "1.0" : "";
    const std::string left = trimmed(product.substr(0, star));
    const std::string right = trimmed(product.substr(star + 1));
    return left.find(".grad") == std::string::npos ? left : right;
}

// The rate an update scales the gradient by, from its text: `add_(g, alpha=-rate)`,
// `add_(-rate * g)`, `add_(-rate, g)` (the old two-argument form), `sub_(rate * g)`,
// `w -= rate * w.grad`. Empty when the text has none of these.
std::string rateOfUpdate(const std::string& text)
{
    if (const auto a = text.find("alpha=-"); a != std::string::npos) {
        const std::string rest = text.substr(a + 7);
        return trimmed(rest.substr(0, rest.find(')')));
    }
    if (const auto b = text.find("add_(-"); b != std::string::npos) {
        const std::string rest = text.substr(b + 6);
        return trimmed(rest.substr(0, rest.find_first_of("*,)")));
    }
    if (const auto c = text.find("sub_("); c != std::string::npos) {
        const std::string rest = text.substr(c + 5);
        return trimmed(rest.substr(0, rest.find_first_of("*,)")));
    }
    if (const auto d = text.find("-="); d != std::string::npos) {
        const std::string rest = text.substr(d + 2);
        return rateOfProduct(rest.substr(0, rest.find('\n')));
    }
    return {};
}

} // namespace

// The loop over a model's parameters that updates each by hand (`for p in m.parameters():
// p.data.add_(...)` or `p -= lr * p.grad`), the statement itself or the one loop of a
// `with torch.no_grad():` block, which an in-place update of a leaf needs.
const Stmt* Planner::handUpdate(const Stmt& s) const
{
    const auto& f = src();
    if (s.type == "with_statement") {
        const Stmt* update = nullptr;
        for (const auto& b : s.body) {
            if (b.isComment())
                continue;
            if (update)
                return nullptr; // more than the update: not a step the port can replace
            update = handUpdate(b);
            if (!update)
                return nullptr;
        }
        return update;
    }
    if (s.type != "for_statement" || !f.text(s.forIter).ends_with(".parameters()"))
        return nullptr;
    if (containsMethodCall(f, s.node, "add_") || containsMethodCall(f, s.node, "sub_"))
        return &s;
    const std::string variable = f.text(s.forTarget);
    for (const auto& b : s.body)
        if (subtractsScaledGradient(f, b, variable))
            return &s;
    return nullptr;
}

// The update is SGD by hand (param -= lr * grad): the port uses torch.optim.SGD with the rate
// that scales the gradient, the same update. `update` is the loop over the parameters, `ref`
// the statement of the step that holds it.
void Planner::synthesizeSgd(const Stmt& update, const CodeRef& ref)
{
    OptimizerPlan o;
    o.variable = "optimizer";
    o.qualified = "torch.optim.SGD";
    o.synthesized = true;
    std::string lr = rateOfUpdate(ref.text);
    // A name holding a flag's value (`lr = args.lr`, perhaps bound after the training function
    // is defined): the rate is the flag, which the port reads as the target reads flags.
    const std::string prefix = m_p.argsName + ".";
    for (const auto& a : idx().assignments)
        if (!m_p.argsName.empty() && a.target == lr && !a.augmented &&
            a.value.starts_with(prefix) && a.value.size() > prefix.size() &&
            a.value.find_first_not_of(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", prefix.size()) ==
                std::string::npos) {
            o.rateName = lr;
            lr = a.value;
            break;
        }
    o.learningRate = lr;
    o.construction = ref;
    o.statement = ref;
    const std::string it = src().text(update.forIter);
    m_p.modelVariable = it.substr(0, it.size() - std::string(".parameters()").size());
    if (lr.empty())
        m_p.manual.push_back(
            manualFinding("the weights are updated by hand and the learning rate could not be "
                          "read from the update",
                          ref, "use a torch.optim optimizer"));
    else
        m_p.notes.push_back("the hand-written update at " + ref.where() +
                            " is plain SGD: the port uses torch.optim.SGD(lr=" + lr +
                            "), the same update");
    m_p.optimizers.push_back(o);
}

} // namespace portolan::port::planning
