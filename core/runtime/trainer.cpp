#include "core/runtime/trainer.h"

#include "core/runtime/checkpoint.h"
#include "core/runtime/datasets.h"
#include "core/runtime/models.h"
#include "core/runtime/run_event.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <dlfcn.h>
#include <memory>
#include <torch/torch.h>

namespace portolan::runtime {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

void setComputeThreads(int threads)
{
    if (threads <= 0)
        return;
    torch::set_num_threads(threads);
    using SetThreads = void (*)(int);
    if (void* symbol = dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))
        reinterpret_cast<SetThreads>(symbol)(threads);
}

namespace {

double unixTime()
{
    using namespace std::chrono;
    return double(duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count()) /
           1000.0;
}

// Every event starts as the typed event of EVENTS.md (run_event.h), which the readers parse.
json event(const char* type)
{
    return runtime::toJson(runtime::makeRunEvent(type, unixTime()));
}

struct RunFailure
{
    Diagnostic d;
};

template <typename T> T unwrap(Result<T> r)
{
    if (!r)
        throw RunFailure{r.error};
    return std::move(*r.value);
}

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const OptimizerConfig& o,
                                                       const std::vector<torch::Tensor>& params)
{
    const double lr = o.schedule.at(0);
    if (o.type == "adam")
        return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(lr)
                                                                .betas({o.beta1, o.beta2})
                                                                .eps(o.eps)
                                                                .weight_decay(o.weightDecay));
    if (o.type == "adamw")
        return std::make_unique<torch::optim::AdamW>(params, torch::optim::AdamWOptions(lr)
                                                                 .betas({o.beta1, o.beta2})
                                                                 .eps(o.eps)
                                                                 .weight_decay(o.weightDecay));
    return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(lr)
                                                           .momentum(o.momentum)
                                                           .weight_decay(o.weightDecay)
                                                           .nesterov(o.nesterov));
}

void setLearningRate(torch::optim::Optimizer& opt, double lr)
{
    for (auto& group : opt.param_groups())
        group.options().set_lr(lr);
}

// clip_grad_norm_ as PyTorch computes it: total 2-norm over all gradients (in the gradients'
// type, as PyTorch does), scale by max_norm / (norm + 1e-6) when that is below 1. Gradients are
// left alone when the factor is 1: multiplying by exactly 1 changes nothing but costs a kernel
// per parameter every step.
void clipGradients(const std::vector<torch::Tensor>& params, double maxNorm)
{
    std::vector<torch::Tensor> norms;
    norms.reserve(params.size());
    for (const auto& p : params)
        if (p.grad().defined())
            norms.push_back(p.grad().norm(2));
    if (norms.empty())
        return;
    const double total = torch::stack(norms).norm(2).item<double>();
    const double coef = maxNorm / (total + 1e-6);
    if (!(coef < 1.0))
        return;
    for (const auto& p : params)
        if (p.grad().defined())
            p.grad().mul_(coef);
}

// Drops the gradients instead of zeroing them (PyTorch 2's default, set_to_none): backward then
// hands each parameter its new gradient as it is, without a zero fill and an add per tensor.
// The values are the same; an optimizer skips a parameter whose gradient is undefined.
void clearGradients(const std::vector<torch::Tensor>& params)
{
    for (const auto& p : params)
        if (p.grad().defined())
            p.mutable_grad() = torch::Tensor();
}

class Run
{
public:
    Run(const RunConfig& c, const TrainOptions& o, const EventSink& sink)
        : m_config(c), m_options(o), m_sink(sink)
    {}

    RunOutcome execute();

private:
    torch::Tensor lossOf(const Batch& b, torch::Tensor* logitsOut = nullptr);
    EvalResult evaluate();
    void checkpoint();
    // Rank 0 speaks for the job; the other ranks report only their own failure (runTraining).
    void emit(const json& e)
    {
        if (m_sink && m_rank == 0)
            m_sink(e);
    }
    void setUpRanks();
    // The phases of execute(), in order.
    json prepare();
    int64_t openTrainingData(json& started);
    void resume(json& started);
    void startDistributed(json& started);
    void announce(json& started, int64_t maxSteps);
    bool trainLoop(int64_t maxSteps);
    json stepEvent(double stepLoss, double lr, double seconds, int64_t samples, int64_t steps);
    void finish(bool stopped);
    void trainStep(double& stepLoss, bool& stopped, int64_t& samples);
    json dataJson(const Dataset& d, const InputConfig& in, int64_t batches) const;

    const RunConfig& m_config;
    const TrainOptions& m_options;
    const EventSink& m_sink;
    BuiltModel m_model;
    std::vector<torch::Tensor> m_params;
    std::unique_ptr<torch::optim::Optimizer> m_optimizer;
    std::unique_ptr<DataLoader> m_train;
    std::shared_ptr<Dataset> m_evalData;
    LrSchedule m_schedule;
    fs::path m_checkpointDir;
    int64_t m_step = 0;
    int64_t m_seed = 1;
    RunOutcome m_outcome;
    int m_rank = 0;
    int m_world = 1;
    std::shared_ptr<Communicator> m_comm;
    std::unique_ptr<GradientReducer> m_reducer;
    Clock::time_point m_started;
    double m_waitSum = 0; // over the steps since the last step event
    double m_reduceSum = 0;
};

json Run::dataJson(const Dataset& d, const InputConfig& in, int64_t batches) const
{
    return json{{"source", d.source},           {"synthetic", d.synthetic},
                {"samples", d.size()},          {"batch_size", in.batchSize},
                {"batches_per_epoch", batches}, {"shuffle", in.shuffle},
                {"drop_last", in.dropLast}};
}

torch::Tensor Run::lossOf(const Batch& b, torch::Tensor* logitsOut)
{
    auto logits = m_model.net->forward(b.inputs);
    auto flat = logits.reshape({-1, m_model.numClasses});
    if (logitsOut)
        *logitsOut = flat;
    return torch::nn::functional::cross_entropy(flat, b.labels.reshape({-1}));
}

EvalResult Run::evaluate()
{
    DataLoader loader(m_evalData, m_config.eval.batchSize, m_config.eval.shuffle,
                      m_config.eval.dropLast, m_config.eval.seed);
    loader.shard(m_rank, m_world);
    int64_t batches = loader.batchesPerEpoch();
    if (m_config.evalSteps > 0)
        batches = std::min(batches, m_config.evalSteps);
    double lossSum = 0;
    int64_t correct = 0;
    int64_t counted = 0;
    int64_t samples = 0;
    {
        // Inference mode: no autograd bookkeeping, and dropout is off in eval().
        torch::InferenceMode inference;
        m_model.net->eval();
        for (int64_t i = 0; i < batches; ++i) {
            const Batch b = loader.next();
            if (!b.inputs.defined())
                continue;
            torch::Tensor logits;
            const auto loss = lossOf(b, &logits);
            const int64_t n = logits.size(0);
            lossSum += loss.item<double>() * double(n);
            correct += logits.argmax(1).eq(b.labels.reshape({-1})).sum().item<int64_t>();
            counted += n;
            samples += b.inputs.size(0);
        }
        m_model.net->train();
    }
    if (m_comm) {
        // Each rank evaluated its share of every batch: the sums over the ranks are the whole.
        at::Tensor sums = torch::tensor(
            {lossSum, double(correct), double(counted), double(samples)}, torch::kDouble);
        m_comm->allreduceSum(sums, "the evaluation at step " + std::to_string(m_step));
        lossSum = sums[0].item<double>();
        correct = int64_t(sums[1].item<double>());
        counted = int64_t(sums[2].item<double>());
        samples = int64_t(sums[3].item<double>());
    }
    EvalResult r;
    r.samples = samples;
    if (counted > 0) {
        r.loss = lossSum / double(counted);
        r.accuracy = double(correct) / double(counted);
    }
    json e = event("eval");
    e["step"] = m_step;
    e["loss"] = r.loss;
    e["accuracy"] = r.accuracy;
    e["samples"] = r.samples;
    e["batches"] = batches;
    emit(e);
    m_outcome.evals.push_back(r);
    return r;
}

void Run::checkpoint()
{
    if (m_rank != 0)
        return;
    char name[64];
    std::snprintf(name, sizeof name, "step_%010lld.ckpt", static_cast<long long>(m_step));
    CheckpointState s{m_step, m_train ? m_train->position() : LoaderPosition{}, m_seed,
                      m_model.name};
    const fs::path file =
        unwrap(saveCheckpoint(m_checkpointDir / name, m_model.net, m_optimizer.get(), s));
    m_outcome.lastCheckpoint = file;
    json e = event("checkpoint");
    e["step"] = m_step;
    e["path"] = file.string();
    emit(e);
}

// One optimizer step: its micro-batches forward and backward; with several ranks, this rank's
// share of each global batch, the gradients summed over the ranks in buckets during the last
// backward pass, and the step's loss and the stop request agreed by one small all-reduce.
void Run::trainStep(double& stepLoss, bool& stopped, int64_t& samples)
{
    const int64_t accum = std::max<int64_t>(m_config.gradAccumSteps, 1);
    stepLoss = 0;
    if (!m_comm) {
        for (int64_t micro = 0; micro < accum; ++micro) {
            const Batch b = m_train->next();
            auto loss = lossOf(b);
            (accum > 1 ? loss / double(accum) : loss).backward();
            stepLoss += loss.item<double>() / double(accum);
            samples += b.inputs.size(0);
        }
        stopped = m_options.stopRequested && m_options.stopRequested->load();
        return;
    }
    at::Tensor agreed;
    std::shared_ptr<PendingReduce> agreement;
    for (int64_t micro = 0; micro < accum; ++micro) {
        const Batch b = m_train->next();
        const bool any = b.inputs.defined();
        // Weighted by this rank's share of the global batch, so that the sum over the ranks is
        // the mean one process would take over the whole batch (a short last batch may leave a
        // rank fewer samples, or none).
        const double share =
            any ? double(b.inputs.size(0)) / double(m_train->lastGlobalCount()) / double(accum)
                : 0.0;
        torch::Tensor loss;
        if (any) {
            loss = lossOf(b);
            stepLoss += loss.item<double>() * share;
            samples += b.inputs.size(0);
        }
        if (micro + 1 == accum) {
            const bool stopHere = m_options.stopRequested && m_options.stopRequested->load();
            agreed = torch::tensor({stepLoss, stopHere ? 1.0 : 0.0}, torch::kDouble);
            agreement = m_comm->allreduceSumAsync(agreed);
            m_reducer->arm();
        }
        if (any)
            (share == 1.0 ? loss : loss * share).backward();
    }
    const std::string what = "the gradient all-reduce of step " + std::to_string(m_step + 1);
    m_reducer->finish(what);
    m_comm->wait(*agreement, what);
    m_waitSum += m_reducer->lastWaitSeconds();
    m_reduceSum += m_reducer->lastReduceSeconds();
    stepLoss = agreed[0].item<double>();
    stopped = agreed[1].item<double>() > 0;
}

// Meets the other ranks before anything else, so that a rendezvous problem is the first thing
// reported.
void Run::setUpRanks()
{
    const auto& env = m_options.distributed.env;
    if (!env.distributed())
        return;
    m_rank = env.rank;
    m_world = env.worldSize;
    m_comm = unwrap(Communicator::connect(m_options.distributed));
}

// Phase 1: threads, seed, ranks and the model; the "started" event's first fields.
json Run::prepare()
{
    setComputeThreads(m_options.threads);
    m_seed = m_options.seed.value_or(m_config.seed);
    setUpRanks();
    torch::manual_seed(uint64_t(m_seed));
    m_model = unwrap(buildModel(m_config.modelSection, m_config.paramsFile.string()));
    m_model.net->train();
    m_params = m_model.net->parameters();
    m_checkpointDir = m_options.checkpointDir.empty()
                          ? m_config.projectDir / ".portolan" / "checkpoints"
                          : m_options.checkpointDir;
    json started = event("started");
    started["mode"] = runModeName(m_options.mode);
    started["model"] = m_model.name;
    int64_t paramCount = 0;
    for (const auto& p : m_params)
        paramCount += p.numel();
    started["parameters"] = paramCount;
    started["threads"] = torch::get_num_threads();
    started["seed"] = m_seed;
    started["config"] = toJson(m_config);
    return started;
}

// Phase 2 (training): the rank's share of the training data, the step count and the learning
// rate schedule. Returns the optimizer steps to run.
int64_t Run::openTrainingData(json& started)
{
    auto data = unwrap(makeDataset(m_config, Split::Train));
    m_train =
        std::make_unique<DataLoader>(data, m_config.train.batchSize, m_config.train.shuffle,
                                     m_config.train.dropLast, m_config.train.seed * 7919 + m_seed);
    m_train->shard(m_rank, m_world);
    if (m_config.train.batchSize < m_world)
        throw RunFailure{{Severity::Error,
                          "runtime.batch-ranks",
                          "the training batch size (" + std::to_string(m_config.train.batchSize) +
                              ") is smaller than the number of ranks (" + std::to_string(m_world) +
                              "): the params file's batch size is global, each rank takes a "
                              "share of it",
                          {m_config.paramsFile.string(), 0, 0}}};
    const int64_t perEpoch = m_train->batchesPerEpoch();
    if (perEpoch == 0)
        throw RunFailure{diagnosticAt(m_config.modelSection, m_config.paramsFile.string(),
                                      "runtime.data-too-small",
                                      "the training set has fewer samples than one batch")};
    started["data"]["train"] = dataJson(*data, m_config.train, perEpoch);
    const int64_t accum = std::max<int64_t>(m_config.gradAccumSteps, 1);
    const int64_t maxSteps = m_options.steps.value_or(
        m_config.maxSteps > 0 ? m_config.maxSteps
                              : std::max<int64_t>(m_config.numEpochs * perEpoch / accum, 1));
    m_schedule = m_config.optimizer.schedule;
    if (m_config.lrStepEpochs > 0) {
        // Determined's StepLR stepped every epoch (records_per_epoch / global batch).
        const int64_t stepsPerEpoch = m_config.recordsPerEpoch > 0
                                          ? m_config.recordsPerEpoch / m_config.train.batchSize
                                          : perEpoch;
        m_schedule = LrSchedule::stepDecay(m_schedule.at(0), m_config.lrStepEpochs * stepsPerEpoch,
                                           m_config.lrGamma);
    }
    return maxSteps;
}

// Phase 3: a checkpoint to resume from (the latest one for an evaluation), weights, optimizer
// and data position.
void Run::resume(json& started)
{
    fs::path from = m_options.resumeFrom;
    if (from.empty() && m_options.mode == RunMode::Eval)
        from = latestCheckpoint(m_checkpointDir);
    if (from.empty())
        return;
    const auto state = unwrap(loadCheckpoint(from, m_model.net, m_optimizer.get(), m_model.name));
    m_step = state.step;
    if (m_train)
        m_train->seek(state.data);
    started["resumed_from"] = {{"path", from.string()}, {"step", m_step}};
}

// Phase 4 (several ranks): rank 0's weights everywhere (a resumed run's too), once: from here
// on identical weights on every rank mean that the gradient all-reduce is right.
void Run::startDistributed(json& started)
{
    if (!m_comm)
        return;
    std::vector<at::Tensor> state = m_params;
    for (const auto& b : m_model.net->buffers())
        state.push_back(b);
    m_comm->broadcast(state, "the broadcast of rank 0's weights");
    // Dropout draws its own masks on each rank.
    if (m_rank > 0)
        torch::manual_seed(uint64_t(m_seed) * 1000003ULL + uint64_t(m_rank) * 7919ULL +
                           uint64_t(m_step));
    const auto& d = m_options.distributed;
    m_reducer = std::make_unique<GradientReducer>(m_comm, m_params, d.bucketMb);
    started["distributed"] = {
        {"world_size", m_world},
        {"backend", "gloo"},
        {"rendezvous", d.env.masterAddr + ":" + std::to_string(d.env.masterPort)},
        {"source", d.env.source},
        {"rank_batch", (m_config.train.batchSize + m_world - 1) / m_world},
        {"buckets", m_reducer->bucketCount()},
        {"bucket_mb", d.bucketMb},
        {"overlap", d.bucketMb > 0},
        {"timeout_s", double(d.timeout.count()) / 1000.0}};
    if (d.env.jobId > 0)
        started["distributed"]["job_id"] = d.env.jobId;
}

// The "started" event, and a warning for each split whose data is synthetic.
void Run::announce(json& started, int64_t maxSteps)
{
    started["max_steps"] = maxSteps;
    started["checkpoint_dir"] = m_checkpointDir.string();
    emit(started);
    for (const char* split : {"train", "eval"})
        if (started["data"].contains(split) && started["data"][split]["synthetic"].get<bool>()) {
            json w = event("warning");
            w["message"] = std::string(split) + " data is " +
                           started["data"][split]["source"].get<std::string>();
            emit(w);
        }
}

// The "step" event of the steps since the last one: loss, learning rate and throughput (with
// several ranks, every rank's and the all-reduce's share).
json Run::stepEvent(double stepLoss, double lr, double seconds, int64_t samples, int64_t steps)
{
    const double rate = seconds > 0 ? double(samples) / seconds : 0.0;
    json e = event("step");
    e["step"] = m_step;
    e["loss"] = stepLoss;
    e["lr"] = lr;
    e["epoch"] = m_train->position().epoch;
    e["samples_per_sec"] = rate;
    if (m_comm) {
        const at::Tensor rates =
            m_comm->allgather(torch::tensor({rate}, torch::kDouble),
                              "the throughput report of step " + std::to_string(m_step));
        json perRank = json::array();
        double total = 0;
        for (int r = 0; r < m_world; ++r) {
            perRank.push_back(rates[r][0].item<double>());
            total += perRank.back().get<double>();
        }
        e["samples_per_sec"] = total;
        e["rank_samples_per_sec"] = perRank;
        e["allreduce_wait_s"] = m_waitSum / double(steps);
        e["allreduce_s"] = m_reduceSum / double(steps);
        m_waitSum = m_reduceSum = 0;
    }
    e["elapsed_s"] = std::chrono::duration<double>(Clock::now() - m_started).count();
    return e;
}

// Phase 5: the optimizer steps, with their events, evaluations and checkpoints, until the last
// step or a stop; then the last checkpoint and evaluation. Returns whether it was stopped.
bool Run::trainLoop(int64_t maxSteps)
{
    const bool training = m_options.mode != RunMode::Eval;
    const bool evaluating = m_options.mode != RunMode::Train;
    const int64_t logSteps = std::max<int64_t>(m_options.logSteps.value_or(m_config.logSteps), 1);
    const int64_t evalEvery = m_options.evalEvery.value_or(m_config.evalEvery);
    const int64_t checkpointSteps = m_options.checkpointSteps.value_or(m_config.checkpointSteps);
    const double maxNorm = m_config.optimizer.maxGradientNorm;
    bool stopped = false;
    int64_t lastCheckpointStep = -1;
    int64_t lastEvalStep = -1;
    auto intervalStart = Clock::now();
    int64_t intervalSamples = 0;
    int64_t intervalSteps = 0;

    while (training && m_step < maxSteps) {
        const double lr = m_schedule.at(m_step);
        setLearningRate(*m_optimizer, lr);
        clearGradients(m_params);
        double stepLoss = 0;
        trainStep(stepLoss, stopped, intervalSamples);
        if (maxNorm > 0)
            clipGradients(m_params, maxNorm);
        m_optimizer->step();
        ++m_step;
        ++intervalSteps;
        m_outcome.losses.push_back(stepLoss);
        if (m_step % logSteps == 0 || m_step == maxSteps || stopped) {
            const double seconds =
                std::chrono::duration<double>(Clock::now() - intervalStart).count();
            emit(stepEvent(stepLoss, lr, seconds, intervalSamples, intervalSteps));
            intervalStart = Clock::now();
            intervalSamples = 0;
            intervalSteps = 0;
        }
        if (evaluating && evalEvery > 0 && m_step % evalEvery == 0 && !stopped) {
            evaluate();
            lastEvalStep = m_step;
        }
        if (checkpointSteps > 0 && m_step % checkpointSteps == 0) {
            checkpoint();
            lastCheckpointStep = m_step;
        }
        if (stopped)
            break;
    }
    if (training && lastCheckpointStep != m_step)
        checkpoint();
    if (evaluating && !stopped && lastEvalStep != m_step)
        evaluate();
    return stopped;
}

// Phase 6: the outcome and the "finished" event (with several ranks, whether their weights
// ended identical).
void Run::finish(bool stopped)
{
    m_outcome.reason = stopped ? "stopped" : "completed";
    m_outcome.step = m_step;
    json f = event("finished");
    f["reason"] = m_outcome.reason;
    f["step"] = m_step;
    f["elapsed_s"] = std::chrono::duration<double>(Clock::now() - m_started).count();
    if (!m_outcome.losses.empty())
        f["final_loss"] = m_outcome.losses.back();
    if (!m_outcome.evals.empty())
        f["eval_loss"] = m_outcome.evals.back().loss,
        f["eval_accuracy"] = m_outcome.evals.back().accuracy;
    if (!m_outcome.lastCheckpoint.empty())
        f["checkpoint"] = m_outcome.lastCheckpoint.string();
    if (m_comm) {
        m_outcome.rankWeights = compareRankWeights(*m_comm, m_params);
        const auto& digests = m_outcome.rankWeights.digests;
        f["ranks"] = m_world;
        f["rank_weight_digests"] = digests;
        f["rank_weights_identical"] =
            std::all_of(digests.begin(), digests.end(),
                        [&](const std::string& d) { return d == digests.front(); });
        f["rank_weight_max_diff"] = m_outcome.rankWeights.maxDifference;
    }
    emit(f);
}

RunOutcome Run::execute()
{
    m_started = Clock::now();
    json started = prepare();
    int64_t maxSteps = 0;
    if (m_options.mode != RunMode::Eval)
        maxSteps = openTrainingData(started);
    if (m_options.mode != RunMode::Train) {
        m_evalData = unwrap(makeDataset(m_config, Split::Eval));
        DataLoader probe(m_evalData, m_config.eval.batchSize, false, m_config.eval.dropLast, 0);
        started["data"]["eval"] = dataJson(*m_evalData, m_config.eval, probe.batchesPerEpoch());
    }
    m_optimizer = makeOptimizer(m_config.optimizer, m_params);
    resume(started);
    startDistributed(started);
    announce(started, maxSteps);
    finish(trainLoop(maxSteps));
    return m_outcome;
}

} // namespace

Result<RunOutcome> runTraining(const RunConfig& config, const TrainOptions& options,
                               const EventSink& sink)
{
    Diagnostic d;
    try {
        Run run(config, options, sink);
        return Result<RunOutcome>::ok(run.execute());
    } catch (const RunFailure& f) {
        d = f.d;
    } catch (const RankLost& e) {
        d.code = "runtime.rank-lost";
        d.message = std::string(e.what()) +
                    ". A rank that crashes, is killed or does not answer for " +
                    std::to_string(options.distributed.timeout.count() / 1000) +
                    " s (--dist-timeout) ends the job; its own log says why it stopped";
        d.location.file = config.paramsFile.string();
    } catch (const c10::Error& e) {
        d.code = "runtime.torch-error";
        d.message = e.what_without_backtrace();
        d.location.file = config.paramsFile.string();
    } catch (const std::exception& e) {
        d.code = "runtime.error";
        d.message = e.what();
        d.location.file = config.paramsFile.string();
    }
    if (sink) {
        json e = event("failed");
        e["message"] = d.message;
        e["code"] = d.code;
        e["diagnostic"] = d.toString();
        if (options.distributed.env.distributed())
            e["rank"] = options.distributed.env.rank;
        if (!d.location.file.empty())
            e["location"] = {{"file", d.location.file},
                             {"line", d.location.line},
                             {"column", d.location.column}};
        sink(e);
    }
    return Result<RunOutcome>::fail(d);
}

} // namespace portolan::runtime
