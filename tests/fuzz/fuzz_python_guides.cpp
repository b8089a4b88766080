// The Python index and every guide's checks on mutated Python (seeded from the corpus projects'
// .py files): the input is written as the model.py of a small Model Zoo layout, the project is
// analysed as the GUI and the CLI do, and every guide runs on it.
#include "core/analysis/analysis.h"
#include "core/guides/guide.h"
#include "core/python/index.h"
#include "tests/fuzz/fuzz_input.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace portolan;
namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const guides::GuideSet guideSet =
        guides::loadGuides(fs::path(fuzz::resources()) / "guides");
    static const fs::path root = [] {
        const fs::path d =
            fs::temp_directory_path() / ("portolan-fuzz-python-" + std::to_string(::getpid()));
        fs::create_directories(d / "configs");
        std::ofstream(d / "configs" / "params.yaml")
            << "train_input:\n  batch_size: 32\nmodel:\n  hidden_size: 64\n"
               "optimizer:\n  learning_rate: 0.1\nrunconfig:\n  max_steps: 10\n";
        std::ofstream(d / "run.py") << "from model import *\n";
        return d;
    }();
    const std::string source(reinterpret_cast<const char*>(data), size);
    python::indexSource(source, "model.py");
    std::ofstream(root / "model.py", std::ios::binary | std::ios::trunc) << source;
    auto analysed = analysis::analyzeProject(root);
    if (!analysed)
        return 0;
    for (const auto& g : guideSet.guides)
        guides::runGuide(g, *analysed.value);
    return 0;
}
