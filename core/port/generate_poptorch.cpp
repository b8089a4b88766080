#include "core/port/generate_internal.h"
namespace portolan::port::detail {
Result<PortResult> generatePopTorch(const PortPlan&, const std::map<std::string, std::string>&)
{
    Diagnostic d; d.message = "todo"; return Result<PortResult>::fail(d);
}
}
