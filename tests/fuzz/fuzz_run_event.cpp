// The Runs tab's event parser (the JSON lines the training child and the dry run write): any
// line gives an event or an invalid one. Qt is not instrumented; the parser's own code is.
#include "views/runs/run_event.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    for (const QByteArray& line : bytes.split('\n')) {
        const auto e = portolan::views::RunEvent::parse(line);
        (void)e.isTerminal();
    }
    return 0;
}
