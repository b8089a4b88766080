// Values the loop's function is given as calls written inline in its call, not bound to a name
// first: the criterion (`settle(rig, supply, nudger, nn.SmoothL1Loss(beta=0.5), laps=2)`), the
// model built from a flag (`drill(Classifier(opts.hidden), ...)`, its optimizer built inside),
// the batches from a helper (`drill(net, batches_of(72, opts.batch), ...)`) and all three at
// once. The port binds each where the call was, evaluated once and in the call's order, so the
// model's initial weights and the batches are the original's. Every row is full and verifies on
// its target.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// The criterion inline, by position, with the passes by keyword.
const char* const InlineCriterion = R"PY(import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Rig(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 1)

    def forward(self, x):
        return self.lin(x)


def settle(rig, supply, nudger, gap, laps):
    for _ in range(laps):
        for xs, ys in supply:
            nudger.zero_grad()
            miss = gap(rig(xs), ys)
            miss.backward()
            nudger.step()


def main():
    torch.manual_seed(5)
    xs = torch.randn(90, 5)
    ys = xs.sum(dim=1, keepdim=True) * 0.3
    supply = DataLoader(TensorDataset(xs, ys), batch_size=15, shuffle=True)
    rig = Rig()
    nudger = torch.optim.SGD(rig.parameters(), lr=0.02)
    settle(rig, supply, nudger, nn.SmoothL1Loss(beta=0.5), laps=2)


if __name__ == "__main__":
    main()
)PY";

// The model inline, built from a flag; the optimizer and the criterion inside the function.
const char* const InlineModel = R"PY(import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(7, hidden), nn.ReLU(), nn.Linear(hidden, 4))

    def forward(self, x):
        return self.net(x)


def drill(net, pool, step, rounds):
    trainer = torch.optim.Adam(net.parameters(), lr=step)
    judge = nn.CrossEntropyLoss()
    for _ in range(rounds):
        net.train()
        for feats, marks in pool:
            trainer.zero_grad()
            judge(net(feats), marks).backward()
            trainer.step()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, default=9)
    ap.add_argument("--step", type=float, default=0.01)
    opts = ap.parse_args()
    torch.manual_seed(2)
    feats = torch.randn(84, 7)
    marks = torch.randint(0, 4, (84,))
    pool = DataLoader(TensorDataset(feats, marks), batch_size=12, shuffle=True)
    drill(Classifier(opts.hidden), pool, opts.step, 2)
)PY";

// The batches inline, from a helper of the file given a flag.
const char* const InlineBatches = R"PY(import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def batches_of(count, size):
    xs = torch.rand(count, 3)
    ys = (xs[:, 0] > xs[:, 1]).long()
    return DataLoader(TensorDataset(xs, ys), batch_size=size, shuffle=True)


def drill(net, pool, trainer, judge, rounds=2):
    for _ in range(rounds):
        for feats, marks in pool:
            trainer.zero_grad()
            loss = judge(net(feats), marks)
            loss.backward()
            trainer.step()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=8)
    opts = ap.parse_args()
    torch.manual_seed(4)
    net = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 2))
    trainer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.5)
    judge = nn.CrossEntropyLoss()
    drill(net, batches_of(72, opts.batch), trainer, judge)


if __name__ == "__main__":
    main()
)PY";

// The model, the batches and the criterion all inline, by keyword; the optimizer inside.
const char* const AllInline = R"PY(import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Scorer(nn.Module):
    def __init__(self, width, classes=3):
        super().__init__()
        self.a = nn.Linear(4, width)
        self.b = nn.Linear(width, classes)

    def forward(self, x):
        return self.b(F.relu(self.a(x)))


def toy_batches(n, size):
    xs = torch.randn(n, 4)
    ys = torch.randint(0, 3, (n,))
    return DataLoader(TensorDataset(xs, ys), batch_size=size, shuffle=True)


def practice(model, feed, criterion, epochs):
    opt = torch.optim.RMSprop(model.parameters(), lr=0.003)
    for _ in range(epochs):
        for xs, ys in feed:
            opt.zero_grad()
            cost = criterion(model(xs), ys)
            cost.backward()
            opt.step()


if __name__ == "__main__":
    torch.manual_seed(8)
    practice(
        model=Scorer(10),
        feed=toy_batches(60, 10),
        criterion=nn.CrossEntropyLoss(label_smoothing=0.1),
        epochs=2,
    )
)PY";

struct Original
{
    const char* name;
    const char* text;
    // The inline construction the port must build exactly once (its class's definition
    // aside); null where the target's data functions each build the batches, as they do for
    // any loader.
    const char* built;
};

const Original kOriginals[] = {
    {"criterion", InlineCriterion, "nn.SmoothL1Loss(beta=0.5)"},
    {"model from a flag", InlineModel, "Classifier("},
    {"batches from a helper", InlineBatches, nullptr},
    {"all three by keyword", AllInline, "Scorer("},
};

} // namespace

class TestPortInlineArguments : public QObject
{
    Q_OBJECT

private slots:
    void verifies_data();
    void verifies();
};

void TestPortInlineArguments::verifies_data()
{
    QTest::addColumn<int>("original");
    QTest::addColumn<QString>("target");
    for (int i = 0; i < int(std::size(kOriginals)); ++i)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", kOriginals[i].name, target) << i << target;
}

void TestPortInlineArguments::verifies()
{
    QFETCH(int, original);
    QFETCH(QString, target);
    const Original& o = kOriginals[original];
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, {{"main.py", o.text}});
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    // Built once: a second construction would draw the initial weights or the shuffle again.
    std::string code;
    for (const auto& f : r.value->files)
        if (f.path.ends_with(".py"))
            code += f.text;
    if (o.built)
        QVERIFY2(occurrences(code, o.built) - occurrences(code, std::string("class ") + o.built) ==
                     1,
                 code.c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortInlineArguments)
#include "test_port_inline_arguments.moc"
