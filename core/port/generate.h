#pragma once

// Generation (issue 24): the target's structure written around the user's code, moved verbatim.
// What the plan cannot place is still written, with a `# TODO(portolan): ...` at the spot and a
// port.manual finding; such a port is partial. The original folder is never touched.

#include "core/port/plan.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

namespace portolan::port {

struct VerifyResult;

struct GeneratedFile
{
    std::string path; // relative to the output folder
    std::string from; // the original file it comes from ("" when generated)
    std::string text;
};

struct PortResult
{
    std::string target; // guide id: determined-pytorchtrial, graphcore-poptorch, cerebras-...
    std::string api;    // Cerebras generation: runner, cstorch, trainer; "" otherwise
    std::vector<GeneratedFile> files;
    std::vector<guides::Finding> manual;
    std::vector<std::string> notes;
    std::string entry; // what runs the port ("model_def:Trial", "train.py", ...)
    std::map<std::string, std::string> hyperparameters; // key -> YAML value written
    // Where a step of the original begins ("main.py:47", the first statement of its batch loop)
    // when its batches do not come from a DataLoader: the verification seeds the random state
    // there, as the port's replay does when its loader hands out a batch, so batches the step
    // draws itself (get_batch() helpers) are the same in both runs. "" when not needed.
    std::string originalStepStart;
    // Where the ported training's part of the original's run begins ("main.py:40") when the
    // original runs other trainings before it (PortPlan::trainingFrom): the original's dry run
    // counts its steps from there. "" when it is the first.
    std::string originalTrainingFrom;
    // The file the original's dry run runs when it is not the one the driver would choose
    // (PortPlan::launcher), "" otherwise.
    std::string originalEntry;
    // The port's lines (their text) where a step the plan does not place is to be written (a
    // generator's own spots, such as PopTorch's forward and the model it wraps): the step's item
    // names them too (step_left.cpp).
    std::vector<std::string> stepLeftAt;
    // The plan's manual items ("file:line") this target generated after all (a plateau decay
    // stepped as ReduceLROnPlateau): generatePort does not list them.
    std::vector<std::string> generatedItems;
    // The original's checkpoint saves this target runs as written ("main.py:61", PopTorch's
    // save of the host model after training): noteCheckpointSaves does not note them.
    std::vector<std::string> keptSaves;
    double planMs = 0;
    double generateMs = 0;

    // The one status rule: a port is full when the plan placed everything (no port.manual
    // item) and, once it has been checked (`checked`, the verification), its target guide
    // reports no error. Everything else is partial, and leftFor() says what is left.
    bool full(const VerifyResult* checked = nullptr) const;
    std::string status(const VerifyResult* checked = nullptr) const;
    // What is left to do by hand: the plan's manual items, then the check's errors.
    std::vector<guides::Finding> leftFor(const VerifyResult* checked) const;
};

struct VerifyResult
{
    int checkErrors = -1;
    std::vector<guides::Finding> checkFindings; // the errors
    // Errors at a spot of the port that a manual item names (its related places): the item's
    // consequence, not counted in checkErrors (the port is partial by that item anyway).
    std::vector<guides::Finding> itemFindings;
    // Errors in a file the port carries over unchanged that the guide reports at the same place
    // of the original's file: the original's own (dead code reading a name it never imported),
    // reported, not counted in checkErrors.
    std::vector<guides::Finding> inheritedFindings;
    int dryRunSteps = 0;
    std::string dryRunError;
    int stepsAsked = 0; // VerifyOptions::steps
    int stepsCompared = 0;
    std::vector<double> originalLosses;
    std::vector<double> portLosses;
    // A step with several backward() calls (a GAN's losses): each loss of each compared step, in
    // order, in both runs; compared like the step's loss. Empty when no step has several.
    std::vector<std::vector<double>> originalBackwardLosses;
    std::vector<std::vector<double>> portBackwardLosses;
    double maxRelLossDiff = -1;
    double maxAbsWeightDiff = -1;
    int firstDivergence = 0; // 1-based step, 0: none
    std::string originalError;
    // How far the original's recorded steps moved its trained weights (OriginalRun), -1: not
    // recorded. When it is within the weights' tolerance, agreeing proves no training
    // (verificationPowerless).
    double originalWeightChange = -1;
    bool agrees = false;
    bool cancelled = false; // stopped by VerifyOptions::stop
    double milliseconds = 0;
};

// The guide ids a port can target, and the default Cerebras API generation.
std::vector<std::string> portTargets();
// Normalises "cerebras" / "determined" / "poptorch" to a guide id; "" when unknown.
std::string targetGuide(const std::string& to, const std::string& api, std::string* apiOut);

// The original's command-line words as the values generatePort takes, one rule for the CLI and
// the GUI: `--dataset fake --lr=0.1 --tied` -> {"--dataset": "fake", "--lr": "0.1", "--tied": ""}.
// A word no option takes is a positional argument's value, keyed by its place among them:
// `3 --lr 0.1 0.5` -> {"#1": "3", "--lr": "0.1", "#2": "0.5"} (positionalKey). With the parser's
// flags (the analysis' facts), the words are read as argparse reads them: `--tied 3` leaves 3 to
// the positionals when --tied is store_true, `-b5` is -b's value, `-vv` counts ("2"), and the
// words of an option with nargs are joined by a newline (command_line.cpp).
std::map<std::string, std::string> argumentValues(const std::vector<std::string>& args,
                                                  const std::vector<analysis::CliFlag>& flags = {});
// The key of the n-th (1-based) positional word in argumentValues.
std::string positionalKey(int n);

// The port of a planned project for a target guide. `values` are command-line values of the
// original (`-- --dataset fake`) that become the port's defaults.
Result<PortResult> generatePort(const PortPlan& plan, const std::string& target,
                                const std::string& api,
                                const std::map<std::string, std::string>& values = {});

// The result for a project whose plan failed because no training loop was found (a partial
// port with one manual item at the first backward(), no files); nullopt for other failures.
std::optional<PortResult> portWithoutPlan(const Diagnostic& planError, const std::string& target,
                                          const std::string& api);

// Writes the files under `out`, which must not exist or be empty.
std::optional<Diagnostic> writePort(const PortResult& port, const std::filesystem::path& out);

// Verification: check with the target guide, dry run of the port, and (when the original dry
// runs) replay of the original's first batches and weights. `argsForOriginal` go after `--`.
struct VerifyOptions
{
    int steps = 3;
    std::filesystem::path python = "/usr/bin/python3";
    std::vector<std::string> originalArgs;
    int timeoutSeconds = 600;
    std::filesystem::path workDir; // where records go (a temporary folder)
    // Fork both dry runs from the prestarted interpreter (dryrun::ChildLimits::prestarted);
    // false execs each, as a benchmark's "before".
    bool prestarted = true;
    // Set to true (from another thread) to stop: the running dry run's process group is ended
    // and the verification returns with `cancelled`.
    const std::atomic<bool>* stop = nullptr;
    // Each step's loss as its dry run reports it (side 0: the original, 1: the port), from the
    // verifying thread, so that a GUI can draw both curves live. Null: not reported.
    std::function<void(int side, int step, double loss)> onStep;
    // The original's dry run when it ran before generation (runOriginal); null: verifyPort
    // runs it.
    const struct OriginalRun* original = nullptr;
};

// The original's dry run on a copy, recording its first batches and weights for the replay,
// and what it observed that generation can use: the samples of the data set whose loader
// hands out the first step's batch (DataPlan::observedSamples). Run before generation by the
// CLI's `port --verify`, so that the port's epoch in records (Determined's records_per_epoch,
// a Cerebras schedule counted in steps) comes from the data the original read.
struct OriginalRun
{
    std::filesystem::path workDir; // the record and the copies; verifyPort removes it
    bool recorded = false;
    std::vector<double> losses;
    std::string error;
    bool cancelled = false;
    long trainSamples = 0;              // 0: not observed (no loader, an iterable data set)
    bool trainSamplesSynthetic = false; // the dry run made the data up
    // The largest change of one trained weight over the recorded steps, -1: not recorded.
    double weightChange = -1;
    double milliseconds = 0;
    // The files of the original's folder its run opened for reading (relative paths), however
    // its code named them: the data the port needs in its own folder.
    std::vector<std::string> filesRead;
};
OriginalRun runOriginal(const std::filesystem::path& original, const PortPlan& plan,
                        const VerifyOptions& options);
// Where a step of the original begins when its batches do not come from a DataLoader
// (PortResult::originalStepStart), "" otherwise.
std::string originalStepStart(const PortPlan& plan);
std::string originalTrainingFrom(const PortPlan& plan);

VerifyResult verifyPort(const std::filesystem::path& original, const std::filesystem::path& port,
                        const PortResult& result, const VerifyOptions& options);

nlohmann::json findingJson(const guides::Finding& f);
nlohmann::json toJson(const PortResult& r, const std::string& output, const VerifyResult* verify);
nlohmann::json toJson(const PortPlan& plan);

} // namespace portolan::port
