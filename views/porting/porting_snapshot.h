#pragma once

#include "core/analysis/analysis.h"
#include "core/analysis/flow.h"
#include "core/guides/guide.h"

#include <QMetaType>
#include <memory>
#include <string>

namespace portolan::views {

// One complete, immutable picture of a project for the porting views: the analysis, the guides,
// the result of the chosen guide and the information flow. Built off the GUI thread and shared.
struct PortingSnapshot
{
    std::shared_ptr<const analysis::ProjectAnalysis> analysis;
    std::shared_ptr<const guides::GuideSet> guides;
    std::string guideId; // the guide that was run ("" when none applies)
    guides::GuideResult result;
    analysis::FlowGraph flow;
    std::string flowDot;
    double milliseconds = 0; // how long analysis + checks took

    const guides::Guide* guide() const { return guides ? guides->find(guideId) : nullptr; }
};

using PortingSnapshotPtr = std::shared_ptr<const PortingSnapshot>;

} // namespace portolan::views

Q_DECLARE_METATYPE(portolan::views::PortingSnapshotPtr)
