// The capture import's JSON side: capture.json (the dry run's sidecar) and the op-graph document
// the Torch child writes. Every input is read as both.
#include "core/graph/capture.h"
#include "core/graph/graph_json.h"
#include "tests/fuzz/fuzz_input.h"

#include <fstream>
#include <unistd.h>

using namespace portolan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    graph::parseGraphDocument(text, "fuzz.json");
    static const std::filesystem::path dir = [] {
        auto d = std::filesystem::temp_directory_path() /
                 ("portolan-fuzz-capture-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    std::ofstream(dir / "capture.json", std::ios::binary | std::ios::trunc) << text;
    auto c = graph::loadCapture(dir);
    if (c) {
        graph::captureLayering(c.value->modules);
        graph::graphFromModules(*c.value);
    }
    return 0;
}
