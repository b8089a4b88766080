// The compile-report loader on arbitrary bytes: the fast path (detail::parseFast) and the
// nlohmann fallback both run, through loadReport, and fromJson on whatever JSON parses.
#include "core/report/report.h"
#include "tests/fuzz/fuzz_input.h"

#include <fstream>
#include <unistd.h>

using namespace portolan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const std::filesystem::path file =
        std::filesystem::temp_directory_path() /
        ("portolan-fuzz-report-" + std::to_string(::getpid()) + ".json");
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    report::loadReport(file);
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_discarded())
        report::fromJson(j, "fuzz.json");
    return 0;
}
