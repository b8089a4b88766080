#pragma once

// Model families from params (docs/ARCHITECTURE.md, Processes): the op graph of a Cerebras Model
// Zoo model, built straight from the `model:` keys of its params file at full size, without
// allocating a weight. One builder per family: the decoder-only family and its variants (GPT-2/3,
// GPT-J and NeoX, LLaMA, Mistral, Mixtral, Falcon, BLOOM, MPT, StarCoder and SantaCoder, BTLM,
// Jais, Gemma 2, DPO policies), BERT and its relatives (RoBERTa, ESM-2, DPR, ViT), T5 and the
// Transformer encoder-decoder, UNet, DiT, fc_mnist and LLaVA. Sequence length and batch come
// from the training data section of either layout (classic `train_input`, or the trainer
// layout's `trainer.fit.train_dataloader`). Plain header: no LibTorch, no Qt.

#include "core/common/diagnostic.h"
#include "core/families/graphcore_config.h"
#include "core/graph/op_graph.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace portolan::families {

// What the training data section says.
struct DataSection
{
    std::int64_t batchSize = 1;      // samples per step
    std::int64_t microBatch = 0;     // micro_batch_size when given as a number, else 0
    std::int64_t sequence = 0;       // tokens per sample (source side); 0 for images
    std::int64_t targetSequence = 0; // decoder side of an encoder-decoder
    std::string sequenceFrom;        // the key the sequence length came from
    std::string section;             // "train_input" or "trainer.fit.train_dataloader"
};

struct ModelFromParams
{
    graph::OpGraph graph;
    std::string family;       // canonical id: gpt2, gpt3, llama, bert, t5, ...
    std::string architecture; // decoder, encoder, encoder-decoder, unet, dit, vit, mlp, llava
    bool inferred = false;    // model.name was absent: the family comes from keys and path
    std::string familyReason; // "model.name" or what the inference went by
    std::string layout;       // classic, trainer or graphcore (named configurations)
    // A Graphcore application config: the named configuration built, every one in the file,
    // and how it runs (its IPUs, split, replication, ...).
    std::string namedConfig;
    std::vector<std::string> namedConfigs;
    std::vector<std::string> namedModelConfigs; // ... those whose keys describe a model
    std::optional<ExecutionSettings> execution;
    DataSection data;
    std::string optimizer;          // adamw, adam, sgd, sgd-momentum, lamb, adafactor, or ""
    bool mixedPrecision = false;    // the params ask for fp16/bf16 compute
    std::vector<std::string> notes; // where the graph simplifies the Model Zoo implementation
};

// True when the YAML holds a model section in either layout (a data preparation config does
// not). Errors are syntax errors with their position.
Result<bool> isModelParams(const std::filesystem::path& file);

// Builds the model of a params file. Errors carry file:line:column of the offending key. For a
// file of Graphcore named configurations, `namedConfig` picks one (empty: the first that
// describes a model the builders know).
Result<ModelFromParams> buildFromParamsFile(const std::filesystem::path& file,
                                            const std::string& namedConfig = {});
// The same from YAML text; `fileName` names it in messages and helps infer the family.
Result<ModelFromParams> buildFromParamsText(std::string_view text, const std::string& fileName);

// The family ids the builders know, and the architecture each builds.
struct FamilyInfo
{
    std::string id;
    std::string architecture;
};
const std::vector<FamilyInfo>& knownFamilies();

} // namespace portolan::families
