// An optimizer whose class is picked by name (`getattr(optim, args.optim)(...)`, a common
// argparse idiom, or `getattr(torch.optim, "RMSprop")`; a table of classes indexed by a flag; a
// lookup function of the project, in the script or imported, returning one for its parameter):
// the plan names the class the original's run builds, from the command line or the flag's
// default, and each target ports it as an optimizer built in place. A name that cannot be told
// without running is not guessed. Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// @PICK@: the optimizer's construction.
const char* const Script = R"(import argparse
import torch
import torch.nn as nn
from torch import optim
from torch.utils.data import DataLoader, TensorDataset

knobs = argparse.ArgumentParser()
knobs.add_argument("--optim", type=str, default="Adam", help="optimizer class")
knobs.add_argument("--lr", type=float, default=0.01)
settings = knobs.parse_args()


ROSTER = {"adam": optim.Adam, "sgd": optim.SGD}


def lookup(kind):
    kind = kind.lower()
    if kind in ("sgd", "momentum"):
        return torch.optim.SGD
    elif kind == "adam":
        return optim.Adam
    return optim.RMSprop


def chosen():
    return "SGD"


torch.manual_seed(2)
cells = TensorDataset(torch.randn(48, 5), torch.randn(48, 2))
feed = DataLoader(cells, batch_size=6, shuffle=True)
body = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2))
rate = settings.lr
rule = @PICK@
for lap in range(2):
    for xb, yb in feed:
        rule.zero_grad()
        miss = nn.functional.mse_loss(body(xb), yb)
        miss.backward()
        rule.step()
)";

std::string script(const std::string& pick)
{
    std::string s = Script;
    s.replace(s.find("@PICK@"), 6, pick);
    return s;
}

} // namespace

class TestPortOptimizerByName : public QObject
{
    Q_OBJECT

private slots:
    void classFromTheName_data();
    void classFromTheName();
    void importedLookup_data();
    void importedLookup();
};

void TestPortOptimizerByName::classFromTheName_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("pick");
    QTest::addColumn<QString>("commandLine"); // the --optim value given, or ""
    QTest::addColumn<QString>("planned");     // the class, "" when none is planned
    QTest::addColumn<bool>("verify");
    struct Form
    {
        const char* name;
        const char* pick;
        const char* commandLine;
        const char* planned;
        bool verify;
    };
    const Form forms[] = {
        {"flag default", "getattr(optim, settings.optim)(body.parameters(), lr=settings.lr)", "",
         "torch.optim.Adam", true},
        {"flag on the command line",
         "getattr(optim, settings.optim)(body.parameters(), lr=settings.lr)", "SGD",
         "torch.optim.SGD", false},
        // The rate bound to the flag first (`rate = args.lr`): the Cerebras runner's
        // learning_rate is the flag's value.
        {"rate named first", "getattr(optim, settings.optim)(body.parameters(), lr=rate)", "",
         "torch.optim.Adam", true},
        {"literal name", "getattr(torch.optim, 'RMSprop')(body.parameters(), lr=0.005)", "",
         "torch.optim.RMSprop", false},
        {"name from a call", "getattr(optim, chosen())(body.parameters(), lr=0.1)", "", "", false},
        // A table of classes indexed by the flag, and a function of the script that returns one
        // for its parameter through an `if` chain.
        {"table", "ROSTER[settings.optim.lower()](body.parameters(), lr=settings.lr)", "",
         "torch.optim.Adam", true},
        {"lookup function", "lookup(settings.optim)(body.parameters(), lr=settings.lr)", "",
         "torch.optim.Adam", true},
        {"lookup function, flag given", "lookup(settings.optim)(body.parameters(), lr=0.02)",
         "Momentum", "torch.optim.SGD", false},
        {"lookup function, its fall-through", "lookup('lamb')(body.parameters(), lr=0.01)", "",
         "torch.optim.RMSprop", false},
        {"lookup function, name from a call", "lookup(chosen())(body.parameters(), lr=0.1)", "", "",
         false},
    };
    for (const auto& f : forms)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", target, f.name)
                << target << f.pick << f.commandLine << f.planned << f.verify;
}

void TestPortOptimizerByName::classFromTheName()
{
    QFETCH(QString, target);
    QFETCH(QString, pick);
    QFETCH(QString, commandLine);
    QFETCH(QString, planned);
    QFETCH(bool, verify);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, script(pick.toStdString()), "main.py");
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    port::PortOptions o;
    if (!commandLine.isEmpty())
        o.values["--optim"] = commandLine.toStdString();
    auto plan = port::planPort(*a.value, o);
    QVERIFY2(plan, plan.error.message.c_str());
    if (planned.isEmpty()) {
        // Not guessed: the loop's optimizer is not known, and the port says so.
        QVERIFY(plan.value->optimizers.empty());
        QVERIFY(!plan.value->manual.empty());
        return;
    }
    QCOMPARE(plan.value->optimizers.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(plan.value->optimizers.front().qualified), planned);
    auto r = port::generatePort(*plan.value, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    if (target == "cerebras-pytorch")
        QVERIFY(has(allText(*r.value), "optimizer_type: \"" +
                                           planned.mid(planned.lastIndexOf('.') + 1).toStdString() +
                                           "\""));
    if (!verify)
        return;
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortOptimizerByName::importedLookup_data()
{
    QTest::addColumn<QString>("target");
    for (const char* target : {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
        QTest::addRow("%s", target) << target;
}

// The lookup function in a module of the project (`from tools import optimizer_for`), returning
// an entry of a table it builds, for a name a flag gives.
void TestPortOptimizerByName::importedLookup()
{
    QFETCH(QString, target);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, {{"tools.py", R"(import torch


def optimizer_for(label):
    kinds = {
        "sgd": torch.optim.SGD,
        "rmsprop": torch.optim.RMSprop,
    }
    return kinds[label]
)"},
                         {"fit.py", R"(import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from tools import optimizer_for


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--solver", default="rmsprop")
    p.add_argument("--lr", type=float, default=0.004)
    conf = p.parse_args()
    torch.manual_seed(6)
    xs, ys = torch.randn(40, 3), torch.randn(40, 1)
    feed = DataLoader(TensorDataset(xs, ys), batch_size=5, shuffle=True)
    head = nn.Linear(3, 1)
    solver = optimizer_for(conf.solver)(head.parameters(), lr=conf.lr)
    for _ in range(2):
        for x, y in feed:
            solver.zero_grad()
            nn.functional.l1_loss(head(x), y).backward()
            solver.step()


if __name__ == "__main__":
    main()
)"}});
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value, {});
    QVERIFY2(plan, plan.error.message.c_str());
    QCOMPARE(plan.value->optimizers.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(plan.value->optimizers.front().qualified),
             QString("torch.optim.RMSprop"));
    auto r = port::generatePort(*plan.value, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    if (target == "cerebras-pytorch")
        QVERIFY(has(allText(*r.value), "optimizer_type: \"RMSprop\""));
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortOptimizerByName)
#include "test_port_optimizer_by_name.moc"
