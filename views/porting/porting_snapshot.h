#pragma once

#include "core/workflow/porting_session.h"

#include <QMetaType>
#include <memory>
#include <string>

namespace portolan::views {

// One complete, immutable picture of a project for the porting views: core's porting session
// (the analysis, the guides, the chosen guide's result and the information flow), built off the
// GUI thread and shared.
struct PortingSnapshot : workflow::PortingSession
{
};

using PortingSnapshotPtr = std::shared_ptr<const PortingSnapshot>;

} // namespace portolan::views

Q_DECLARE_METATYPE(portolan::views::PortingSnapshotPtr)
