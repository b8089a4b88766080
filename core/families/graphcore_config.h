#pragma once

// Graphcore application configs (graphcore/examples): a YAML file of named configurations, each
// top-level key a whole configuration, usually merged from a `defaults: &defaults` mapping with
// `<<: *defaults`; the application runs one with --config NAME. One configuration gives both the
// model (hidden_size, num_hidden_layers, ...) and how it runs on IPUs (ipus_per_replica,
// layers_per_ipu, matmul_proportion, replication_factor, ...). Which keys mean what is data, in
// resources/schemas/graphcore-application.yaml (`profile:`). Plain header: no Qt, no LibTorch.

#include "core/common/diagnostic.h"

#include <optional>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace portolan::families {

// How a named configuration runs the model: what the Profile opens on. 0 / empty / nullopt:
// the configuration does not say.
struct ExecutionSettings
{
    int ipusPerReplica = 0;
    std::vector<int> layersPerIpu;        // encoder layers per IPU (0: an embeddings-only IPU)
    std::vector<double> matmulProportion; // one value (every IPU) or one per IPU
    int replicationFactor = 0;
    int microBatchSize = 0;
    int gradientAccumulation = 0;
    int deviceIterations = 0;
    int embeddingSerializationFactor = 0;
    std::optional<bool> recomputeEveryLayer;
    std::optional<bool> optimizerStateOffchip;
    std::optional<bool> replicatedTensorSharding; // replicated_tensor_sharding or enable_rts
    std::optional<bool> halfPartials;
    std::optional<bool> halfFirstOrderMomentum;
    std::string precision; // "16.16", "16.32", "32.32"
    std::string optimizer; // lower case: sgd, adamw, lamb, ...
};

// The named configurations of a file, in file order: the top-level mappings that set at least
// two execution settings (after merges). Empty when the file is not in this layout.
std::vector<std::string> namedConfigNames(const YAML::Node& root);

// One named configuration, merged, in the classic layout the family builders read (model:,
// train_input:, optimizer:), with its execution settings. `name` empty: the first configuration
// whose keys describe a model the builders know. Values keep their positions in the file, so
// the builders' errors cite the configuration's own lines.
struct NamedConfig
{
    std::string name;
    std::vector<std::string> names; // every named configuration of the file
    // The named configurations whose keys describe a model the builders know, in file order:
    // what a user can compile (a "defaults" mapping or a settings-only variant is not).
    std::vector<std::string> modelNames;
    std::string family;       // the builder its keys describe
    std::string familyReason; // "the key b16_cifar10.patches_size"
    YAML::Node classic;       // model: / train_input: / optimizer:
    ExecutionSettings settings;
};
// nullopt: not a file of named configurations. An error: the named configuration is missing,
// or no configuration describes a model the builders know.
std::optional<Result<NamedConfig>> namedConfig(const YAML::Node& root, const std::string& file,
                                               const std::string& name = {});

} // namespace portolan::families
