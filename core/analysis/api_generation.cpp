// The Cerebras Model Zoo API generation of a project, with evidence. The three generations share
// package names here and there (the Trainer's models import cerebras.pytorch too, a cstorch port
// still imports modelzoo.common), so each piece of evidence has a weight and the generation with
// the most wins; on a tie the newer one does, because newer releases keep older helpers around.
#include "core/analysis/analysis.h"
#include "core/analysis/flavour.h"

#include <array>
#include <map>

namespace portolan::analysis {

std::string_view apiGenerationId(ApiGeneration g)
{
    switch (g) {
    case ApiGeneration::Runner:
        return "runner";
    case ApiGeneration::Cstorch:
        return "cstorch";
    case ApiGeneration::Trainer:
        return "trainer";
    case ApiGeneration::None:
        break;
    }
    return {};
}

std::string_view apiGenerationName(ApiGeneration g)
{
    switch (g) {
    case ApiGeneration::Runner:
        return "runner API (R1.0-1.8)";
    case ApiGeneration::Cstorch:
        return "cstorch API (R1.9-2.2)";
    case ApiGeneration::Trainer:
        return "Trainer API (R2.3 on)";
    case ApiGeneration::None:
        break;
    }
    return {};
}

ApiGeneration apiGenerationFromId(std::string_view id)
{
    for (const auto g : {ApiGeneration::Runner, ApiGeneration::Cstorch, ApiGeneration::Trainer})
        if (apiGenerationId(g) == id)
            return g;
    return ApiGeneration::None;
}

std::string_view guideIdFor(ApiGeneration g)
{
    switch (g) {
    case ApiGeneration::Runner:
        return "cerebras-pytorch";
    case ApiGeneration::Cstorch:
        return "cerebras-cstorch";
    case ApiGeneration::Trainer:
        return "cerebras-trainer";
    case ApiGeneration::None:
        break;
    }
    return {};
}

namespace {

bool underModule(std::string_view name, std::string_view module)
{
    return name == module ||
           (name.starts_with(module) && name.size() > module.size() && name[module.size()] == '.');
}

struct ImportRule
{
    std::string_view module;
    ApiGeneration generation;
    int weight;
};

// Sources: the Model Zoo's package layout per release (modelzoo.common.pytorch with
// PyTorchBaseModel up to R1.8; cerebras_pytorch and modelzoo.common.run_utils in R1.9-2.2;
// cerebras.modelzoo.trainer, .config and .registry from R2.3) and Cerebras' release notes.
constexpr std::array<ImportRule, 10> ImportRules{{
    {"cerebras.modelzoo.trainer", ApiGeneration::Trainer, 3},
    {"cerebras.modelzoo.config", ApiGeneration::Trainer, 3},
    {"cerebras.modelzoo.registry", ApiGeneration::Trainer, 2},
    {"cerebras.modelzoo.cli", ApiGeneration::Trainer, 2},
    {"cerebras.modelzoo", ApiGeneration::Trainer, 1},
    {"cerebras_pytorch", ApiGeneration::Cstorch, 3},
    {"modelzoo.common.run_utils", ApiGeneration::Cstorch, 2},
    {"cerebras.pytorch", ApiGeneration::Cstorch, 1},
    {"cerebras.framework.torch", ApiGeneration::Runner, 3},
    {"modelzoo.common.pytorch.PyTorchBaseModel", ApiGeneration::Runner, 3},
}};

} // namespace

void detectApiGeneration(const ProjectAnalysis& a, FlavourReport& r)
{
    const Flavour f = r.beingPorted ? r.portingTo : r.flavour;
    const bool cerebrasTorch = f == Flavour::CerebrasPyTorch || f == Flavour::CerebrasLayers;
    const bool suggestedCerebras =
        r.suggestedGuide == "cerebras-pytorch" || r.suggestedGuide == "cerebras-layers";
    if (!cerebrasTorch && !suggestedCerebras)
        return;
    auto add = [&](ApiGeneration g, std::string what, const std::string& file, int line,
                   int weight) {
        r.generationEvidence.push_back({f, std::move(what), {file, line, 0}, weight});
        r.generationEvidence.back().generation = g;
    };
    for (const auto& file : a.python) {
        for (const auto& imp : file.index.imports) {
            const std::string full = imp.target();
            for (const auto& rule : ImportRules)
                if (underModule(full, rule.module) ||
                    underModule(imp.module.empty() ? imp.name : imp.module, rule.module)) {
                    add(rule.generation, "imports " + full, file.path, imp.span.line, rule.weight);
                    break;
                }
        }
        for (const auto& cls : file.index.classes)
            for (const auto& base : cls.bases) {
                const std::string b = base.substr(base.rfind('.') + 1);
                if (b == "PyTorchBaseModel")
                    add(ApiGeneration::Runner, "class " + cls.name + "(" + base + ")", file.path,
                        cls.span.line, 4);
                else if (b == "ModelConfig" &&
                         underModule(file.index.resolve(base), "cerebras.modelzoo"))
                    add(ApiGeneration::Trainer, "class " + cls.name + "(" + base + ")", file.path,
                        cls.span.line, 3);
            }
        for (const auto& c : file.index.calls) {
            const std::string& res = c.resolved;
            // The hand-over of run.py: run(model_fn, ...) is the runner's, main(params, Model,
            // train_fn, eval_fn) the cstorch flow's.
            if (res == "modelzoo.common.pytorch.run_utils.run")
                add(ApiGeneration::Runner, "calls " + res, file.path, c.nameSpan.line, 3);
            else if ((res == "modelzoo.common.pytorch.run_utils.main" ||
                      res == "modelzoo.common.run_utils.main") &&
                     c.arguments.size() >= 2)
                add(ApiGeneration::Cstorch, "calls " + res + "(params, model, ...)", file.path,
                    c.nameSpan.line, 3);
            else if (res.ends_with("modelzoo.trainer.Trainer"))
                add(ApiGeneration::Trainer, "calls " + res, file.path, c.nameSpan.line, 3);
        }
    }
    for (const auto& cfg : a.configs)
        if (cfg.kind == ConfigKind::TrainerParams) {
            const ConfigKey* k = cfg.find("trainer");
            add(ApiGeneration::Trainer, "a Trainer configuration (trainer: init/fit)", cfg.path,
                k ? k->line : 1, 3);
        }

    std::map<ApiGeneration, int> score;
    for (const auto& e : r.generationEvidence)
        score[e.generation] += e.weight;
    ApiGeneration best = ApiGeneration::None;
    int bestScore = 0;
    // Oldest first, so that a tie goes to the newer generation.
    for (const auto g : {ApiGeneration::Runner, ApiGeneration::Cstorch, ApiGeneration::Trainer})
        if (score[g] > 0 && score[g] >= bestScore) {
            best = g;
            bestScore = score[g];
        }
    if (best == ApiGeneration::None) {
        // Model Zoo-style code without generation markers is the runner's (the seeds' layout);
        // an original being ported gets the current generation unless the user picks another.
        best = cerebrasTorch && !r.beingPorted ? ApiGeneration::Runner : CurrentApiGeneration;
        if (r.generationEvidence.empty() && best == CurrentApiGeneration)
            r.generationReason = "a new port to Cerebras gets the current API generation";
        else
            r.generationReason = "no marker of a newer generation";
    } else {
        r.generationReason =
            "the strongest evidence is for the " + std::string(apiGenerationName(best));
    }
    r.apiGeneration = best;
    // The guide follows the generation; the layers guide stays the runner's companion.
    if (best != ApiGeneration::Runner) {
        const bool changed = r.suggestedGuide != guideIdFor(best);
        r.suggestedGuide = std::string(guideIdFor(best));
        if (changed && !cerebrasTorch)
            r.suggestionReason += "; the port follows the " + std::string(apiGenerationName(best)) +
                                  ", Cerebras' current generation";
    }
}

} // namespace portolan::analysis
