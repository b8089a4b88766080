// Branches on the accelerator and on distributed training (issue 24): the port runs one
// process on the host, so an `if` chain on them is resolved to the branch that run takes, a flag
// the code assigns (`args.parallel = args.nodes > 1 or args.spawn`) is computed from the flags,
// and a value passed two callers up (`per_node` through `worker(dev, per_node, args)`) is the
// caller's. Each row is a fixture written for the pattern.
#include "core/port/static_branch.h"
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// A worker reached directly or through mp.spawn, a device chain, a sampler chain, a metric class
// whose `sync()` (dist.all_reduce) only the distributed branch calls.
const char* const DistributedScript = R"(import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--nodes", type=int, default=-1)
parser.add_argument("--spawn", action="store_true")
parser.add_argument("--device-id", type=int, default=None)
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--lr", type=float, default=0.05)


class Tracker(object):
    def __init__(self, name):
        self.name = name
        self.total = torch.zeros(1)

    def add(self, value):
        self.total += value

    def sync(self):
        dist.all_reduce(self.total, dist.ReduceOp.SUM, async_op=False)


def run_one_epoch(loader, net, loss_fn, opt, tracker):
    net.train()
    for x, y in loader:
        out = net(x)
        loss = loss_fn(out, y)
        tracker.add(loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()


def worker(dev, per_node, args):
    args.device_id = dev
    net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    if not torch.cuda.is_available():
        print("on the host")
    elif args.parallel:
        if args.device_id is not None:
            torch.cuda.set_device(args.device_id)
            net.cuda(args.device_id)
            args.batch = int(args.batch / per_node)
            net = torch.nn.parallel.DistributedDataParallel(net, device_ids=[args.device_id])
        else:
            net = torch.nn.parallel.DistributedDataParallel(net.cuda())
    else:
        net = torch.nn.DataParallel(net).cuda()
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(net.parameters(), args.lr)
    data = TensorDataset(torch.randn(64, 6), torch.randint(0, 3, (64,)))
    if args.parallel:
        sampler = torch.utils.data.distributed.DistributedSampler(data)
    else:
        sampler = None
    loader = DataLoader(data, batch_size=args.batch, shuffle=False, sampler=sampler)
    tracker = Tracker("loss")
    for epoch in range(2):
        if args.parallel:
            sampler.set_epoch(epoch)
        run_one_epoch(loader, net, loss_fn, opt, tracker)
        if args.parallel:
            tracker.sync()


def main():
    args = parser.parse_args()
    torch.manual_seed(0)
    args.parallel = args.nodes > 1 or args.spawn
    if torch.cuda.is_available():
        per_node = torch.cuda.device_count()
    else:
        per_node = 1
    if args.spawn:
        args.nodes = per_node * args.nodes
        mp.spawn(worker, nprocs=per_node, args=(per_node, args))
    else:
        worker(args.device_id, per_node, args)


if __name__ == "__main__":
    main()
)";

// One condition (%COND%) in a script with flags, one of them derived.
const char* const ConditionScript = R"(import argparse
import os
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--n", type=int, default=1)
parser.add_argument("--s", action="store_true")
parser.add_argument("--plain", action="store_true")
parser.add_argument("--gpu", type=int, default=None)
args = parser.parse_args()
args.d = args.n > 1 or args.s
net = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
%COND%
for x in [torch.randn(3, 2)]:
    loss = net(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
)";

// A flag the script sets from other flags after parsing, before it builds the optimizer: the
// original trains with the computed rate, so the port must too.
const char* const RescaledFlagScript = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(6, 3)

    def forward(self, x):
        return self.layer(x)


def run():
    p = argparse.ArgumentParser()
    p.add_argument("--rate", type=float, default=0.05)
    p.add_argument("--factor", type=float, default=4.0)
    p.add_argument("--batch", type=int, default=8)
    opts = p.parse_args()
    opts.rate = opts.rate * opts.factor
    torch.manual_seed(3)
    samples = TensorDataset(torch.randn(48, 6), torch.randint(0, 3, (48,)))
    batches = DataLoader(samples, batch_size=opts.batch)
    net = Tiny()
    sgd = torch.optim.SGD(net.parameters(), lr=opts.rate)
    for _ in range(2):
        for inputs, labels in batches:
            sgd.zero_grad()
            loss = F.cross_entropy(net(inputs), labels)
            loss.backward()
            sgd.step()


if __name__ == "__main__":
    run()
)";

// The same, with the batch loop in a function that the epoch loop calls: the flag is set in
// the caller, before the optimizer it reads it for, not where the batch loop is.
const char* const RescaledFlagCallerScript = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def one_pass(net, batches, sgd):
    net.train()
    for inputs, labels in batches:
        sgd.zero_grad()
        loss = F.cross_entropy(net(inputs), labels)
        loss.backward()
        sgd.step()


def run():
    p = argparse.ArgumentParser()
    p.add_argument("--rate", type=float, default=0.05)
    p.add_argument("--factor", type=float, default=4.0)
    p.add_argument("--passes", type=int, default=2)
    opts = p.parse_args()
    opts.rate = opts.rate * opts.factor
    torch.manual_seed(3)
    samples = TensorDataset(torch.randn(48, 6), torch.randint(0, 3, (48,)))
    batches = DataLoader(samples, batch_size=8)
    net = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))
    sgd = torch.optim.SGD(net.parameters(), lr=opts.rate)
    for _ in range(opts.passes):
        one_pass(net, batches, sgd)


if __name__ == "__main__":
    run()
)";

} // namespace

class TestPortBranches : public QObject
{
    Q_OBJECT

private slots:
    void resolvesCondition_data();
    void resolvesCondition();
    void portsDistributedScript_data();
    void portsDistributedScript();
    void verifiesDistributedScript();
    void verifiesRescaledFlag_data();
    void verifiesRescaledFlag();
};

void TestPortBranches::resolvesCondition_data()
{
    QTest::addColumn<QString>("condition");
    QTest::addColumn<QStringList>("commandLine");
    QTest::addColumn<QString>("taken"); // the taken branch's text, "(as written)" when unresolved
    QTest::addRow("no accelerator")
        << "if torch.cuda.is_available():\n    chosen = 1\nelse:\n    chosen = 2" << QStringList{}
        << "chosen = 2";
    QTest::addRow("no branch runs")
        << "if torch.backends.mps.is_available():\n    chosen = 1" << QStringList{} << "";
    // A derived flag follows the command line: false by default, true with --s.
    QTest::addRow("derived default")
        << "if args.d:\n    chosen = 1\nelif args.gpu is not None:\n    chosen = 2\nelse:\n    "
           "chosen = 3"
        << QStringList{} << "chosen = 3";
    QTest::addRow("derived given") << "if args.d:\n    chosen = 1\nelse:\n    chosen = 3"
                                   << QStringList{"--s"} << "chosen = 1";
    QTest::addRow("gpu given") << "if args.gpu is not None:\n    chosen = 2\nelse:\n    chosen = 3"
                               << QStringList{"--gpu", "0"} << "chosen = 2";
    // A plain flag is a hyperparameter: the port keeps the branch as written.
    QTest::addRow("plain flag") << "if args.plain:\n    chosen = 1\nelse:\n    chosen = 2"
                                << QStringList{} << "(as written)";
    // What only running tells is left as written.
    QTest::addRow("environment variable")
        << "if args.d or os.environ.get('X'):\n    chosen = 1\nelse:\n    chosen = 2"
        << QStringList{} << "(as written)";
}

void TestPortBranches::resolvesCondition()
{
    QFETCH(QString, condition);
    QFETCH(QStringList, commandLine);
    QFETCH(QString, taken);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::string text = ConditionScript;
    text.replace(text.find("%COND%"), 6, condition.toStdString());
    writeOriginal(root, text);
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    std::vector<std::string> words;
    for (const auto& w : commandLine)
        words.push_back(w.toStdString());
    port::PortOptions options;
    options.values = port::argumentValues(words, a.value->facts().flags);
    auto plan = port::planPort(*a.value, options);
    QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
    const auto* src = plan.value->source("main.py");
    QVERIFY(src);
    const port::Stmt* ifStmt = nullptr;
    for (const auto& s : src->statements())
        if (s.type == "if_statement" && s.defines.count("chosen"))
            ifStmt = &s;
    QVERIFY(ifStmt);
    const port::StaticBranches branches(*plan.value, *src);
    const auto t = branches.taken(*ifStmt);
    std::string got = "(as written)";
    if (t) {
        got.clear();
        for (const auto* s : *t)
            got += src->text(s->start, s->end);
    }
    QCOMPARE(QString::fromStdString(got), taken);
}

void TestPortBranches::portsDistributedScript_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("absent");
    const QStringList gone{"DistributedDataParallel", "DataParallel(", "per_node",      "parallel",
                           "DistributedSampler",      "set_epoch",     "int(args.batch"};
    QTest::addRow("determined") << "determined-pytorchtrial" << gone;
    QTest::addRow("poptorch") << "graphcore-poptorch" << gone;
    QTest::addRow("cerebras") << "cerebras-pytorch" << gone;
}

// The port carries the single-process branch only: no distributed statement, no name of the
// other branches, and the sampler the host run uses.
void TestPortBranches::portsDistributedScript()
{
    QFETCH(QString, target);
    QFETCH(QStringList, absent);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, DistributedScript, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value);
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    QVERIFY2(has(all, "sampler = None"), all.c_str());
    PORT_VERIFY_ABSENT(all, absent);
}

// Both dry runs for Determined: the metric class's dist.all_reduce, called only by the
// distributed branch, is not reachable in the port, so the check has no error.
void TestPortBranches::verifiesDistributedScript()
{
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, DistributedScript, "determined-pytorchtrial", "");
    QVERIFY(r);
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortBranches::verifiesRescaledFlag_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("written"); // how the port carries the computed rate
    QTest::addColumn<bool>("inCaller");   // the batch loop in a function the epoch loop calls
    for (const bool inCaller : {false, true}) {
        const char* const shape = inCaller ? "caller" : "inline";
        QTest::addRow("determined/%s", shape) << "determined-pytorchtrial"
                                              << "rate: 0.2" << inCaller;
        QTest::addRow("poptorch/%s", shape) << "graphcore-poptorch"
                                            << "opts.rate = opts.rate * opts.factor" << inCaller;
        QTest::addRow("cerebras/%s", shape) << "cerebras-pytorch"
                                            << "rate: 0.2" << inCaller;
    }
}

// The port trains with the rate the original computes (0.05 x 4), not the flag's default:
// without it, each target's losses part from the original's at the first step.
void TestPortBranches::verifiesRescaledFlag()
{
    QFETCH(QString, target);
    QFETCH(QString, written);
    QFETCH(bool, inCaller);
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, inCaller ? RescaledFlagCallerScript : RescaledFlagScript,
                      target.toStdString(), "");
    QVERIFY(r);
    QVERIFY2(has(allText(*r.value), written.toStdString()), allText(*r.value).c_str());
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortBranches)
#include "test_port_branches.moc"
