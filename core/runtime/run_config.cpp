#include "core/runtime/run_config.h"

#include "core/params/model_section.h"
#include "core/project/params_file.h"
#include "core/runtime/params_access.h"

#include <nlohmann/json.hpp>

namespace portolan::runtime {

namespace fs = std::filesystem;

std::string runModeName(RunMode m)
{
    switch (m) {
    case RunMode::Train:
        return "train";
    case RunMode::Eval:
        return "eval";
    case RunMode::TrainAndEval:
        return "train_and_eval";
    }
    return "train";
}

std::optional<RunMode> runModeFromName(const std::string& name)
{
    if (name == "train")
        return RunMode::Train;
    if (name == "eval")
        return RunMode::Eval;
    if (name == "train_and_eval")
        return RunMode::TrainAndEval;
    return std::nullopt;
}

std::optional<fs::path> findParamsFile(const fs::path& projectDir)
{
    const ParamsFileChoice choice = paramsFileFor(projectDir);
    if (choice.empty())
        return std::nullopt;
    return choice.absolute(projectDir);
}

Result<fs::path> modelParamsFile(const fs::path& projectOrParams)
{
    std::error_code ec;
    if (fs::is_regular_file(projectOrParams, ec))
        return Result<fs::path>::ok(projectOrParams);
    if (auto p = findParamsFile(projectOrParams))
        return Result<fs::path>::ok(*p);
    return Result<fs::path>::fail(
        {Severity::Error,
         "compile.no-params",
         "no params file (no YAML file under configs/ or at the top level) in this project",
         {projectOrParams.string()}});
}

namespace {

InputConfig readInput(const ParamsSection& s, const fs::path& projectDir, bool isTrain,
                      int64_t seed)
{
    InputConfig in;
    in.dataDir = projectDir / s.text("data_dir", std::string("./data"));
    in.dataDir = in.dataDir.lexically_normal();
    in.batchSize = s.integer("batch_size", {}, 1, 1 << 24);
    in.shuffle = s.boolean("shuffle", isTrain);
    // The Model Zoo key is drop_last_batch; PyTorch's DataLoader calls it drop_last.
    in.dropLast =
        s.has("drop_last_batch") ? s.boolean("drop_last_batch") : s.boolean("drop_last", isTrain);
    if (s.has("num_samples"))
        in.samples = s.integer("num_samples", {}, 1);
    else
        in.samples = s.integer("synthetic_samples", 1000, 1);
    in.seed = seed;
    return in;
}

// `given` is the Trainer layout's type, the optimizer's one key (`optimizer: {SGD: {...}}`);
// the classic layout names it in `optimizer_type`.
OptimizerConfig readOptimizer(const ParamsSection& o, const std::optional<std::string>& given = {})
{
    OptimizerConfig c;
    std::string type = given ? *given : o.text("optimizer_type", std::string("SGD"));
    for (auto& ch : type)
        ch = char(std::tolower(static_cast<unsigned char>(ch)));
    if (type != "sgd" && type != "adam" && type != "adamw")
        o.fail(given ? std::string() : std::string("optimizer_type"), "runtime.params-choice",
               (given ? o.path() : o.keyPath("optimizer_type")) + " = '" +
                   (given ? *given : o.text("optimizer_type")) +
                   "' is not supported by the runtime (SGD, Adam, AdamW)");
    c.type = type;
    c.momentum = o.number("momentum", 0.0, 0.0, 1.0);
    c.nesterov = o.boolean("nesterov", false);
    c.weightDecay = o.has("weight_decay_rate") ? o.number("weight_decay_rate", {}, 0.0)
                                               : o.number("weight_decay", 0.0, 0.0);
    if (o.has("betas")) {
        const YAML::Node b = o.node()["betas"];
        if (!b.IsSequence() || b.size() != 2)
            o.fail("betas", "runtime.params-type", o.keyPath("betas") + " must be [beta1, beta2]");
        c.beta1 = b[0].as<double>();
        c.beta2 = b[1].as<double>();
    }
    c.beta1 = o.number("beta1", c.beta1, 0.0, 0.999999);
    c.beta2 = o.number("beta2", c.beta2, 0.0, 0.999999);
    c.eps = o.number("eps", c.eps, 0.0);
    c.maxGradientNorm = o.number("max_gradient_norm", 0.0, 0.0);
    c.schedule = parseLrSchedule(o, "learning_rate");
    return c;
}

// The sections the runtime reads, where each API generation keeps them (params::ParamsLayout):
// the classic layout's flat sections, or the Trainer's `trainer.init` and `trainer.fit`.
struct ModelZooSections
{
    ParamsSection model, train, eval, optimizer, loop, checkpoint, logging, seed;
    std::optional<std::string> optimizerType;
    std::string layout;
};

ModelZooSections classicSections(const ParamsSection& top)
{
    const ParamsSection run = top.child("runconfig");
    if (!top.has("train_input"))
        top.fail("train_input", "runtime.params-missing", "the params file has no train_input:");
    const ParamsSection train = top.child("train_input");
    return {top.child("model"),
            train,
            top.has("eval_input") ? top.child("eval_input") : train,
            top.child("optimizer"),
            run,
            run,
            run,
            run,
            std::nullopt,
            run.has("device_iterations") ? "poptorch" : "modelzoo"};
}

ModelZooSections trainerSections(const ParamsSection& top)
{
    const ParamsSection init = top.child("trainer").child("init");
    const ParamsSection fit = top.child("trainer").child("fit");
    if (!fit.has("train_dataloader"))
        fit.fail("train_dataloader", "runtime.params-missing",
                 "the Trainer configuration has no trainer.fit.train_dataloader:");
    const ParamsSection train = fit.child("train_dataloader");
    ParamsSection optimizer = init.child("optimizer");
    std::optional<std::string> type;
    // `optimizer: {AdamW: {betas: ...}}`: one key, the optimizer's class.
    if (optimizer.node().IsMap() && optimizer.node().size() == 1) {
        type = optimizer.node().begin()->first.as<std::string>("");
        optimizer = optimizer.child(*type);
    } else if (init.has("optimizer")) {
        init.fail("optimizer", "runtime.params-type",
                  init.keyPath("optimizer") + " must name one optimizer ({SGD: {...}})");
    }
    const ParamsSection loop = init.child("loop");
    return {init.child("model"),
            train,
            fit.has("val_dataloader") ? fit.child("val_dataloader") : train,
            optimizer,
            loop,
            init.child("checkpoint"),
            init.child("logging"),
            init,
            type,
            "modelzoo-trainer"};
}

RunConfig readModelZoo(const YAML::Node& root, const fs::path& projectDir, const std::string& file)
{
    RunConfig c;
    ParamsSection top(root, file, "");
    const auto section = params::modelSectionOf(root);
    if (!section)
        top.fail("model", "runtime.params-missing",
                 "the params file has no model section (model:, or trainer.init.model in a "
                 "Trainer configuration)");
    const ModelZooSections s = section->layout == params::ParamsLayout::Trainer
                                   ? trainerSections(top)
                                   : classicSections(top);
    c.modelSection = section->node;
    c.modelName = s.model.text("name");
    c.seed = s.seed.integer("seed", 1);
    c.train = readInput(s.train, projectDir, true, c.seed);
    c.eval = readInput(s.eval, projectDir, false, c.seed);
    c.optimizer = readOptimizer(s.optimizer, s.optimizerType);
    if (s.loop.has("max_steps"))
        c.maxSteps = s.loop.integer("max_steps", {}, 1);
    else if (s.loop.has("num_epochs"))
        c.numEpochs = s.loop.integer("num_epochs", {}, 1);
    else
        c.maxSteps = 100;
    c.layout = s.layout;
    c.logSteps = s.logging.integer("log_steps", 1, 1);
    // The classic runconfig's checkpoint_steps; the Trainer's checkpoint: {steps: N}.
    c.checkpointSteps = s.checkpoint.integer(
        section->layout == params::ParamsLayout::Trainer ? "steps" : "checkpoint_steps", 0, 0);
    c.evalEvery = s.loop.integer("eval_frequency", 0, 0);
    c.evalSteps = s.loop.integer("eval_steps", 0, 0);
    c.gradAccumSteps = s.optimizer.integer("grad_accum_steps", 1, 1);
    // PopTorch accumulates gradients only when the model is pipelined.
    const ParamsSection& run = s.loop;
    if (run.has("gradient_accumulation") &&
        (!run.has("pipeline_split") || run.boolean("pipeline_split")))
        c.gradAccumSteps = run.integer("gradient_accumulation", {}, 1);
    return c;
}

RunConfig readDetermined(const YAML::Node& root, const fs::path& projectDir,
                         const std::string& file)
{
    RunConfig c;
    c.layout = "determined";
    ParamsSection top(root, file, "");
    const ParamsSection h = top.child("hyperparameters");
    const ParamsSection data = top.child("data");
    c.modelSection = root["hyperparameters"];
    c.modelName = "cifar_convnet";
    c.seed = top.child("reproducibility").integer("experiment_seed", 1);
    const int64_t dataSeed = data.integer("synthetic_seed", 1);
    const int64_t batch = h.integer("global_batch_size", {}, 1, 1 << 24);
    const int64_t slots = top.child("resources").integer("slots_per_trial", 1, 1);
    if (batch % slots != 0)
        h.fail("global_batch_size", "runtime.params-range",
               "hyperparameters.global_batch_size must be divisible by "
               "resources.slots_per_trial");
    InputConfig in;
    in.dataDir = (projectDir / data.text("data_dir", std::string("./data"))).lexically_normal();
    in.batchSize = batch; // one process plays all slots: the global batch
    in.samples = data.integer("synthetic_samples", 50000, 1);
    in.seed = dataSeed;
    c.train = in;
    c.train.shuffle = true;
    c.train.dropLast = true;
    c.eval = in;
    c.eval.samples = std::max<int64_t>(in.samples / 5, 1);
    OptimizerConfig o;
    o.type = "sgd";
    const double lr = h.number("learning_rate", {}, 0.0);
    if (lr <= 0)
        h.fail("learning_rate", "runtime.params-range",
               "hyperparameters.learning_rate must be positive");
    o.momentum = h.number("momentum", 0.0, 0.0, 1.0);
    o.weightDecay = h.number("weight_decay", 0.0, 0.0);
    o.schedule = LrSchedule::constant(lr);
    c.optimizer = o;
    c.lrStepEpochs = h.integer("lr_step_size", 0, 0);
    c.lrGamma = h.number("lr_gamma", 1.0, 0.0);
    c.recordsPerEpoch = top.integer("records_per_epoch", 0, 0);
    const ParamsSection maxLength = top.child("searcher").child("max_length");
    c.maxSteps = maxLength.integer("batches", 100, 1);
    c.evalEvery = top.child("min_validation_period").integer("batches", 0, 0);
    c.logSteps = 10;
    c.checkpointSteps = top.child("min_checkpoint_period").integer("batches", 0, 0);
    return c;
}

} // namespace

nlohmann::json yamlToJson(const YAML::Node& n)
{
    if (n.IsMap()) {
        nlohmann::json j = nlohmann::json::object();
        for (const auto& kv : n)
            j[kv.first.as<std::string>()] = yamlToJson(kv.second);
        return j;
    }
    if (n.IsSequence()) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& item : n)
            j.push_back(yamlToJson(item));
        return j;
    }
    if (!n.IsScalar())
        return nullptr;
    const std::string& s = n.Scalar();
    if (n.Tag() != "!") { // unquoted: try the YAML core schema types
        int64_t i = 0;
        double d = 0;
        bool b = false;
        if (YAML::convert<int64_t>::decode(n, i))
            return i;
        if (YAML::convert<double>::decode(n, d))
            return d;
        if (YAML::convert<bool>::decode(n, b))
            return b;
    }
    return s;
}

Result<RunConfig> loadRunConfig(const fs::path& projectDir, const fs::path& paramsFile)
{
    const std::string file = paramsFile.string();
    try {
        const YAML::Node root = loadParamsFile(file);
        if (!root.IsMap())
            throw ParamsError(diagnosticAt(root, file, "runtime.params-type",
                                           "the params file must be a YAML mapping"));
        RunConfig c = root["hyperparameters"].IsDefined() && !params::modelSectionOf(root)
                          ? readDetermined(root, projectDir, file)
                          : readModelZoo(root, projectDir, file);
        c.projectDir = projectDir;
        c.paramsFile = paramsFile;
        return Result<RunConfig>::ok(std::move(c));
    } catch (const ParamsError& e) {
        return Result<RunConfig>::fail(e.diagnostic());
    } catch (const YAML::Exception& e) {
        Diagnostic d;
        d.code = "runtime.params-type";
        d.message = e.msg;
        d.location = {file, e.mark.line + 1, e.mark.column + 1};
        return Result<RunConfig>::fail(d);
    }
}

nlohmann::json toJson(const RunConfig& c)
{
    using nlohmann::json;
    const auto input = [](const InputConfig& i) {
        return json{{"data_dir", i.dataDir.string()}, {"batch_size", i.batchSize},
                    {"shuffle", i.shuffle},           {"drop_last", i.dropLast},
                    {"samples", i.samples},           {"seed", i.seed}};
    };
    json j;
    j["project"] = c.projectDir.string();
    j["params_file"] = c.paramsFile.string();
    j["layout"] = c.layout;
    j["model_name"] = c.modelName;
    j["train_input"] = input(c.train);
    j["eval_input"] = input(c.eval);
    j["optimizer"] = {{"type", c.optimizer.type},
                      {"momentum", c.optimizer.momentum},
                      {"weight_decay", c.optimizer.weightDecay},
                      {"nesterov", c.optimizer.nesterov},
                      {"betas", {c.optimizer.beta1, c.optimizer.beta2}},
                      {"eps", c.optimizer.eps},
                      {"max_gradient_norm", c.optimizer.maxGradientNorm},
                      {"learning_rate", c.optimizer.schedule.describe()}};
    j["max_steps"] = c.maxSteps;
    j["num_epochs"] = c.numEpochs;
    j["log_steps"] = c.logSteps;
    j["checkpoint_steps"] = c.checkpointSteps;
    j["eval_every"] = c.evalEvery;
    j["eval_steps"] = c.evalSteps;
    j["grad_accum_steps"] = c.gradAccumSteps;
    j["seed"] = c.seed;
    if (c.lrStepEpochs > 0)
        j["lr_step_epochs"] = c.lrStepEpochs, j["lr_gamma"] = c.lrGamma;
    j["model"] = yamlToJson(c.modelSection);
    return j;
}

} // namespace portolan::runtime
