// Script structure across functions, files and processes (issue 24): a factory that builds the
// data, the model and the optimizer together, taken apart for each target (the target that builds
// the optimizer from its config gets none from the factory, and the data code runs only what
// builds the data), and state carried from batch to batch that the original builds anew each
// epoch, reset where each target marks an epoch. Each row is a fixture written for the pattern;
// the verification rows run both dry runs. Training started in other processes from another
// file: the item at the launch says how the port treats the process count.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <map>

using namespace portolan;
namespace fs = std::filesystem;

namespace {

// The factory takes a flag and a constant; the data set reads the constant only.
const char* const Factory = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def build_all(rate, width):
    data = TensorDataset(torch.randn(48, width), torch.randint(0, 3, (48,)))
    net = nn.Sequential(nn.Linear(width, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = torch.optim.SGD(net.parameters(), lr=rate, momentum=0.9)
    return data, net, opt


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(0)
    data, net, opt = build_all(args.lr, 6)
    loader = DataLoader(data, batch_size=args.batch, shuffle=False)
    for epoch in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
)";

// A hidden state carried from batch to batch (truncated BPTT), built anew at the start of each
// epoch; @BUILD@ is where: in the epoch loop, or once before it.
const char* const Carried = R"(import argparse
import torch
import torch.nn as nn


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4 + 3, 3)

    def forward(self, x, h):
        h = torch.tanh(self.lin(torch.cat([x, h], dim=1)))
        return h, h


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    torch.manual_seed(0)
    data = torch.randn(40, 2, 4)
    target = torch.randn(40, 2, 3)
    model = Cell()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
@BUILD@
        for i in range(0, 40, 4):
            x, y = data[i], target[i]
            h = h.detach()
            out, h = model(x, h)
            loss = nn.functional.mse_loss(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
)";

const char* const PerEpoch = "    for epoch in range(args.epochs):\n        h = torch.zeros(2, 3)";
const char* const Once = "    h = torch.zeros(2, 3)\n    for epoch in range(args.epochs):";

std::string carried(const char* build)
{
    std::string s = Carried;
    s.replace(s.find("@BUILD@"), 7, build);
    return s;
}

// The same state built by the function that holds the batch loop, which the script calls once
// per epoch.
const char* const CarriedInEpochFunction = R"(import torch
import torch.nn as nn


def one_epoch(model, opt, data, target):
    h = torch.zeros(2, 3)
    for i in range(0, 40, 4):
        x, y = data[i], target[i]
        h = h.detach()
        out, h = model(torch.cat([x, h], dim=1))
        loss = nn.functional.mse_loss(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()


torch.manual_seed(0)
data = torch.randn(40, 2, 4)
target = torch.randn(40, 2, 3)
model = nn.Linear(7, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    one_epoch(model, opt, data, target)
)";

// The training function in a module of its own, started in processes by the script that parses
// the flags, builds the model and hands both over; @LAUNCH@ is how it starts them.
const char* const Launcher = R"(import argparse
import torch
import torch.multiprocessing as mp
import torch.nn as nn
from work import fit

parser = argparse.ArgumentParser()
parser.add_argument("--rate", type=float, default=0.25)
parser.add_argument("--procs", type=int, default=3)

if __name__ == "__main__":
    opts = parser.parse_args()
    net = nn.Linear(5, 2)
    samples = torch.utils.data.TensorDataset(torch.randn(32, 5), torch.randint(0, 2, (32,)))
@LAUNCH@
)";

const char* const ByProcess = R"(    started = []
    for k in range(opts.procs):
        p = mp.Process(target=fit, args=(k, opts, net, samples))
        p.start()
        started.append(p)
    for p in started:
        p.join())";

const char* const BySpawn = "    mp.spawn(fit, args=(opts, net, samples), nprocs=opts.procs)";

const char* const Work = R"(import torch
import torch.nn.functional as F


def fit(k, opts, net, samples):
    loader = torch.utils.data.DataLoader(samples, batch_size=4)
    opt = torch.optim.SGD(net.parameters(), lr=opts.rate)
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
)";

// A trainer class holds the loops: its step method computes the loss, its epoch method loops
// over the batches, its fit() over the epochs. A worker started in processes builds the
// trainer and calls fit() with the count the launch hands over.
const char* const TrainerLaunch = R"(import argparse

import torch
import torch.multiprocessing as mp
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--passes", type=int, default=3)
parser.add_argument("--procs", type=int, default=2)
opts = parser.parse_args()


class Coach:
    def __init__(self, net, feeder):
        self.net = net
        self.feeder = feeder
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

    def run_step(self, x, y):
        self.opt.zero_grad()
        err = F.cross_entropy(self.net(x), y)
        err.backward()
        self.opt.step()

    def run_pass(self):
        for x, y in self.feeder:
            self.run_step(x, y)

    def fit(self, count):
        for p in range(count):
            self.run_pass()


def worker(rank, passes):
    torch.manual_seed(0)
    samples = torch.utils.data.TensorDataset(torch.randn(32, 5), torch.randint(0, 2, (32,)))
    net = torch.nn.Linear(5, 2)
    feeder = torch.utils.data.DataLoader(samples, batch_size=4)
    coach = Coach(net, feeder)
    coach.fit(passes)


if __name__ == "__main__":
    mp.spawn(worker, args=(opts.passes,), nprocs=opts.procs)
)";

std::string launcher(const char* launch)
{
    std::string s = Launcher;
    s.replace(s.find("@LAUNCH@"), 8, launch);
    return s;
}

using Files = std::map<std::string, std::string>;

using portfixture::has;

int count(const std::string& text, const std::string& what)
{
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

Result<port::PortResult> generate(const fs::path& root, const Files& files,
                                  const std::string& target, const std::string& api)
{
    portfixture::writeOriginal(root, files);
    return portfixture::generateFrom(root, target, api);
}

std::string allText(const port::PortResult& r)
{
    std::string all;
    for (const auto& g : r.files)
        all += "=== " + g.path + "\n" + g.text + "\n";
    return all;
}

std::string manuals(const port::PortResult& r)
{
    std::string out;
    for (const auto& m : r.manual)
        out += m.location.file + ":" + std::to_string(m.location.line) + " " + m.message + "\n";
    return out;
}

// Both dry runs of `files` ported to `target`: the port reaches its steps, its check has no
// error, and it trains as the original does.
void verifyBoth(const Files& files, const std::string& target, const std::string& api)
{
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, files, target, api);
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manuals(*r.value).c_str());
    PORT_VERIFY_PROOF(portfixture::writeAndVerify(root, *r.value));
}

} // namespace

class TestPortLaunch : public QObject
{
    Q_OBJECT

private slots:
    void takesFactoryApart_data();
    void takesFactoryApart();
    void verifiesFactory_data();
    void verifiesFactory();
    void resetsCarriedState_data();
    void resetsCarriedState();
    void verifiesCarriedState_data();
    void verifiesCarriedState();
    void launchSaysProcessCount_data();
    void launchSaysProcessCount();
    void launchesATrainer_data();
    void launchesATrainer();
};

void TestPortLaunch::takesFactoryApart_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<QStringList>("contains");
    QTest::addColumn<QString>("once"); // run once in the whole port (the model's construction)
    // The runner builds the optimizer from params.yaml: the factory the model's construction
    // runs binds it to None, and its rate is the flag the factory's caller passes.
    QTest::addRow("factory/cerebras-runner")
        << "cerebras-pytorch"
        << "runner"
        << QStringList{"    opt = None  # the runner builds the optimizer", "learning_rate: 0.05",
                       "momentum: 0.9", "the data needs only `data`",
                       "data = TensorDataset(torch.randn(48, 6), torch.randint(0, 3, (48,)))"}
        << "data, net, opt = build_all(";
    QTest::addRow("factory/cerebras-trainer")
        << "cerebras-pytorch"
        << "trainer"
        << QStringList{"    opt = None  # the Trainer builds the optimizer", "learning_rate: 0.05",
                       "momentum: 0.9", "the data needs only `data`"}
        << "data, net, opt = build_all(";
    // Determined wraps the factory's optimizer (it stays); the loaders build the data only.
    QTest::addRow("factory/determined")
        << "determined-pytorchtrial"
        << ""
        << QStringList{"self.context.wrap_optimizer(opt)", "the data needs only `data`",
                       "data = TensorDataset(torch.randn(48, 6), torch.randint(0, 3, (48,)))"}
        << "data, net, opt = build_all(";
}

void TestPortLaunch::takesFactoryApart()
{
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(QStringList, contains);
    QFETCH(QString, once);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, {{"main.py", Factory}}, target.toStdString(), api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manuals(*r.value).c_str());
    const std::string all = allText(*r.value);
    for (const auto& c : contains)
        QVERIFY2(has(all, c.toStdString()), qPrintable(c + "\n---\n" + all.c_str()));
    QVERIFY2(count(all, once.toStdString()) == 1, all.c_str());
}

void TestPortLaunch::verifiesFactory_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addRow("cerebras-runner") << "cerebras-pytorch"
                                     << "runner";
    QTest::addRow("cerebras-trainer") << "cerebras-pytorch"
                                      << "trainer";
    QTest::addRow("determined") << "determined-pytorchtrial"
                                << "";
}

void TestPortLaunch::verifiesFactory()
{
    QFETCH(QString, target);
    QFETCH(QString, api);
    verifyBoth({{"main.py", Factory}}, target.toStdString(), api.toStdString());
}

void TestPortLaunch::resetsCarriedState_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<QStringList>("contains");
    QTest::addColumn<QStringList>("absent");
    const QString perEpoch = QString::fromStdString(carried(PerEpoch));
    // Determined tells train_batch its epoch: the state is built again when it changes.
    QTest::addRow("per-epoch/determined")
        << perEpoch << "determined-pytorchtrial"
        << ""
        << QStringList{"if epoch_idx != getattr(self, \"carry_epoch\", epoch_idx):\n"
                       "            self.h = torch.zeros(2, 3)\n",
                       "self.carry_epoch = epoch_idx"}
        << QStringList{"TODO(portolan)"};
    // PopTorch's port has its own epoch loop: the host builds it again from the second epoch.
    QTest::addRow("per-epoch/poptorch")
        << perEpoch << "graphcore-poptorch"
        << "" << QStringList{"        if epoch > 0:\n            h = torch.zeros(2, 3)\n"}
        << QStringList{"TODO(portolan)"};
    // Cerebras calls the model step by step, with no epoch: said at the step.
    QTest::addRow("per-epoch/cerebras-runner")
        << perEpoch << "cerebras-pytorch"
        << "runner"
        << QStringList{"# The original builds `h` anew at the start of each epoch (main.py:",
                       "the runner counts steps"}
        << QStringList{};
    QTest::addRow("per-epoch/cerebras-trainer")
        << perEpoch << "cerebras-pytorch"
        << "trainer"
        << QStringList{"# The original builds `h` anew at the start of each epoch (main.py:",
                       "the Trainer counts steps"}
        << QStringList{};
    // The function of the batch loop is one epoch: its first statements run once per epoch.
    QTest::addRow("epoch-function/determined")
        << CarriedInEpochFunction << "determined-pytorchtrial"
        << "" << QStringList{"if epoch_idx != getattr(self, \"carry_epoch\", epoch_idx):"}
        << QStringList{"TODO(portolan)"};
    // Built once before the epoch loop: it runs on across epochs in the original too.
    QTest::addRow("once/determined")
        << QString::fromStdString(carried(Once)) << "determined-pytorchtrial"
        << "" << QStringList{"self.h"} << QStringList{"carry_epoch", "anew"};
}

void TestPortLaunch::resetsCarriedState()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(QStringList, contains);
    QFETCH(QStringList, absent);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, {{"main.py", script.toStdString()}}, target.toStdString(),
                      api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manuals(*r.value).c_str());
    const std::string all = allText(*r.value);
    for (const auto& c : contains)
        QVERIFY2(has(all, c.toStdString()), qPrintable(c + "\n---\n" + all.c_str()));
    for (const auto& c : absent)
        QVERIFY2(!has(all, c.toStdString()), qPrintable(c + "\n---\n" + all.c_str()));
}

void TestPortLaunch::verifiesCarriedState_data()
{
    QTest::addColumn<QString>("target");
    QTest::addRow("determined") << "determined-pytorchtrial";
    QTest::addRow("poptorch") << "graphcore-poptorch";
}

// The reset does not change the first epoch: both dry runs agree.
void TestPortLaunch::verifiesCarriedState()
{
    QFETCH(QString, target);
    verifyBoth({{"main.py", carried(PerEpoch)}}, target.toStdString(), "");
}

void TestPortLaunch::launchSaysProcessCount_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("count");
    // The note at the launch says how many the original starts and that the port is one of
    // them; Determined's config has the flags the worker reads, which the launching script
    // parses.
    QTest::addRow("process-loop") << QString::fromStdString(launcher(ByProcess))
                                  << "one per value of `range(opts.procs)`";
    QTest::addRow("spawn") << QString::fromStdString(launcher(BySpawn)) << "`opts.procs` of them";
}

void TestPortLaunch::launchSaysProcessCount()
{
    QFETCH(QString, script);
    QFETCH(QString, count);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, {{"main.py", script.toStdString()}, {"work.py", Work}},
                      "determined-pytorchtrial", "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    // The launch binds the worker's parameters (caller_view.cpp): full, and a note says what
    // the port trains.
    QVERIFY2(r.value->full(),
             r.value->manual.empty() ? "" : r.value->manual.front().message.c_str());
    std::string notes;
    for (const auto& n : r.value->notes)
        notes += n + "\n";
    QVERIFY2(has(notes, "started by `") && has(notes, count.toStdString() + ")") &&
                 has(notes, "the port is the training of one of them (the first, rank 0)"),
             notes.c_str());
    std::string config;
    for (const auto& g : r.value->files)
        if (g.path == "const.yaml")
            config = g.text;
    QVERIFY2(has(config, "rate: 0.25"), config.c_str());
}

void TestPortLaunch::launchesATrainer_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("epochs"); // how the port's config or loop says the epochs
    QTest::addRow("determined") << "determined-pytorchtrial"
                                << "epochs: 3  # `for p in range(count)`";
    QTest::addRow("poptorch") << "graphcore-poptorch"
                              << "range(opts.passes)";
    // Without the original's dry run the samples of an epoch are not known: the note says the
    // epochs it has.
    QTest::addRow("cerebras") << "cerebras-pytorch"
                              << "it trains 3 epochs";
}

// The launch starts a function that builds a trainer and calls its method: the launch is found
// through the method's caller, so the epochs follow the flag it hands over (not one made up),
// the note says the port is one of the processes, and the loss the step method assigns is the
// plan's loss.
void TestPortLaunch::launchesATrainer()
{
    QFETCH(QString, target);
    QFETCH(QString, epochs);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, {{"main.py", TrainerLaunch}}, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manuals(*r.value).c_str());
    std::string notes;
    for (const auto& n : r.value->notes)
        notes += n + "\n";
    QVERIFY2(has(notes, "started by `spawn(...)`") &&
                 !has(notes, "count of the original's epoch loop is not known") &&
                 !has(notes, "is not assigned"),
             notes.c_str());
    PORT_VERIFY_CONTAINS(allText(*r.value) + notes, QStringList({epochs}));
    // The constructor's `self.net = net` names the worker's model: built and wrapped once.
    PORT_VERIFY_ABSENT(allText(*r.value), QStringList({"self.net = net"}));
    QVERIFY2(count(allText(*r.value), "wrap_model(") <= 1, allText(*r.value).c_str());
    // Determined's and PopTorch's dry runs: the same training. (The Cerebras steps need the
    // original's dry run.)
    if (target != "cerebras-pytorch")
        verifyBoth({{"main.py", TrainerLaunch}}, target.toStdString(), "");
}

QTEST_GUILESS_MAIN(TestPortLaunch)
#include "test_port_launch.moc"
