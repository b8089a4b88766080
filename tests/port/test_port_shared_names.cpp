// Names the training step shares with the rest of the script (issue 24): a name the step binds
// before it reads it is the step's own, whatever else binds it (a demonstration of the loss
// before training, a prediction after it), and module-level code after the statement that runs
// the training is a leftover that never moves before the training. Each row is a fixture
// written for the pattern.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// The loss is tried once on made-up values at module level, under the name the step binds.
const char* const DemoLossScript = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

samples = TensorDataset(torch.randn(48, 5), torch.randint(0, 4, (48,)))
feed = DataLoader(samples, batch_size=6, shuffle=True)
net = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 4))
objective = nn.CrossEntropyLoss()

# try the objective once on made-up scores
cost = objective(torch.zeros(3, 4), torch.tensor([0, 2, 1]))
print("made-up cost", float(cost))

sgd = torch.optim.SGD(net.parameters(), lr=0.05)


def one_pass():
    for feats, tags in feed:
        sgd.zero_grad()
        scores = net(feats)
        cost = objective(scores, tags)
        cost.backward()
        sgd.step()


for round_ in range(2):
    one_pass()
)";

// After training, one sample is scored under the step's names (`guess`, the batch's `tags`) and
// a name the model class's body reads (`x`).
const char* const AfterTrainingScript = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

samples = TensorDataset(torch.randn(48, 5), torch.randint(0, 4, (48,)))
feed = DataLoader(samples, batch_size=6)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(5, 4)

    def forward(self, x):
        return self.inner(x)


net = Scorer()
objective = nn.CrossEntropyLoss()
sgd = torch.optim.SGD(net.parameters(), lr=0.05)


def fit(loader, net, objective, sgd):
    for feats, tags in loader:
        guess = net(feats)
        cost = objective(guess, tags)
        sgd.zero_grad()
        cost.backward()
        sgd.step()


for round_ in range(2):
    fit(feed, net, objective, sgd)

# after training: one held-out sample
net.eval()
x, tags = samples[0]
with torch.no_grad():
    guess = net(x)
    print("guess", guess.argmax().item(), "answer", tags)
)";

// The control: state the step does read before it binds it (a value set before the loop and
// rebound by each step) is still carried by the port. The batch size is the dry run's, 2.
const char* const CarriedScript = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

samples = TensorDataset(torch.randn(48, 5), torch.randn(48, 3))
feed = DataLoader(samples, batch_size=2)
cell = nn.Linear(8, 3)
objective = nn.MSELoss()
sgd = torch.optim.SGD(cell.parameters(), lr=0.05)


def fit():
    memory = torch.zeros(2, 3)
    for feats, wanted in feed:
        memory = memory.detach()
        memory = torch.tanh(cell(torch.cat([feats, memory], 1)))
        cost = objective(memory, wanted)
        sgd.zero_grad()
        cost.backward()
        sgd.step()


for round_ in range(2):
    fit()
)";

void addTargets(const char* name, const char* script, const QStringList& absent,
                const QStringList& present)
{
    for (const char* t : {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
        QTest::addRow("%s %s", name, t) << QString(script) << QString(t) << absent << present;
}

} // namespace

class TestPortSharedNames : public QObject
{
    Q_OBJECT
private slots:
    void stepNamesAreTheStepsOwn_data();
    void stepNamesAreTheStepsOwn();
};

void TestPortSharedNames::stepNamesAreTheStepsOwn_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("absent");
    QTest::addColumn<QStringList>("present");
    addTargets("demo loss", DemoLossScript, {"self.cost", "made-up"}, {"cost = "});
    addTargets("after training", AfterTrainingScript,
               {"self.guess", "guess=", "x, tags = samples[0]", "held-out"}, {"guess = "});
    addTargets("carried", CarriedScript, {}, {"memory = torch.zeros(2, 3)"});
}

// The port has none of the other code's statements, reads the step's names as its own, and
// trains as the original does (both dry runs, 0 check errors).
void TestPortSharedNames::stepNamesAreTheStepsOwn()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QStringList, absent);
    QFETCH(QStringList, present);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, script.toStdString(), target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value);
    QVERIFY2(r.value->full(), (manualText(*r.value) + all).c_str());
    PORT_VERIFY_ABSENT(all, absent);
    PORT_VERIFY_CONTAINS(all, present);
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortSharedNames)
#include "test_port_shared_names.moc"
