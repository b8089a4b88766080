#include "core/graph/model_source.h"

#include <algorithm>
#include <limits>

namespace portolan::graph {

ProjectTraining captureTraining(const Capture& c)
{
    ProjectTraining t;
    t.optimizer = c.optimizerName().empty() ? t.optimizer : c.optimizerName();
    t.batchSize = int(std::clamp<std::int64_t>(c.fullBatch.value_or(c.dryRunBatch.value_or(1)), 1,
                                               std::numeric_limits<int>::max()));
    t.batchIsMicroBatch = true;
    t.strategy = c.pipelineDescription();
    if (!c.stages.empty())
        t.ipus = c.pipelineIpus();
    if (const auto& o = c.poptorch) {
        t.gradAccum = o->gradientAccumulation;
        t.deviceIterations = o->deviceIterations;
        t.replicas = o->replicationFactor;
        t.fp16 = o->half();
        t.halfPartials = o->halfPartials;
        t.availableMemoryProportion = o->availableMemoryProportion;
        // A proportion set on the ops of an IPU is the more specific: it wins on that IPU.
        for (const auto& [ipu, p] : o->setAvailableMemory)
            t.availableMemoryProportion[ipu] = p;
    }
    return t;
}

std::string_view graphSourceName(GraphSourceKind k)
{
    switch (k) {
    case GraphSourceKind::RuntimeModel:
        return "runtime model";
    case GraphSourceKind::ModelFamily:
        return "model family";
    case GraphSourceKind::Capture:
        return "capture";
    case GraphSourceKind::None:
        break;
    }
    return "none";
}

std::vector<std::string> torchChildArguments(const GraphSource& source, int recordBatch)
{
    switch (source.kind) {
    case GraphSourceKind::RuntimeModel:
        return {"record", source.params.string(), "--batch", std::to_string(recordBatch)};
    case GraphSourceKind::Capture:
        return {"capture", source.capture.string()};
    case GraphSourceKind::ModelFamily:
    case GraphSourceKind::None:
        break;
    }
    return {};
}

} // namespace portolan::graph
