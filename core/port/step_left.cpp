// A training step the port does not place (plan.stepNotPlaced: layer-local optimizers, several
// backward() calls the plan cannot order): the port still carries the step's statements where
// its target runs a step, and the one item that says why also names those spots of the port.
// The guide's errors there (the layer method's parameters the step reads, which the port does
// not build) are then that item's, listed with it, not a cascade of separate things left.
#include "generate_internal.h"

#include <algorithm>
#include <sstream>

namespace portolan::port::detail {

namespace {

std::string trimmed(const std::string& s)
{
    const auto a = s.find_first_not_of(" \t");
    const auto b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// Every line of the step's statements, as the original writes them: a statement over several
// lines reads the layer's values on any of them (`torch.cat([self.margin - a, ...])` inside a
// `loss = torch.relu(` that opens on the line before), and the guide cites the line it reads on.
std::set<std::string> stepLines(const LoopPlan& lp)
{
    std::set<std::string> lines;
    for (const auto* list : {&lp.forward, &lp.betweenBackwardAndStep})
        for (const auto& s : *list) {
            std::istringstream in(s.text);
            for (std::string line; std::getline(in, line);) {
                // Lines that say nothing of their own (`i = batch`, a bare `).mean()`) are not
                // the step's.
                if (trimmed(line).size() > 8)
                    lines.insert(trimmed(line));
            }
        }
    return lines;
}

// A loader over the values the original's loop ran over (`LoopValues(lambda: range(self.rounds))`
// when the loop is not over a DataLoader) reads what the unplaced step's own code would have
// set (a layer's `self.rounds`): it is that step's too.
bool valuesOfTheStep(const PortPlan& plan, const std::string& line)
{
    return !plan.train.isDataLoader && line.starts_with("LoopValues(lambda: ");
}

} // namespace

void nameStepLeftInPort(const PortPlan& plan, PortResult& out)
{
    if (plan.stepNotPlaced.empty() || !plan.loop)
        return;
    const auto item = std::find_if(out.manual.begin(), out.manual.end(), [&](const auto& m) {
        return m.checkId == "port.manual" && m.message.starts_with(plan.stepNotPlaced);
    });
    if (item == out.manual.end())
        return;
    auto lines = stepLines(*plan.loop);
    lines.insert(out.stepLeftAt.begin(), out.stepLeftAt.end());
    for (const auto& f : out.files) {
        if (!f.path.ends_with(".py"))
            continue;
        std::istringstream in(f.text);
        std::string line;
        for (int n = 1; std::getline(in, line); ++n)
            if (lines.count(trimmed(line)) || valuesOfTheStep(plan, trimmed(line)))
                item->related.push_back(
                    SourceLocation{f.path, n, int(line.find_first_not_of(' ')) + 1});
    }
}

} // namespace portolan::port::detail
