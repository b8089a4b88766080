// Forms met in originals Portolan had not seen (issue 24's probes). A script whose command line
// has required values, positional arguments without a default (`python fit.py 3 0.05`): the
// words given after `--` are the port's values for every target; without them, the port's
// configuration says which values the original's command line needs. A model edited in place
// after its construction (a fine-tuning script: parts frozen, a part replaced): the edits are
// part of the model the port trains. An optimizer built again under the same name before the
// training (a tutorial's recap): one optimizer, the binding the training sees. A log line inside
// the step reading the loop's counters: left out, as the ones after the step are. Weights
// updated by hand in a tutorial's forms (`with torch.no_grad(): for w in net.parameters():
// w -= rate * w.grad`, the old `w.data.add_(-rate, w.grad.data)`): plain SGD, which the port
// steps as torch.optim.SGD. Fixtures written for the patterns.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// Positional rounds and rate, an option flag between them on some command lines.
const char* const PositionalScript = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

cli = argparse.ArgumentParser()
cli.add_argument('rounds', type=int, help='passes over the pairs')
cli.add_argument('--width', type=int, default=12)
cli.add_argument('rate', type=float)
got = cli.parse_args()

torch.manual_seed(0)
pairs = TensorDataset(torch.randn(64, 6), torch.randint(0, 3, (64,)))
feed = DataLoader(pairs, batch_size=8, shuffle=True)
head = nn.Sequential(nn.Linear(6, got.width), nn.ReLU(), nn.Linear(got.width, 3))
opt = torch.optim.SGD(head.parameters(), lr=got.rate)
for r in range(got.rounds):
    for xb, yb in feed:
        opt.zero_grad()
        cost = nn.functional.cross_entropy(head(xb), yb)
        cost.backward()
        opt.step()
)";

// A model built, then edited before the optimizer sees it; EDIT is the row's edit.
const char* const EditedModelScript = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Passthrough(nn.Module):
    def forward(self, x):
        return x


class Trunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.Tanh())
        self.head = nn.Linear(16, 9)

    def forward(self, x):
        return self.head(self.body(x))


torch.manual_seed(0)
pairs = TensorDataset(torch.randn(64, 6), torch.randint(0, 3, (64,)))
feed = DataLoader(pairs, batch_size=8, shuffle=True)
net = Trunk()
EDIT
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for r in range(2):
    for xb, yb in feed:
        opt.zero_grad()
        cost = nn.functional.cross_entropy(net(xb), yb)
        cost.backward()
        opt.step()
)";

// The optimizer bound twice in one scope; REBIND is where the second binding goes (FIT, the loop
// in a function called after it, or nothing: the loop at module level).
const char* const ReboundOptimizerScript = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
pairs = TensorDataset(torch.randn(64, 5), torch.randint(0, 3, (64,)))
feed = DataLoader(pairs, batch_size=8)
net = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 3))
judge = nn.CrossEntropyLoss()
tuner = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
FIT
tuner = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
RUN
)";

const char* const LoopAtModuleLevel = R"(for rnd in range(2):
    for xb, yb in feed:
        tuner.zero_grad()
        cost = judge(net(xb), yb)
        cost.backward()
        tuner.step())";

const char* const FitFunction = R"(

def fit(loader, net, tuner):
    for xb, yb in loader:
        tuner.zero_grad()
        cost = judge(net(xb), yb)
        cost.backward()
        tuner.step()

)";

const char* const FitCalls = R"(for rnd in range(2):
    fit(feed, net, tuner))";

std::vector<std::string> words(const QStringList& list)
{
    std::vector<std::string> out;
    for (const auto& w : list)
        out.push_back(w.toStdString());
    return out;
}

// A log line before backward (LOG) in a loop over rounds with an index.
const char* const LogInStepScript = R"(import logging
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(level=logging.INFO)
journal = logging.getLogger("fit")
torch.manual_seed(0)
pairs = TensorDataset(torch.randn(48, 5), torch.randint(0, 3, (48,)))
feed = DataLoader(pairs, batch_size=8, shuffle=True)
net = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 3))
judge = nn.CrossEntropyLoss()
tuner = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for rnd in range(2):
    for k, (xb, yb) in enumerate(feed):
        cost = judge(net(xb), yb)
        LOG
        tuner.zero_grad()
        cost.backward()
        tuner.step()
)";

// A regression fitted by plain SGD written by hand; UPDATE is the row's update, after backward.
const char* const HandUpdateScript = R"(import torch

torch.manual_seed(0)
inputs = torch.randn(40, 4)
wanted = inputs @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
net = torch.nn.Sequential(torch.nn.Linear(4, 1))
judge = torch.nn.MSELoss(reduction='sum')
rate = 1e-3
for rnd in range(30):
    guess = net(inputs)
    cost = judge(guess, wanted)
    net.zero_grad()
    cost.backward()
UPDATE
)";

} // namespace

class TestPortUnseenForms : public QObject
{
    Q_OBJECT
private slots:
    void positionalValuesArePortValues_data();
    void positionalValuesArePortValues();
    void missingPositionalValueIsNamed_data();
    void missingPositionalValueIsNamed();
    void modelEditsMoveWithIt_data();
    void modelEditsMoveWithIt();
    void reboundOptimizerIsOne_data();
    void reboundOptimizerIsOne();
    void logLineInTheStepIsLeftOut_data();
    void logLineInTheStepIsLeftOut();
    void handUpdateIsSgd_data();
    void handUpdateIsSgd();
};

void TestPortUnseenForms::positionalValuesArePortValues_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("commandLine");
    QTest::addColumn<QStringList>("configLines");
    const QStringList both{"2", "0.05"};
    QTest::addRow("determined") << "determined-pytorchtrial" << both
                                << QStringList{"rounds: 2", "rate: 0.05"};
    QTest::addRow("cerebras") << "cerebras-pytorch" << both
                              << QStringList{"rounds: 2", "learning_rate: 0.05"};
    // PopTorch keeps the original's parser: its dry run gets the words themselves.
    QTest::addRow("poptorch") << "graphcore-poptorch" << both << QStringList{"'rate'"};
    // An option's value is not a positional one, before or between the positionals.
    QTest::addRow("determined, option first")
        << "determined-pytorchtrial" << QStringList{"--width", "16", "2", "0.05"}
        << QStringList{"rounds: 2", "width: 16", "rate: 0.05"};
    QTest::addRow("cerebras, option between")
        << "cerebras-pytorch" << QStringList{"2", "--width=16", "0.05"}
        << QStringList{"rounds: 2", "width: 16", "learning_rate: 0.05"};
}

// The values given on the command line are in the port's configuration, and the port trains
// like the original run with them.
void TestPortUnseenForms::positionalValuesArePortValues()
{
    QFETCH(QString, target);
    QFETCH(QStringList, commandLine);
    QFETCH(QStringList, configLines);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, PositionalScript, "fit.py");
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    const auto args = words(commandLine);
    port::PortOptions options;
    options.values = port::argumentValues(args);
    auto plan = port::planPort(*a.value, options);
    QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
    auto r = port::generatePort(*plan.value, target.toStdString(), "", options.values);
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    PORT_VERIFY_CONTAINS(allText(*r.value), configLines);
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_SKIP_WITHOUT_TORCH();
    const fs::path out = root.parent_path() / "port";
    QVERIFY(!port::writePort(*r.value, out));
    port::VerifyOptions o;
    o.python = Python;
    o.steps = 3;
    o.originalArgs = args;
    const auto v = port::verifyPort(root, out, *r.value, o);
    PORT_VERIFY_PROOF(v);
}

void TestPortUnseenForms::missingPositionalValueIsNamed_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("configLine");
    QTest::addRow("determined") << "determined-pytorchtrial"
                                << "rate: null  # required on the original's command line";
    QTest::addRow("cerebras") << "cerebras-pytorch"
                              << "rounds: null  # required on the original's command line";
}

// Without the words the port cannot have the values: its configuration says the original's
// command line needs them and how to give them, at the key the user sets.
void TestPortUnseenForms::missingPositionalValueIsNamed()
{
    QFETCH(QString, target);
    QFETCH(QString, configLine);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, PositionalScript, "fit.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value);
    QVERIFY2(has(all, configLine.toStdString()), all.c_str());
    QVERIFY2(has(all, "portolan-cli port ... -- VALUE"), all.c_str());
}

void TestPortUnseenForms::modelEditsMoveWithIt_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("portLine");
    const QString head = "net.head = nn.Linear(16, 3)";
    const QString frozen = "for w in net.body.parameters():\n    w.requires_grad = False\n" + head;
    const QString item = "net.body[1] = Passthrough()";
    const std::pair<const char*, const char*> targets[] = {
        {"determined", "determined-pytorchtrial"},
        {"poptorch", "graphcore-poptorch"},
        {"cerebras", "cerebras-pytorch"}};
    for (const auto& [name, target] : targets) {
        QTest::addRow("%s, a part replaced", name) << target << head << head;
        QTest::addRow("%s, a part frozen", name) << target << frozen << "w.requires_grad = False";
        QTest::addRow("%s, an item of a part replaced", name) << target << item << item;
    }
}

// The edits run where the port builds the model, before the target takes it (Determined's
// wrap_model), so the port trains the original's model: same parameters, same losses.
void TestPortUnseenForms::modelEditsMoveWithIt()
{
    QFETCH(QString, target);
    QFETCH(QString, edit);
    QFETCH(QString, portLine);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::string script = EditedModelScript;
    script.replace(script.find("EDIT"), 4, edit.toStdString());
    writeOriginal(root, script, "tune.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    PORT_VERIFY_CONTAINS(allText(*r.value), QStringList{portLine});
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortUnseenForms::reboundOptimizerIsOne_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<bool>("inFunction");
    QTest::addColumn<QString>("once");
    const std::pair<const char*, const char*> targets[] = {
        {"determined", "determined-pytorchtrial"},
        {"poptorch", "graphcore-poptorch"},
        {"cerebras", "cerebras-pytorch"}};
    for (const auto& [name, target] : targets) {
        // Determined steps each optimizer it holds: the same one twice would update twice.
        const QString once =
            QString(target) == "determined-pytorchtrial" ? "self.context.step_optimizer(" : "";
        QTest::addRow("%s, loop at module level", name) << target << false << once;
        QTest::addRow("%s, loop in a function called later", name) << target << true << once;
    }
}

// The second binding replaces the first, which never steps: the port trains one optimizer, with
// the original's losses (momentum makes a second update visible).
void TestPortUnseenForms::reboundOptimizerIsOne()
{
    QFETCH(QString, target);
    QFETCH(bool, inFunction);
    QFETCH(QString, once);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::string script = ReboundOptimizerScript;
    script.replace(script.find("FIT"), 3, inFunction ? FitFunction : "");
    script.replace(script.find("RUN"), 3, inFunction ? FitCalls : LoopAtModuleLevel);
    writeOriginal(root, script, "fit.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    const std::string all = allText(*r.value);
    if (!once.isEmpty()) {
        const std::string o = once.toStdString();
        const auto first = all.find(o);
        QVERIFY2(first != std::string::npos && all.find(o, first + 1) == std::string::npos,
                 all.c_str());
    }
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortUnseenForms::logLineInTheStepIsLeftOut_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("line");
    const std::pair<const char*, const char*> targets[] = {
        {"determined", "determined-pytorchtrial"},
        {"poptorch", "graphcore-poptorch"},
        {"cerebras", "cerebras-pytorch"}};
    for (const auto& [name, target] : targets) {
        QTest::addRow("%s, print of the counters", name) << target << "print(rnd, k, cost.item())";
        QTest::addRow("%s, a logger's info", name)
            << target << "journal.info('round %d batch %d: %.4f', rnd, k, cost.item())";
    }
}

// The line reads the epoch loop's counter, which no target's step has; it changes nothing the
// training computes: the port leaves it out (a leftover, not a manual item) and trains as the
// original does.
void TestPortUnseenForms::logLineInTheStepIsLeftOut()
{
    QFETCH(QString, target);
    QFETCH(QString, line);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::string script = LogInStepScript;
    script.replace(script.find("LOG"), 3, line.toStdString());
    writeOriginal(root, script, "fit.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    QVERIFY2(!has(allText(*r.value), line.toStdString()), allText(*r.value).c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortUnseenForms::handUpdateIsSgd_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("update");
    const std::pair<const char*, const char*> targets[] = {
        {"determined", "determined-pytorchtrial"},
        {"poptorch", "graphcore-poptorch"},
        {"cerebras", "cerebras-pytorch"}};
    for (const auto& [name, target] : targets) {
        QTest::addRow("%s, -= under no_grad", name)
            << target
            << "    with torch.no_grad():\n        for w in net.parameters():\n"
               "            w -= rate * w.grad";
        QTest::addRow("%s, .data -= gradient first", name)
            << target << "    for w in net.parameters():\n        w.data -= w.grad.data * rate";
        QTest::addRow("%s, add_ with the rate first", name)
            << target << "    for w in net.parameters():\n        w.data.add_(-rate, w.grad.data)";
    }
}

// The update is SGD at `rate`: the port steps torch.optim.SGD(lr=rate), which each target runs
// as its own step (the gradients zeroed by the target), and trains as the original does.
void TestPortUnseenForms::handUpdateIsSgd()
{
    QFETCH(QString, target);
    QFETCH(QString, update);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::string script = HandUpdateScript;
    script.replace(script.find("UPDATE"), 6, update.toStdString());
    writeOriginal(root, script, "fit.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    const std::string all = allText(*r.value);
    // Cerebras reads the rate from its configuration, the others build the optimizer in code.
    const std::string rate = target == "cerebras-pytorch" ? "learning_rate: 1.0e-3" : "lr=rate";
    QVERIFY2(has(all, rate), all.c_str());
    QVERIFY2(!has(all, "-= rate") && !has(all, "add_(-rate"), all.c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortUnseenForms)
#include "test_port_unseen_forms.moc"
