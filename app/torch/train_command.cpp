#include "app/torch/train_command.h"

namespace portolan::cli {

CLI::App* addTrainCommand(CLI::App& root, TrainCliOptions& o)
{
    CLI::App* cmd = root.add_subcommand(
        "train", "Train or evaluate the project's model with the LibTorch runtime");
    cmd->add_option("PROJECT", o.project, "Project folder")->required();
    cmd->add_option("--params", o.params,
                    "Params file (default: configs/params.yaml, params.yaml or const.yaml)");
    cmd->add_option("--mode", o.mode, "train, eval or train_and_eval")
        ->check(CLI::IsMember({"train", "eval", "train_and_eval"}));
    cmd->add_option("--steps", o.steps, "Optimizer steps (overrides the params file)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--events", o.events, "Write JSON events, one per line, on stdout")
        ->check(CLI::IsMember({"jsonl"}));
    cmd->add_option("--checkpoint-dir", o.checkpointDir,
                    "Checkpoint folder (default: PROJECT/.portolan/checkpoints)");
    cmd->add_option("--resume", o.resume, "Resume from this checkpoint file");
    cmd->add_option("--seed", o.seed, "Seed (overrides runconfig.seed)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--threads", o.threads, "LibTorch intra-op threads")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--eval-every", o.evalEvery, "train_and_eval: evaluate every N steps")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--log-steps", o.logSteps, "Report a step event every N steps")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--checkpoint-steps", o.checkpointSteps,
                    "Checkpoint every N steps (0: only at the end)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--ranks", o.ranks,
                    "Data-parallel processes on this machine (the params file's batch is split "
                    "among them)")
        ->check(CLI::Range(1, 256));
    cmd->add_option("--dist-timeout", o.distTimeout,
                    "Seconds a rank waits for the others before the job ends (default 60)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--bucket-mb", o.bucketMb,
                    "Gradient all-reduce bucket size in MB (default 1; 0: one all-reduce after "
                    "the backward pass, without overlap)")
        ->check(CLI::NonNegativeNumber);
    return cmd;
}

} // namespace portolan::cli
