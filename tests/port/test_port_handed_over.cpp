// Values handed over by the code that starts the training (issue 24): a training function
// started in other processes (`mp.Process(target=..., args=(...))` in a loop, `mp.spawn(...)`),
// in the script itself or imported from a module of its own, and a trainer class defined in one
// module and instantiated in another with positional, keyword and name-bound arguments
// (`loader = DataLoader(ds, batch_size=args.bs)` then `Fitter(net, loader, ...)`), and a training
// function called through the name of the module the script imports (`rounds.fit(...)`). The port
// binds each parameter to the caller's argument (the process index is the port's one process, 0),
// builds the handed values as the calling code does, reads the epoch count the caller passes,
// and says in a note that it trains one process.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <map>

using namespace portolan;
namespace fs = std::filesystem;

namespace {

// A regression trained by workers that share one model; @LAUNCH@ is how they are started.
const char* const Launching = R"(import argparse
import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(6, 16)
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


def worker(index, opts, net, samples, rounds):
    torch.manual_seed(index)
    loader = torch.utils.data.DataLoader(samples, batch_size=opts.batch, shuffle=True)
    opt = torch.optim.SGD(net.parameters(), lr=opts.rate)
    for _ in range(rounds):
        for x, y in loader:
            opt.zero_grad()
            loss = F.mse_loss(net(x), y)
            loss.backward()
            opt.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=0.05)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    opts = parser.parse_args()
    torch.manual_seed(0)
    net = Regressor()
    net.share_memory()
    samples = torch.utils.data.TensorDataset(torch.randn(64, 6), torch.randn(64, 1))
@LAUNCH@
)";

// One process per value of a loop, the index passed first.
const char* const ProcessLoop = R"(    started = []
    for k in range(opts.workers):
        p = mp.Process(target=worker, args=(k, opts, net, samples, 3))
        p.start()
        started.append(p)
    for p in started:
        p.join())";

// spawn passes the process index itself.
const char* const Spawn = "    mp.spawn(worker, args=(opts, net, samples, 3), nprocs=opts.workers)";

// The worker builds the loader and the optimizer from what the launch hands over, then calls
// the epoch's function, which holds the batch loop.
const char* const RoundsModule = R"(import torch
import torch.nn.functional as F


def worker(index, opts, net, samples):
    torch.manual_seed(index)
    loader = torch.utils.data.DataLoader(samples, batch_size=opts.batch, shuffle=True)
    opt = torch.optim.SGD(net.parameters(), lr=opts.rate)
    for r in range(3):
        one_round(r, net, loader, opt)


def one_round(r, net, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = F.mse_loss(net(x), y)
        loss.backward()
        opt.step()
)";

// A trainer class whose defaults are not what the script passes.
const char* const FitterModule = R"(import torch
import torch.nn.functional as F


class Fitter:
    def __init__(self, net, batches, rate=0.5, rounds=5):
        self.net = net
        self.batches = batches
        self.rounds = rounds
        self.opt = torch.optim.SGD(net.parameters(), lr=rate)

    def run(self):
        for _ in range(self.rounds):
            for x, y in self.batches:
                self.opt.zero_grad()
                loss = F.cross_entropy(self.net(x), y)
                loss.backward()
                self.opt.step()
)";

// The script that builds the model and the loader and instantiates the class: @MAKE@.
const char* const FitterScript = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from fitting import Fitter


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--bs", type=int, default=16)
    args = parser.parse_args()
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 4))
    ds = TensorDataset(torch.randn(96, 5), torch.randint(0, 4, (96,)))
    loader = DataLoader(ds, batch_size=args.bs)
    fitter = @MAKE@
    fitter.run()


if __name__ == "__main__":
    main()
)";

// A training function in a module of its own, which the script imports whole (`import rounds`)
// and calls through the module's name (fitThroughModule).
const char* const FitModule = R"(import torch
import torch.nn.functional as F


def fit(net, batches, opt, count):
    for r in range(count):
        for x, y in batches:
            opt.zero_grad()
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
)";

std::string replaced(std::string s, const std::string& mark, const std::string& by)
{
    s.replace(s.find(mark), mark.size(), by);
    return s;
}

// FitterScript's model and loader handed to `rounds.fit(...)` instead of a trainer class.
std::string fitThroughModule()
{
    return replaced(replaced(FitterScript, "from fitting import Fitter", "import rounds"),
                    "    fitter = @MAKE@\n    fitter.run()",
                    "    opt = torch.optim.SGD(net.parameters(), lr=args.lr)\n"
                    "    rounds.fit(net, loader, opt, 2)");
}

// fitThroughModule with the function imported by name: from the module beside the script
// (`from rounds import fit`), or, the script in a folder that puts the project's root on
// Python's path, by the name from that root (`from app.rounds import fit`).
std::string fitImported(const std::string& module, bool extendsPath)
{
    std::string s = replaced(fitThroughModule(), "import rounds", "from " + module + " import fit");
    s = replaced(s, "rounds.fit(", "fit(");
    if (extendsPath)
        s = replaced(s, "import argparse\n",
                     "import argparse\nimport sys\nfrom os.path import abspath, dirname\n\n"
                     "sys.path.append(dirname(dirname(abspath(__file__))))\n");
    return s;
}

// FitModule with a self-test of its own under `if __name__ == "__main__":`, which does not run
// when the script imports it.
std::string fitModuleWithSelfTest()
{
    return std::string(FitModule) +
           "\n\nif __name__ == \"__main__\":\n    print(torch.nn.Linear(5, 4))\n";
}

std::string launching(const char* launch)
{
    return replaced(Launching, "@LAUNCH@", launch);
}

// The same training in a module of its own, which the launching script imports.
std::string workerModule()
{
    const std::string s = Launching;
    const auto from = s.find("def worker(");
    return "import torch\nimport torch.nn.functional as F\n\n\n" +
           s.substr(from, s.find("\n\nif __name__") - from) + "\n";
}

// The launching script of the worker module: the model class and the launch, no training.
std::string launcherOfModule()
{
    std::string s = replaced(launching(ProcessLoop), "import torch.nn.functional as F\n",
                             "import torch.nn.functional as F\nfrom worker import worker\n");
    const auto from = s.find("def worker(");
    return s.erase(from, s.find("if __name__") - from);
}

std::string manuals(const port::PortResult& r)
{
    std::string out;
    for (const auto& m : r.manual)
        out += m.location.file + ":" + std::to_string(m.location.line) + " " + m.message + "\n";
    return out;
}

// The port's own files and notes (the original's modules it carries unchanged left out).
std::string allText(const port::PortResult& r, const std::map<std::string, std::string>& original)
{
    std::string all;
    for (const auto& g : r.files)
        if (!original.count(g.path) || original.at(g.path) != g.text)
            all += "=== " + g.path + "\n" + g.text + "\n";
    for (const auto& n : r.notes)
        all += "note: " + n + "\n";
    return all;
}

using Files = std::map<std::string, std::string>;

void addRows()
{
    QTest::addColumn<Files>("files");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<QStringList>("contains");
    const QStringList launched{"net = Regressor()",
                               "samples = torch.utils.data.TensorDataset(torch.randn(64, 6)",
                               "the port is the training of one of them (the first, rank 0)"};
    const QStringList fitted{"net = nn.Sequential(nn.Linear(5, 12)",
                             "ds = TensorDataset(torch.randn(96, 5)"};
    const std::pair<const char*, Files> shapes[] = {
        {"launch/process-loop", {{"train.py", launching(ProcessLoop)}}},
        {"launch/spawn", {{"train.py", launching(Spawn)}}},
        {"launch/other-module", {{"main.py", launcherOfModule()}, {"worker.py", workerModule()}}},
        {"launch/epoch-function",
         {{"main.py", replaced(launcherOfModule(), "samples, 3)", "samples)")},
          {"worker.py", RoundsModule}}},
        {"trainer/keyword",
         {{"main.py",
           replaced(FitterScript, "@MAKE@", "Fitter(net, loader, rate=args.lr, rounds=2)")},
          {"fitting.py", FitterModule}}},
        {"trainer/positional",
         {{"main.py", replaced(FitterScript, "@MAKE@", "Fitter(net, loader, args.lr, 2)")},
          {"fitting.py", FitterModule}}},
        {"call/module-attribute", {{"main.py", fitThroughModule()}, {"rounds.py", FitModule}}},
        // `import os, rounds`: the launcher imports the training module with another.
        {"call/module-among-several-imports",
         {{"main.py", replaced(fitThroughModule(), "import rounds", "import os, rounds")},
          {"rounds.py", FitModule}}},
        {"call/module-with-a-self-test",
         {{"main.py", fitImported("rounds", false)}, {"rounds.py", fitModuleWithSelfTest()}}},
        {"call/imported-from-the-root",
         {{"app/main.py", fitImported("app.rounds", true)}, {"app/rounds.py", FitModule}}},
    };
    const std::pair<const char*, const char*> targets[] = {{"determined-pytorchtrial", ""},
                                                           {"graphcore-poptorch", ""},
                                                           {"cerebras-pytorch", "runner"}};
    for (const auto& [name, files] : shapes)
        for (const auto& [target, api] : targets) {
            const bool launch = std::string(name).starts_with("launch");
            const bool call = std::string(name).starts_with("call");
            // Not yet (h-launch report): PopTorch's main() gets the constructor's `self.net =
            // net`; the epoch function's verification does not end in time.
            const bool poptorch = std::string(target) == "graphcore-poptorch";
            if ((!launch && !call && poptorch) || std::string(name) == "launch/epoch-function")
                continue;
            QStringList contains = launch ? launched : fitted;
            // The epoch count the caller passes (Cerebras counts steps from the samples the
            // original's dry run reads, which generation alone does not have).
            if (std::string(target) != "cerebras-pytorch" &&
                std::string(name) != "launch/epoch-function")
                contains << (launch ? "`3`, the launch's argument for `rounds`"
                             : call ? "`2`, given for `count` by the call"
                                    : "`2`, the instantiation's argument for `rounds`");
            QTest::addRow("%s/%s", name, target) << files << target << api << contains;
        }
}

} // namespace

Q_DECLARE_METATYPE(Files)

class TestPortHandedOver : public QObject
{
    Q_OBJECT

private slots:
    void bindsCaller_data() { addRows(); }
    void bindsCaller();
};

// Full: the model, the data set and the flags come from the calling code; the process index is
// 0 and the epoch count the caller's; a note names the one process, not an item. Then both dry
// runs: the port reaches its steps, its check has no error, it trains as the original.
void TestPortHandedOver::bindsCaller()
{
    QFETCH(Files, files);
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(QStringList, contains);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    portfixture::writeOriginal(root, files);
    auto r = portfixture::generateFrom(root, target.toStdString(), api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manuals(*r.value).c_str());
    const std::string all = allText(*r.value, files);
    for (const auto& c : contains)
        QVERIFY2(portfixture::has(all, c.toStdString()), qPrintable(c + "\n---\n" + all.c_str()));
    // Shared memory is for the original's processes: the port trains one (the note says why).
    QVERIFY2(!portfixture::has(all, "    net.share_memory()\n"), all.c_str());
    QVERIFY2(!portfixture::has(all, "manual_seed(index)"), all.c_str());
    // The model is built before what is built on it (the optimizer).
    QVERIFY2(all.find("net = ") < all.find("net.parameters()"), all.c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(portfixture::writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortHandedOver)
#include "test_port_handed_over.moc"
