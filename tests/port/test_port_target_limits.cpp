// What each target takes (issue 24), each on a small fixture written for its pattern: a
// scheduler stepped once per epoch becomes a Cerebras schedule counted in steps when the steps of
// an epoch are known exactly, and a precise manual item when they are not; a batch size given
// through a `**kwargs` dict is the loader's; a data helper handed the flags namespace whole gets
// it in the Cerebras data functions; an optimizer poptorch.trainingModel does not train is one
// item left (the manual item names the spot the guide's check flags).
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <sstream>

using namespace portolan;
using namespace portfixture;

namespace {

// A training function called once per epoch by main(), which steps the scheduler after it; the
// pieces marked @DATA@, @BATCH@ and @SCHED@ are swapped per row.
const char* const Script = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR, MultiStepLR, ExponentialLR
from torch.utils.data import DataLoader, Dataset
from torchvision import datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        return F.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


class Pairs(Dataset):
    def __init__(self, root):
        self.items = list(range(100))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.zeros(1, 28, 28), 0


def train(args, model, loader, optimizer):
    model.train()
    for data, target in loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--lr', type=float, default=1.0)
    parser.add_argument('--gamma', type=float, default=0.7)
    parser.add_argument('--epochs', type=int, default=3)
    args = parser.parse_args()
    kwargs = {'batch_size': @BATCH@, 'shuffle': True}
    train_set = @DATA@
    loader = DataLoader(train_set, **kwargs)
    model = Net()
    optimizer = optim.SGD(model.parameters(), lr=args.lr)
    scheduler = @SCHED@
    for epoch in range(args.epochs):
        train(args, model, loader, optimizer)
        scheduler.step()


if __name__ == '__main__':
    main()
)";

std::string script(const QString& data, const QString& batch, const QString& sched)
{
    QString s = QString::fromUtf8(Script);
    s.replace("@DATA@", data).replace("@BATCH@", batch).replace("@SCHED@", sched);
    return s.toStdString();
}

} // namespace

class TestPortTargetLimits : public QObject
{
    Q_OBJECT

private slots:
    void epochSchedules_data();
    void epochSchedules();
    void namespaceToDataHelper_data();
    void namespaceToDataHelper();
    void popTorchOptimizerOnce();
    void popTorchEntryInFolder();
    void popTorchFlagsUnderAnotherName();
    void determinedSubcommandInFolder();
    void cerebrasOwnArgsParameter();
    void valueBuiltByReassignments();
};

void TestPortTargetLimits::epochSchedules_data()
{
    QTest::addColumn<QString>("data");
    QTest::addColumn<QString>("batch");
    QTest::addColumn<QString>("sched");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<bool>("full");
    QTest::addColumn<QString>("contains");
    QTest::addColumn<QString>("manual");

    const QString mnist = "datasets.MNIST('../data', train=True, download=True)";
    const QString step = "StepLR(optimizer, step_size=2, gamma=args.gamma)";
    // MNIST's 60000 training samples at a batch of 64 (a flag's default, through the dict):
    // 937 steps an epoch (the port's loader drops the last partial batch).
    QTest::newRow("step-per-epoch/trainer")
        << mnist << "args.batch_size" << step << "cerebras-pytorch"
        << "trainer" << true
        << "    schedulers:\n      - StepLR:\n          initial_learning_rate: 1.0\n"
           "          step_size: 1874\n          gamma: 0.7\n"
        << "";
    QTest::newRow("step-per-epoch/runner")
        << mnist << "args.batch_size" << step << "cerebras-pytorch"
        << "runner" << true
        << "  learning_rate:\n    scheduler: \"Exponential\"\n    initial_learning_rate: 1.0\n"
           "    decay_steps: 1874\n    decay_rate: 0.7\n    staircase: true\n"
        << "";
    // The test split (train=False, positional) and a literal batch: 10000 // 100 = 100 steps.
    QTest::newRow("multistep-test-split/trainer")
        << "datasets.MNIST('../data', False)"
        << "100"
        << "MultiStepLR(optimizer, milestones=[1, 3], gamma=0.5)"
        << "cerebras-pytorch"
        << "trainer" << true << "          gamma: 0.5\n          milestones: [100, 300]\n"
        << "";
    QTest::newRow("multistep-test-split/runner")
        << "datasets.MNIST('../data', False)"
        << "100"
        << "MultiStepLR(optimizer, milestones=[1, 3], gamma=0.5)"
        << "cerebras-pytorch"
        << "runner" << true
        << "    scheduler: \"PiecewiseConstant\"\n    values: [1.0, 0.5, 0.25]\n"
           "    boundaries: [100, 300]\n"
        << "";
    QTest::newRow("exponential-per-epoch/trainer")
        << "datasets.CIFAR10(root='.', train=True)"
        << "500"
        << "ExponentialLR(optimizer, gamma=0.9)"
        << "cerebras-pytorch"
        << "trainer" << true
        << "      - ExponentialLR:\n          initial_learning_rate: 1.0\n"
           "          total_iters: 100\n          decay_rate: 0.9\n          staircase: true\n"
        << "";
    // A data set whose size is its argument (FakeData(size, ...)): 1000 // 100 = 10 steps.
    QTest::newRow("fake-data-size/trainer")
        << "datasets.FakeData(1000, (1, 28, 28), 10, transforms.ToTensor())"
        << "100" << step << "cerebras-pytorch"
        << "trainer" << true << "          step_size: 20\n"
        << "";
    // A data set of the project's own: its size is the data's, not the code's.
    QTest::newRow("own-dataset/runner")
        << "Pairs('../data')"
        << "args.batch_size" << step << "cerebras-pytorch"
        << "runner" << false << "learning_rate: 1.0"
        << "the steps of an epoch (the samples of `train_set` // batch size 64) are not known "
           "from the code";
    // A split chosen at run time is not a known size either.
    QTest::newRow("runtime-split/trainer") << "datasets.MNIST('../data', train=args.epochs > 1)"
                                           << "64" << step << "cerebras-pytorch"
                                           << "trainer" << false << "learning_rate: 1.0"
                                           << "are not known from the code";
    // A scheduler whose arguments are not values (a step size computed at run time).
    QTest::newRow("computed-step-size/trainer")
        << mnist << "64"
        << "StepLR(optimizer, step_size=len(train_set) // 10)"
        << "cerebras-pytorch"
        << "trainer" << false << "learning_rate: 1.0"
        << "its arguments are not values";
    // A scheduler stepped with a metric: no Cerebras schedule reads one (a vendor fact, said
    // as such, not "its arguments are not values").
    QTest::newRow("plateau/runner")
        << mnist << "64"
        << "optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5)"
        << "cerebras-pytorch"
        << "runner" << false << "learning_rate: 1.0"
        << "none reads a metric as ReduceLROnPlateau's step(metric) does";
    // A kind whose Cerebras form Portolan does not write: named as such.
    QTest::newRow("cosine/trainer")
        << mnist << "64"
        << "optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)"
        << "cerebras-pytorch"
        << "trainer" << false << "learning_rate: 1.0"
        << "Portolan writes StepLR, MultiStepLR and ExponentialLR only, and this is a "
           "CosineAnnealingLR";
    // The batch size given through the dict reaches the other targets too.
    QTest::newRow("dict-batch-size/poptorch")
        << mnist << "args.batch_size" << step << "graphcore-poptorch"
        << "" << true << "batch_size=args.batch_size"
        << "";
}

void TestPortTargetLimits::epochSchedules()
{
    QFETCH(QString, data);
    QFETCH(QString, batch);
    QFETCH(QString, sched);
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(bool, full);
    QFETCH(QString, contains);
    QFETCH(QString, manual);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, script(data, batch, sched));
    auto r = generateFrom(root, target.toStdString(), api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value), manuals = manualText(*r.value);
    QVERIFY2(r.value->full() == full, manuals.c_str());
    QVERIFY2(has(all, contains.toStdString()), all.c_str());
    if (!manual.isEmpty())
        QVERIFY2(has(manuals, manual.toStdString()), manuals.c_str());
}

// The loader built by a helper of another file that takes the flags namespace whole
// (`get_data(opts)`): the Cerebras data functions rebuild the namespace from the params, as the
// model's constructor does, instead of reading a name they do not have.
void TestPortTargetLimits::namespaceToDataHelper_data()
{
    QTest::addColumn<QString>("api");
    QTest::addColumn<QString>("contains");
    QTest::newRow("runner") << "runner"
                            << "def get_train_dataloader(params):\n"
                               "    opts = types.SimpleNamespace(\n"
                               "        batch=params.get(\"model\", {}).get(\"batch\", 8),";
    QTest::newRow("trainer") << "trainer"
                             << "    def create_dataloader(self):\n"
                                "        opts = types.SimpleNamespace(\n"
                                "            batch=self.config.batch,";
}

void TestPortTargetLimits::namespaceToDataHelper()
{
    QFETCH(QString, api);
    QFETCH(QString, contains);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    fs::create_directories(root / "src");
    std::ofstream(root / "src" / "__init__.py") << "";
    std::ofstream(root / "src" / "data.py") << R"(import torch
from torch.utils.data import DataLoader, TensorDataset


def get_data(opts):
    data = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
    return DataLoader(data, batch_size=opts.batch), len(data)
)";
    std::ofstream(root / "main.py") << R"(import argparse
import torch
import torch.nn as nn
from src.data import get_data


def train(model, train_dl, loss_fn, optim, opts):
    model.train()
    for x, y in train_dl:
        optim.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optim.step()


def main(opts):
    train_dl, size = get_data(opts)
    model = nn.Linear(8, 3)
    loss_fn = nn.CrossEntropyLoss()
    optim = torch.optim.SGD(model.parameters(), lr=opts.lr)
    for epoch in range(opts.epochs):
        train(model, train_dl, loss_fn, optim, opts)


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch', type=int, default=8)
    parser.add_argument('--lr', type=float, default=0.1)
    parser.add_argument('--epochs', type=int, default=2)
    opts = parser.parse_args()
    main(opts)
)";
    auto r = generateFrom(root, "cerebras-pytorch", api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value), manuals = manualText(*r.value);
    QVERIFY2(r.value->full(), manuals.c_str());
    QVERIFY2(has(all, contains.toStdString()), all.c_str());
    QVERIFY2(has(all, "import types\n"), all.c_str());
}

// Adadelta on PopTorch: the port keeps it (another optimizer is another training), the manual
// item names where train.py builds it, and the guide's error there is not listed a second time.
void TestPortTargetLimits::popTorchOptimizerOnce()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    fs::create_directories(root);
    QString body = QString::fromStdString(
        script("datasets.MNIST('.', train=True)", "64", "StepLR(optimizer, step_size=1)"));
    body.replace("optim.SGD(model.parameters(), lr=args.lr)",
                 "optim.Adadelta(model.parameters(), lr=args.lr)");
    std::ofstream(root / "main.py") << body.toStdString();
    auto r = generateFrom(root, "graphcore-poptorch", "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QCOMPARE(r.value->manual.size(), std::size_t(1));
    const auto& item = r.value->manual.front();
    QVERIFY(has(item.message, "torch.optim.Adadelta"));
    QVERIFY(has(item.message, "changes the training"));
    QCOMPARE(item.related.size(), std::size_t(1));
    const SourceLocation spot = item.related.front();
    QCOMPARE(spot.file, std::string("train.py"));
    std::string train;
    for (const auto& g : r.value->files)
        if (g.path == "train.py")
            train = g.text;
    std::istringstream lines(train);
    std::string line;
    for (int i = 0; i < spot.line; ++i)
        std::getline(lines, line);
    QVERIFY2(has(line, "optimizer = optim.Adadelta("), line.c_str());
    // The guide's error at that spot is the item's consequence; another error is still left.
    port::VerifyResult checked;
    checked.checkErrors = 2;
    checked.dryRunSteps = 3;
    guides::Finding same, other;
    same.checkId = other.checkId = "graphcore-poptorch.poptorch-optim";
    same.location = spot;
    other.location = SourceLocation{"train.py", spot.line + 3, 1};
    checked.checkFindings = {same, other};
    const auto left = r.value->leftFor(&checked);
    QCOMPARE(left.size(), std::size_t(2));
    QCOMPARE(left[1].location.line, spot.line + 3);
    QCOMPARE(r.value->status(&checked), std::string("partial"));
}

// A script in a sub-folder that imports its sibling modules (`from helpers import ...`): the
// PopTorch script is written next to it, so those imports resolve as they did.
void TestPortTargetLimits::popTorchEntryInFolder()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    fs::create_directories(root / "app");
    std::ofstream(root / "app" / "helpers.py") << R"(import torch.nn as nn


def make_model():
    return nn.Linear(8, 3)
)";
    std::ofstream(root / "app" / "main.py") << R"(import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from helpers import make_model

model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(16, 8), torch.randint(0, 3, (16,))), batch_size=4)
for x, y in loader:
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
)";
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
    QCOMPARE(plan.value->entry, std::string("app/main.py"));
    auto r = port::generatePort(*plan.value, "graphcore-poptorch", "");
    QVERIFY(r);
    QCOMPARE(r.value->entry, std::string("app/train.py"));
    bool written = false, helper = false;
    for (const auto& g : r.value->files) {
        written = written || (g.path == "app/train.py" && has(g.text, "from helpers import"));
        helper = helper || g.path == "app/helpers.py";
    }
    QVERIFY(written);
    QVERIFY(helper);
}

// The flags parsed as `args` and handed to `def main(opts)`, whose code reads `opts`: the
// PopTorch main() binds `opts` to what it parsed, and its poptorch.Options take another name.
void TestPortTargetLimits::popTorchFlagsUnderAnotherName()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main(opts):
    data = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
    loader = DataLoader(data, batch_size=opts.batch)
    model = nn.Linear(8, 3)
    loss_fn = nn.CrossEntropyLoss()
    optim = torch.optim.SGD(model.parameters(), lr=opts.lr)
    for x, y in loader:
        optim.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optim.step()


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch', type=int, default=8)
    parser.add_argument('--lr', type=float, default=0.1)
    args = parser.parse_args()
    main(args)
)");
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
    QCOMPARE(plan.value->argsName, std::string("opts"));
    auto r = port::generatePort(*plan.value, "graphcore-poptorch", "");
    QVERIFY(r);
    std::string train;
    for (const auto& g : r.value->files)
        if (g.path == "train.py")
            train = g.text;
    QVERIFY2(has(train, "    args = parser.parse_args()\n    opts = args\n"), train.c_str());
    QVERIFY2(has(train, "    ipu_opts = poptorch.Options()\n"), train.c_str());
    QVERIFY2(has(train, "options=ipu_opts,"), train.c_str());
    QVERIFY2(!has(train, "    opts = poptorch.Options()"), train.c_str());
}

// A script in a sub-folder with sub-commands (`train`, and `eval` whose --model is required):
// the Determined port needs no value for a flag nothing it runs reads, and its model_def.py
// puts the script's folder on the path for the sibling imports.
void TestPortTargetLimits::determinedSubcommandInFolder()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    fs::create_directories(root / "tool");
    std::ofstream(root / "tool" / "nets.py") << R"(import torch.nn as nn


def make_net():
    return nn.Linear(8, 3)
)";
    std::ofstream(root / "tool" / "cli.py") << R"(import argparse
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from nets import make_net


def train(args):
    model = make_net()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    data = TensorDataset(torch.randn(32, 8), torch.randint(0, 3, (32,)))
    for x, y in DataLoader(data, batch_size=args.batch_size):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="subcommand")
    t = sub.add_parser("train")
    t.add_argument("--lr", type=float, default=0.1)
    t.add_argument("--batch-size", type=int, default=4)
    e = sub.add_parser("eval")
    e.add_argument("--model", type=str, required=True)
    args = parser.parse_args()
    if args.subcommand == "train":
        train(args)


if __name__ == "__main__":
    main()
)";
    auto r = generateFrom(root, "determined-pytorchtrial", "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    std::string manuals, notes, def;
    for (const auto& m : r.value->manual)
        manuals += m.message + "\n";
    for (const auto& n : r.value->notes)
        notes += n + "\n";
    for (const auto& g : r.value->files)
        if (g.path == "model_def.py")
            def = g.text;
    QVERIFY2(!has(manuals, "--model"), manuals.c_str());
    QVERIFY2(has(notes, "the flag --model is required by the original's command line but nothing "
                        "the port runs reads it"),
             notes.c_str());
    QVERIFY2(has(def, "os.path.join(os.path.dirname(os.path.abspath(__file__)), \"tool\"))"),
             def.c_str());
}

// A model class whose method takes `*args` (its own parameter named like the flags namespace)
// does not read the flags: the Cerebras port has no manual item for it.
void TestPortTargetLimits::cerebrasOwnArgsParameter()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument('--batch-size', type=int, default=4)
args = parser.parse_args()
loader = DataLoader(TensorDataset(torch.randn(16, 8), torch.randn(16, 8)),
                    batch_size=args.batch_size)


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 8)

    def forward(self, x):
        return self.net(x)

    def loss_function(self, *args):
        return ((args[0] - args[1]) ** 2).mean()


model = AutoEncoder()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    optimizer.zero_grad()
    loss = model.loss_function(model(x), y)
    loss.backward()
    optimizer.step()
)");
    auto r = generateFrom(root, "cerebras-pytorch", "runner");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string manuals = manualText(*r.value);
    QVERIFY2(r.value->full(), manuals.c_str());
}

// A value the step reads, built over several assignments before the loop (`w = base();
// w = w * 2; w = w.repeat(...)`): every one of them runs in the port, in order.
void TestPortTargetLimits::valueBuiltByReassignments()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def base():
    return torch.ones(1, 3)


def train(model, loader, optimizer, w):
    for x, y in loader:
        optimizer.zero_grad()
        loss = ((model(x) - y) * w[:len(x)]).pow(2).mean()
        loss.backward()
        optimizer.step()


def main():
    model = nn.Linear(8, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(torch.randn(16, 8), torch.randn(16, 3)), batch_size=4)
    w = base()
    w = w * 2
    w = w.repeat(4, 1)
    for epoch in range(2):
        train(model, loader, optimizer, w)


if __name__ == '__main__':
    main()
)");
    auto r = generateFrom(root, "cerebras-pytorch", "runner");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    std::string model;
    for (const auto& g : r.value->files)
        if (g.path == "model.py")
            model = g.text;
    QVERIFY2(has(model, "        w = base()\n        w = w * 2\n        w = w.repeat(4, 1)\n"),
             model.c_str());
}

QTEST_GUILESS_MAIN(TestPortTargetLimits)
#include "test_port_target_limits.moc"
