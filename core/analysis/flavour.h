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
    GraphcorePopTorch,
};
std::string_view flavourId(Flavour f);   // "plain-pytorch", "cerebras-pytorch", ...
std::string_view flavourName(Flavour f); // "Cerebras PyTorch", ...

// The guide id (resources/guides/<id>.yaml) of the workflow a framework flavour belongs to;
// empty for the plain flavours.
std::string_view guideIdFor(Flavour f);

struct Evidence
{
    Flavour flavour = Flavour::Unknown;
    std::string what; // "imports poptorch", "class CIFARTrial(PyTorchTrial)"
    SourceLocation location;
    int weight = 1;
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

    std::string summary() const; // "Determined PyTorchTrial (confidence 0.95)"
};

FlavourReport detectFlavour(const ProjectAnalysis& analysis);

} // namespace portolan::analysis
