// Guide, target and contract YAML loading: a malformed file gives a positioned error, never a
// crash. Every input goes through every loader (seeds are the real resources).
#include "core/analysis/config.h"
#include "core/analysis/contracts.h"
#include "core/guides/guide.h"
#include "core/params/schema.h"
#include "core/targets/target.h"
#include "tests/fuzz/fuzz_input.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace portolan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    guides::parseGuide(text, "fuzz.yaml");
    analysis::parseContracts(text, "fuzz.yaml");
    params::parseSchema(text, "fuzz");
    analysis::readConfig(text, "fuzz.yaml");
    // Targets are only read from files.
    static const std::filesystem::path file =
        std::filesystem::temp_directory_path() /
        ("portolan-fuzz-target-" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    targets::loadTargetFile(file);
    return 0;
}
