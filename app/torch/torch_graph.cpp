// portolan-torch record | torchscript | capture | synthetic: records an op graph with LibTorch
// and writes it on stdout as an op graph document (core/graph/graph_json.h), or the document of
// the error. portolan-cli compile and the GUI's Profile tab start these as a child process.
#include "app/cli/cli_common.h"
#include "core/graph/capture_import.h"
#include "core/graph/graph_json.h"
#include "core/graph/project_graph.h"
#include "core/graph/synthetic.h"
#include "core/graph/torchscript.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace portolan::cli {

namespace {

int emit(const Result<graph::OpGraph>& g)
{
    std::cout << (g ? graph::graphDocument(*g.value) : graph::errorDocument(g.error)) << std::endl;
    return g ? ExitOk : ExitUsage;
}

struct GraphCliOptions
{
    std::string input;
    int batch = 2;
    std::string inputShape;
    std::string inputDtype = "float32";
    std::string synthetic;
    int heads = 25;
    int sequence = 1024;
    int vocab = 50257;
};

Subcommand registerRecord(CLI::App& root)
{
    auto o = std::make_shared<GraphCliOptions>();
    CLI::App* cmd = root.add_subcommand(
        "record", "Record the op graph of a project's model, rebuilt by the LibTorch runtime");
    cmd->add_option("PARAMS", o->input, "Project folder or params file")->required();
    cmd->add_option("--batch", o->batch, "Batch of the recording forward pass")
        ->check(CLI::PositiveNumber);
    return {cmd, [o] {
                return emit(graph::recordProjectModel(o->input, o->batch));
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    recordRegistration{"record", 10, &registerRecord};

Subcommand registerTorchScript(CLI::App& root)
{
    auto o = std::make_shared<GraphCliOptions>();
    CLI::App* cmd =
        root.add_subcommand("torchscript", "Record the op graph of a TorchScript model (.pt)");
    cmd->add_option("MODEL", o->input, "TorchScript file")->required();
    cmd->add_option("--input-shape", o->inputShape, "Input shape with batch, e.g. 1,3,32,32")
        ->required();
    cmd->add_option("--input-dtype", o->inputDtype, "Input dtype")
        ->check(CLI::IsMember({"float32", "float16", "int64", "int32"}));
    return {cmd, [o] {
                auto shape = graph::parseShape(o->inputShape);
                if (!shape)
                    return emit(Result<graph::OpGraph>::fail(shape.error));
                return emit(graph::recordTorchScript(o->input, *shape.value,
                                                     graph::dtypeFromName(o->inputDtype)));
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    torchScriptRegistration{"torchscript", 20, &registerTorchScript};

Subcommand registerCapture(CLI::App& root)
{
    auto o = std::make_shared<GraphCliOptions>();
    CLI::App* cmd = root.add_subcommand(
        "capture", "Import a project's capture (capture.json and model.pt) into an op graph");
    cmd->add_option("CAPTURE", o->input, "Capture folder (PROJECT/.portolan/capture)")->required();
    return {cmd, [o] {
                return emit(graph::importCapture(o->input));
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    captureRegistration{"capture", 30, &registerCapture};

Subcommand registerSynthetic(CLI::App& root)
{
    auto o = std::make_shared<GraphCliOptions>();
    CLI::App* cmd = root.add_subcommand(
        "synthetic", "Record a GPT-style transformer of any size (benchmarks and tests)");
    cmd->add_option("SIZE", o->synthetic, "LAYERSxHIDDEN, like 48x1600")->required();
    cmd->add_option("--heads", o->heads)->check(CLI::PositiveNumber);
    cmd->add_option("--sequence", o->sequence)->check(CLI::PositiveNumber);
    cmd->add_option("--vocab", o->vocab)->check(CLI::PositiveNumber);
    return {cmd, [o] {
                graph::SyntheticTransformer s;
                s.heads = o->heads;
                s.sequence = o->sequence;
                s.vocab = o->vocab;
                if (std::sscanf(o->synthetic.c_str(), "%dx%d", &s.layers, &s.hidden) != 2 ||
                    s.layers < 1 || s.hidden < 1)
                    return emit(
                        Result<graph::OpGraph>::fail({Severity::Error,
                                                      "cli.synthetic",
                                                      "the size wants LAYERSxHIDDEN, like 48x1600",
                                                      {}}));
                return emit(graph::recordSyntheticTransformer(s));
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    syntheticRegistration{"synthetic", 50, &registerSynthetic};

} // namespace

} // namespace portolan::cli
