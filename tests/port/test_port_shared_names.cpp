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

// The loader class imported by name, as the target's own header imports it: the target's wins.
const char* const LoaderImportScript = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

pairs = TensorDataset(torch.randn(40, 3), torch.randn(40, 1))
stream = DataLoader(pairs, batch_size=4, shuffle=True)
line = nn.Linear(3, 1)
gap = nn.L1Loss()
adam = torch.optim.Adam(line.parameters(), lr=0.01)

for sweep in range(2):
    for inp, out in stream:
        adam.zero_grad()
        miss = gap(line(inp), out)
        miss.backward()
        adam.step()
)";

// One epoch of training in a function, the validation inline in the epoch loop after its call.
const char* const InlineValidationScript = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

lessons = TensorDataset(torch.randn(40, 3), torch.randint(0, 2, (40,)))
checks = TensorDataset(torch.randn(12, 3), torch.randint(0, 2, (12,)))
lesson_feed = DataLoader(lessons, batch_size=4, shuffle=True)
check_feed = DataLoader(checks, batch_size=4)
judge = nn.Linear(3, 2)
penalty = nn.CrossEntropyLoss()
step_rule = torch.optim.SGD(judge.parameters(), lr=0.1)


def study():
    for q, a in lesson_feed:
        step_rule.zero_grad()
        wrong = penalty(judge(q), a)
        wrong.backward()
        step_rule.step()


for term in range(2):
    judge.train()
    study()
    judge.eval()
    total = 0.0
    with torch.no_grad():
        for k, (cq, ca) in enumerate(check_feed):
            total += penalty(judge(cq), ca).item()
    print("check", total / (k + 1))
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
    void targetImportsAndValidation_data();
    void targetImportsAndValidation();
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

void TestPortSharedNames::targetImportsAndValidation_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("absent");
    QTest::addColumn<QStringList>("present");
    const QString det = "determined-pytorchtrial";
    QTest::addRow("loader import determined")
        << QString(LoaderImportScript) << det
        << QStringList{"from torch.utils.data import DataLoader"}
        << QStringList{"from torch.utils.data import TensorDataset",
                       "from determined.pytorch import DataLoader"};
    QTest::addRow("loader import poptorch")
        << QString(LoaderImportScript) << "graphcore-poptorch" << QStringList{}
        << QStringList{"from torch.utils.data import DataLoader, TensorDataset"};
    QTest::addRow("inline validation determined")
        << QString(InlineValidationScript) << det
        << QStringList{"training data stands in", "lessons,\n            batch_size=self.context."
                                                  "get_per_slot_batch_size())\n\n    def train"}
        << QStringList{"def build_validation_data_loader(self) -> DataLoader:\n        return "
                       "DataLoader(\n            checks,"};
    QTest::addRow("inline validation cerebras")
        << QString(InlineValidationScript) << "cerebras-pytorch"
        << QStringList{"training data stands in"}
        << QStringList{"def get_eval_dataloader(params):\n    return torch.utils.data.DataLoader("
                       "\n        checks,"};
}

// The target's header is not re-made nor shadowed by the original's imports (`import torch` once
// in each file), and validation written inline in the epoch loop is the port's validation data.
void TestPortSharedNames::targetImportsAndValidation()
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
    for (const auto& f : r.value->files) {
        std::size_t n = 0;
        for (auto at = f.text.find("\nimport torch\n"); at != std::string::npos;
             at = f.text.find("\nimport torch\n", at + 1))
            ++n;
        QVERIFY2(n <= 1, f.text.c_str());
    }
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortSharedNames)
#include "test_port_shared_names.moc"
