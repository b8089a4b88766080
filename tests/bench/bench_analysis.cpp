// Analysis benchmark: generates a project of N Python files (default 1,000, each ~120 lines of
// model, data and training code with config reads, calls and leftovers) plus a params.yaml, then
// times the project analysis (walk, tree-sitter index, YAML, flavour) and every guide's checks.
// Target (docs/ARCHITECTURE.md, Performance figures): index and check 1,000 files in under 2 s on
// the 2-core machine.
#include "core/analysis/analysis.h"
#include "core/common/resources.h"
#include "core/guides/guide.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string moduleText(int i)
{
    const std::string n = std::to_string(i);
    std::string s = "\"\"\"Generated module " + n +
                    " for the analysis benchmark.\"\"\"\n"
                    "import argparse\nimport math\n\nimport torch\nimport torch.nn as nn\n"
                    "from torch.utils.data import DataLoader, TensorDataset\n\n";
    for (int c = 0; c < 3; ++c) {
        const std::string k = n + "_" + std::to_string(c);
        s += "class Block" + k +
             "(nn.Module):\n"
             "    def __init__(self, params, depth=2):\n"
             "        super().__init__()\n"
             "        mp = params[\"model\"]\n"
             "        self.fc = nn.Linear(mp[\"hidden_size\"], mp[\"hidden_size\"])\n"
             "        self.drop = nn.Dropout(params[\"model\"][\"dropout\"])\n"
             "        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(depth)])\n\n"
             "    def forward(self, x):\n"
             "        for layer in self.layers:\n"
             "            x = torch.relu(layer(x))\n"
             "        mask = torch.triu(torch.ones(4, 4), diagonal=1)\n"
             "        x = x.masked_fill(mask == 1, float(\"-inf\"))\n"
             "        return self.drop(self.fc(x))\n\n\n";
    }
    s +=
        "def get_loader_" + n +
        "(params, args):\n"
        "    data = TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))\n"
        "    return DataLoader(data, batch_size=params[\"train_input\"][\"batch_size\"], "
        "shuffle=True)\n\n\n"
        "def train_" +
        n +
        "(params, args):\n"
        "    model = Block" +
        n +
        "_0(params)\n"
        "    if torch.cuda.is_available():\n"
        "        model = model.cuda()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), "
        "lr=params[\"optimizer\"][\"learning_rate\"])\n"
        "    loader = get_loader_" +
        n +
        "(params, args)\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        loss = nn.functional.cross_entropy(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        if step % args.log_steps == 0:\n"
        "            print(f\"step {step} loss {loss.item():.4f} {params['runconfig']['seed']}\")\n"
        "    return model\n\n\n"
        "def evaluate_" +
        n +
        "(model, loader):\n"
        "    total = 0.0\n"
        "    with torch.no_grad():\n"
        "        for x, y in loader:\n"
        "            total += float((model(x).argmax(1) == y).sum())\n"
        "    return total / max(1, len(loader)) + math.pi * 0\n";
    return s;
}

void generate(const fs::path& root, int files)
{
    fs::create_directories(root / "configs");
    std::ofstream(root / "configs/params.yaml")
        << "train_input:\n  batch_size: 32\n  shuffle: true\n"
           "eval_input:\n  batch_size: 32\n"
           "model:\n  hidden_size: 4\n  dropout: 0.1\n"
           "optimizer:\n  learning_rate: 0.1\n"
           "runconfig:\n  seed: 1\n  max_steps: 10\n";
    for (int i = 0; i < files; ++i) {
        const fs::path dir = root / ("pkg" + std::to_string(i / 100));
        fs::create_directories(dir);
        std::ofstream(dir / ("module_" + std::to_string(i) + ".py")) << moduleText(i);
    }
}

double ms(Clock::duration d)
{
    return std::chrono::duration<double, std::milli>(d).count();
}

} // namespace

int main(int argc, char** argv)
{
    const int files = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1000;
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    portolan::setExecutablePath(argv[0]);
    const fs::path root =
        fs::temp_directory_path() / ("portolan-bench-analysis-" + std::to_string(::getpid()));
    generate(root, files);
    std::uintmax_t bytes = 0;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file())
            bytes += e.file_size();

    const auto set = portolan::guides::loadGuides(portolan::resourcesDir() / "guides");
    std::size_t checks = 0;
    for (const auto& g : set.guides)
        checks += g.checkCount();
    std::printf(
        "bench_analysis: %d Python files, %.1f MiB, %zu guides, %zu checks, %u hardware threads\n",
        files, double(bytes) / (1 << 20), set.guides.size(), checks,
        std::thread::hardware_concurrency());

    std::vector<double> analyse, check, total;
    std::size_t findings = 0;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = Clock::now();
        auto a = portolan::analysis::analyzeProject(root);
        const auto t1 = Clock::now();
        if (!a) {
            std::fprintf(stderr, "analysis failed: %s\n", a.error.toString().c_str());
            return 1;
        }
        findings = 0;
        for (const auto& g : set.guides)
            findings += portolan::guides::runGuide(g, *a.value).allFindings().size();
        const auto t2 = Clock::now();
        analyse.push_back(ms(t1 - t0));
        check.push_back(ms(t2 - t1));
        total.push_back(ms(t2 - t0));
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::printf("analysis (walk + index + YAML + flavour): median %.0f ms, best %.0f ms\n",
                median(analyse), *std::min_element(analyse.begin(), analyse.end()));
    std::printf(
        "all checks of all %zu guides:             median %.0f ms, best %.0f ms (%zu findings)\n",
        set.guides.size(), median(check), *std::min_element(check.begin(), check.end()), findings);
    std::printf("total:                                    median %.0f ms, best %.0f ms (target < "
                "2000 ms)\n",
                median(total), *std::min_element(total.begin(), total.end()));
    std::error_code ec;
    fs::remove_all(root, ec);
    return 0;
}
