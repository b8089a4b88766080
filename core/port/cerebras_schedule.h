#pragma once
// The original's torch LR schedulers as Cerebras schedules (not a public header). The Cerebras
// schedulers count steps: a torch scheduler stepped once per epoch is converted with the steps
// of an epoch when the code says them exactly (a torchvision data set of known size, a batch
// size that is a literal or a flag's default), else it is a manual item that says what to write.
#include "core/port/generate_internal.h"

#include <functional>
#include <optional>

namespace portolan::port::detail {

struct CerebrasSchedule
{
    // The Trainer's `trainer.init.schedulers` block (indented for trainer.init), "" when none.
    std::string trainerYaml;
    // The runner's `optimizer.learning_rate` value: a schedule mapping indented for
    // `  learning_rate:`, "" when none.
    std::string runnerLearningRate;
    std::vector<guides::Finding> manual;
    std::vector<std::string> notes;
};

// `learningRate`: the optimizer's rate as YAML ("" when unknown); `hp`: the flags' values.
CerebrasSchedule cerebrasSchedule(const PortPlan& plan, const SourceFile& src,
                                  const std::map<std::string, Hyper>& hp,
                                  const std::string& learningRate);

// The value of the last `name = <value>` statement of the entry before byte `before`, at any
// nesting (the loader's dataset variable); a null node when none.
TSNode assignedValue(const SourceFile& src, const std::string& name, std::uint32_t before);

// The number a plain name holds (`learning_rate = 0.001`, the last such assignment before byte
// `before`), "" when the name is not assigned a number literal.
std::string constantNumber(const SourceFile& src, const std::string& name, std::uint32_t before);

// The samples of an epoch of the train data: a torchvision data set of known size in the code,
// else what the original's dry run read (DataPlan::observedSamples), with where the number comes
// from in `why`; `synthetic`: the dry run made that data up. nullopt: not known.
std::optional<long> epochSamples(const PortPlan& plan, const SourceFile& src,
                                 const std::map<std::string, Hyper>& hp, std::string* why,
                                 bool* synthetic = nullptr);

// The samples of one split of a torchvision data set built by `call` (a call's node, e.g.
// `datasets.MNIST('../data', train=True)`), from resources/datasets/torchvision.yaml; a data set
// whose size is an argument (FakeData) reads it through `value` (flags -> their defaults).
std::optional<long>
torchvisionSamples(const SourceFile& src, TSNode call, std::string* name,
                   const std::function<std::string(const std::string&)>& value = {});

} // namespace portolan::port::detail
