// Script structure (issue 24), the step reached through the script's own structure: a trainer
// class whose batch loop calls the step as a method (`self._train_step(x, y)`), the model and
// optimizer made by a factory returning a tuple, the loader by a helper, and the parser imported
// inside the main block. Each row is a fixture written for the pattern.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

const char* const MethodStep = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Runner:
    def __init__(self, net, loader, opt, device):
        self.device = device
        self.net = net.to(device)
        self.loader = loader
        self.opt = opt

    def _train_step(self, inputs, labels):
        self.opt.zero_grad()
        logits = self.net(inputs)
        loss = nn.functional.cross_entropy(logits, labels)
        loss.backward()
        self.opt.step()

    def _one_epoch(self):
        for inputs, labels in self.loader:
            inputs = inputs.to(self.device)
            labels = labels.to(self.device)
            self._train_step(inputs, labels)

    def fit(self, epochs):
        for _ in range(epochs):
            self._one_epoch()


def build_objects():
    data = TensorDataset(torch.randn(64, 6), torch.randint(0, 3, (64,)))
    net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    return data, net, opt


def make_loader(data, size):
    return DataLoader(data, batch_size=size, shuffle=False)


def run(device, epochs, size):
    data, net, opt = build_objects()
    loader = make_loader(data, size)
    Runner(net, loader, opt, device).fit(epochs)


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--size", type=int, default=8)
    args = parser.parse_args()
    torch.manual_seed(0)
    run("cpu", args.epochs, args.size)
)";

// The worker started by mp.spawn (the process index first, then `args=`), its loader made by a
// helper with a DistributedSampler.
const char* const SpawnedWorker = R"(import argparse
import torch
import torch.multiprocessing as mp
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def make_loader(data, size):
    return DataLoader(data, batch_size=size, shuffle=False, sampler=DistributedSampler(data))


def worker(index, world, size):
    data = TensorDataset(torch.randn(64, 6), torch.randint(0, 3, (64,)))
    net = nn.Linear(6, 3)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    loader = make_loader(data, size)
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=8)
    args = parser.parse_args()
    world = torch.cuda.device_count()
    mp.spawn(worker, args=(world, args.size), nprocs=world)
)";

// The training function in a module of its own, started in processes by the script that parses
// the flags and builds the model.
const char* const LaunchingScript = R"(import argparse
import torch.multiprocessing as mp
import torch.nn as nn
import torch
from worker import fit

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--workers", type=int, default=2)

if __name__ == "__main__":
    args = parser.parse_args()
    net = nn.Linear(4, 2)
    net.share_memory()
    data = torch.utils.data.TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
    jobs = []
    for k in range(args.workers):
        job = mp.Process(target=fit, args=(k, args, net, data))
        job.start()
        jobs.append(job)
    for job in jobs:
        job.join()
)";

const char* const LaunchedWorker = R"(import torch
import torch.nn.functional as F


def one_epoch(args, net, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()


def fit(k, args, net, data):
    loader = torch.utils.data.DataLoader(data, batch_size=8)
    opt = torch.optim.SGD(net.parameters(), lr=args.lr)
    one_epoch(args, net, loader, opt)
)";

// One step, no loop around it anywhere: the plan finds no training loop.
const char* const NoLoop = R"(import torch
import torch.nn as nn

net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, y = torch.randn(4, 3), torch.randn(4, 1)
loss = nn.functional.mse_loss(net(x), y)
loss.backward()
opt.step()
)";

int count(const std::string& text, const std::string& what)
{
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

class TestPortStructure : public QObject
{
    Q_OBJECT

private slots:
    void placesMethodStep_data();
    void placesMethodStep();
    void verifiesMethodStep_data();
    void verifiesMethodStep();
    void noLoopIsOneItem();
    void launchIsBound();
};

void TestPortStructure::placesMethodStep_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("contains");
    QTest::addColumn<QStringList>("absent");
    QTest::addColumn<QString>("once"); // a statement the port runs once in its function
    // The step's `self.net` is the instance's argument; `self` is not bound to a batch.
    QTest::addRow("method-step/determined")
        << MethodStep << "determined-pytorchtrial"
        << QStringList{"logits = self.model(inputs)", "self.context.wrap_optimizer(opt)",
                       "batch_size=self.context.get_per_slot_batch_size()"}
        << QStringList{"inputs.net(", "LoopValues(", "TODO(portolan)"} << QString();
    // PopTorch parses the flags in main(): the parser's import moves with it; the factory runs
    // once, and the helper's loader reads the flag the caller passed.
    QTest::addRow("method-step/poptorch")
        << MethodStep << "graphcore-poptorch"
        << QStringList{"    import argparse\n", "batch_size=args.size", "shuffle=False"}
        << QStringList{"TODO(portolan)"} << QString("data, net, opt = build_objects()");
    // The batch size is the flag spawn passes (the worker's third parameter: the process index
    // comes first); the distributed sampler's shuffle becomes the loader's.
    QTest::addRow("spawned-worker/poptorch")
        << SpawnedWorker << "graphcore-poptorch"
        << QStringList{"batch_size=args.size", "shuffle=True"}
        << QStringList{"DistributedSampler(", "shuffle=False", "TODO(portolan)"} << QString();
    QTest::addRow("spawned-worker/determined")
        << SpawnedWorker << "determined-pytorchtrial" << QStringList{"shuffle=True"}
        << QStringList{"DistributedSampler(", "TODO(portolan)"} << QString();
}

void TestPortStructure::placesMethodStep()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QStringList, contains);
    QFETCH(QStringList, absent);
    QFETCH(QString, once);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, script.toStdString(), target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value);
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_VERIFY_CONTAINS(all, contains);
    PORT_VERIFY_ABSENT(all, absent);
    if (!once.isEmpty())
        QVERIFY2(count(all, once.toStdString()) == 1, all.c_str());
}

void TestPortStructure::verifiesMethodStep_data()
{
    QTest::addColumn<QString>("target");
    // Determined: the optimizer the factory returns is wrapped in __init__ (the guide's check
    // follows it through the tuple), so the check has no error.
    QTest::addRow("determined") << "determined-pytorchtrial";
    // PopTorch: built twice, the replayed weights went to the first model and the losses
    // parted at step 1.
    QTest::addRow("poptorch") << "graphcore-poptorch";
}

// Both dry runs: the port reaches its steps, its check has no error, and it trains as the
// original does.
void TestPortStructure::verifiesMethodStep()
{
    QFETCH(QString, target);
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, MethodStep, target.toStdString(), "");
    QVERIFY(r);
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

// A readable project without a loop the plan can find is a partial port with one item at the
// backward() (the CLI exits 1), not a failure to read the project.
void TestPortStructure::noLoopIsOneItem()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, NoLoop);
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY(!plan);
    const auto r = port::portWithoutPlan(plan.error, "graphcore-poptorch", "");
    QVERIFY(r);
    QCOMPARE(r->status(), std::string("partial"));
    QCOMPARE(r->manual.size(), std::size_t(1));
    QCOMPARE(r->manual[0].location.file, std::string("main.py"));
    QCOMPARE(r->manual[0].location.line, 8);
    QVERIFY(r->files.empty());
    // Another failure (no backward() at all) is not turned into a port.
    Diagnostic other;
    other.code = "port.no-training";
    QVERIFY(!port::portWithoutPlan(other, "graphcore-poptorch", ""));
}

// The training function started by mp.Process from another file: the launch hands over the model
// and the data, which the port builds (caller_view.cpp), so there is no item, and one note at
// the launch says the port trains one process (no item per flag either).
void TestPortStructure::launchIsBound()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, LaunchingScript);
    std::ofstream(root / "worker.py") << LaunchedWorker;
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
    auto r = port::generatePort(*plan.value, "determined-pytorchtrial", "");
    QVERIFY(r);
    std::string manuals, notes;
    for (const auto& m : r.value->manual)
        manuals += m.location.file + ":" + std::to_string(m.location.line) + " " + m.message + "\n";
    for (const auto& n : r.value->notes)
        notes += n + "\n";
    QVERIFY2(r.value->manual.empty(), manuals.c_str());
    QVERIFY2(has(notes, "started by `Process(...)` (main.py:"), notes.c_str());
    QVERIFY2(has(notes, "the port is the training of one of them (the first, rank 0)"),
             notes.c_str());
}

QTEST_GUILESS_MAIN(TestPortStructure)
#include "test_port_structure.moc"
