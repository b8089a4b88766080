// The dry run's event reading (core/dryrun): the child's bytes cut into lines in chunks of any
// size, as poll() delivers them, every line read as an event and printed as portolan-cli does,
// in text and in JSON lines. A project's code can write anything on the event pipe.
#include "core/dryrun/dry_run.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace portolan::dryrun;
    // The first byte also sets the chunk size, so that lines and escape sequences are split
    // between reads at every place (and real output stays a valid seed as it is).
    const std::size_t chunk = size > 0 ? std::size_t(data[0] % 64) + 1 : 1;
    const char* bytes = reinterpret_cast<const char*>(data);
    const std::size_t n = size;
    const LineSplitter::Emit onLine = [](const std::string& line) {
        const EventLine e = readEventLine(line, 0.0);
        if (e.usageError && !e.terminal)
            __builtin_trap(); // a usage error is only ever a final "failed" event
        (void)describeEvent(e.event);
        (void)e.event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    LineSplitter splitter;
    for (std::size_t at = 0; at < n; at += chunk)
        splitter.feed(bytes + at, std::min(chunk, n - at), onLine);
    splitter.flush(onLine);
    return 0;
}
