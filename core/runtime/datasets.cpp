#include "core/runtime/datasets.h"

#include "core/runtime/params_access.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <torch/torch.h>
#include <vector>

namespace portolan::runtime {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kClasses = 10;

// Images and labels held in memory; a batch is an index_select.
class TensorDataset : public Dataset
{
public:
    TensorDataset(torch::Tensor inputs, torch::Tensor labels)
        : m_inputs(std::move(inputs)), m_labels(std::move(labels))
    {}
    int64_t size() const override { return m_inputs.size(0); }
    Batch get(const torch::Tensor& indices) const override
    {
        return {m_inputs.index_select(0, indices), m_labels.index_select(0, indices)};
    }

private:
    torch::Tensor m_inputs;
    torch::Tensor m_labels;
};

struct Failure
{
    Diagnostic d;
};

[[noreturn]] void fail(const fs::path& file, const std::string& code, const std::string& message)
{
    Diagnostic d;
    d.code = code;
    d.message = message;
    d.location.file = file.string();
    throw Failure{d};
}

// One IDX file of unsigned bytes (MNIST's format), or an undefined tensor when absent.
torch::Tensor readIdx(const fs::path& path)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        if (fs::is_regular_file(fs::path(path.string() + ".gz"), ec))
            fail(path.string() + ".gz", "runtime.data-gzip",
                 "gzip-compressed IDX files are not read by the runtime; gunzip them in place");
        return {};
    }
    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> raw((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
    if (raw.size() < 4 || raw[0] != 0 || raw[1] != 0 || raw[2] != 0x08)
        fail(path, "runtime.data-format", "not an unsigned-byte IDX file");
    const int ndim = raw[3];
    if (ndim < 1 || ndim > 4 || raw.size() < 4 + 4 * std::size_t(ndim))
        fail(path, "runtime.data-format", "IDX header is truncated");
    std::vector<int64_t> dims;
    int64_t count = 1;
    for (int i = 0; i < ndim; ++i) {
        const unsigned char* p = raw.data() + 4 + 4 * std::ptrdiff_t(i);
        const int64_t dim =
            (int64_t(p[0]) << 24) | (int64_t(p[1]) << 16) | (int64_t(p[2]) << 8) | int64_t(p[3]);
        dims.push_back(dim);
        count *= dim;
    }
    const std::size_t offset = 4 + 4 * std::size_t(ndim);
    if (raw.size() - offset != std::size_t(count))
        fail(path, "runtime.data-format",
             "IDX body has " + std::to_string(raw.size() - offset) + " bytes, header says " +
                 std::to_string(count));
    return torch::from_blob(raw.data() + offset, dims, torch::kUInt8).clone();
}

// The samples' synthetic MNIST (data.py `_synthetic`): per-class 7x7 templates upsampled to
// 28x28, a quarter template and three quarters uniform noise; same generator calls, so the
// same numbers as the Python code for the same seed.
std::pair<torch::Tensor, torch::Tensor> syntheticMnist(int64_t samples, int64_t seed, Split split)
{
    auto templateGen = at::detail::createCPUGenerator(uint64_t(seed));
    auto coarse = torch::rand({kClasses, 1, 7, 7}, templateGen);
    namespace F = torch::nn::functional;
    auto templates = F::interpolate(coarse, F::InterpolateFuncOptions()
                                                .size(std::vector<int64_t>{28, 28})
                                                .mode(torch::kBilinear)
                                                .align_corners(false))
                         .select(1, 0);
    const int64_t offset = split == Split::Train ? 1 : 2;
    auto sampleGen = at::detail::createCPUGenerator(uint64_t(seed * 1000 + offset));
    auto labels = torch::randint(0, kClasses, {samples}, sampleGen);
    auto noise = torch::rand({samples, 28, 28}, sampleGen);
    auto images = 0.25 * templates.index_select(0, labels) + 0.75 * noise;
    return {(images * 255).round().to(torch::kUInt8), labels};
}

std::shared_ptr<Dataset> mnist(const RunConfig& c, Split split, bool centred)
{
    const InputConfig& in = split == Split::Train ? c.train : c.eval;
    const char* imageName =
        split == Split::Train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte";
    const char* labelName =
        split == Split::Train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte";
    torch::Tensor images = readIdx(in.dataDir / imageName);
    torch::Tensor labels = readIdx(in.dataDir / labelName);
    bool synthetic = false;
    if (!images.defined() || !labels.defined()) {
        std::tie(images, labels) = syntheticMnist(in.samples, in.seed, split);
        synthetic = true;
    } else if (images.dim() != 3 || images.size(1) != 28 || images.size(2) != 28 ||
               labels.dim() != 1 || labels.size(0) != images.size(0)) {
        fail(in.dataDir / imageName, "runtime.data-format",
             "MNIST images must be [N, 28, 28] with N labels");
    }
    auto inputs = images.to(torch::kFloat32).div(255.0).unsqueeze(1);
    if (centred) // the small CNN centres pixels: (x - 0.5) / 0.25
        inputs = (inputs - 0.5) / 0.25;
    auto ds = std::make_shared<TensorDataset>(inputs.contiguous(), labels.to(torch::kInt64));
    ds->synthetic = synthetic;
    ds->source = synthetic ? "synthetic: no MNIST IDX files in " + in.dataDir.string() + ", " +
                                 std::to_string(in.samples) + " generated samples (seed " +
                                 std::to_string(in.seed) + ")"
                           : "MNIST IDX files in " + in.dataDir.string();
    return ds;
}

// data.py `_alphabet_dataset`: seq_len + 1 consecutive letters from a random start.
std::shared_ptr<Dataset> alphabet(const RunConfig& c, Split split)
{
    const InputConfig& in = split == Split::Train ? c.train : c.eval;
    ParamsSection m(c.modelSection, c.paramsFile.string(), "model");
    const int64_t seqLen = m.integer("seq_len", {}, 1);
    const int64_t vocab = m.integer("vocab_size", {}, 2);
    const int64_t seed = split == Split::Train ? in.seed : in.seed + 1;
    auto gen = at::detail::createCPUGenerator(uint64_t(seed));
    auto starts = torch::randint(0, vocab, {in.samples, 1}, gen);
    auto letters = (starts + torch::arange(seqLen + 1)).remainder(vocab);
    auto ds = std::make_shared<TensorDataset>(letters.narrow(1, 0, seqLen).contiguous(),
                                              letters.narrow(1, 1, seqLen).contiguous());
    ds->synthetic = false; // generated by design, like the sample's data.py
    ds->source = "generated alphabet sequences: " + std::to_string(in.samples) +
                 " samples of seq_len " + std::to_string(seqLen) + " (seed " +
                 std::to_string(seed) + ")";
    return ds;
}

// data.py SyntheticCIFAR: sample i generated on demand from its own seed.
class SyntheticCifar : public Dataset
{
public:
    SyntheticCifar(int64_t samples, int64_t seed, Split split) : m_samples(samples)
    {
        auto templateGen = at::detail::createCPUGenerator(uint64_t(seed));
        auto coarse = torch::rand({kClasses, 3, 4, 4}, templateGen);
        namespace F = torch::nn::functional;
        m_templates = F::interpolate(coarse, F::InterpolateFuncOptions()
                                                 .size(std::vector<int64_t>{32, 32})
                                                 .mode(torch::kBilinear)
                                                 .align_corners(false));
        m_baseSeed = uint64_t(seed * 1000 + (split == Split::Train ? 1 : 2)) << 32;
    }
    int64_t size() const override { return m_samples; }
    Batch get(const torch::Tensor& indices) const override
    {
        const int64_t n = indices.size(0);
        auto images = torch::empty({n, 3, 32, 32});
        auto labels = torch::empty({n}, torch::kInt64);
        auto idx = indices.accessor<int64_t, 1>();
        auto labelOut = labels.accessor<int64_t, 1>();
        for (int64_t i = 0; i < n; ++i) {
            auto gen = at::detail::createCPUGenerator(m_baseSeed + uint64_t(idx[i]));
            const int64_t label = torch::randint(0, kClasses, {1}, gen).item<int64_t>();
            auto noise = torch::rand({3, 32, 32}, gen);
            images[i].copy_((0.2 * m_templates[label] + 0.8 * noise).mul(255).round().div(255));
            labelOut[i] = label;
        }
        return {images, labels};
    }

private:
    int64_t m_samples;
    uint64_t m_baseSeed = 0;
    torch::Tensor m_templates;
};

// CIFAR-10 binary batches: 3073-byte records (label, then R, G, B 32x32 planes).
std::shared_ptr<Dataset> cifar(const RunConfig& c, Split split)
{
    const InputConfig& in = split == Split::Train ? c.train : c.eval;
    std::vector<std::string> names;
    if (split == Split::Train)
        for (int i = 1; i <= 5; ++i)
            names.push_back("data_batch_" + std::to_string(i) + ".bin");
    else
        names.push_back("test_batch.bin");
    std::vector<unsigned char> raw;
    std::string found;
    for (const auto& name : names) {
        const fs::path p = in.dataDir / name;
        std::error_code ec;
        if (!fs::is_regular_file(p, ec))
            continue;
        std::ifstream s(p, std::ios::binary);
        raw.insert(raw.end(), std::istreambuf_iterator<char>(s), std::istreambuf_iterator<char>());
        if (raw.size() % 3073 != 0)
            fail(p, "runtime.data-format", "CIFAR-10 file size is not a multiple of 3073 bytes");
        found += (found.empty() ? "" : ", ") + name;
    }
    if (raw.empty()) {
        auto ds = std::make_shared<SyntheticCifar>(in.samples, in.seed, split);
        ds->synthetic = true;
        ds->source = "synthetic: no CIFAR-10 batches in " + in.dataDir.string() + ", " +
                     std::to_string(in.samples) + " generated samples (seed " +
                     std::to_string(in.seed) + ")";
        return ds;
    }
    const int64_t n = int64_t(raw.size() / 3073);
    auto records = torch::from_blob(raw.data(), {n, 3073}, torch::kUInt8).clone();
    auto images = records.narrow(1, 1, 3072).reshape({n, 3, 32, 32}).to(torch::kFloat32).div(255);
    auto ds = std::make_shared<TensorDataset>(images.contiguous(),
                                              records.select(1, 0).to(torch::kInt64));
    ds->source = "CIFAR-10 binary batches in " + in.dataDir.string() + " (" + found + ")";
    return ds;
}

} // namespace

Result<std::shared_ptr<Dataset>> makeDataset(const RunConfig& c, Split split)
{
    using R = Result<std::shared_ptr<Dataset>>;
    try {
        if (c.modelName == "fc_mnist")
            return R::ok(mnist(c, split, false));
        if (c.modelName == "small_cnn")
            return R::ok(mnist(c, split, true));
        if (c.modelName == "alphabet_transformer")
            return R::ok(alphabet(c, split));
        if (c.modelName == "cifar_convnet")
            return R::ok(cifar(c, split));
        Diagnostic d;
        d.code = "runtime.unknown-model";
        d.message = "no input pipeline for model '" + c.modelName + "'";
        d.location.file = c.paramsFile.string();
        return R::fail(d);
    } catch (const Failure& f) {
        return R::fail(f.d);
    } catch (const ParamsError& e) {
        return R::fail(e.diagnostic());
    }
}

DataLoader::DataLoader(std::shared_ptr<Dataset> data, int64_t batchSize, bool shuffle,
                       bool dropLast, int64_t seed)
    : m_data(std::move(data)), m_batchSize(std::max<int64_t>(batchSize, 1)), m_shuffle(shuffle),
      m_dropLast(dropLast), m_seed(seed)
{}

int64_t DataLoader::batchesPerEpoch() const
{
    const int64_t n = m_data->size();
    return m_dropLast ? n / m_batchSize : (n + m_batchSize - 1) / m_batchSize;
}

void DataLoader::shard(int rank, int world)
{
    m_world = std::max(world, 1);
    m_rank = std::clamp(rank, 0, m_world - 1);
}

void DataLoader::seek(LoaderPosition p)
{
    m_pos = p;
}

void DataLoader::preparePermutation()
{
    if (m_permutationEpoch == m_pos.epoch)
        return;
    // Each epoch's order depends only on (seed, epoch), so a resumed run sees the same order.
    if (m_shuffle) {
        auto gen =
            at::detail::createCPUGenerator(uint64_t(m_seed) * 1000003ULL + uint64_t(m_pos.epoch));
        m_order = torch::randperm(m_data->size(), gen, torch::kInt64);
    } else {
        m_order = torch::arange(m_data->size(), torch::kInt64);
    }
    m_permutationEpoch = m_pos.epoch;
}

Batch DataLoader::next()
{
    if (batchesPerEpoch() == 0)
        throw std::runtime_error("the data set has fewer samples than one batch");
    if (m_pos.batch >= batchesPerEpoch()) {
        ++m_pos.epoch;
        m_pos.batch = 0;
    }
    preparePermutation();
    const int64_t start = m_pos.batch * m_batchSize;
    const int64_t count = std::min(m_batchSize, m_data->size() - start);
    ++m_pos.batch;
    m_lastGlobal = count;
    if (m_world == 1)
        return m_data->get(m_order.narrow(0, start, count));
    if (m_rank >= count)
        return {};
    return m_data->get(
        m_order.narrow(0, start, count).slice(0, m_rank, count, m_world).contiguous());
}

} // namespace portolan::runtime
