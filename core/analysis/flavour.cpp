// Flavour detection: what a project is written for, from imports, class bases, calls and configs,
// each piece of evidence with its place. The scores are weights, not probabilities; confidence is
// how much of the evidence points at the winner.
#include "core/analysis/flavour.h"

#include "core/analysis/analysis.h"
#include "core/analysis/port_scope.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

namespace portolan::analysis {

std::string_view flavourId(Flavour f)
{
    switch (f) {
    case Flavour::Unknown:
        return "unknown";
    case Flavour::PlainPyTorch:
        return "plain-pytorch";
    case Flavour::PlainTensorFlow:
        return "plain-tensorflow";
    case Flavour::CerebrasPyTorch:
        return "cerebras-pytorch";
    case Flavour::CerebrasTensorFlow:
        return "cerebras-tensorflow";
    case Flavour::CerebrasLayers:
        return "cerebras-layers";
    case Flavour::DeterminedPyTorchTrial:
        return "determined-pytorchtrial";
    case Flavour::DeterminedCore:
        return "determined-core";
    case Flavour::GraphcorePopTorch:
        return "graphcore-poptorch";
    }
    return "unknown";
}

std::string_view flavourName(Flavour f)
{
    switch (f) {
    case Flavour::Unknown:
        return "unknown";
    case Flavour::PlainPyTorch:
        return "plain PyTorch";
    case Flavour::PlainTensorFlow:
        return "plain TensorFlow / Keras";
    case Flavour::CerebrasPyTorch:
        return "Cerebras PyTorch";
    case Flavour::CerebrasTensorFlow:
        return "Cerebras TensorFlow";
    case Flavour::CerebrasLayers:
        return "Cerebras PyTorch, layers API";
    case Flavour::DeterminedPyTorchTrial:
        return "Determined PyTorchTrial";
    case Flavour::DeterminedCore:
        return "Determined Core API";
    case Flavour::GraphcorePopTorch:
        return "Graphcore PopTorch";
    }
    return "unknown";
}

std::string_view guideIdFor(Flavour f)
{
    switch (f) {
    case Flavour::CerebrasPyTorch:
    case Flavour::CerebrasTensorFlow:
    case Flavour::CerebrasLayers:
    case Flavour::DeterminedPyTorchTrial:
    case Flavour::DeterminedCore:
    case Flavour::GraphcorePopTorch:
        return flavourId(f);
    default:
        return {};
    }
}

std::string FlavourReport::summary() const
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", confidence);
    std::string s;
    if (beingPorted)
        s = "plain PyTorch, being ported to " + std::string(flavourName(portingTo));
    else
        s = std::string(flavourName(flavour));
    return s + " (confidence " + buf + ")";
}

namespace {

bool startsWithModule(const std::string& name, std::string_view module)
{
    return name == module ||
           (name.starts_with(module) && name.size() > module.size() && name[module.size()] == '.');
}

bool isFramework(Flavour f)
{
    return !guideIdFor(f).empty();
}

// The Model Zoo keeps frameworks apart in its package paths: modelzoo.common.tf,
// modelzoo.transformers.tf.bert, modelzoo.unet.tf, modelzoo.common.pytorch.layers, ...
Flavour modelZooFlavour(const std::string& module)
{
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
        const auto dot = module.find('.', start);
        parts.push_back(module.substr(start, dot == std::string::npos ? dot : dot - start));
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    bool tf = false, torch = false, layers = false;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        tf = tf || parts[i] == "tf" || parts[i] == "tensorflow";
        torch = torch || parts[i] == "pytorch";
        layers = layers || (parts[i] == "layers" && i > 0 && parts[i - 1] == "pytorch");
    }
    if (tf && !torch)
        return Flavour::CerebrasTensorFlow;
    if (layers)
        return Flavour::CerebrasLayers;
    return Flavour::CerebrasPyTorch;
}

// Unported leftovers: the hand-written loop and device code a framework port removes.
bool isLeftover(const python::Call& c, std::string& what)
{
    const std::string& callee = c.callee;
    if (callee.find("context") != std::string::npos || callee.find("poptorch") != std::string::npos)
        return false;
    const auto last = callee.substr(callee.rfind('.') + 1);
    if (callee.find("loss") != std::string::npos && last == "backward") {
        what = callee + "() in user code";
        return true;
    }
    if (callee.find("optim") != std::string::npos && last == "step") {
        what = callee + "() in user code";
        return true;
    }
    if (last == "cuda" && callee != "torch.cuda") {
        what = callee + "()";
        return true;
    }
    if (c.resolved.ends_with("DistributedDataParallel")) {
        what = "DistributedDataParallel";
        return true;
    }
    return false;
}

// Is the function (or one it is nested in) decorated with cstorch's @trace?
bool inTracedStep(const python::PyIndex& idx, python::FunctionId fn)
{
    for (const python::FunctionDef* f = idx.function(fn); f; f = idx.function(f->parent))
        for (const auto& d : f->decorators)
            if (d == "trace" || d.ends_with(".trace") || d.find(".trace(") != std::string::npos)
                return true;
    return false;
}

} // namespace

static FlavourReport detectFrameworkFlavour(const ProjectAnalysis& a)
{
    FlavourReport r;
    auto add = [&](Flavour f, std::string what, const std::string& file, int line, int weight) {
        r.evidence.push_back({f, std::move(what), {file, line, 0}, weight});
    };

    bool usesTransformer = false, usesDistributed = false, usesScheduler = false, usesConv = false;
    std::vector<Evidence> leftovers;
    for (const auto& file : a.python) {
        const auto& idx = file.index;
        bool torchSeen = false, tfSeen = false;
        for (const auto& imp : idx.imports) {
            const std::string t = imp.module.empty() ? imp.name : imp.module;
            const std::string full = imp.target();
            const int line = imp.span.line;
            // PopTorch, and Graphcore's Hugging Face integration and launcher, both built on it.
            if (startsWithModule(t, "poptorch") || startsWithModule(t, "optimum.graphcore") ||
                startsWithModule(t, "popdist"))
                add(Flavour::GraphcorePopTorch, "imports " + full, file.path, line, 3);
            else if (startsWithModule(t, "determined"))
                add(Flavour::DeterminedPyTorchTrial, "imports " + full, file.path, line, 3);
            else if (startsWithModule(t, "cerebras.tf") ||
                     startsWithModule(t, "cerebras_tensorflow"))
                add(Flavour::CerebrasTensorFlow, "imports " + full, file.path, line, 3);
            else if (startsWithModule(t, "modelzoo") || startsWithModule(t, "cerebras.modelzoo")) {
                const Flavour f = modelZooFlavour(full);
                add(f,
                    f == Flavour::CerebrasLayers ? "imports the layers API (" + full + ")"
                                                 : "imports " + full,
                    file.path, line, f == Flavour::CerebrasLayers ? 4 : 3);
            } else if (startsWithModule(t, "cerebras_pytorch") ||
                       startsWithModule(t, "cerebras.pytorch"))
                add(Flavour::CerebrasPyTorch, "imports " + full, file.path, line, 3);
            else if (startsWithModule(t, "torch") && !torchSeen) {
                torchSeen = true;
                add(Flavour::PlainPyTorch, "imports " + full, file.path, line, 1);
            } else if ((startsWithModule(t, "tensorflow") || startsWithModule(t, "keras")) &&
                       !tfSeen) {
                tfSeen = true;
                add(Flavour::PlainTensorFlow, "imports " + full, file.path, line, 1);
            }
        }
        for (const auto& cls : idx.classes)
            for (const auto& base : cls.bases) {
                const std::string b = base.substr(base.rfind('.') + 1);
                if (b == "PyTorchTrial")
                    add(Flavour::DeterminedPyTorchTrial, "class " + cls.name + "(" + base + ")",
                        file.path, cls.span.line, 4);
                else if (b == "PyTorchBaseModel")
                    add(Flavour::CerebrasPyTorch, "class " + cls.name + "(" + base + ")", file.path,
                        cls.span.line, 4);
            }
        for (const auto& c : idx.calls) {
            const std::string& res = c.resolved;
            // core_v2.init is the same Core context for a script that runs outside a managed
            // experiment (Determined's unmanaged mode) or is launched by one.
            if (res == "determined.core.init" || res == "determined.experimental.core_v2.init")
                add(Flavour::DeterminedCore, "calls " + res, file.path, c.nameSpan.line, 4);
            if (res == "poptorch.trainingModel" || res == "poptorch.inferenceModel")
                add(Flavour::GraphcorePopTorch, "calls " + res, file.path, c.nameSpan.line, 2);
            else if (res.ends_with("CerebrasEstimator") || res.ends_with("CSEstimatorSpec"))
                add(Flavour::CerebrasTensorFlow, "calls " + c.callee, file.path, c.nameSpan.line,
                    2);
            if (res.starts_with("torch.nn.Transformer") ||
                res.starts_with("torch.nn.MultiheadAttention"))
                usesTransformer = true;
            if (res.starts_with("torch.distributed") || res.ends_with("DistributedDataParallel"))
                usesDistributed = true;
            if (res.starts_with("torch.optim.lr_scheduler"))
                usesScheduler = true;
            if (res == "torch.nn.Conv2d")
                usesConv = true;
            std::string what;
            // A CPU reference loop in test code is deliberate, not an unported leftover.
            // backward and the optimizer step inside a cstorch-traced step function are the
            // cstorch API's training step, not a leftover loop.
            if (isLeftover(c, what) && outsidePortReason(file.path).empty() &&
                !inTracedStep(idx, c.function))
                leftovers.push_back(
                    {Flavour::PlainPyTorch, what, {file.path, c.nameSpan.line, 0}, 1});
        }
    }
    for (const auto& cfg : a.configs) {
        if (cfg.kind == ConfigKind::DeterminedExperiment) {
            const ConfigKey* k = cfg.find("entrypoint");
            add(Flavour::DeterminedPyTorchTrial, "Determined experiment config", cfg.path,
                k ? k->line : 1, 2);
        }
    }

    // Importing determined and an experiment config are Determined evidence of either API. With
    // a Core context opened and no trial class, they count for the Core API.
    const auto isTrialClass = [](const Evidence& e) {
        return e.flavour == Flavour::DeterminedPyTorchTrial && e.what.starts_with("class ");
    };
    const bool coreContext = std::any_of(r.evidence.begin(), r.evidence.end(), [](const auto& e) {
        return e.flavour == Flavour::DeterminedCore;
    });
    if (coreContext && std::none_of(r.evidence.begin(), r.evidence.end(), isTrialClass))
        for (auto& e : r.evidence)
            if (e.flavour == Flavour::DeterminedPyTorchTrial)
                e.flavour = Flavour::DeterminedCore;

    std::map<Flavour, int> score;
    for (const auto& e : r.evidence)
        score[e.flavour] += e.weight;
    // The layers API is Cerebras PyTorch with more: its evidence counts for both.
    if (score[Flavour::CerebrasLayers] > 0)
        score[Flavour::CerebrasLayers] += score[Flavour::CerebrasPyTorch];

    Flavour best = Flavour::Unknown;
    int bestScore = 0, total = 0;
    for (const auto& [f, s] : score) {
        if (!isFramework(f))
            continue;
        total += s;
        if (s > bestScore) {
            best = f;
            bestScore = s;
        }
    }
    // A project is "being ported" when its training loop is still hand-written next to the
    // framework: backward, optimizer steps, DistributedDataParallel. A stray .cuda() in a
    // ported trial is a finding of the guide, not a sign that the port has not happened.
    int leftoverScore = 0;
    for (const auto& e : leftovers)
        if (!e.what.ends_with(".cuda()"))
            ++leftoverScore;
    // The Core API keeps the script's own loop: backward and optimizer steps are its design,
    // not leftovers of a port in progress.
    if (best == Flavour::DeterminedCore)
        leftoverScore = 0;
    if (best != Flavour::Unknown) {
        r.confidence =
            std::min(0.99, 0.6 + 0.4 * double(bestScore) / double(total + 1) + 0.02 * bestScore);
        if (leftoverScore >= 2) {
            r.flavour = Flavour::PlainPyTorch;
            r.beingPorted = true;
            r.portingTo = best;
            r.confidence = std::min(r.confidence, double(bestScore + leftoverScore) /
                                                      double(bestScore + leftoverScore + 2));
            for (auto& e : leftovers)
                r.evidence.push_back(std::move(e));
        } else {
            r.flavour = best;
        }
        r.suggestedGuide = std::string(guideIdFor(best));
        r.suggestionReason = "the project already uses " + std::string(flavourName(best));
        return r;
    }

    for (auto& e : leftovers)
        r.evidence.push_back(std::move(e));
    const int torch = score[Flavour::PlainPyTorch], tf = score[Flavour::PlainTensorFlow];
    if (torch == 0 && tf == 0) {
        r.flavour = Flavour::Unknown;
        r.confidence = 0.0;
        return r;
    }
    if (tf > torch) {
        r.flavour = Flavour::PlainTensorFlow;
        r.confidence = std::min(0.95, 0.6 + 0.1 * tf);
        r.suggestedGuide = "cerebras-tensorflow";
        r.suggestionReason = "TensorFlow/Keras code ports to the CerebrasEstimator";
        return r;
    }
    r.flavour = Flavour::PlainPyTorch;
    r.confidence = std::min(0.95, 0.6 + 0.05 * (torch + static_cast<int>(leftovers.size())));
    // The suggestion follows what the code already does: transformers map onto the layers API,
    // distributed training and LR schedules onto Determined's trial, conv nets onto IPUs, and the
    // rest onto the Cerebras PyTorch runner. The user can always pick another workflow.
    if (usesTransformer) {
        r.suggestedGuide = "cerebras-layers";
        r.suggestionReason =
            "uses torch.nn transformer layers, which the Cerebras layers API replaces";
    } else if (usesDistributed || usesScheduler) {
        r.suggestedGuide = "determined-pytorchtrial";
        r.suggestionReason =
            "sets up distributed training or an LR schedule, which Determined takes over";
    } else if (usesConv) {
        r.suggestedGuide = "graphcore-poptorch";
        r.suggestionReason = "a convolutional network, a good first fit for IPUs with PopTorch";
    } else {
        r.suggestedGuide = "cerebras-pytorch";
        r.suggestionReason =
            "a plain PyTorch model with a hand-written loop, which the Cerebras Model Zoo replaces";
    }
    return r;
}

FlavourReport detectFlavour(const ProjectAnalysis& a)
{
    FlavourReport r = detectFrameworkFlavour(a);
    detectApiGeneration(a, r);
    return r;
}

} // namespace portolan::analysis
