// An optimizer that a function or a method of the script builds and returns (`make_tuner(net,
// rate)`, a model's `configure_optimizers` in minGPT's form): the optimizer the loop steps is
// the one the caller binds, training the model the caller hands over. Each target builds it as
// for an optimizer built in place: Determined wraps the caller's binding, PopTorch clips in the
// factory's optimizer, the Cerebras runner takes its class and values into params.yaml.
// Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// METHOD: a method of the model (or nothing); FACTORY: a function of the script (or nothing);
// BIND: the binding of `tuner`; CLIP: a line between backward() and the step (or nothing).
const char* const FactoryScript = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 3))
METHOD
    def forward(self, x):
        return self.body(x)

FACTORY
torch.manual_seed(0)
pairs = TensorDataset(torch.randn(64, 5), torch.randint(0, 3, (64,)))
feed = DataLoader(pairs, batch_size=8, shuffle=True)
net = Scorer()
BIND
for rnd in range(2):
    for xb, yb in feed:
        tuner.zero_grad()
        cost = nn.functional.cross_entropy(net(xb), yb)
        cost.backward()
CLIP        tuner.step()
)";

const char* const ReturnsIt = R"(
def make_tuner(part, rate):
    return torch.optim.SGD(part.parameters(), lr=rate, momentum=0.9)

)";

const char* const BindsThenReturns = R"(
def make_tuner(part, rate):
    built = torch.optim.SGD(part.parameters(), lr=rate, momentum=0.9)
    return built

)";

const char* const MethodReturnsIt = R"(
    def make_tuner(self, rate):
        return torch.optim.AdamW(self.parameters(), lr=rate, weight_decay=0.01)
)";

const char* const MethodBindsThenReturns = R"(
    def make_tuner(self, rate):
        built = torch.optim.AdamW(self.parameters(), lr=rate, weight_decay=0.01)
        return built
)";

// Its settings in an object the caller builds and hands over (a dataclass, or a class whose
// constructor stores them), read as `knobs.rate`: the Cerebras runner takes the values the
// object holds.
const char* const MethodReadsSettings = R"(
    def make_tuner(self, knobs):
        return torch.optim.AdamW(self.parameters(), lr=knobs.rate, betas=knobs.betas)
)";

const char* const SettingsDataclass = R"(
from dataclasses import dataclass


@dataclass
class Knobs:
    rate: float = 0.01
    betas: tuple = (0.8, 0.95)

)";

const char* const SettingsClass = R"(
class Knobs:
    def __init__(self, rate, betas=(0.8, 0.95)):
        self.rate = rate
        self.betas = betas

)";

// The method's own binding has the caller's name: it is the method's, not a name the port
// must find elsewhere.
const char* const MethodBindsCallersName = R"(
    def make_tuner(self, rate):
        tuner = torch.optim.AdamW(self.parameters(), lr=rate, weight_decay=0.01)
        return tuner
)";

const char* const Clip = "        torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)\n";

void substitute(std::string& s, const std::string& key, const std::string& value)
{
    s.replace(s.find(key), key.size(), value);
}

} // namespace

class TestPortOptimizerFactory : public QObject
{
    Q_OBJECT

private slots:
    void factoryOptimizerIsTheCallersBinding_data();
    void factoryOptimizerIsTheCallersBinding();
};

void TestPortOptimizerFactory::factoryOptimizerIsTheCallersBinding_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("factory");
    QTest::addColumn<QString>("bind");
    QTest::addColumn<bool>("clip");
    QTest::addColumn<QStringList>("contains");
    struct Form
    {
        const char* name;
        const char* method;
        const char* factory;
        const char* bind;
        bool clip;
        const char* cerebras = ""; // a further line of the Cerebras params
    };
    const Form forms[] = {
        {"function returns it", "", ReturnsIt, "tuner = make_tuner(net, 0.05)", false},
        {"function binds then returns it", "", BindsThenReturns, "tuner = make_tuner(net, 0.05)",
         false},
        {"function given keywords", "", ReturnsIt, "tuner = make_tuner(rate=0.05, part=net)",
         false},
        {"model's method returns it", MethodReturnsIt, "", "tuner = net.make_tuner(0.05)", false},
        {"model's method, clipped", MethodBindsThenReturns, "", "tuner = net.make_tuner(0.05)",
         true},
        {"model's method, its binding named as the caller's", MethodBindsCallersName, "",
         "tuner = net.make_tuner(0.05)", false},
        {"settings in a dataclass", MethodReadsSettings, SettingsDataclass,
         "knobs = Knobs(rate=0.05)\ntuner = net.make_tuner(knobs)", false, "beta1: 0.8"},
        {"settings at the dataclass's defaults, by position", MethodReadsSettings,
         "\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass Knobs:\n    rate: float = "
         "0.05\n    betas: tuple = (0.9, 0.95)\n\n",
         "knobs = Knobs()\ntuner = net.make_tuner(knobs)", false, "beta2: 0.95"},
        {"settings stored by a constructor", MethodReadsSettings, SettingsClass,
         "knobs = Knobs(0.05)\ntuner = net.make_tuner(knobs)", false, "beta1: 0.8"},
    };
    for (const auto& f : forms) {
        QStringList det{"tuner = self.context.wrap_optimizer(tuner)",
                        "self.context.step_optimizer(self.tuner"};
        QStringList pop{"optimizer=tuner"};
        QStringList cer{"learning_rate: 0.05"};
        if (*f.cerebras)
            cer << f.cerebras;
        if (f.clip) {
            det << "clip_grads=lambda params: torch.nn.utils.clip_grad_norm_(params, 0.5)";
            pop << "max_grad_norm=0.5";
            cer << "max_gradient_norm: 0.5";
        }
        QTest::addRow("determined, %s", f.name)
            << "determined-pytorchtrial" << f.method << f.factory << f.bind << f.clip << det;
        QTest::addRow("poptorch, %s", f.name)
            << "graphcore-poptorch" << f.method << f.factory << f.bind << f.clip << pop;
        QTest::addRow("cerebras, %s", f.name)
            << "cerebras-pytorch" << f.method << f.factory << f.bind << f.clip << cer;
    }
}

// The port is full (no "layer-local optimizers", no optimizer missing from the step), builds
// the optimizer in the target's form, and trains as the original does (momentum and AdamW make
// a missing or doubled step visible in the losses).
void TestPortOptimizerFactory::factoryOptimizerIsTheCallersBinding()
{
    QFETCH(QString, target);
    QFETCH(QString, method);
    QFETCH(QString, factory);
    QFETCH(QString, bind);
    QFETCH(bool, clip);
    QFETCH(QStringList, contains);
    std::string script = FactoryScript;
    substitute(script, "METHOD", method.toStdString());
    substitute(script, "FACTORY", factory.toStdString());
    substitute(script, "BIND", bind.toStdString());
    substitute(script, "CLIP", clip ? Clip : "");
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, script, "fit.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    const std::string all = allText(*r.value);
    PORT_VERIFY_CONTAINS(all, contains);
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortOptimizerFactory)
#include "test_port_optimizer_factory.moc"
