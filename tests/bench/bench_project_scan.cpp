// Walks and syntax-checks a generated project of N Python files and prints the time taken.
// Usage: bench_project_scan [FILES=1000]
#include "core/common/atomic_file.h"
#include "core/project/project_scan.h"
#include "core/python/syntax.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

int main(int argc, char** argv)
{
    const int files = argc > 1 ? std::atoi(argv[1]) : 1000;
    const fs::path root = fs::temp_directory_path() / ("portolan-bench-" + std::to_string(::getpid()));
    for (int i = 0; i < files; ++i) {
        const fs::path p = root / ("pkg" + std::to_string(i % 20)) / ("module_" + std::to_string(i) + ".py");
        fs::create_directories(p.parent_path());
        std::ofstream out(p);
        out << "import torch\n\n";
        for (int k = 0; k < 10; ++k)
            out << "class Block" << k << "(torch.nn.Module):\n    def __init__(self, params):\n"
                << "        super().__init__()\n        self.fc = torch.nn.Linear(params['model']['hidden_size'], 4)\n\n"
                << "    def forward(self, x):\n        return self.fc(x)\n\n";
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto scan = portolan::scanProject(root);
    const auto t1 = std::chrono::steady_clock::now();
    std::size_t errors = 0;
    for (const auto& f : scan.value->files)
        errors += portolan::python::syntaxErrors(*portolan::readFile(root / f.path).value, f.path).size();
    const auto t2 = std::chrono::steady_clock::now();
    const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    std::printf("files: %zu\nwalk: %.1f ms\nparse (tree-sitter): %.1f ms\ntotal: %.1f ms\nsyntax errors: %zu\n",
                scan.value->files.size(), ms(t0, t1), ms(t1, t2), ms(t0, t2), errors);
    fs::remove_all(root);
    return 0;
}
