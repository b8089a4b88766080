// Optimizer step forms (issue 24): an optimizer stepped with a closure (LBFGS) on each target,
// and a partial port whose item is at the optimizer, whose guide errors at the item's spot are
// the item's, not counted again. Fixtures written for the patterns.
#include "core/analysis/analysis.h"
#include "core/port/generate.h"

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>

using namespace portolan;
namespace fs = std::filesystem;

namespace {

// Full-batch LBFGS over a loop of iterations: the closure clears the gradients itself.
const char* const FullBatch = R"(import argparse
import torch
import torch.nn as nn
import torch.optim as optim


class Curve(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(4, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--iterations', type=int, default=5)
    parser.add_argument('--hidden', type=int, default=8)
    opts = parser.parse_args()
    torch.manual_seed(1)
    xs = torch.randn(32, 4)
    ys = xs.sum(dim=1, keepdim=True)
    net = Curve(opts.hidden)
    mse = nn.MSELoss()
    solver = optim.LBFGS(net.parameters(), lr=0.5, max_iter=4)
    for it in range(opts.iterations):
        def evaluate_loss():
            solver.zero_grad()
            pred = net(xs)
            err = mse(pred, ys)
            err.backward()
            return err
        solver.step(evaluate_loss)
        print('iteration', it)
)";

// LBFGS over a DataLoader's batches, clipping inside the closure after backward().
const char* const OverBatches = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 1))
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.3, max_iter=3)
data = TensorDataset(torch.randn(48, 3), torch.randn(48, 1))
loader = DataLoader(data, batch_size=8, shuffle=True)
for epoch in range(2):
    for x, y in loader:
        def closure():
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            return loss
        optimizer.step(closure)
)";

// An optimizer PopTorch's trainingModel does not train with (Adagrad), over batches.
const char* const UnsupportedOptimizer = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 2))
optimizer = torch.optim.Adagrad(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(48, 3), torch.randint(0, 2, (48,))),
                    batch_size=8)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
)";

// Layer-local training: each block builds an optimizer on its own parameters and trains itself in
// its own method, on what the stack hands it (forward-forward style).
const char* const LayerLocal = R"(import argparse
import torch
import torch.nn as nn


class Block(nn.Linear):
    def __init__(self, d_in, d_out):
        super().__init__(d_in, d_out)
        self.optim = torch.optim.SGD(self.parameters(), lr=args.rate)
        self.rounds = args.rounds
        self.margin = args.margin

    def fit(self, good, bad):
        for r in range(self.rounds):
            score_good = self.forward(good).pow(2).mean(1)
            score_bad = self.forward(bad).pow(2).mean(1)
            objective = torch.relu(
                torch.cat([self.margin - score_good, score_bad - self.margin])
            ).mean()
            self.optim.zero_grad()
            objective.backward()
            self.optim.step()
        return self.forward(good).detach(), self.forward(bad).detach()


class Stack(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.blocks = nn.ModuleList([Block(a, b) for a, b in zip(sizes, sizes[1:])])

    def fit(self, good, bad):
        for block in self.blocks:
            good, bad = block.fit(good, bad)


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--rate', type=float, default=0.05)
    parser.add_argument('--rounds', type=int, default=4)
    parser.add_argument('--margin', type=float, default=1.0)
    args = parser.parse_args()
    torch.manual_seed(3)
    stack = Stack([6, 5, 4])
    stack.fit(torch.randn(16, 6), torch.randn(16, 6))
)";

// Two models trained in turn over batches, each by its own optimizer; the second's loss goes
// through the first.
const char* const InTurn = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

judge = nn.Linear(4, 1)
painter = nn.Linear(2, 4)
opt_j = torch.optim.SGD(judge.parameters(), lr=0.1)
opt_p = torch.optim.SGD(painter.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(32, 4)), batch_size=8)
for epoch in range(2):
    for (real,) in loader:
        opt_j.zero_grad()
        fake = painter(torch.randn(real.size(0), 2))
        loss_j = F.softplus(-judge(real)).mean() + F.softplus(judge(fake.detach())).mean()
        loss_j.backward()
        opt_j.step()
        opt_p.zero_grad()
        loss_p = F.softplus(-judge(fake)).mean()
        loss_p.backward()
        opt_p.step()
)";

struct Original
{
    QTemporaryDir dir;
    fs::path root;
    explicit Original(const char* text)
    {
        root = fs::path(dir.path().toStdString()) / "original";
        fs::create_directories(root);
        std::ofstream(root / "main.py") << text;
    }
};

const port::GeneratedFile* file(const port::PortResult& r, const std::string& path)
{
    for (const auto& f : r.files)
        if (f.path == path)
            return &f;
    return nullptr;
}

const char* fixture(const QString& name)
{
    if (name == "full-batch")
        return FullBatch;
    if (name == "over-batches")
        return OverBatches;
    if (name == "layer-local")
        return LayerLocal;
    if (name == "in-turn")
        return InTurn;
    return UnsupportedOptimizer;
}

std::optional<port::PortResult> generate(const Original& o, const std::string& target)
{
    auto a = analysis::analyzeProject(o.root);
    if (!a)
        return std::nullopt;
    auto plan = port::planPort(*a.value);
    if (!plan)
        return std::nullopt;
    std::string api;
    const std::string guide = port::targetGuide(target, "", &api);
    auto r = port::generatePort(*plan.value, guide, api);
    if (!r)
        return std::nullopt;
    return *r.value;
}

} // namespace

class TestPortStepForms : public QObject
{
    Q_OBJECT
private slots:
    // Each target's form of a closure step: one item, at the step or the construction, that
    // names the target's limit; Determined steps the wrapped optimizer with the closure itself.
    void closureStep_data()
    {
        QTest::addColumn<QString>("original");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("writes");
        QTest::addColumn<QString>("item");
        QTest::addColumn<int>("itemLine");
        QTest::addColumn<bool>("namesPortSpot");
        QTest::addRow("full-batch/determined")
            << "full-batch"
            << "determined-pytorchtrial"
            << "model_def.py"
            << QStringList{"        def evaluate_loss():\n            self.solver.zero_grad()\n"
                           "            pred = self.model(self.xs)\n",
                           "            self.context.backward(err)\n            return err\n",
                           "        self.solver.step(evaluate)\n",
                           "            losses.append(evaluate_loss())\n",
                           "        return {\"loss\": losses[-1]}\n"}
            << "Determined's step_optimizer calls step() without one" << 35 << true;
        QTest::addRow("over-batches/determined")
            << "over-batches"
            << "determined-pytorchtrial"
            << "model_def.py"
            << QStringList{"            self.context.backward(loss)\n"
                           "            torch.nn.utils.clip_grad_norm_(self.model.parameters(), "
                           "1.0)\n            return loss\n",
                           "        self.optimizer.step(evaluate)\n"}
            << "Determined's step_optimizer calls step() without one" << 19 << true;
        QTest::addRow("full-batch/poptorch")
            << "full-batch"
            << "poptorch"
            << "train.py" << QStringList{} << "PopTorch has no LBFGS and runs no closure" << 27
            << true;
        QTest::addRow("full-batch/cerebras")
            << "full-batch"
            << "cerebras-pytorch"
            << "model.py" << QStringList{} << "cerebras.pytorch.optim has no LBFGS" << 27 << false;
    }
    void closureStep()
    {
        QFETCH(QString, original);
        QFETCH(QString, target);
        QFETCH(QString, file);
        QFETCH(QStringList, writes);
        QFETCH(QString, item);
        QFETCH(int, itemLine);
        QFETCH(bool, namesPortSpot);
        Original o(fixture(original));
        const auto r = generate(o, target.toStdString());
        QVERIFY(r);
        QCOMPARE(r->manual.size(), std::size_t(1));
        const auto& m = r->manual[0];
        QVERIFY2(m.message.find(item.toStdString()) != std::string::npos, m.message.c_str());
        QCOMPARE(m.location.line, itemLine);
        QCOMPARE(!m.related.empty(), namesPortSpot);
        if (namesPortSpot)
            QCOMPARE(QString::fromStdString(m.related[0].file), file);
        const auto* f = ::file(*r, file.toStdString());
        QVERIFY(f);
        for (const auto& w : writes)
            QVERIFY2(f->text.find(w.toStdString()) != std::string::npos,
                     (w.toStdString() + "\n---\n" + f->text).c_str());
    }

    // Both dry runs, replayed: the Determined closure port trains as the original (every
    // backward() of each LBFGS step too), partial by its one item, with no check error counted.
    // On PopTorch, an optimizer trainingModel does not take is kept (the item), and the guide's
    // error at that spot is the item's; the stand-in still steps it, so the rest is compared.
    void verifiesPartial_data()
    {
        QTest::addColumn<QString>("original");
        QTest::addColumn<QString>("target");
        QTest::addColumn<int>("itemFindings");
        // The guide's step-optimizer check flags the closure's step of whatever the trial wraps
        // with wrap_optimizer (`self.solver`, `self.optimizer`), at the item's spot.
        QTest::addRow("full-batch/determined") << "full-batch"
                                               << "determined-pytorchtrial" << 1;
        QTest::addRow("over-batches/determined") << "over-batches"
                                                 << "determined-pytorchtrial" << 1;
        QTest::addRow("adagrad/poptorch") << "unsupported"
                                          << "graphcore-poptorch" << 1;
    }
    void verifiesPartial()
    {
        QFETCH(QString, original);
        QFETCH(QString, target);
        QFETCH(int, itemFindings);
        Original o(fixture(original));
        const auto r = generate(o, target.toStdString());
        QVERIFY(r);
        const fs::path out = fs::path(o.dir.path().toStdString()) / "port";
        QVERIFY(!port::writePort(*r, out));
        port::VerifyOptions vo;
        vo.timeoutSeconds = 240;
        const auto v = port::verifyPort(o.root, out, *r, vo);
        if (v.originalError.starts_with("cannot start"))
            QSKIP(v.originalError.c_str());
        QCOMPARE(r->status(&v), std::string("partial"));
        QCOMPARE(v.checkErrors, 0);
        QCOMPARE(int(v.itemFindings.size()), itemFindings);
        QCOMPARE(r->leftFor(&v).size(), std::size_t(1));
        QCOMPARE(v.dryRunSteps, 3);
        QVERIFY2(v.agrees, (v.originalError + " | " + v.dryRunError).c_str());
    }

    // A step the port does not place (layer-local optimizers): one item, which also names the
    // port's lines that carry the step's statements and where the target's step is written; the
    // guide's errors there (the block method's parameters, the model nobody builds) are the
    // item's, so the port lists one thing left and no check error.
    void stepLeftIsOneItem_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<int>("relatedAtLeast");
        QTest::addRow("determined") << "determined-pytorchtrial" << 6;
        QTest::addRow("poptorch") << "graphcore-poptorch" << 6;
        QTest::addRow("cerebras") << "cerebras-pytorch" << 3;
    }
    void stepLeftIsOneItem()
    {
        QFETCH(QString, target);
        QFETCH(int, relatedAtLeast);
        Original o(LayerLocal);
        const auto r = generate(o, target.toStdString());
        QVERIFY(r);
        QCOMPARE(r->manual.size(), std::size_t(1));
        QVERIFY(r->manual[0].message.starts_with("layer-local optimizers"));
        QVERIFY2(int(r->manual[0].related.size()) >= relatedAtLeast,
                 std::to_string(r->manual[0].related.size()).c_str());
        // No optimizer attribute of the trial named after the layer's (`self.self.optim`).
        for (const auto& f : r->files)
            QVERIFY2(f.text.find("self.self.") == std::string::npos, f.path.c_str());
        const fs::path out = fs::path(o.dir.path().toStdString()) / "port";
        QVERIFY(!port::writePort(*r, out));
        port::VerifyOptions vo;
        vo.timeoutSeconds = 240;
        const auto v = port::verifyPort(o.root, out, *r, vo);
        if (v.originalError.starts_with("cannot start"))
            QSKIP(v.originalError.c_str());
        QVERIFY2(v.checkErrors == 0,
                 v.checkFindings.empty() ? "" : v.checkFindings[0].toString().c_str());
        QCOMPARE(r->leftFor(&v).size(), std::size_t(1));
    }

    // Models trained in turn on PopTorch: the one item names the documented limit (PopTorch
    // keeps one model's trainingModel and inferenceModel in sync; it documents no pair of
    // trainingModels over a shared model, each with its own optimizer).
    void inTurnNamesPopTorchLimit()
    {
        Original o(InTurn);
        const auto r = generate(o, "graphcore-poptorch");
        QVERIFY(r);
        QCOMPARE(r->manual.size(), std::size_t(1));
        const auto& m = r->manual[0].message;
        QVERIFY2(m.find("2 models trained in turn") != std::string::npos, m.c_str());
        QVERIFY2(m.find("PopTorch documents no form for two trainingModels that share a model") !=
                     std::string::npos,
                 m.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPortStepForms)
#include "test_port_step_forms.moc"
