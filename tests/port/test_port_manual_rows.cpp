// The manual list names exactly what is left (issue 24): for a step the port cannot place (an
// LBFGS closure, layer-local optimizers, several backward() calls), one item per construct and
// no "needed but not moved" item for the step's own names. Each row is a fixture written for the
// pattern; `items` lists a phrase of every manual item expected, in order, and nothing else.
#include "tests/port/port_fixture.h"
#include "tests/port/test_port.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

const char* const Preamble = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

parser = argparse.ArgumentParser()
parser.add_argument('--lr', type=float, default=0.1)
parser.add_argument('--steps', type=int, default=3)
parser.add_argument('--use-adam', action='store_true')
args = parser.parse_args()
)";

} // namespace

void TestPort::manualItemsExactly_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("items");
    QTest::addColumn<QString>("contains");

    // The closure's locals (`pred`) are the step's; a builtin name the script rebinds (`input`)
    // is the script's value, moved with the code that reads it.
    const QString closure = R"(
input = torch.randn(16, 4)
target = torch.randn(16, 1)
model = nn.Linear(4, 1)
optimizer = optim.LBFGS(model.parameters(), lr=args.lr)
for i in range(args.steps):
    def closure():
        optimizer.zero_grad()
        pred = model(input)
        loss = F.mse_loss(pred, target)
        loss.backward()
        return loss
    optimizer.step(closure)
    print('step', i)
)";
    for (const char* t : {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
        QTest::addRow("lbfgs-closure/%s", t) << closure << t << QStringList{"closure"} << "pred = ";
    QTest::addRow("lbfgs-closure-rebound-builtin/determined")
        << closure << "determined-pytorchtrial" << QStringList{"closure"}
        << "\ninput = torch.randn(16, 4)\n";

    // Each layer trains itself on the batches its method is given.
    const QString layerLocal = R"(

class Block(nn.Linear):
    def __init__(self, n):
        super().__init__(n, n)
        self.optim = optim.Adam(self.parameters(), lr=args.lr)

    def fit(self, pos, neg):
        for k in range(args.steps):
            score = self(pos).pow(2).mean() - self(neg).pow(2).mean()
            self.optim.zero_grad()
            score.backward()
            self.optim.step()
        return self(pos).detach(), self(neg).detach()


blocks = [Block(4), Block(4)]
a, b = torch.randn(8, 4), torch.randn(8, 4)
for blk in blocks:
    a, b = blk.fit(a, b)
)";
    for (const char* t : {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
        QTest::addRow("layer-local/%s", t)
            << layerLocal << t << QStringList{"layer-local optimizers"} << "TODO(portolan)";

    // Two networks trained in turn, three backward() calls: Determined places the step
    // (test_port_several_models); a target that runs one loss per step names it once, and the
    // losses it computes are not each "untraced".
    const QString adversarial = R"(
from torch.utils.data import DataLoader, TensorDataset
loader = DataLoader(TensorDataset(torch.randn(16, 4)), batch_size=4)
critic = nn.Linear(4, 1)
maker = nn.Linear(2, 4)
opt_c = optim.Adam(critic.parameters(), lr=args.lr)
opt_m = optim.Adam(maker.parameters(), lr=args.lr)
for (real,) in loader:
    critic.zero_grad()
    loss_real = F.softplus(-critic(real)).mean()
    loss_real.backward()
    made = maker(torch.randn(real.size(0), 2))
    loss_made = F.softplus(critic(made.detach())).mean()
    loss_made.backward()
    opt_c.step()
    maker.zero_grad()
    loss_m = F.softplus(-critic(made)).mean()
    loss_m.backward()
    opt_m.step()
)";
    QTest::addRow("several-models/determined")
        << adversarial << "determined-pytorchtrial" << QStringList{}
        << "self.context.step_optimizer(self.opt_m)";
    for (const char* t : {"graphcore-poptorch", "cerebras-pytorch"})
        QTest::addRow("several-models/%s", t)
            << adversarial << t << QStringList{"2 models trained in turn"} << "TODO(portolan)";

    // The step chosen by a flag, the model built per flag with a device move, the rate held in
    // a name bound from a flag after the training function, and a plateau decay of that rate.
    const QString flagChosen = R"(
device = torch.device("cpu")
if args.steps > 5:
    model = nn.Linear(4, 1).to(device)
else:
    model = nn.Sequential(nn.Linear(4, 1)).to(device)
if args.use_adam:
    optimizer = optim.Adam(model.parameters(), lr=args.lr)


def train():
    for k in range(args.steps):
        data = torch.randn(8, 4)
        model.zero_grad()
        loss = model(data).pow(2).mean()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        if args.use_adam:
            optimizer.step()
        else:
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-rate)


rate = args.lr
best = None
for epoch in range(3):
    train()
    val = model(torch.randn(8, 4)).pow(2).mean().item()
    if not best or val < best:
        best = val
    else:
        rate /= 2.0
)";
    QTest::addRow("flag-chosen-step/determined-default")
        << flagChosen << "determined-pytorchtrial" << QStringList{"multiplied by 1 / 2.0"}
        << "lr=self.context.get_hparam(\"learning_rate\")))";
    QTest::addRow("flag-chosen-step/model-per-flag")
        << flagChosen << "determined-pytorchtrial" << QStringList{"multiplied by 1 / 2.0"}
        << "model = nn.Sequential(nn.Linear(4, 1))\n";
    // The clipping before the step is Determined's clip_grads.
    QTest::addRow("flag-chosen-step/clip-grads")
        << flagChosen << "determined-pytorchtrial" << QStringList{"multiplied by 1 / 2.0"}
        << "step_optimizer(self.optimizer,\n            clip_grads=lambda params: "
           "torch.nn.utils.clip_grad_norm_(params, 0.5))";
    QTest::addRow("flag-chosen-step/says-which")
        << flagChosen << "determined-pytorchtrial" << QStringList{"multiplied by 1 / 2.0"}
        << "--use-adam is False (the default)";

    // What the original does to the model right after building it (an init function applied,
    // a dtype change) moves with the construction, before the target wraps the model.
    const QString mutated = R"(
from torch.utils.data import DataLoader, TensorDataset
loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 1)), batch_size=4)


def reset(m):
    if isinstance(m, nn.Linear):
        nn.init.zeros_(m.bias)


net = nn.Linear(4, 1)
net.apply(reset)
net.double()
print(net)
opt = optim.SGD(net.parameters(), lr=args.lr)
for x, y in loader:
    opt.zero_grad()
    loss = F.mse_loss(net(x.double()), y.double())
    loss.backward()
    opt.step()
)";
    QTest::addRow("model-mutators/determined")
        << mutated << "determined-pytorchtrial" << QStringList{}
        << "        net = nn.Linear(4, 1)\n        net.apply(reset)\n        net.double()\n"
           "        net = self.context.wrap_model(net)\n";

    // State carried from batch to batch (a recurrent state, detached per batch) is the trial's;
    // validation reads it into a local, so it does not advance the state training continues from.
    const QString carried = R"(
from torch.utils.data import DataLoader, TensorDataset
loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 4)), batch_size=4)
cell = nn.GRUCell(4, 4)
opt = optim.SGD(cell.parameters(), lr=args.lr)


def train():
    state = torch.zeros(4, 4)
    for x, y in loader:
        state = state.detach()
        state = cell(x, state)
        loss = F.mse_loss(state, y)
        opt.zero_grad()
        loss.backward()
        opt.step()


train()
)";
    QTest::addRow("carried-state/train")
        << carried << "determined-pytorchtrial" << QStringList{}
        << "        self.state = self.state.detach()\n        self.state = self.model(x, "
           "self.state)\n";
    QTest::addRow("carried-state/validation-local")
        << carried << "determined-pytorchtrial" << QStringList{}
        << "        state = self.state\n        state = state.detach()\n        state = "
           "self.model(x, state)\n";

    // A module global computed from a flag and read by a class of the script: the trial computes
    // it from the hyperparameters and sets the module global the class reads.
    const QString moduleGlobal = R"(
from torch.utils.data import DataLoader, TensorDataset
width = int(args.steps) + 1


class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, width)

    def forward(self, x):
        return self.fc(x)


loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 4)), batch_size=4)
net = Wide()
opt = optim.SGD(net.parameters(), lr=args.lr)
for x, y in loader:
    opt.zero_grad()
    loss = F.mse_loss(net(x)[:, :4], y)
    loss.backward()
    opt.step()
)";
    QTest::addRow("module-global-from-flag/init")
        << moduleGlobal << "determined-pytorchtrial" << QStringList{}
        << "        global width\n        width = int(self.context.get_hparam(\"";
    QTest::addRow("module-global-from-flag/module")
        << moduleGlobal << "determined-pytorchtrial" << QStringList{} << "\nwidth = None\n";

    // A name bound at module level and again in the training function: in the generated
    // function it is local throughout, so its module-level binding runs there first.
    const QString rebound = R"(
from torch.utils.data import DataLoader, TensorDataset
loader = DataLoader(TensorDataset(torch.randn(16, 8)), batch_size=4)
feats = int(args.steps) + 1
net = nn.Linear(feats, 1)
opt = optim.SGD(net.parameters(), lr=args.lr)


def train():
    feats = int(args.steps) + 1
    for (x,) in loader:
        opt.zero_grad()
        loss = net(x[:, :feats]).pow(2).mean()
        loss.backward()
        opt.step()


train()
)";
    QTest::addRow("rebound-in-function/poptorch")
        << rebound << "graphcore-poptorch" << QStringList{}
        << "    feats = int(args.steps) + 1\n    net = nn.Linear(feats, 1)\n";

    // A helper of the script that reads the global flags namespace: in the trial it takes the
    // namespace as its last parameter, and the step passes the one rebuilt from the
    // hyperparameters; nothing is left to do by hand.
    const QString helperFlags = R"(
def draw(n):
    x = torch.randn(n, 4) * args.lr
    return x, x.sum(1, keepdim=True)


net = nn.Linear(4, 1)
opt = optim.SGD(net.parameters(), lr=args.lr)
for step in range(args.steps):
    x, y = draw(4)
    opt.zero_grad()
    loss = F.mse_loss(net(x), y)
    loss.backward()
    opt.step()
)";
    QTest::addRow("helper-reads-flags/definition")
        << helperFlags << "determined-pytorchtrial" << QStringList{} << "\ndef draw(n, args):\n";
    QTest::addRow("helper-reads-flags/call")
        << helperFlags << "determined-pytorchtrial" << QStringList{}
        << "        args = self.flags()\n        x, y = draw(4, args)\n";
}

void TestPort::manualItemsExactly()
{
    QFETCH(QString, body);
    QFETCH(QString, target);
    QFETCH(QStringList, items);
    QFETCH(QString, contains);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, Preamble + body.toStdString());
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string manuals = manualText(*r.value), all = allText(*r.value);
    QVERIFY2(r.value->manual.size() == static_cast<std::size_t>(items.size()), manuals.c_str());
    for (int i = 0; i < items.size(); ++i)
        QVERIFY2(r.value->manual[static_cast<std::size_t>(i)].message.find(
                     items[i].toStdString()) != std::string::npos,
                 manuals.c_str());
    QVERIFY2(all.find(contains.toStdString()) != std::string::npos, all.c_str());
}
