#pragma once

#include "core/common/diagnostic.h"

#include <string>
#include <string_view>
#include <vector>

namespace portolan::analysis {

struct ProjectAnalysis;

// What a project is written for.
enum class Flavour : std::uint8_t
{
    Unknown,
    PlainPyTorch,
    PlainTensorFlow,
    CerebrasPyTorch,
    CerebrasTensorFlow,
    CerebrasLayers,
    DeterminedPyTorchTrial,
    // A script that keeps its own loop and reports to determined.core (the Core API).
    DeterminedCore,
    GraphcorePopTorch,
};
std::string_view flavourId(Flavour f);   // "plain-pytorch", "cerebras-pytorch", ...
std::string_view flavourName(Flavour f); // "Cerebras PyTorch", ...

// The guide id (resources/guides/<id>.yaml) of the workflow a framework flavour belongs to;
// empty for the plain flavours.
std::string_view guideIdFor(Flavour f);

// Which generation of the Cerebras Model Zoo API a Cerebras project is written against. Each has
// its own guide and contracts (resources/guides/cerebras-*.yaml):
//   runner  R1.0-1.8: PyTorchBaseModel and modelzoo.common.pytorch.run_utils.run(...)
//   cstorch R1.9-2.2: a plain module that returns its loss, cerebras.pytorch (cerebras_pytorch),
//                     run.py hands main(params, Model, train_fn, eval_fn) the model class
//   trainer R2.3 on:  cerebras.modelzoo.trainer.Trainer, typed model configs, the cszoo CLI
enum class ApiGeneration : std::uint8_t
{
    None, // not a Cerebras project
    Runner,
    Cstorch,
    Trainer,
};
std::string_view apiGenerationId(ApiGeneration g);   // "runner", "cstorch", "trainer", ""
std::string_view apiGenerationName(ApiGeneration g); // "Trainer (R2.3 on)", ...
// "runner" / "cstorch" / "trainer" -> the generation; None for anything else.
ApiGeneration apiGenerationFromId(std::string_view id);
// The guide of a Cerebras PyTorch generation ("cerebras-pytorch" for the runner, the seeds'
// workflow; "cerebras-cstorch"; "cerebras-trainer").
std::string_view guideIdFor(ApiGeneration g);
// The generation a new port to Cerebras gets unless the user picks another: the current one.
constexpr ApiGeneration CurrentApiGeneration = ApiGeneration::Trainer;

struct Evidence
{
    Flavour flavour = Flavour::Unknown;
    std::string what; // "imports poptorch", "class CIFARTrial(PyTorchTrial)"
    SourceLocation location;
    int weight = 1;
    ApiGeneration generation = ApiGeneration::None; // generation evidence only
};

struct FlavourReport
{
    Flavour flavour = Flavour::Unknown;
    double confidence = 0.0; // 0..1
    // Set when framework code sits next to unported leftovers: "plain PyTorch, being ported to X".
    bool beingPorted = false;
    Flavour portingTo = Flavour::Unknown;
    std::string suggestedGuide; // guide id of the suggested target workflow
    std::string suggestionReason;
    std::vector<Evidence> evidence;
    // Cerebras PyTorch projects (and originals suggested for Cerebras): the API generation, with
    // the evidence for it (empty evidence for an original: the current generation by default).
    ApiGeneration apiGeneration = ApiGeneration::None;
    std::vector<Evidence> generationEvidence;
    std::string generationReason;

    std::string summary() const; // "Determined PyTorchTrial (confidence 0.95)"
};

FlavourReport detectFlavour(const ProjectAnalysis& analysis);
// Sets apiGeneration, its evidence and reason for a Cerebras PyTorch project, or for an original
// whose suggested port is Cerebras, and points suggestedGuide at that generation's guide
// (core/analysis/api_generation.cpp). detectFlavour calls it.
void detectApiGeneration(const ProjectAnalysis& analysis, FlavourReport& report);

} // namespace portolan::analysis
