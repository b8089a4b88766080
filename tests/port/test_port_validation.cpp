// The original's validation pass on PopTorch (issue 24, D6 and the metrics): a call of its
// evaluation function, or the evaluation loop written inline beside a training function, runs
// each epoch after the training pass with poptorch.inferenceModel over the trained model. The
// verification replays the first steps only, so each row also runs the original and its written
// port whole (PopTorch's stand-ins) with one seed and compares what their validation prints:
// the same losses and accuracies, epoch after epoch.
#include "tests/port/port_fixture.h"
#include "tests/port/validation_fixtures.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// Data without randomness and a model with dropout: a port that left the model in eval mode for
// the next training pass, or validated other weights, prints other numbers.
const char* const Head = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return F.log_softmax(self.fc2(self.drop(F.relu(self.fc1(x)))), dim=1)


def train(model, loader, optimizer):
    model.train()
    for data, target in loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
    return loss.item()

)";

// Validation in a function that reads the model and the device as module globals (the port
// defines it in main(), where the model is): its device move is dropped like the training's.
const char* const ByGlobals = R"(
def check(epoch):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in valid_loader:
            x = x.to(device)
            total += F.nll_loss(model(x), y, reduction="sum").item()
    print("epoch", epoch, "valid", round(total, 6))


parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()
device = torch.device("cpu")
train_loader = DataLoader(
    TensorDataset(torch.linspace(-2, 2, 240).view(40, 6).sin(), torch.arange(40) % 3), batch_size=8)
valid_loader = DataLoader(
    TensorDataset(torch.linspace(-2, 2, 120).view(20, 6).cos(), torch.arange(20) % 3), batch_size=10)
model = Net().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(1, args.epochs + 1):
    train(model, train_loader, optimizer)
    check(epoch)
)";

// Validation in a function the epoch loop calls: a summed loss and an accuracy of sums.
const char* const ByFunction = R"(
def test(model, loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(loader.dataset)
    print("test loss {:.6f} accuracy {}/{}".format(test_loss, correct, len(loader.dataset)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    train_set = TensorDataset(torch.linspace(-2, 2, 240).view(40, 6).sin(), torch.arange(40) % 3)
    test_set = TensorDataset(torch.linspace(-2, 2, 120).view(20, 6).cos(), torch.arange(20) % 3)
    train_loader = DataLoader(train_set, batch_size=8)
    test_loader = DataLoader(test_set, batch_size=10)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(1, args.epochs + 1):
        train(model, train_loader, optimizer)
        test(model, test_loader)


if __name__ == "__main__":
    main()
)";

// Validation written inline in the epoch loop at module level, its average printed after it
// beside a value only the training function returns.
const char* const Inline = R"(
train_set = TensorDataset(torch.linspace(-2, 2, 240).view(40, 6).sin(), torch.arange(40) % 3)
valid_set = TensorDataset(torch.linspace(-2, 2, 120).view(20, 6).cos(), torch.arange(20) % 3)
train_loader = DataLoader(train_set, batch_size=8)
valid_loader = DataLoader(valid_set, batch_size=5)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for ep in range(3):
    last = train(model, train_loader, optimizer)
    running = 0.0
    hits = 0
    model.eval()
    with torch.no_grad():
        for i, (x, y) in enumerate(valid_loader):
            out = model(x)
            running += F.nll_loss(out, y).item()
            hits += (out.argmax(1) == y).sum().item()
    average = running / (i + 1)
    print("epoch", ep, "valid", round(average, 6), "hits", hits)
    print("tail", ep, last, average)
)";

// Epoch figures from the training pass's running sums, printed by an f-string beside the
// validation's result.
const char* const EpochFiguresInFString = R"(import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def check(net, feed, crit):
    net.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in feed:
            total += crit(net(x), y).item()
    return total / len(feed)


def main():
    torch.manual_seed(3)
    fit_set = TensorDataset(torch.randn(96, 6), torch.randint(0, 2, (96,)))
    held = TensorDataset(torch.randn(32, 6), torch.randint(0, 2, (32,)))
    fit_feed = DataLoader(fit_set, batch_size=8, shuffle=True)
    held_feed = DataLoader(held, batch_size=8)
    net = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 2))
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    for ep in range(3):
        net.train()
        summed = 0.0
        hits = 0
        for x, y in fit_feed:
            opt.zero_grad()
            out = net(x)
            cost = crit(out, y)
            cost.backward()
            opt.step()
            summed += cost.item()
            hits += (out.argmax(1) == y).sum().item()
        mean_cost = summed / len(fit_feed)
        rate = hits / len(fit_set)
        held_cost = check(net, held_feed, crit)
        print(f"ep {ep} | fit {mean_cost:.4f} {rate:.3f} | held {held_cost:.4f}")


if __name__ == "__main__":
    main()
)";

} // namespace

class TestPortValidation : public QObject
{
    Q_OBJECT

private slots:
    void popTorchValidates_data();
    void popTorchValidates();
    void plateauForms_data();
    void plateauForms();
    void epochFiguresInFString_data();
    void epochFiguresInFString();
};

void TestPortValidation::popTorchValidates_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QStringList>("present");
    QTest::addColumn<QStringList>("absent");
    QTest::addColumn<int>("printed");  // lines the original prints (but the `tail` ones)
    QTest::addColumn<QString>("drop"); // a generated line without which the numbers part
    QTest::addRow("function") << QString(Head) + ByFunction
                              << QStringList{"inference_model = poptorch.inferenceModel(model, ",
                                             "test(inference_model, test_loader)",
                                             "training_model.detachFromDevice()\n        test("}
                              << QStringList{"inferenceModel(model.eval()"} << 3
                              << "        model.train()\n";
    QTest::addRow("inline") << QString(Head) + Inline
                            << QStringList{"out = inference_model(x)", "        model.eval()\n",
                                           "print(\"epoch\", epoch, \"valid\"",
                                           "also prints here what the port's training pass"}
                            << QStringList{"inferenceModel(model.eval()",
                                           "\n        print(\"tail\""}
                            << 3 << "        model.train()\n";
    QTest::addRow("globals") << QString(Head) + ByGlobals
                             << QStringList{"    def check(epoch):\n",
                                            "F.nll_loss(inference_model(x), y", "check(epoch)"}
                             << QStringList{"inferenceModel(model.eval()", "x.to(device)"} << 3
                             << "        model.train()\n";
    QTest::addRow("plateau")
        << QString::fromStdString(withDecay(Decay))
        << QStringList{"    def evaluate(data_source):\n", "output = inference_model(data)",
                       "        epoch_start_time = time.time()\n",
                       "ReduceLROnPlateau(\n        optimizer, mode=\"min\", factor=1 / 4.0, "
                       "patience=0, threshold=0, threshold_mode=\"abs\")",
                       "plateau.step(val_loss)\n        training_model.setOptimizer(optimizer)"}
        << QStringList{"TODO(portolan)", "lr /= 4.0"} << 12 << "        plateau.step(val_loss)\n";
}

void TestPortValidation::popTorchValidates()
{
    QFETCH(QString, script);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);
    QFETCH(int, printed);
    QFETCH(QString, drop);
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, script.toStdString(), "graphcore-poptorch");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string text = allText(*r.value);
    PORT_VERIFY_CONTAINS(text, present);
    PORT_VERIFY_ABSENT(text, absent);
    QVERIFY2(r.value->manual.empty(), manualText(*r.value).c_str());
    const auto v = writeAndVerify(root, *r.value);
    PORT_VERIFY_PROOF(v);

    // Whole runs: the port validates after each epoch as the original does, with the same
    // numbers; without the line `drop`, its numbers are not the original's.
    QString error;
    const QString original = runWhole(root, "main.py", &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const fs::path port = root.parent_path() / "port";
    const QString ported = runWhole(port, "train.py", &error);
    QVERIFY2(error.isEmpty(), qPrintable(error + "\n---\n" + QString::fromStdString(text)));
    QStringList expected;
    for (const auto& line : original.split('\n', Qt::SkipEmptyParts))
        if (!line.startsWith("tail"))
            expected << line;
    QCOMPARE(expected.size(), printed);
    QCOMPARE(ported.split('\n', Qt::SkipEmptyParts), expected);
    const QString without = runWhole(port, "train.py", &error, drop);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(without.split('\n', Qt::SkipEmptyParts) != expected);
}

// The decay forms: ReduceLROnPlateau is generated only where it is the original's rule (the
// rate divided when `metric < best` fails, the improving branch keeping the best), on PopTorch
// and on Determined; any other form stays the plan's item, which names the target's form.
void TestPortValidation::plateauForms_data()
{
    QTest::addColumn<QString>("decay");
    QTest::addColumn<bool>("generated");
    QTest::addRow("not-best-or-less") << QString(Decay) << true;
    QTest::addRow("best-greater")
        << "    if best_val_loss is None:\n        best_val_loss = val_loss\n"
           "    if best_val_loss > val_loss:\n"
           "        best_val_loss = val_loss\n    else:\n"
           "        lr *= 0.5\n"
        << true;
    // The rate divided when the loss improves: not a plateau rule.
    QTest::addRow("wrong-direction") << "    if not best_val_loss or val_loss > best_val_loss:\n"
                                        "        best_val_loss = val_loss\n    else:\n"
                                        "        lr /= 4.0\n"
                                     << false;
    // The best never kept: the original compares with the first epoch's loss only.
    QTest::addRow("best-not-kept") << "    if not best_val_loss or val_loss < best_val_loss:\n"
                                      "        pass\n    else:\n        lr /= 4.0\n"
                                   << false;
    // Another condition decides (an elif): not the comparison failing.
    QTest::addRow("elif") << "    if not best_val_loss or val_loss < best_val_loss:\n"
                             "        best_val_loss = val_loss\n    elif epoch > 2:\n"
                             "        lr /= 4.0\n"
                          << false;
}

void TestPortValidation::plateauForms()
{
    QFETCH(QString, decay);
    QFETCH(bool, generated);
    // Both targets that run the original's validation (Determined steps it with MANUAL_STEP).
    for (const char* target : {"graphcore-poptorch", "determined-pytorchtrial"}) {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "original";
        auto r = generate(root, withDecay(decay.toStdString()), target);
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        const std::string text = allText(*r.value);
        QCOMPARE(has(text, "ReduceLROnPlateau(\n"), generated);
        QCOMPARE(r.value->manual.empty(), generated);
        if (!generated)
            QVERIFY2(has(manualText(*r.value), "the learning rate"), manualText(*r.value).c_str());
    }
}

// The names an f-string reads are read: on PopTorch, whose training pass returns only the loss,
// the print of the pass's running sums (`f"... {mean_cost:.4f} {rate:.3f} ..."`) is named in a
// comment, not run. Before, it was kept, reading names the port binds nowhere. Every target's
// port is full and verifies.
void TestPortValidation::epochFiguresInFString_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("present");
    QTest::newRow("determined") << "determined-pytorchtrial" << QStringList{};
    QTest::newRow("poptorch") << "graphcore-poptorch"
                              << QStringList{"also prints here what the port's training pass does "
                                             "not compute (`mean_cost`, `rate`)"};
    QTest::newRow("cerebras") << "cerebras-pytorch" << QStringList{};
}

void TestPortValidation::epochFiguresInFString()
{
    QFETCH(QString, target);
    QFETCH(QStringList, present);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, EpochFiguresInFString, "train.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_VERIFY_CONTAINS(allText(*r.value), present);
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortValidation)
#include "test_port_validation.moc"
