// PopTorch's save of the trained weights (issue 24). The training model compiles the torch
// model the script built; once it has left the device (detachFromDevice, or copyWeightsToHost)
// that host model holds the trained weights, so the original's `torch.save(model.state_dict(),
// path)` after its training runs as written at the end of main().
#include "core/port/poptorch_save.h"

#include "core/port/epoch_loop.h"

#include <algorithm>

namespace portolan::port::detail {

namespace {

bool isLoop(const Stmt& s)
{
    return s.type == "for_statement" || s.type == "while_statement";
}

bool isDefinition(const Stmt& s)
{
    return s.type == "function_definition" || s.type == "decorated_definition" ||
           s.type == "class_definition";
}

// The chain's innermost definition, null at module level.
const Stmt* definitionOf(const std::vector<const Stmt*>& chain)
{
    const Stmt* def = nullptr;
    for (const Stmt* s : chain)
        if (isDefinition(*s))
            def = s;
    return def;
}

// The statements of the scope that holds the chain's last statement (the definition's body, or
// the module's), and that scope's statement holding it.
const Stmt* scopeStatementOf(const std::vector<const Stmt*>& chain)
{
    const Stmt* found = nullptr;
    bool take = true;
    for (const Stmt* s : chain) {
        if (take)
            found = s;
        take = isDefinition(*s);
    }
    return take ? nullptr : found;
}

} // namespace

PopTorchSaves poptorchSaves(const PortPlan& plan, const Slicer& slicer, const RenderRules& rules,
                            const std::vector<const Stmt*>& already, const std::string& indent)
{
    PopTorchSaves out;
    const SourceFile& src = slicer.source();
    if (!plan.loop || plan.loop->loop.file != plan.entry || plan.modelBinding.empty())
        return out;
    // The training: the epoch loop, else the batch loop; then, one scope up, the statement
    // calling the function that holds it.
    const Stmt* training = epochLoopStatement(plan, src);
    if (!training)
        training = slicer.statementAt(plan.loop->loop);
    if (!training)
        return out;
    const auto trainingChain = src.chainAt(training->start, training->end);
    const Stmt* trainingDef = definitionOf(trainingChain);
    std::set<std::string> built{plan.modelBinding};
    if (!plan.argsName.empty())
        built.insert(plan.argsName);
    for (const Stmt* s : already)
        built.insert(s->defines.begin(), s->defines.end());
    std::vector<const Stmt*> rendered;
    for (const auto& item : plan.leftovers) {
        if (item.kind != "checkpoint" || item.name != "torch.save" || item.at.file != plan.entry)
            continue;
        const auto chain = src.chainAt(item.at.start, item.at.end);
        // The save, or the `if` of one flag around it (`if args.save_model:`).
        const Stmt* save = scopeStatementOf(chain);
        if (!save ||
            !(save->type == "expression_statement" ||
              (save->type == "if_statement" && save->other.empty())) ||
            std::any_of(chain.begin(), chain.end(), [](const Stmt* s) { return isLoop(*s); }))
            continue;
        const Stmt* def = definitionOf(chain);
        bool after = def == trainingDef && save->start >= training->end;
        // In a caller: after its statement that calls the training's function.
        const std::string called = trainingDef ? trainingDef->name : std::string();
        if (!after && def != trainingDef && !called.empty()) {
            const auto& scope = def ? def->body : src.statements();
            for (const auto& s : scope)
                after = after || (s.start < save->start && s.uses.count(called) > 0);
        }
        // What it saves is the model's state, and everything it reads main() has.
        const std::string text = src.text(save->start, save->end);
        bool model = false;
        for (const auto& m : {plan.modelBinding, plan.modelVariable})
            model =
                model || (!m.empty() && text.find("(" + m + ".state_dict()") != std::string::npos);
        const auto reads = slicer.freeNames({save});
        const bool known = std::all_of(reads.begin(), reads.end(), [&](const std::string& n) {
            return n == "torch" || n == plan.modelVariable || built.count(n) > 0;
        });
        if (!after || !model || !known)
            continue;
        out.placed.push_back(item.at.where());
        if (std::find(rendered.begin(), rendered.end(), save) != rendered.end())
            continue; // a second save of the same statement
        rendered.push_back(save);
        RenderRules host = rules;
        if (!plan.modelVariable.empty() && plan.modelVariable != plan.modelBinding)
            host.rename[plan.modelVariable] = plan.modelBinding;
        out.code += indent + "# The original saves the trained weights (" + item.at.where() +
                    "): the host model holds them once the\n" + indent +
                    "# training model has left the device.\n" +
                    renderLocal(slicer, {save}, host, indent);
    }
    return out;
}

} // namespace portolan::port::detail
