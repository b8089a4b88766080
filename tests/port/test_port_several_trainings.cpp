// Several trainings run one after another (issue 24): a script trains a model, then builds a
// better one (another architecture, another optimizer, the loop moved into a fit() helper) and
// trains again on the same data. The earlier training is superseded: its model is built anew
// before anything reads what it learned, so the port ports the training the script ends with,
// notes the superseded one, and moves none of its bindings. The original's dry run counts the
// steps of the ported training. A second phase that goes on training the same model is named
// by an item. Each row is a fixture written for the pattern, on the three targets.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// Two trainings at module level; the second, with momentum, is the one the script ends with
// (ported from the first, the losses would part at the second step).
const char* const TwoAtModuleLevel = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
samples = TensorDataset(torch.randn(48, 4), torch.randint(0, 2, (48,)))
batches = DataLoader(samples, batch_size=6, shuffle=True)
scorer = nn.CrossEntropyLoss()

learner = nn.Linear(4, 2)
updater = torch.optim.SGD(learner.parameters(), lr=0.05)
for feats, labels in batches:
    penalty = scorer(learner(feats), labels)
    penalty.backward()
    updater.step()
    updater.zero_grad()
print(penalty.item())

learner = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
updater = torch.optim.SGD(learner.parameters(), lr=0.05, momentum=0.8)
for feats, labels in batches:
    penalty = scorer(learner(feats), labels)
    penalty.backward()
    updater.step()
    updater.zero_grad()
)";

// Three trainings: weights updated by hand, a module with an optimizer, then a deeper model
// trained through a fit() helper.
const char* const ThreeLastThroughFit = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
xs = torch.randn(40, 6)
ys = torch.randint(0, 3, (40,))
rate = 0.1
size = 5
count = 40

weights = torch.randn(6, 3) / 6 ** 0.5
weights.requires_grad_()
bias = torch.zeros(3, requires_grad=True)
for i in range((count - 1) // size + 1):
    xb = xs[i * size:i * size + size]
    yb = ys[i * size:i * size + size]
    cost = F.cross_entropy(xb @ weights + bias, yb)
    cost.backward()
    with torch.no_grad():
        weights -= weights.grad * rate
        bias -= bias.grad * rate
        weights.grad.zero_()
        bias.grad.zero_()


class Shallow(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 3)

    def forward(self, xb):
        return self.lin(xb)


model = Shallow()
stepper = torch.optim.SGD(model.parameters(), lr=rate)
for i in range((count - 1) // size + 1):
    xb = xs[i * size:i * size + size]
    yb = ys[i * size:i * size + size]
    cost = F.cross_entropy(model(xb), yb)
    cost.backward()
    stepper.step()
    stepper.zero_grad()

pairs = DataLoader(TensorDataset(xs, ys), batch_size=size, shuffle=True)


def fit(rounds, model, stepper, pairs):
    for round in range(rounds):
        model.train()
        for xb, yb in pairs:
            cost = F.cross_entropy(model(xb), yb)
            cost.backward()
            stepper.step()
            stepper.zero_grad()


model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
stepper = torch.optim.SGD(model.parameters(), lr=rate, momentum=0.9)
fit(2, model, stepper, pairs)
)";

// Each training in a function of its own, called one after the other from main(); the first's
// model is dropped when its function returns.
const char* const FunctionsInSequence = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def build_data():
    torch.manual_seed(0)
    rows = TensorDataset(torch.randn(36, 5), torch.randint(0, 4, (36,)))
    return DataLoader(rows, batch_size=6, shuffle=True)


def first_try(feed, critic):
    guess = nn.Linear(5, 4)
    nudge = torch.optim.SGD(guess.parameters(), lr=0.1)
    for a, b in feed:
        miss = critic(guess(a), b)
        miss.backward()
        nudge.step()
        nudge.zero_grad()
    return guess


def second_try(feed, critic):
    guess = nn.Sequential(nn.Linear(5, 9), nn.ReLU(), nn.Linear(9, 4))
    nudge = torch.optim.SGD(guess.parameters(), lr=0.1, momentum=0.9)
    for a, b in feed:
        miss = critic(guess(a), b)
        miss.backward()
        nudge.step()
        nudge.zero_grad()
    return guess


def main():
    feed = build_data()
    critic = nn.CrossEntropyLoss()
    first_try(feed, critic)
    second_try(feed, critic)


if __name__ == "__main__":
    main()
)";

// A second phase on the same model: the head alone, another optimizer. Not superseded.
const char* const SecondPhase = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
points = TensorDataset(torch.randn(32, 3), torch.randn(32, 1))
stream = DataLoader(points, batch_size=4)
measure = nn.MSELoss()

body = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 1))
mover = torch.optim.Adam(body.parameters(), lr=0.01)
for inp, out in stream:
    gap = measure(body(inp), out)
    gap.backward()
    mover.step()
    mover.zero_grad()

for p in body[0].parameters():
    p.requires_grad = False
mover = torch.optim.SGD(body[2].parameters(), lr=0.001, momentum=0.5)
for inp, out in stream:
    gap = measure(body(inp), out)
    gap.backward()
    mover.step()
    mover.zero_grad()
)";

const char* const Targets[] = {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"};

Result<port::PortResult> portWith(const fs::path& root, const std::string& script,
                                  const std::string& target, const port::PortOptions& options,
                                  port::PortPlan* planned)
{
    writeOriginal(root, script);
    auto a = analysis::analyzeProject(root);
    if (!a)
        return Result<port::PortResult>::fail(a.error);
    auto plan = port::planPort(*a.value, options);
    if (!plan)
        return Result<port::PortResult>::fail(plan.error);
    *planned = *plan.value;
    return port::generatePort(*plan.value, target, "runner");
}

// One row per target.
void targetRows()
{
    QTest::addColumn<QString>("target");
    for (const char* t : Targets)
        QTest::addRow("%s", t) << t;
}

} // namespace

class TestPortSeveralTrainings : public QObject
{
    Q_OBJECT

private slots:
    // The training the script ends with is ported, full and verified; the superseded ones are
    // noted, and none of their bindings is in the port.
    void portsTheLastTraining_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("target");
        QTest::addColumn<int>("chosenLine"); // the ported batch loop's line
        QTest::addColumn<int>("superseded"); // how many trainings are noted as superseded
        QTest::addColumn<QStringList>("absent");
        for (const char* t : Targets) {
            QTest::addRow("two at module level, %s", t)
                << TwoAtModuleLevel << t << 21 << 1 << QStringList{"nn.Linear(4, 2)"};
            QTest::addRow("three, the last through fit(), %s", t)
                << ThreeLastThroughFit << t << 53 << 2
                << QStringList{"Shallow()", "bias = torch.zeros"};
            QTest::addRow("functions called in sequence, %s", t)
                << FunctionsInSequence << t << 26 << 1 << QStringList{"nn.Linear(5, 4)"};
        }
    }
    void portsTheLastTraining()
    {
        QFETCH(QString, script);
        QFETCH(QString, target);
        QFETCH(int, chosenLine);
        QFETCH(int, superseded);
        QFETCH(QStringList, absent);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "original";
        port::PortPlan plan;
        auto r = portWith(root, script.toStdString(), target.toStdString(), {}, &plan);
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        QVERIFY(plan.loop);
        QCOMPARE(plan.loop->loop.line, chosenLine);
        int noted = 0;
        for (const auto& n : r.value->notes)
            noted += has(n, "is superseded") ? 1 : 0;
        QCOMPARE(noted, superseded);
        QVERIFY2(r.value->full(), manualText(*r.value).c_str());
        PORT_VERIFY_ABSENT(allText(*r.value), absent);
        QVERIFY2(has(allText(*r.value), "momentum"), allText(*r.value).c_str());
        PORT_SKIP_WITHOUT_TORCH();
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }

    // A second training that goes on training the same model is a second phase, named by an
    // item with a TODO in the port; the first phase is ported.
    void namesASecondPhase_data() { targetRows(); }
    void namesASecondPhase()
    {
        QFETCH(QString, target);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "original";
        port::PortPlan plan;
        auto r = portWith(root, SecondPhase, target.toStdString(), {}, &plan);
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        QVERIFY(plan.loop);
        QCOMPARE(plan.loop->loop.line, 12);
        QVERIFY2(has(manualText(*r.value), "a second phase of training: the loop at main.py:21"),
                 manualText(*r.value).c_str());
        QVERIFY2(has(allText(*r.value), "TODO(portolan): a second phase of training"),
                 allText(*r.value).c_str());
    }

    // The user chooses another training (PortOptions::training, the line of its batch loop):
    // that one is ported and verified.
    void portsTheChosenTraining_data() { targetRows(); }
    void portsTheChosenTraining()
    {
        QFETCH(QString, target);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "original";
        port::PortOptions options;
        options.training = "main.py:12";
        port::PortPlan plan;
        auto r = portWith(root, TwoAtModuleLevel, target.toStdString(), options, &plan);
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        QVERIFY(plan.loop);
        QCOMPARE(plan.loop->loop.line, 12);
        QVERIFY2(r.value->full(), manualText(*r.value).c_str());
        PORT_VERIFY_ABSENT(allText(*r.value), QStringList{"momentum"});
        PORT_SKIP_WITHOUT_TORCH();
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }
};

QTEST_GUILESS_MAIN(TestPortSeveralTrainings)
#include "test_port_several_trainings.moc"
