// The generated step as a porting engineer would leave it (issue 24, probe D8): no unpacking
// alias the step does not read (`i = batch_idx`, `batch = batch`), no loop variable shadowed by
// the pass PopTorch's port writes around a batch loop that binds `epoch`, no comment about the
// training's backward or optimizer in the evaluation copy of the step, and a note for each
// checkpoint save of the original saying what the target does instead, and a loader that a
// helper builds with its own data set made the target's loader over that data set. Each row is a
// fixture written for the pattern; the verification rows run both dry runs.
#include "core/port/step_cleanup.h"
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// An enumerate loop whose index the step does not read, comments about the training in the
// step, and a checkpoint save after the training.
const char* const IndexUnused = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.randn(16, 3), torch.randn(16, 1)), batch_size=4)
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for i, sample in enumerate(loader):
        # zero the parameter gradients
        optimizer.zero_grad()
        # forward pass
        output = model(sample[0])
        loss = criterion(output, sample[1])
        # Backward and optimize
        loss.backward()
        optimizer.step()
torch.save(model.state_dict(), 'linear.pt')
)";

// The index read by the step: its alias stays.
const char* const IndexRead = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.randn(16, 3), torch.randn(16, 1)), batch_size=4)
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y) * (1.0 + 0.0 * i)
        loss.backward()
        optimizer.step()
)";

// A loop over epochs that is the batch loop itself (a full-batch training).
const char* const EpochIsTheBatch = R"(import torch
import torch.nn as nn

torch.manual_seed(0)
features = torch.randn(12, 3)
labels = torch.randn(12, 1)
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(5):
    optimizer.zero_grad()
    loss = criterion(model(features), labels)
    loss.backward()
    optimizer.step()
)";

// The loader's own name as the batch: `for batch in loader`.
const char* const BatchNamedBatch = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(16, 3), torch.randn(16, 1)), batch_size=4)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for batch in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(batch[0]), batch[1])
        loss.backward()
        optimizer.step()
)";

// A loader built by a helper that makes its own data set, iterated in a `while step < N` loop.
const char* const HelperLoader = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_loader(args, split, shuffle):
    generator = torch.Generator().manual_seed(1 if split == "train" else 2)
    inputs = torch.randn(32, 5, generator=generator)
    targets = torch.randint(0, 3, (32,), generator=generator)
    return DataLoader(TensorDataset(inputs, targets), batch_size=args.batch_size,
                      shuffle=shuffle, drop_last=shuffle)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Linear(5, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = make_loader(args, "train", shuffle=True)
    step = 0
    while step < args.steps:
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
            if step >= args.steps:
                break


if __name__ == "__main__":
    main()
)";

// A `while` loop that draws its batches with next(): the batch is what next() returns, and the
// port binds no empty name.
const char* const WhileDraws = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(16, 3), torch.randn(16, 1)), batch_size=4)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
step = 0
while step < 4:
    x, y = next(iter(loader))
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    step += 1
)";

} // namespace

class TestPortCleanup : public QObject
{
    Q_OBJECT
private slots:
    void generated_data();
    void generated();
    void checkpointSaves_data();
    void checkpointSaves();
    void aliasesOfAMethod_data();
    void aliasesOfAMethod();
    void verified();
    void helperLoader_data();
    void helperLoader();
};

void TestPortCleanup::generated_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("present");
    QTest::addColumn<QStringList>("absent");
    QTest::addRow("index unused, Determined")
        << IndexUnused << "determined-pytorchtrial"
        << QStringList{"        sample = batch\n", "        # forward pass\n"}
        << QStringList{"i = batch_idx", "# Backward and optimize\n        return",
                       "# zero the parameter gradients\n        sample = batch"};
    QTest::addRow("index read, Determined")
        << IndexRead << "determined-pytorchtrial"
        << QStringList{"        i = batch_idx\n", "        (x, y) = batch\n"} << QStringList{};
    QTest::addRow("index unused, Cerebras")
        << IndexUnused << "cerebras-pytorch" << QStringList{"        sample = batch\n"}
        << QStringList{"i = batch_idx"};
    QTest::addRow("batch named batch, Determined")
        << BatchNamedBatch << "determined-pytorchtrial" << QStringList{"batch[0]"}
        << QStringList{"batch = batch\n"};
    QTest::addRow("batch named batch, Cerebras")
        << BatchNamedBatch << "cerebras-pytorch" << QStringList{"batch[0]"}
        << QStringList{"batch = batch\n"};
    QTest::addRow("epoch is the batch, Determined")
        << EpochIsTheBatch << "determined-pytorchtrial" << QStringList{}
        << QStringList{"epoch = batch\n"};
    QTest::addRow("while loop, Determined")
        << WhileDraws << "determined-pytorchtrial" << QStringList{"x, y = batch\n"}
        << QStringList{"\n         = batch\n", "next(iter("};
    QTest::addRow("while loop, Cerebras")
        << WhileDraws << "cerebras-pytorch" << QStringList{"x, y = batch\n"}
        << QStringList{"\n         = batch\n", "next(iter("};
    QTest::addRow("while loop, PopTorch")
        << WhileDraws << "graphcore-poptorch" << QStringList{"for x, y in train_loader:"}
        << QStringList{"for  in ", "next(iter("};
    QTest::addRow("epoch is the batch, PopTorch")
        << EpochIsTheBatch << "graphcore-poptorch" << QStringList{"    for _ in range(1):"}
        << QStringList{"for epoch in range(1)"};
}

void TestPortCleanup::generated()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);
    QTemporaryDir dir;
    auto r = generate(fs::path(dir.path().toStdString()) / "original", script.toStdString(),
                      target.toStdString());
    QVERIFY2(r, r.error.message.c_str());
    const std::string text = allText(*r.value);
    PORT_VERIFY_CONTAINS(text, present);
    PORT_VERIFY_ABSENT(text, absent);
}

void TestPortCleanup::checkpointSaves_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<QString>("instead");
    QTest::addRow("determined") << "determined-pytorchtrial"
                                << ""
                                << "Determined checkpoints the trial's wrapped model";
    // The save after the training runs as written, on the host model (poptorch_save.cpp): no
    // note; `instead` is then what train.py writes.
    QTest::addRow("poptorch") << "graphcore-poptorch"
                              << ""
                              << "torch.save(model.state_dict(), 'linear.pt')";
    QTest::addRow("cerebras runner") << "cerebras-pytorch"
                                     << "runner"
                                     << "runconfig.checkpoint_steps";
    QTest::addRow("cerebras trainer") << "cerebras-trainer"
                                      << "trainer"
                                      << "checkpoint: steps:";
}

// Each target says what became of the original's save, at its place in the original; PopTorch
// keeps it.
void TestPortCleanup::checkpointSaves()
{
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(QString, instead);
    QTemporaryDir dir;
    auto r = generate(fs::path(dir.path().toStdString()) / "original", IndexUnused,
                      target.toStdString(), api.toStdString());
    QVERIFY2(r, r.error.message.c_str());
    std::string notes;
    for (const auto& n : r.value->notes)
        notes += n + "\n";
    const bool kept = target == "graphcore-poptorch";
    QVERIFY2(has(notes, "checkpoint save `torch.save(model.state_dict(), 'linear.pt')` "
                        "(main.py:20) is not carried over: ") != kept,
             notes.c_str());
    QVERIFY2(has(kept ? allText(*r.value) : notes, instead.toStdString()), notes.c_str());
}

void TestPortCleanup::aliasesOfAMethod_data()
{
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("expected");
    QTest::addRow("self alias") << "    def f(self, batch):\n        batch = batch\n        "
                                   "return batch\n"
                                << "    def f(self, batch):\n        return batch\n";
    QTest::addRow("unread index, signature on two lines")
        << "    def g(self, batch,\n          batch_idx):\n        # c\n        x = batch\n"
           "        i = batch_idx\n        return x\n"
        << "    def g(self, batch,\n          batch_idx):\n        # c\n        x = batch\n"
           "        return x\n";
    QTest::addRow("read in a comment only")
        << "    def h(self, batch):\n        n = batch\n        return 1  # n\n"
        << "    def h(self, batch):\n        return 1  # n\n";
    QTest::addRow("attribute of the same name")
        << "    def h(self, batch):\n        n = batch\n        return self.n\n"
        << "    def h(self, batch):\n        return self.n\n";
    QTest::addRow("user's own alias later stays")
        << "    def h(self, batch):\n        y = 2\n        n = batch\n        return y\n"
        << "    def h(self, batch):\n        y = 2\n        n = batch\n        return y\n";
}

void TestPortCleanup::aliasesOfAMethod()
{
    QFETCH(QString, method);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(port::dropDeadAliases(method.toStdString())), expected);
}

// The cleaned step still trains like the original (Determined, the enumerate loop).
void TestPortCleanup::verified()
{
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, IndexUnused, "determined-pytorchtrial");
    QVERIFY2(r, r.error.message.c_str());
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortCleanup::helperLoader_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("present");
    QTest::addColumn<QStringList>("absent");
    // The helper reads torch's DataLoader, which Determined's import would shadow: the helper
    // reads it qualified, and the trial's loaders are Determined's.
    QTest::addRow("determined")
        << "determined-pytorchtrial"
        << QStringList{"        args = self.flags()\n        return DataLoader(\n",
                       "make_loader(args, \"train\", shuffle=True).dataset,",
                       "batch_size=self.context.get_per_slot_batch_size()",
                       "drop_last=True",
                       "global_batch_size: 8",
                       "import torch.utils.data\n",
                       "return torch.utils.data.DataLoader(TensorDataset(inputs, targets)"}
        << QStringList{"from torch.utils.data import DataLoader"};
    QTest::addRow("poptorch") << "graphcore-poptorch"
                              << QStringList{"make_loader(args, \"train\", shuffle=True).dataset"}
                              << QStringList{};
    QTest::addRow("cerebras runner")
        << "cerebras-pytorch" << QStringList{"shuffle=True).dataset"} << QStringList{};
}

// A loader a helper builds with its own data set: the port's loader is the target's, over the
// data set of the helper's loader with the helper's batch size, not the loop's values one by one.
void TestPortCleanup::helperLoader()
{
    QFETCH(QString, target);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, HelperLoader, target.toStdString());
    QVERIFY2(r, r.error.message.c_str());
    const std::string text = allText(*r.value);
    PORT_VERIFY_CONTAINS(text, present);
    absent << "LoopValues("
           << "global_batch_size: 1 ";
    PORT_VERIFY_ABSENT(text, absent);
    if (!torchAvailable())
        return;
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortCleanup)
#include "test_port_cleanup.moc"
