#include "core/runtime/checkpoint.h"

#include <torch/serialize.h>
#include <torch/torch.h>

namespace portolan::runtime {

namespace fs = std::filesystem;

namespace {

Diagnostic checkpointError(const fs::path& file, const std::string& code,
                           const std::string& message)
{
    Diagnostic d;
    d.code = code;
    d.message = message;
    d.location.file = file.string();
    return d;
}

} // namespace

Result<fs::path> saveCheckpoint(const fs::path& file, torch::nn::Sequential& net,
                                torch::optim::Optimizer* optimizer, const CheckpointState& state)
{
    try {
        std::error_code ec;
        fs::create_directories(file.parent_path(), ec);
        torch::serialize::OutputArchive archive;
        torch::serialize::OutputArchive model;
        net->save(model);
        archive.write("model", model);
        if (optimizer) {
            torch::serialize::OutputArchive opt;
            optimizer->save(opt);
            archive.write("optimizer", opt);
        }
        archive.write("rng", at::detail::getDefaultCPUGenerator().get_state());
        archive.write("step", c10::IValue(state.step));
        archive.write("data_epoch", c10::IValue(state.data.epoch));
        archive.write("data_batch", c10::IValue(state.data.batch));
        archive.write("seed", c10::IValue(state.seed));
        archive.write("model_name", c10::IValue(state.modelName));
        archive.write("format", c10::IValue(int64_t(1)));
        const fs::path tmp = file.string() + ".tmp";
        archive.save_to(tmp.string());
        fs::rename(tmp, file, ec);
        if (ec)
            return Result<fs::path>::fail(checkpointError(
                file, "runtime.checkpoint-write", "cannot write the checkpoint: " + ec.message()));
        return Result<fs::path>::ok(file);
    } catch (const c10::Error& e) {
        return Result<fs::path>::fail(checkpointError(file, "runtime.checkpoint-write",
                                                      std::string("cannot write the checkpoint: ") +
                                                          e.what_without_backtrace()));
    }
}

Result<CheckpointState> loadCheckpoint(const fs::path& file, torch::nn::Sequential& net,
                                       torch::optim::Optimizer* optimizer,
                                       const std::string& expectedModel)
{
    using R = Result<CheckpointState>;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        return R::fail(
            checkpointError(file, "runtime.checkpoint-missing", "no such checkpoint file"));
    try {
        torch::serialize::InputArchive archive;
        archive.load_from(file.string());
        CheckpointState s;
        c10::IValue v;
        archive.read("model_name", v);
        s.modelName = v.toStringRef();
        if (s.modelName != expectedModel)
            return R::fail(checkpointError(file, "runtime.checkpoint-model",
                                           "the checkpoint holds a '" + s.modelName +
                                               "' model, this run builds '" + expectedModel + "'"));
        archive.read("step", v);
        s.step = v.toInt();
        archive.read("data_epoch", v);
        s.data.epoch = v.toInt();
        archive.read("data_batch", v);
        s.data.batch = v.toInt();
        archive.read("seed", v);
        s.seed = v.toInt();
        torch::serialize::InputArchive model;
        archive.read("model", model);
        net->load(model);
        if (optimizer) {
            torch::serialize::InputArchive opt;
            if (archive.try_read("optimizer", opt))
                optimizer->load(opt);
        }
        torch::Tensor rng;
        archive.read("rng", rng);
        auto generator = at::detail::getDefaultCPUGenerator();
        generator.set_state(rng);
        return R::ok(s);
    } catch (const c10::Error& e) {
        return R::fail(checkpointError(file, "runtime.checkpoint-corrupt",
                                       std::string("cannot read the checkpoint (corrupt, or "
                                                   "another model configuration): ") +
                                           e.what_without_backtrace()));
    }
}

fs::path latestCheckpoint(const fs::path& dir)
{
    fs::path best;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return best;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("step_", 0) == 0 && entry.path().extension() == ".ckpt" &&
            (best.empty() || name > best.filename().string()))
            best = entry.path();
    }
    return best;
}

} // namespace portolan::runtime
