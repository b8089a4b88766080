// Several models trained in turn in one step (a GAN: the critic's losses and its optimizer's
// step, then the generator's): the plan's sequence, the Determined train_batch that runs it in
// the user's order, the one item of the targets that run one loss per step, and a verification
// that replays the original into the port. Fixtures written for the pattern.
#include "tests/port/port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

const char* const Preamble = R"(import argparse
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--seed', type=int, help='seed (random when not given)')
args = parser.parse_args()
if args.seed is None:
    args.seed = random.randint(1, 10000)
random.seed(args.seed)
torch.manual_seed(args.seed)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))

    def forward(self, x):
        return self.net(x).view(-1)


class Maker(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 4))

    def forward(self, z):
        return self.net(z)


critic = Critic()
maker = Maker()
opt_c = optim.Adam(critic.parameters(), lr=args.lr)
opt_m = optim.Adam(maker.parameters(), lr=args.lr)
)";

// The critic first, three backward() calls, the made batch detached for the critic's loss.
const char* const CriticFirst = R"(
loader = DataLoader(TensorDataset(torch.randn(64, 4)), batch_size=8, shuffle=True)
for epoch in range(2):
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
        print(epoch, loss_real.item(), loss_m.item())
)";

// enumerate over (data, label) batches, the optimizers zeroed, a graph kept for a second
// backward: no detach, so the critic's loss reaches the maker too.
const char* const Enumerated = R"(
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.zeros(64)), batch_size=8)
for i, (data, _) in enumerate(loader):
    opt_c.zero_grad()
    made = maker(torch.randn(data.size(0), 2))
    loss_c = F.softplus(-critic(data)).mean() + F.softplus(critic(made)).mean()
    loss_c.backward(retain_graph=True)
    opt_c.step()
    opt_m.zero_grad()
    loss_m = F.softplus(-critic(made)).mean()
    loss_m.backward()
    opt_m.step()
)";

// The maker's step first (as Determined's own GAN example orders it), two backward() calls.
const char* const MakerFirst = R"(
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.zeros(64)), batch_size=8)
for data, target in loader:
    made = maker(torch.randn(data.size(0), 2))
    loss_m = F.softplus(-critic(made)).mean()
    opt_m.zero_grad()
    loss_m.backward()
    opt_m.step()
    opt_c.zero_grad()
    loss_c = F.softplus(-critic(data)).mean() + F.softplus(critic(made.detach())).mean()
    loss_c.backward()
    opt_c.step()
)";

// The maker reads the flags namespace as a module global and draws its noise with NumPy (as
// many GAN scripts do): the trial sets the global, and the replay seeds NumPy per step too.
const char* const GlobalFlagsNumpyNoise = R"(import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument('--latent', type=int, default=3)
parser.add_argument('--lr', type=float, default=0.01)
opt = parser.parse_args()


class Maker(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(opt.latent, 8), nn.ReLU(), nn.Linear(8, 4))

    def forward(self, z):
        return self.net(z)


critic = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.3), nn.Linear(8, 1))
maker = Maker()
loader = DataLoader(TensorDataset(torch.randn(64, 4)), batch_size=8, shuffle=True)
opt_m = torch.optim.Adam(maker.parameters(), lr=opt.lr)
opt_c = torch.optim.SGD(critic.parameters(), lr=opt.lr)
for epoch in range(2):
    for i, (real,) in enumerate(loader):
        opt_m.zero_grad()
        z = torch.tensor(np.random.normal(0, 1, (real.size(0), opt.latent)), dtype=torch.float32)
        made = maker(z)
        loss_m = F.softplus(-critic(made)).mean()
        loss_m.backward()
        opt_m.step()
        opt_c.zero_grad()
        loss_c = F.softplus(-critic(real)).mean() + F.softplus(critic(made.detach())).mean()
        loss_c.backward()
        opt_c.step()
)";

// Models trained in turn on whole tensors, no DataLoader: the original's dry run seeds each
// step where the loop body begins. One model draws dropout masks: the port agrees only when
// both runs seed step k with the same seed (the original counted its first step late, when
// the second pass's first optimizer stepped, so its step 2 drew step 1's masks again).
const char* const TurnData = R"(import torch
import torch.nn as nn

points = torch.randn(24, 3)
marks = points.sum(dim=1, keepdim=True) + 0.1 * torch.randn(24, 1)
)";

const char* const TurnPlain = "nn.Sequential(nn.Linear(3, 12), nn.Tanh(), nn.Linear(12, 1))";
const char* const TurnDropped =
    "nn.Sequential(nn.Linear(3, 12), nn.Dropout(0.4), nn.Tanh(), nn.Linear(12, 1))";

const char* const TwoInTurn = R"(opt_steady = torch.optim.SGD(steady.parameters(), lr=0.05)
opt_noisy = torch.optim.SGD(noisy.parameters(), lr=0.05)
criterion = nn.L1Loss()
for it in range(30):
    err_steady = criterion(steady(points), marks)
    err_noisy = criterion(noisy(points), marks)
    opt_steady.zero_grad()
    opt_noisy.zero_grad()
    err_steady.backward()
    err_noisy.backward()
    opt_steady.step()
    opt_noisy.step()
)";

std::string twoInTurn(const char* steady, const char* noisy)
{
    return std::string(TurnData) + "steady = " + steady + "\nnoisy = " + noisy + "\n" + TwoInTurn;
}

const char* const ThreeInTurn =
    R"(narrow = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
wide = nn.Sequential(nn.Linear(3, 16), nn.Dropout(0.3), nn.ReLU(), nn.Linear(16, 1))
deep = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 1))
opt_narrow = torch.optim.Adam(narrow.parameters(), lr=0.02)
opt_wide = torch.optim.Adam(wide.parameters(), lr=0.02)
opt_deep = torch.optim.Adam(deep.parameters(), lr=0.02)
criterion = nn.MSELoss()
for it in range(30):
    err_narrow = criterion(narrow(points), marks)
    err_wide = criterion(wide(points), marks)
    err_deep = criterion(deep(points), marks)
    opt_narrow.zero_grad()
    opt_wide.zero_grad()
    opt_deep.zero_grad()
    err_narrow.backward()
    err_wide.backward()
    err_deep.backward()
    opt_narrow.step()
    opt_wide.step()
    opt_deep.step()
)";

// No dropout, but each pass draws its own batch: the same late count drew step 1's batch again.
const char* const OwnBatchInTurn = R"(import torch
import torch.nn as nn

first = nn.Sequential(nn.Linear(3, 12), nn.Tanh(), nn.Linear(12, 1))
second = nn.Sequential(nn.Linear(3, 12), nn.Tanh(), nn.Linear(12, 1))
opt_first = torch.optim.SGD(first.parameters(), lr=0.05)
opt_second = torch.optim.SGD(second.parameters(), lr=0.05)
criterion = nn.MSELoss()
for it in range(30):
    points = torch.randn(16, 3)
    marks = points.sum(dim=1, keepdim=True)
    err_first = criterion(first(points), marks)
    err_second = criterion(second(points), marks)
    opt_first.zero_grad()
    err_first.backward()
    opt_first.step()
    opt_second.zero_grad()
    err_second.backward()
    opt_second.step()
)";

std::string inTurnFixture(const QString& name)
{
    if (name == "second-drops")
        return twoInTurn(TurnPlain, TurnDropped);
    if (name == "first-drops")
        return twoInTurn(TurnDropped, TurnPlain);
    if (name == "three-models")
        return std::string(TurnData) + ThreeInTurn;
    return OwnBatchInTurn;
}

struct Original
{
    QTemporaryDir dir;
    fs::path root;
    explicit Original(const char* body, const char* preamble = Preamble)
    {
        root = fs::path(dir.path().toStdString()) / "original";
        writeOriginal(root, std::string(preamble) + body);
    }
};

// "Z+ S B P": zero_grad kept (Z+) or dropped (Z-), statement, backward, optimizer step.
QString kinds(const port::LoopPlan& lp)
{
    QStringList out;
    for (const auto& a : lp.sequence) {
        switch (a.kind) {
        case port::StepAction::Kind::Statement:
            out << "S";
            break;
        case port::StepAction::Kind::Backward:
            out << "B";
            break;
        case port::StepAction::Kind::Step:
            out << "P";
            break;
        case port::StepAction::Kind::ZeroGrad:
            out << (a.keep ? "Z+" : "Z-");
            break;
        }
    }
    return out.join(' ');
}

std::string between(const std::string& text, const std::string& from, const std::string& to)
{
    const auto a = text.find(from);
    const auto b = text.find(to, a == std::string::npos ? 0 : a);
    return a == std::string::npos || b == std::string::npos ? std::string() : text.substr(a, b - a);
}

const port::GeneratedFile* file(const port::PortResult& r, const std::string& path)
{
    for (const auto& f : r.files)
        if (f.path == path)
            return &f;
    return nullptr;
}

} // namespace

class TestPortSeveralModels : public QObject
{
    Q_OBJECT

private slots:
    void plansTheSequence_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("kinds");
        QTest::addColumn<QString>("models");
        // The critic's zero_grad stays: the maker's loss went through the critic after the
        // critic's step, and Determined zeroes the critic only right after stepping it. The
        // maker's is redundant: only the maker's loss reaches it, after its step zeroed it.
        QTest::addRow("critic-first") << CriticFirst << "Z+ S B S S B P Z- S B P"
                                      << "critic:opt_c maker:opt_m";
        // Without detach the critic's loss reaches the maker: both stay.
        QTest::addRow("enumerate-no-detach") << Enumerated << "Z+ S S B P Z+ S B P"
                                             << "critic:opt_c maker:opt_m";
        QTest::addRow("maker-first") << MakerFirst << "S S Z- B P Z+ S B P"
                                     << "critic:opt_c maker:opt_m";
    }

    void plansTheSequence()
    {
        QFETCH(QString, body);
        QFETCH(QString, kinds);
        QFETCH(QString, models);
        Original o(body.toUtf8().constData());
        auto a = analysis::analyzeProject(o.root);
        QVERIFY(a);
        auto plan = port::planPort(*a.value);
        QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
        QVERIFY(plan.value->loop);
        QCOMPARE(::kinds(*plan.value->loop), kinds);
        QStringList owners;
        for (const auto& m : plan.value->models)
            owners << QString::fromStdString(m.variable + ":" + m.optimizer);
        QCOMPARE(owners.join(' '), models);
        QVERIFY(plan.value->stepNotPlaced.empty());
        QVERIFY(plan.value->manual.empty());
    }

    void determinedTrainBatch_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("trainBatch");
        QTest::addRow("critic-first") << CriticFirst << R"(        (real,) = batch
        self.model.zero_grad()
        loss_real = F.softplus(-self.model(real)).mean()
        self.context.backward(loss_real)
        made = self.maker(torch.randn(real.size(0), 2))
        loss_made = F.softplus(self.model(made.detach())).mean()
        self.context.backward(loss_made)
        self.context.step_optimizer(self.opt_c)
        loss_m = F.softplus(-self.model(made)).mean()
        self.context.backward(loss_m)
        self.context.step_optimizer(self.opt_m)
        return {"loss": loss_m, "loss_real": loss_real, "loss_made": loss_made, "loss_m": loss_m}
)";
        QTest::addRow("enumerate-no-detach") << Enumerated << R"(        (data, _) = batch
        i = batch_idx
        self.opt_c.zero_grad()
        made = self.maker(torch.randn(data.size(0), 2))
        loss_c = F.softplus(-self.model(data)).mean() + F.softplus(self.model(made)).mean()
        self.context.backward(loss_c, retain_graph=True)
        self.context.step_optimizer(self.opt_c)
        self.opt_m.zero_grad()
        loss_m = F.softplus(-self.model(made)).mean()
        self.context.backward(loss_m)
        self.context.step_optimizer(self.opt_m)
        return {"loss": loss_m, "loss_c": loss_c, "loss_m": loss_m}
)";
        QTest::addRow("maker-first") << MakerFirst << R"(        data, target = batch
        made = self.maker(torch.randn(data.size(0), 2))
        loss_m = F.softplus(-self.model(made)).mean()
        self.context.backward(loss_m)
        self.context.step_optimizer(self.opt_m)
        self.opt_c.zero_grad()
        loss_c = F.softplus(-self.model(data)).mean() + F.softplus(self.model(made.detach())).mean()
        self.context.backward(loss_c)
        self.context.step_optimizer(self.opt_c)
        return {"loss": loss_c, "loss_m": loss_m, "loss_c": loss_c}
)";
    }

    void determinedTrainBatch()
    {
        QFETCH(QString, body);
        QFETCH(QString, trainBatch);
        Original o(body.toUtf8().constData());
        auto a = analysis::analyzeProject(o.root);
        QVERIFY(a);
        auto plan = port::planPort(*a.value);
        QVERIFY(plan);
        auto r = port::generatePort(*plan.value, "determined-pytorchtrial", "");
        QVERIFY(r);
        QVERIFY2(r.value->full(),
                 r.value->manual.empty() ? "" : r.value->manual[0].message.c_str());
        const std::string text = file(*r.value, "model_def.py")->text;
        const std::string step = between(text, "batch_idx: int) -> Dict[str, torch.Tensor]:\n",
                                         "\n    def evaluate_batch");
        QCOMPARE(QString::fromStdString(step.substr(step.find('\n') + 1)), trainBatch);
        // Every model and optimizer wrapped; the seed of a flag that defaults to None guarded.
        for (const char* wrapped :
             {"critic = self.context.wrap_model(critic)", "maker = self.context.wrap_model(maker)",
              "opt_c = self.context.wrap_optimizer(opt_c)",
              "opt_m = self.context.wrap_optimizer(opt_m)",
              "if self.context.get_hparam(\"seed\") is not None:\n            torch.manual_seed("})
            QVERIFY2(text.find(wrapped) != std::string::npos, wrapped);
    }

    void oneItemOnOneLossTargets_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("says");
        QTest::addRow("poptorch") << "graphcore-poptorch"
                                  << "one trainingModel per optimizer";
        QTest::addRow("cerebras") << "cerebras-pytorch"
                                  << "port to Determined";
    }

    void oneItemOnOneLossTargets()
    {
        QFETCH(QString, target);
        QFETCH(QString, says);
        Original o(CriticFirst);
        auto a = analysis::analyzeProject(o.root);
        QVERIFY(a);
        auto plan = port::planPort(*a.value);
        QVERIFY(plan);
        auto r = port::generatePort(*plan.value, target.toStdString(), "");
        QVERIFY(r);
        QCOMPARE(r.value->manual.size(), std::size_t(1));
        const auto& m = r.value->manual[0];
        QVERIFY2(m.message.find("2 models trained in turn (critic by opt_c, maker by opt_m; 3 "
                                "backward() calls per batch)") != std::string::npos,
                 m.message.c_str());
        QVERIFY2(m.hint.find(says.toStdString()) != std::string::npos, m.hint.c_str());
        QCOMPARE(m.location.line, 48); // loss_real.backward()
        std::string all;
        for (const auto& g : r.value->files)
            all += g.text;
        // The port computes the first loss; no other loss is read undefined.
        QVERIFY(all.find("loss_made") == std::string::npos);
        QVERIFY(all.find("loss_m.") == std::string::npos);
    }

    // Both dry runs: the original records its models' weights and batches, the port replays
    // them; every backward() loss and the weights agree. Dropping the critic's kept zero_grad()
    // parts at step 2 (the maker's loss leaves gradients on the critic).
    void verificationAgrees()
    {
        Original o(CriticFirst);
        auto a = analysis::analyzeProject(o.root);
        QVERIFY(a);
        auto plan = port::planPort(*a.value);
        QVERIFY(plan);
        auto r = port::generatePort(*plan.value, "determined-pytorchtrial", "");
        QVERIFY(r);
        const fs::path out = fs::path(o.dir.path().toStdString()) / "port";
        QVERIFY(!port::writePort(*r.value, out));
        port::VerifyOptions vo;
        vo.timeoutSeconds = 240;
        const auto v = port::verifyPort(o.root, out, *r.value, vo);
        if (v.originalError.starts_with("cannot start"))
            QSKIP(v.originalError.c_str());
        QVERIFY2(v.agrees, (v.originalError + " | " + v.dryRunError).c_str());
        QCOMPARE(v.stepsCompared, 3);
        QCOMPARE(v.originalBackwardLosses.size(), std::size_t(3));
        for (const auto& step : v.portBackwardLosses)
            QCOMPARE(step.size(), std::size_t(3));

        auto broken = *r.value;
        auto& text = broken.files.front().text;
        const std::string kept = "        self.model.zero_grad()\n";
        QVERIFY(text.find(kept) != std::string::npos);
        text.erase(text.find(kept), kept.size());
        const fs::path out2 = fs::path(o.dir.path().toStdString()) / "port-without-zero-grad";
        QVERIFY(!port::writePort(broken, out2));
        const auto w = port::verifyPort(o.root, out2, broken, vo);
        QVERIFY(!w.agrees);
        QCOMPARE(w.firstDivergence, 2);
    }

    void inTurnDrawingRandomness_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<int>("models");
        QTest::addRow("second-drops") << "second-drops" << 2;
        QTest::addRow("first-drops") << "first-drops" << 2;
        QTest::addRow("three-models") << "three-models" << 3;
        QTest::addRow("own-batch-per-pass") << "own-batch" << 2;
    }

    // Determined wraps every model and optimizer and runs the pass as train_batch: both dry
    // runs agree on every step, each backward() loss included.
    void inTurnDrawingRandomness()
    {
        QFETCH(QString, fixture);
        QFETCH(int, models);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "original";
        auto r = generate(root, inTurnFixture(fixture), "determined-pytorchtrial");
        QVERIFY(r);
        QVERIFY2(r.value->full(),
                 r.value->manual.empty() ? "" : r.value->manual[0].message.c_str());
        const fs::path out = fs::path(dir.path().toStdString()) / "port";
        QVERIFY(!port::writePort(*r.value, out));
        port::VerifyOptions vo;
        vo.timeoutSeconds = 240;
        const auto v = port::verifyPort(root, out, *r.value, vo);
        if (v.originalError.starts_with("cannot start"))
            QSKIP(v.originalError.c_str());
        QVERIFY2(v.agrees, (v.originalError + " | " + v.dryRunError + " | first divergence " +
                            std::to_string(v.firstDivergence))
                               .c_str());
        QCOMPARE(v.stepsCompared, 3);
        QCOMPARE(v.portBackwardLosses.size(), std::size_t(3));
        for (const auto& step : v.portBackwardLosses)
            QCOMPARE(step.size(), std::size_t(models));
    }

    void inTurnOnOneLossTargets_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("item");
        for (const char* target : {"graphcore-poptorch", "cerebras-pytorch"}) {
            QTest::addRow("second-drops %s", target)
                << "second-drops" << target
                << "2 models trained in turn (steady by opt_steady, noisy by opt_noisy; 2 "
                   "backward() calls per batch)";
            QTest::addRow("three-models %s", target)
                << "three-models" << target
                << "3 models trained in turn (narrow by opt_narrow, wide by opt_wide, deep by "
                   "opt_deep; 3 backward() calls per batch)";
        }
    }

    // The targets that compile one loss per step stay partial and name what is left where the
    // step is: verifying the Determined port does not make them claim more.
    void inTurnOnOneLossTargets()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, target);
        QFETCH(QString, item);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "original";
        auto r = generate(root, inTurnFixture(fixture), target.toStdString());
        QVERIFY(r);
        QVERIFY(!r.value->full());
        QCOMPARE(r.value->manual.size(), std::size_t(1));
        const auto& m = r.value->manual[0];
        QCOMPARE(QString::fromStdString(m.checkId), QString("port.manual"));
        QVERIFY2(has(m.message, item.toStdString()), m.message.c_str());
        std::string all;
        for (const auto& g : r.value->files)
            all += g.text;
        QVERIFY(has(all, "TODO(portolan)"));
    }

    void globalFlagsAndNumpyNoise()
    {
        Original o(GlobalFlagsNumpyNoise, "");
        auto a = analysis::analyzeProject(o.root);
        QVERIFY(a);
        auto plan = port::planPort(*a.value);
        QVERIFY(plan);
        auto r = port::generatePort(*plan.value, "determined-pytorchtrial", "");
        QVERIFY(r);
        QVERIFY2(r.value->full(),
                 r.value->manual.empty() ? "" : r.value->manual[0].message.c_str());
        const std::string text = file(*r.value, "model_def.py")->text;
        QVERIFY2(text.find("        global opt\n        opt = self.flags()\n") != std::string::npos,
                 text.c_str());
        QVERIFY(text.find("\nopt = None\n") != std::string::npos);
        const fs::path out = fs::path(o.dir.path().toStdString()) / "port";
        QVERIFY(!port::writePort(*r.value, out));
        port::VerifyOptions vo;
        vo.timeoutSeconds = 240;
        const auto v = port::verifyPort(o.root, out, *r.value, vo);
        if (v.originalError.starts_with("cannot start"))
            QSKIP(v.originalError.c_str());
        QVERIFY2(v.agrees, (v.originalError + " | " + v.dryRunError).c_str());
        QCOMPARE(v.stepsCompared, 3);
    }
};

QTEST_GUILESS_MAIN(TestPortSeveralModels)
#include "test_port_several_models.moc"
