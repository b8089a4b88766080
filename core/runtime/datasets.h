#pragma once
// Input data of the sample models, produced as the samples' data.py files produce it: the
// alphabet sequences, MNIST from IDX files (else the samples' deterministic synthetic stand-in),
// CIFAR-10 binary batches (else the synthetic stand-in generated per sample). The loader keeps
// a position (epoch, batch) from which it can resume exactly.
#include "core/common/diagnostic.h"
#include "core/runtime/run_config.h"

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <cstdint>
#include <memory>
#include <string>

namespace portolan::runtime {

struct Batch
{
    at::Tensor inputs;
    at::Tensor labels;
};

class Dataset
{
public:
    virtual ~Dataset() = default;
    virtual int64_t size() const = 0;
    virtual Batch get(const at::Tensor& indices) const = 0; // indices: int64 [n]

    bool synthetic = false;
    std::string source; // "IDX files in ...", "synthetic (no MNIST files in ...)", ...
};

enum class Split
{
    Train,
    Eval
};

// The dataset of `modelName` ("fc_mnist", "small_cnn", "alphabet_transformer",
// "cifar_convnet") for one split. `model` gives seq_len and vocab_size for the alphabet.
Result<std::shared_ptr<Dataset>> makeDataset(const RunConfig& config, Split split);

struct LoaderPosition
{
    int64_t epoch = 0;
    int64_t batch = 0; // next batch within the epoch
};

class DataLoader
{
public:
    DataLoader(std::shared_ptr<Dataset> data, int64_t batchSize, bool shuffle, bool dropLast,
               int64_t seed);

    int64_t batchesPerEpoch() const;
    // Data parallel: from now on next() gives this rank's share of every global batch, its
    // samples rank, rank + world, rank + 2 world, ... as a distributed sampler strides the data.
    // Positions count global batches, so a checkpoint resumes under any number of ranks.
    void shard(int rank, int world);
    // The next batch; moves to the next epoch (a new permutation) at the end of one. A rank whose
    // share of a short last batch is empty gets a batch of undefined tensors.
    Batch next();
    // Samples in the global batch that the last next() took its share of.
    int64_t lastGlobalCount() const { return m_lastGlobal; }
    LoaderPosition position() const { return m_pos; }
    void seek(LoaderPosition p);
    const Dataset& dataset() const { return *m_data; }

private:
    void preparePermutation();

    std::shared_ptr<Dataset> m_data;
    int64_t m_batchSize;
    bool m_shuffle;
    bool m_dropLast;
    int64_t m_seed;
    int m_rank = 0;
    int m_world = 1;
    int64_t m_lastGlobal = 0;
    LoaderPosition m_pos;
    int64_t m_permutationEpoch = -1;
    at::Tensor m_order;
};

} // namespace portolan::runtime
