// portolan-cli train PROJECT: trains / evaluates the project's model. LibTorch runs in
// portolan-torch only (DESIGN.md section 12), so once the options parse this process becomes
// `portolan-torch train` with the same arguments: its JSON events (--events jsonl), its handling
// of SIGTERM (stop after the step, checkpoint) and its exit code are the run's, unchanged.
#include "app/cli/cli_common.h"
#include "app/torch/train_command.h"
#include "core/common/json.h"
#include "core/graph/torch_child.h"

#include <iostream>
#include <memory>

namespace portolan::cli {

namespace {

int runTrain(const TrainCliOptions& o)
{
    std::vector<std::string> args{"train"};
    const auto& typed = subcommandArguments();
    args.insert(args.end(), typed.begin(), typed.end());
    std::cout.flush();
    const Diagnostic d = graph::execTorchChild(args);
    if (o.events == "jsonl")
        std::cout << nlohmann::json{{"event", "failed"},
                                    {"message", d.message},
                                    {"code", d.code},
                                    {"diagnostic", d.toString()},
                                    {"location", toJson(d.location)}}
                         .dump()
                  << std::endl;
    else
        printDiagnostic(std::cerr, d);
    return ExitUsage;
}

Subcommand registerTrain(CLI::App& root)
{
    auto o = std::make_shared<TrainCliOptions>();
    CLI::App* cmd = addTrainCommand(root, *o);
    return {cmd, [o] {
                return runTrain(*o);
            }};
}
const CommandRegistration registration{"train", 40, &registerTrain};

} // namespace

} // namespace portolan::cli
