// Training loops written otherwise than `for batch in loader` (issue 24): a `while` loop that
// draws its batches with next() up to a count of steps, validation written inside the training
// function after each epoch's batch loop, and a save of the trained weights after the training.
// Each row is a fixture written for the form, ported and verified with both dry runs; the
// validation and the save also run the PopTorch port whole under the stand-ins.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

const char* const Imports = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(5, 12)
        self.head = nn.Linear(12, 3)

    def forward(self, x):
        return self.head(torch.tanh(self.hidden(x)))

)";

// The iterator made before the loop and made again when the loader is spent; the bound a flag.
const char* const WhileBelowFlag = R"(
def fit(args):
    points = TensorDataset(torch.linspace(-1, 1, 100).view(20, 5).cos(), torch.arange(20) % 3)
    feeder = DataLoader(points, batch_size=4, shuffle=True)
    scorer = Scorer()
    judge = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(scorer.parameters(), lr=args.rate)
    stream = iter(feeder)
    done = 0
    while done < args.max_steps:
        try:
            xs, ys = next(stream)
        except StopIteration:
            stream = iter(feeder)
            xs, ys = next(stream)
        opt.zero_grad()
        cost = judge(scorer(xs), ys)
        cost.backward()
        opt.step()
        done += 1
        if done % 5 == 0:
            print("step", done, cost.item())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=0.01)
    parser.add_argument("--max-steps", type=int, default=12)
    args = parser.parse_args()
    fit(args)


if __name__ == "__main__":
    main()
)";

// `while True` left by a break on the count; a fresh iterator each step; the bound a constant.
const char* const WhileTrueBreak = R"(
ROUNDS = 9


def main():
    samples = TensorDataset(torch.linspace(0, 2, 150).view(30, 5).sin(), torch.arange(30) % 3)
    source = DataLoader(samples, batch_size=5, shuffle=True)
    net = Scorer()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
    rounds = 0
    while True:
        pair = next(iter(source))
        inputs, labels = pair
        optimizer.zero_grad()
        loss = criterion(net(inputs), labels)
        loss.backward()
        optimizer.step()
        rounds += 1
        if rounds >= ROUNDS:
            break


if __name__ == "__main__":
    main()
)";

// `while True` that nothing leaves (the inner loop's break is its own): it trains until it is
// stopped, and the port's steps are made up. @LEAVE@ is a way out for the rows that have one.
const char* const WhileTrueForever = R"(
def main():
    samples = TensorDataset(torch.linspace(0, 3, 120).view(24, 5).cos(), torch.arange(24) % 3)
    source = DataLoader(samples, batch_size=4, shuffle=True)
    net = Scorer()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
    walker = iter(source)
    step = 0
    while True:
        try:
            inputs, labels = next(walker)
        except StopIteration:
            walker = iter(source)
            inputs, labels = next(walker)
        optimizer.zero_grad()
        loss = F.cross_entropy(net(inputs), labels)
        loss.backward()
        optimizer.step()
        for shown in range(3):
            if shown == step % 3:
                break
        if step % 50 == 0:
            print(step, loss.item())
@LEAVE@
        step += 1


if __name__ == "__main__":
    main()
)";

std::string untilStoppedScript(const std::string& leave)
{
    std::string s = std::string(Imports) + WhileTrueForever;
    s.replace(s.find("@LEAVE@\n"), 8, leave);
    return s;
}

// At module level: the count first in the body, the bound a literal, no StopIteration handler.
const char* const ModuleLevelCount = R"(
table = TensorDataset(torch.linspace(-3, 3, 200).view(40, 5).tanh(), torch.arange(40) % 3)
reader = DataLoader(table, batch_size=8)
model = Scorer()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
walker = iter(reader)
tick = 0
while tick < 5:
    tick += 1
    feats, marks = next(walker)
    optimizer.zero_grad()
    loss = F.cross_entropy(model(feats), marks)
    loss.backward()
    optimizer.step()
)";

// A dropout model validated after each epoch's batch loop inside the training function
// (@TRAIN@: not a call of an evaluation function, not in the epoch loop itself), run by @RUN@: a
// port that validated in train mode or other weights prints other numbers.
const char* const Tagging = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(6, 16)
        self.drop = nn.Dropout(0.5)
        self.outer = nn.Linear(16, 3)

    def forward(self, x):
        return F.log_softmax(self.outer(self.drop(F.relu(self.inner(x)))), dim=1)


@TRAIN@

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    seen = DataLoader(TensorDataset(torch.linspace(-2, 2, 240).view(40, 6).sin(),
                                    torch.arange(40) % 3), batch_size=8)
    held_out = DataLoader(TensorDataset(torch.linspace(-2, 2, 120).view(20, 6).cos(),
                                        torch.arange(20) % 3), batch_size=10)
    tagger = Tagger()
    opt = torch.optim.SGD(tagger.parameters(), lr=0.1)
@RUN@

if __name__ == "__main__":
    main()
)";

// The training function runs one epoch, called by the epoch loop of main().
const char* const TrainEachEpoch = R"(def train(tagger, seen, held_out, opt, rnd):
    tagger.train()
    for xb, yb in seen:
        opt.zero_grad()
        loss = F.nll_loss(tagger(xb), yb)
        loss.backward()
        opt.step()
    tagger.eval()
    summed = 0.0
    hits = 0
    with torch.no_grad():
        for xb, yb in held_out:
            guess = tagger(xb)
            summed += F.nll_loss(guess, yb, reduction="sum").item()
            hits += (guess.argmax(1) == yb).sum().item()
    print("round", rnd, "held-out", round(summed / len(held_out.dataset), 6), "hits", hits)
)";
const char* const RunEachEpoch = R"(    for rnd in range(args.rounds):
        train(tagger, seen, held_out, opt, rnd)
)";

// The epoch loop inside the training function too.
const char* const TrainAllEpochs = R"(def train(tagger, seen, held_out, opt, rounds):
    for rnd in range(rounds):
        tagger.train()
        for xb, yb in seen:
            opt.zero_grad()
            loss = F.nll_loss(tagger(xb), yb)
            loss.backward()
            opt.step()
        tagger.eval()
        summed = 0.0
        hits = 0
        with torch.no_grad():
            for xb, yb in held_out:
                guess = tagger(xb)
                summed += F.nll_loss(guess, yb, reduction="sum").item()
                hits += (guess.argmax(1) == yb).sum().item()
        print("round", rnd, "held-out", round(summed / len(held_out.dataset), 6), "hits", hits)
)";
const char* const RunAllEpochs = "    train(tagger, seen, held_out, opt, args.rounds)\n";

std::string tagging(const std::string& train, const std::string& run)
{
    std::string s = Tagging;
    s.replace(s.find("@TRAIN@"), 7, train);
    s.replace(s.find("@RUN@"), 5, run);
    return s;
}

// The trained weights saved once the training is over (@SAVE_AFTER@), or each epoch inside the
// training function (@SAVE_EACH@).
const char* const Saves = R"(
def learn(scorer, feeder, opt, epochs):
    for epoch in range(epochs):
        for xs, ys in feeder:
            opt.zero_grad()
            loss = F.cross_entropy(scorer(xs), ys)
            loss.backward()
            opt.step()
@SAVE_EACH@

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--out", default="scorer_weights.pt")
    args = parser.parse_args()
    points = TensorDataset(torch.linspace(-1, 1, 80).view(16, 5).cos(), torch.arange(16) % 3)
    feeder = DataLoader(points, batch_size=4)
    scorer = Scorer()
    opt = torch.optim.SGD(scorer.parameters(), lr=0.1)
    learn(scorer, feeder, opt, args.epochs)
@SAVE_AFTER@

if __name__ == "__main__":
    main()
)";

std::string saving(const std::string& each, const std::string& after)
{
    std::string s = std::string(Imports) + Saves;
    s.replace(s.find("@SAVE_EACH@"), 11, each);
    s.replace(s.find("@SAVE_AFTER@"), 12, after);
    return s;
}

const char* const SaveAfter = "    torch.save(scorer.state_dict(), args.out)\n";
const char* const SaveEach = "        torch.save(scorer.state_dict(), \"scorer_weights.pt\")\n";

} // namespace

class TestPortLoopForms : public QObject
{
    Q_OBJECT

private slots:
    void whileLoopVerifies_data();
    void whileLoopVerifies();
    void whileTrueLeftOtherwiseIsManual_data();
    void whileTrueLeftOtherwiseIsManual();
    void validationInsideTraining_data();
    void validationInsideTraining();
    void popTorchSavesTrainedWeights_data();
    void popTorchSavesTrainedWeights();
};

void TestPortLoopForms::whileLoopVerifies_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("present"); // the steps placed: the config's or the loop's
    const QString belowFlag = QString(Imports) + WhileBelowFlag;
    const QString trueBreak = QString(Imports) + WhileTrueBreak;
    const QString moduleLevel = QString(Imports) + ModuleLevelCount;
    QTest::addRow("below-flag-determined")
        << belowFlag << "determined-pytorchtrial"
        << QStringList{"    batches: 12", "min_validation_period:\n  batches: 12",
                       "xs, ys = batch"};
    QTest::addRow("below-flag-poptorch")
        << belowFlag << "graphcore-poptorch"
        << QStringList{"while steps_done < args.max_steps:", "for xs, ys in train_loader:",
                       "if steps_done == args.max_steps:"};
    QTest::addRow("below-flag-cerebras")
        << belowFlag << "cerebras-pytorch" << QStringList{"max_steps: 12", "xs, ys = batch"};
    QTest::addRow("true-break-determined")
        << trueBreak << "determined-pytorchtrial"
        << QStringList{"    batches: 9", "pair = batch", "inputs, labels = pair"};
    QTest::addRow("true-break-poptorch")
        << trueBreak << "graphcore-poptorch"
        << QStringList{"while steps_done < 9:", "for pair in train_loader:"};
    QTest::addRow("true-break-cerebras")
        << trueBreak << "cerebras-pytorch" << QStringList{"max_steps: 9", "pair = batch"};
    const QString untilStopped = QString::fromStdString(untilStoppedScript(""));
    QTest::addRow("until-stopped-determined")
        << untilStopped << "determined-pytorchtrial"
        << QStringList{"    batches: 100  # made up by the port: the original trains until it is "
                       "stopped"};
    QTest::addRow("until-stopped-poptorch")
        << untilStopped << "graphcore-poptorch"
        << QStringList{"while steps_done < 100:", "for inputs, labels in train_loader:"};
    QTest::addRow("until-stopped-cerebras") << untilStopped << "cerebras-pytorch"
                                            << QStringList{"max_steps: 100  # made up by the port"};
    QTest::addRow("module-determined") << moduleLevel << "determined-pytorchtrial"
                                       << QStringList{"    batches: 5", "feats, marks = batch"};
    QTest::addRow("module-poptorch")
        << moduleLevel << "graphcore-poptorch"
        << QStringList{"while steps_done < 5:", "for feats, marks in train_loader:"};
    QTest::addRow("module-cerebras")
        << moduleLevel << "cerebras-pytorch" << QStringList{"max_steps: 5", "feats, marks = batch"};
}

// Each form ports in full on each target: the batch is what next() returned, the steps are the
// loop's bound, and the port trains as the original does.
void TestPortLoopForms::whileLoopVerifies()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QStringList, present);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, script.toStdString(), target.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string text = allText(*r.value);
    QVERIFY2(r.value->manual.empty(), (manualText(*r.value) + "---\n" + text).c_str());
    PORT_VERIFY_CONTAINS(text, present);
    PORT_VERIFY_ABSENT(text, (QStringList{"= next(", "TODO(portolan)"}));
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortLoopForms::whileTrueLeftOtherwiseIsManual_data()
{
    QTest::addColumn<QString>("leave");
    QTest::addRow("a break on the loss") << "        if loss.item() < 0.05:\n            break\n";
    QTest::addRow("a return") << "        if step > 40:\n            return\n";
    QTest::addRow("an exit") << "        if step > 40:\n            sys.exit(0)\n";
}

// A `while True` left some other way than a count of steps trains as many steps as that
// decides: how many is not known, and the port says so rather than making a count up.
void TestPortLoopForms::whileTrueLeftOtherwiseIsManual()
{
    QFETCH(QString, leave);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, "import sys\n" + untilStoppedScript(leave.toStdString()),
                      "determined-pytorchtrial");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY(!r.value->full());
    QVERIFY2(has(manualText(*r.value), "its bound is not a step counter"),
             manualText(*r.value).c_str());
}

// PopTorch validates with the inference model after each epoch's training pass, as the
// original validates inside its training function: run whole, the port prints the original's
// numbers, and without the line that puts the model back in train mode they part.
void TestPortLoopForms::validationInsideTraining_data()
{
    QTest::addColumn<QString>("script");
    QTest::addRow("epoch-loop-in-caller")
        << QString::fromStdString(tagging(TrainEachEpoch, RunEachEpoch));
    QTest::addRow("epoch-loop-in-function")
        << QString::fromStdString(tagging(TrainAllEpochs, RunAllEpochs));
}

void TestPortLoopForms::validationInsideTraining()
{
    QFETCH(QString, script);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, script.toStdString(), "graphcore-poptorch");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string text = allText(*r.value);
    QVERIFY2(r.value->manual.empty(), manualText(*r.value).c_str());
    PORT_VERIFY_CONTAINS(
        text, (QStringList{"inference_model = poptorch.inferenceModel(tagger, ",
                           "guess = inference_model(xb)", "training_model.detachFromDevice()\n"}));
    PORT_VERIFY_ABSENT(text, (QStringList{"inferenceModel(tagger.eval()", "TODO(portolan)"}));
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    QString error;
    const QString original = runWhole(root, "main.py", &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const fs::path port = root.parent_path() / "port";
    const QString ported = runWhole(port, "train.py", &error);
    QVERIFY2(error.isEmpty(), qPrintable(error + "\n---\n" + QString::fromStdString(text)));
    const QStringList expected = original.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(expected.size(), 3);
    QCOMPARE(ported.split('\n', Qt::SkipEmptyParts), expected);
    const QString without = runWhole(port, "train.py", &error, "        tagger.train()\n");
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(without.split('\n', Qt::SkipEmptyParts) != expected);
}

void TestPortLoopForms::popTorchSavesTrainedWeights_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<bool>("saved"); // the port saves the host model after training
    QTest::addRow("after-training") << QString::fromStdString(saving("", SaveAfter)) << true;
    // Saved each epoch inside the loop: the weights live on the device then; the note stays.
    QTest::addRow("each-epoch") << QString::fromStdString(saving(SaveEach, "")) << false;
}

// A save after the training is kept, on the host model once the training model has left the
// device: run whole, the file it writes loads into the model.
void TestPortLoopForms::popTorchSavesTrainedWeights()
{
    QFETCH(QString, script);
    QFETCH(bool, saved);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, script.toStdString(), "graphcore-poptorch");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string text = allText(*r.value);
    QVERIFY2(r.value->manual.empty(), manualText(*r.value).c_str());
    std::string notes;
    for (const auto& n : r.value->notes)
        notes += n + "\n";
    QCOMPARE(has(notes, "is not carried over"), !saved);
    QCOMPARE(has(text, "training_model.detachFromDevice()\n    # The original saves the trained "
                       "weights"),
             saved);
    QCOMPARE(has(text, "\n    torch.save(scorer.state_dict(), args.out)\n"), saved);
    if (!saved)
        QVERIFY2(!has(text, "torch.save("), text.c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    if (!saved)
        return;
    const fs::path port = root.parent_path() / "port";
    QString error;
    runWhole(port, "train.py", &error);
    QVERIFY2(error.isEmpty(), qPrintable(error + "\n---\n" + QString::fromStdString(text)));
    QVERIFY(fs::exists(port / "scorer_weights.pt"));
    std::ofstream(port / "load_check.py")
        << "import runpy\nimport torch\n"
           "names = runpy.run_path(\"train.py\", run_name=\"loaded\")\n"
           "scorer = names[\"Scorer\"]()\n"
           "scorer.load_state_dict(torch.load(\"scorer_weights.pt\"))\n"
           "print(\"loaded\", len(scorer.state_dict()))\n";
    const QString loaded = runWhole(port, "load_check.py", &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(loaded.trimmed(), QString("loaded 4"));
}

QTEST_GUILESS_MAIN(TestPortLoopForms)
#include "test_port_loop_forms.moc"
