// The port's epoch in records and what the original's dry run observed (issue 24), each on a
// small fixture written for its pattern: Determined's records_per_epoch from a torchvision data
// set's size or from the samples the original's dry run read (never a made-up number); a Cerebras
// schedule counted in steps from those samples when the code does not say them, but not from data
// the dry run made up; and a command line of sub-commands (`add_subparsers().add_parser("train")`)
// whose flags the PopTorch port keeps.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// A data set of the project's own (its size is the data's) or a torchvision one, in @DATA@, and
// a scheduler stepped once per epoch.
const char* const Script = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset
from torchvision import datasets


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        return F.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


class Folder(Dataset):
    def __init__(self, root):
        self.items = sorted(root)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.zeros(1, 28, 28), 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch-size', type=int, default=50)
    parser.add_argument('--lr', type=float, default=0.5)
    parser.add_argument('--epochs', type=int, default=2)
    args = parser.parse_args()
    train_set = @DATA@
    loader = DataLoader(train_set, batch_size=args.batch_size)
    model = Net()
    optimizer = optim.SGD(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
    for epoch in range(args.epochs):
        for data, target in loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
        scheduler.step()


if __name__ == '__main__':
    main()
)";

// Sub-commands: the training flags belong to the `train` parser, which the script builds from
// the main parser through add_subparsers().
const char* const Subcommands = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def train(args):
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    loader = DataLoader(data, batch_size=args.batch_size)
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()


def main():
    main_parser = argparse.ArgumentParser()
    commands = main_parser.add_subparsers(title="commands", dest="command")
    train_parser = commands.add_parser("train")
    train_parser.add_argument("--lr", type=float, default=0.1)
    train_parser.add_argument("--batch-size", type=int, default=4)
    show_parser = commands.add_parser("show")
    show_parser.add_argument("--image", type=str, required=True)
    args = main_parser.parse_args()
    if args.command == "train":
        train(args)


if __name__ == "__main__":
    main()
)";

// A rate changed by hand at the end of an epoch, in @DECAY@.
const char* const HandDecay = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Linear(4, 2)
learning_rate = 0.01
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
criterion = nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,))), batch_size=4)
curr_lr = learning_rate
best = None
for epoch in range(60):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
@DECAY@
)";

// A script that draws its data at random after building its model, all at module level, and
// trains on the whole of it each step.
const char* const DrawnAfterModel = R"(import torch
import torch.nn as nn

model = nn.Linear(4, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
x_train = torch.randn(10, 4)
y_train = torch.randn(10, 1)
for epoch in range(5):
    optimizer.zero_grad()
    loss = criterion(model(x_train), y_train)
    loss.backward()
    optimizer.step()
)";

} // namespace

class TestPortEpochs : public QObject
{
    Q_OBJECT

private slots:
    void epochFromObservation_data();
    void epochFromObservation();
    void subcommandParsers();
    void handWrittenDecays_data();
    void handWrittenDecays();
    void constantsAsValues_data();
    void constantsAsValues();
    void dataDrawnAfterModel_data();
    void dataDrawnAfterModel();
};

void TestPortEpochs::epochFromObservation_data()
{
    QTest::addColumn<QString>("data");
    QTest::addColumn<int>("observed"); // samples the original's dry run read, 0: it did not run
    QTest::addColumn<bool>("synthetic");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<bool>("full");
    QTest::addColumn<QString>("contains");
    QTest::addColumn<QString>("absent");
    QTest::addColumn<QString>("note"); // in the notes or the manual items

    const QString own = "Folder(['a', 'b'])";
    const QString det = "determined-pytorchtrial";
    // 1000 samples read // batch 50 = 20 steps an epoch; StepLR(step_size=2 epochs) = 40 steps.
    QTest::newRow("observed/cerebras-trainer")
        << own << 1000 << false << "cerebras-pytorch"
        << "trainer" << true << "          step_size: 40\n          gamma: 0.5\n"
        << "TODO(portolan)"
        << "the 1000 samples of `train_set` in the original's dry run // batch size 50";
    QTest::newRow("observed/cerebras-runner")
        << own << 1000 << false << "cerebras-pytorch"
        << "runner" << true << "    decay_steps: 40\n    decay_rate: 0.5\n"
        << "TODO(portolan)"
        << "";
    // Data the dry run made up has its own size, not the real data's: no schedule from it.
    QTest::newRow("synthetic/cerebras-trainer") << own << 1000 << true << "cerebras-pytorch"
                                                << "trainer" << false << "learning_rate: 0.5"
                                                << "step_size: 40"
                                                << "are not known from the code";
    QTest::newRow("not-observed/cerebras-trainer") << own << 0 << false << "cerebras-pytorch"
                                                   << "trainer" << false << "learning_rate: 0.5"
                                                   << "step_size: 40"
                                                   << "are not known from the code";
    QTest::newRow("observed/determined")
        << own << 1000 << false << det << "" << true
        << "records_per_epoch: 1000  # the 1000 samples of `train_set` in the original's dry run\n"
        << "60000"
        << "";
    QTest::newRow("synthetic/determined")
        << own << 1000 << true << det << "" << true
        << "records_per_epoch: 1000  # the 1000 samples of `train_set` in the original's dry run "
           "(data the dry run made up)\n"
        << "60000"
        << "records_per_epoch in const.yaml is the size of the data the dry run made up";
    // The code says the size: the dry run's (made-up MNIST) does not replace it.
    QTest::newRow("torchvision/determined")
        << "datasets.MNIST('../data', train=True)" << 1024 << true << det << "" << true
        << "records_per_epoch: 60000  # torchvision.datasets.MNIST (train, 60000 samples)\n"
        << "1024"
        << "";
    QTest::newRow("not-observed/determined")
        << own << 0 << false << det << "" << true << "min_validation_period:"
        << "records_per_epoch"
        << "records_per_epoch is not written in const.yaml";
}

void TestPortEpochs::epochFromObservation()
{
    QFETCH(QString, data);
    QFETCH(int, observed);
    QFETCH(bool, synthetic);
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(bool, full);
    QFETCH(QString, contains);
    QFETCH(QString, absent);
    QFETCH(QString, note);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    QString script = QString::fromUtf8(Script);
    script.replace("@DATA@", data);
    writeOriginal(root, script.toStdString());
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
    plan.value->train.observedSamples = observed;
    plan.value->train.observedSynthetic = synthetic;
    auto r = port::generatePort(*plan.value, target.toStdString(), api.toStdString());
    QVERIFY(r);
    const std::string all = allText(*r.value), manuals = manualText(*r.value);
    std::string notes;
    for (const auto& n : r.value->notes)
        notes += n + "\n";
    QVERIFY2(r.value->full() == full, manuals.c_str());
    QVERIFY2(has(all, contains.toStdString()), all.c_str());
    QVERIFY2(!has(all, absent.toStdString()), all.c_str());
    // The note column is looked for in the notes and the manual items.
    QVERIFY2(has(notes + manuals, note.toStdString()), (notes + manuals).c_str());
}

// Every parser the script builds from its main parser keeps its flags in the PopTorch port, which
// parses the original's command line (`train --lr 0.1`); the Determined port has them as
// hyperparameters.
void TestPortEpochs::subcommandParsers()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, Subcommands, "graphcore-poptorch", "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value);
    for (const char* line :
         {"    commands = main_parser.add_subparsers(title=\"commands\", dest=\"command\")\n",
          "    train_parser = commands.add_parser(\"train\")\n",
          "    train_parser.add_argument(\"--lr\", type=float, default=0.1)\n",
          "    train_parser.add_argument(\"--batch-size\", type=int, default=4)\n",
          "    args = main_parser.parse_args()\n"})
        QVERIFY2(has(all, line), (std::string("missing: ") + line + all).c_str());
}

// A decay written by hand stays a manual item (the port keeps the starting rate), which names
// the torch scheduler that is the same schedule.
void TestPortEpochs::handWrittenDecays_data()
{
    QTest::addColumn<QString>("decay");
    QTest::addColumn<QString>("manual");
    // Exactly a StepLR, or (`epoch % 5` over range(60): after epochs 1, 6, ...) the LambdaLR of
    // that count: the port runs it (test_port_target_classes' lrDecay rows, test_port_schedules).
    QTest::newRow("every-k-epochs")
        << "    if (epoch + 1) % 20 == 0:\n        curr_lr /= 3\n"
           "        for group in optimizer.param_groups:\n            group['lr'] = curr_lr\n"
        << "generated: torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=1 / 3),\n"
           "            step_mode=LRScheduler.StepMode.STEP_EVERY_EPOCH)";
    QTest::newRow("every-k-epochs-multiplied")
        << "    if epoch % 5 == 0:\n        curr_lr *= 0.5\n"
           "        for group in optimizer.param_groups:\n            group['lr'] = curr_lr\n"
        << "generated: torch.optim.lr_scheduler.LambdaLR(optimizer, lambda epochs: (0.5) ** "
           "((epochs + 4) // 5))";
    QTest::newRow("plateau")
        << "    if best is None or total < best:\n        best = total\n    else:\n"
           "        curr_lr /= 4.0\n"
           "        for group in optimizer.param_groups:\n            group['lr'] = curr_lr\n"
        << "ReduceLROnPlateau(mode=\"min\", factor=1 / 4.0, patience=0";
}

void TestPortEpochs::handWrittenDecays()
{
    QFETCH(QString, decay);
    QFETCH(QString, manual);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    fs::create_directories(root);
    QString script = QString::fromUtf8(HandDecay);
    script.replace("@DECAY@", decay);
    std::ofstream(root / "main.py") << script.toStdString();
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
    auto r = port::generatePort(*plan.value, "determined-pytorchtrial", "");
    QVERIFY(r);
    std::string manuals;
    for (const auto& m : r.value->manual)
        manuals += m.message + "\n";
    const std::string generated = "generated: ";
    if (manual.toStdString().starts_with(generated)) {
        QVERIFY2(r.value->full(), manuals.c_str());
        QVERIFY(!r.value->files.empty());
        const std::string code = manual.toStdString().substr(generated.size());
        QVERIFY2(has(r.value->files.front().text, code), r.value->files.front().text.c_str());
        return;
    }
    QVERIFY(!r.value->full());
    QVERIFY2(has(manuals, manual.toStdString()), manuals.c_str());
}

// Hyperparameters written as names at the top of a script (`learning_rate = 0.01`), not flags:
// the Cerebras params take their numbers.
void TestPortEpochs::constantsAsValues_data()
{
    QTest::addColumn<QString>("api");
    QTest::addColumn<QString>("contains");
    QTest::newRow("runner") << "runner"
                            << "  learning_rate: 0.01\n";
    QTest::newRow("trainer") << "trainer"
                             << "learning_rate: 0.01\n";
}

void TestPortEpochs::constantsAsValues()
{
    QFETCH(QString, api);
    QFETCH(QString, contains);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    QString script = QString::fromUtf8(HandDecay);
    script.replace("@DECAY@", "");
    auto r = generate(root, script.toStdString(), "cerebras-pytorch", api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(has(allText(*r.value), contains.toStdString()), allText(*r.value).c_str());
}

// The port draws the data where it builds the model, after it (the original's order of random
// draws), not at import before the model.
void TestPortEpochs::dataDrawnAfterModel_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("data");
    QTest::newRow("determined") << "determined-pytorchtrial"
                                << "        model = nn.Linear(4, 1)\n"
                                << "        x_train = torch.randn(10, 4)\n";
    QTest::newRow("poptorch") << "graphcore-poptorch"
                              << "    model = nn.Linear(4, 1)\n"
                              << "    x_train = torch.randn(10, 4)\n";
}

void TestPortEpochs::dataDrawnAfterModel()
{
    QFETCH(QString, target);
    QFETCH(QString, model);
    QFETCH(QString, data);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, DrawnAfterModel, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    std::string text;
    for (const auto& g : r.value->files)
        if (g.path == "model_def.py" || g.path == "train.py")
            text = g.text;
    const auto m = text.find(model.toStdString());
    const auto d = text.find(data.toStdString());
    QVERIFY2(m != std::string::npos && d != std::string::npos && m < d, text.c_str());
    QVERIFY2(!has(text, "\nx_train = torch.randn"), text.c_str());
}

QTEST_GUILESS_MAIN(TestPortEpochs)
#include "test_port_epochs.moc"
