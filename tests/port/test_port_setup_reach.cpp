// Set-ups the port reaches through the original's structure, each written for its pattern (the
// classes were found on originals Portolan had not seen; these fixtures are not those projects):
// - SeedValue: A value the seed and the data both read (`salt = 11`, then `torch.manual_seed(salt)`
// and `build_batches(size, salt)`): set where the seed runs too.
// - ProgressOverAttribute: A progress bar over a loader reached through an attribute, in the loop
// (`for x, y in tqdm(feeds.fit, desc=...)`): the batches are the attribute's.
// - ProgressBound: The same bar bound to a name in the epoch loop (`bar = tqdm(feeds.fit, desc=f"ep
// {ep}")`).
// - TwoCallsBelow: The loop two calls below where the model and data are built (`main` ->
// `session(feed, scorer)` builds the optimizer -> `one_pass(feed, scorer, opt)`).
// - RenamedTwoLevels: The same with each level naming the values its own way (`main` builds
// `ranker`, `session(batches, net, rate)` builds the optimizer from `net` at `rate=0.04` and calls
// `one_pass(feed, net, opt)`): each function's parameters read its caller's values.
// - BuiltWithDevice: The model built with a device argument (`Tagger(width=16,
// device=torch.device("cpu"))`): a model, not a device binding; and its optimizer at torch's
// default rate (`Adam(tagger.parameters())`), which the Cerebras params file writes out.
// - ParametersByName: The optimizer given the model's parameters through a name (`weights =
// model.parameters()`, then `RMSprop(weights, ...)`): the model is the name's owner; on Cerebras
// the optimizer keeps torch's eps.
// - DerivedDeviceFlag: A device switch derived on the namespace after parsing (`cfg.accel = not
// cfg.no_accel and torch.cuda.is_available()`), guarding only device moves: the `if`s the port
// leaves empty go, and with them the reads of a value that is not a flag.
// - PackageReexport: The loop's function in a package module, imported through the package's
// re-export (`from kit import Scorer, fit_epoch`, kit/__init__.py importing it from .looping),
// its module reading a sibling by a relative import (`from .nets import smoothed`).
// - SpreadKeywords: Settings spread into the loop's function's `**opts` from a dict of flags
// (`train_for(model, feed, **settings)`, `lr=opts["rate"]`).
// - AfterTheCall: A call on the model after the training call, with its result (`last = fit(ranker,
// feed)`, then `ranker.export(f"...{last}")`): leftovers, not set-up.
// - TupleConstants: Constants bound by unpacking (`rounds, pace = 40, 0.03`): the rate is a value
// the params file can hold.
// - PackagesNamedLikeTheRunner: Packages named like the runner's generated modules (`from
// model.blocks import Tagger`, `from data.toy import toy_set`): the generated modules take other
// names. Every row is full and verifies on its target.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// SeedValue: main.py
const char* const SeedValue0 = R"PY(import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def build_batches(size, salt):
    gen = torch.Generator().manual_seed(salt)
    inputs = torch.randn(180, 6, generator=gen)
    labels = (inputs[:, 0] > 0).long()
    return DataLoader(TensorDataset(inputs, labels), batch_size=size, shuffle=True)


def run():
    salt = 11
    size = 20
    torch.manual_seed(salt)
    batches = build_batches(size, salt)
    clf = nn.Sequential(nn.Linear(6, 12), nn.Dropout(0.2), nn.Linear(12, 2))
    adam = torch.optim.Adam(clf.parameters(), lr=0.01)
    lossf = nn.CrossEntropyLoss()
    for ep in range(2):
        for inputs, labels in batches:
            adam.zero_grad()
            err = lossf(clf(inputs), labels)
            err.backward()
            adam.step()
        print(ep, err.item())


if __name__ == "__main__":
    run()
)PY";

// ProgressOverAttribute: main.py, its loop as @LOOP@ (the bar in the loop, or bound first).
const char* const ProgressOverAttributeLoop = R"PY(from types import SimpleNamespace

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


def loaders(size):
    xs = torch.randn(160, 5)
    ys = xs.sum(dim=1, keepdim=True)
    return SimpleNamespace(fit=DataLoader(TensorDataset(xs, ys), batch_size=size, shuffle=True),
                           held=DataLoader(TensorDataset(xs[:40], ys[:40]), batch_size=size))


def run():
    torch.manual_seed(2)
    feeds = loaders(16)
    reg = nn.Sequential(nn.Linear(5, 9), nn.ReLU(), nn.Linear(9, 1))
    sgd = torch.optim.SGD(reg.parameters(), lr=0.02)
    for ep in range(1, 3):
        total = 0.0
        @LOOP@
            sgd.zero_grad()
            gap = nn.functional.mse_loss(reg(inputs), goals)
            gap.backward()
            sgd.step()
            total += gap.item()
        print(ep, total / len(feeds.fit))


if __name__ == "__main__":
    run()
)PY";

// TwoCallsBelow: main.py
const char* const TwoCallsBelow0 = R"PY(import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x):
        return self.body(x)


def one_pass(feed, scorer, opt):
    scorer.train()
    for x, y in feed:
        opt.zero_grad()
        cost = nn.functional.cross_entropy(scorer(x), y)
        cost.backward()
        opt.step()
    return cost.item()


def session(feed, scorer):
    opt = torch.optim.SGD(scorer.parameters(), lr=0.04, momentum=0.5)
    for ep in range(2):
        print(ep, one_pass(feed, scorer, opt))


def main():
    torch.manual_seed(5)
    samples = TensorDataset(torch.randn(120, 8), torch.randint(0, 3, (120,)))
    feed = DataLoader(samples, batch_size=12, shuffle=True)
    scorer = Scorer()
    session(feed, scorer)


if __name__ == "__main__":
    main()
)PY";

// RenamedTwoLevels: main.py
const char* const RenamedTwoLevels0 = R"PY(import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x):
        return self.body(x)


def one_pass(feed, net, opt):
    net.train()
    for x, y in feed:
        opt.zero_grad()
        cost = nn.functional.cross_entropy(net(x), y)
        cost.backward()
        opt.step()
    return cost.item()


def session(batches, net, rate):
    opt = torch.optim.SGD(net.parameters(), lr=rate, momentum=0.5)
    for ep in range(2):
        print(ep, one_pass(batches, net, opt))


def main():
    torch.manual_seed(5)
    samples = TensorDataset(torch.randn(120, 8), torch.randint(0, 3, (120,)))
    feed = DataLoader(samples, batch_size=12, shuffle=True)
    ranker = Scorer()
    session(feed, ranker, rate=0.04)


if __name__ == "__main__":
    main()
)PY";

// BuiltWithDevice: main.py
const char* const BuiltWithDevice0 = R"PY(import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Tagger(nn.Module):
    def __init__(self, width, device):
        super().__init__()
        self.device = device
        self.inner = nn.Linear(5, width, device=device)
        self.outer = nn.Linear(width, 4, device=device)

    def forward(self, x):
        return self.outer(torch.relu(self.inner(x.to(self.device))))


def main():
    torch.manual_seed(2)
    rows = TensorDataset(torch.randn(64, 5), torch.randint(0, 4, (64,)))
    feed = DataLoader(rows, batch_size=8, shuffle=True)
    tagger = Tagger(width=16, device=torch.device("cpu"))
    tuner = torch.optim.Adam(tagger.parameters())
    for ep in range(2):
        for x, y in feed:
            tuner.zero_grad()
            cost = nn.functional.cross_entropy(tagger(x), y)
            cost.backward()
            tuner.step()
        print(ep, cost.item())


if __name__ == "__main__":
    main()
)PY";

// ParametersByName: main.py
const char* const ParametersByName0 = R"PY(import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(4)
    rows = TensorDataset(torch.randn(60, 7), torch.randn(60, 1))
    feed = DataLoader(rows, batch_size=6, shuffle=True)
    model = nn.Sequential(nn.Linear(7, 12), nn.Tanh(), nn.Linear(12, 1))
    weights = model.parameters()
    fitter = torch.optim.RMSprop(weights, lr=0.005)
    for ep in range(2):
        for x, y in feed:
            fitter.zero_grad()
            cost = nn.functional.mse_loss(model(x), y)
            cost.backward()
            fitter.step()
        print(ep, cost.item())


if __name__ == "__main__":
    main()
)PY";

// DerivedDeviceFlag: main.py
const char* const DerivedDeviceFlag0 = R"PY(import argparse
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    cli = argparse.ArgumentParser()
    cli.add_argument("--rate", type=float, default=0.02)
    cli.add_argument("--no-accel", action="store_true", default=False)
    cfg = cli.parse_args()
    cfg.accel = not cfg.no_accel and torch.cuda.is_available()
    torch.manual_seed(6)
    rows = TensorDataset(torch.randn(80, 9), torch.randint(0, 3, (80,)))
    feed = DataLoader(rows, batch_size=10, shuffle=True)
    clf = nn.Sequential(nn.Linear(9, 14), nn.ReLU(), nn.Linear(14, 3))
    if cfg.accel:
        clf.cuda()
    step = torch.optim.SGD(clf.parameters(), lr=cfg.rate)
    for ep in range(2):
        for xs, ys in feed:
            if cfg.accel:
                xs, ys = xs.cuda(), ys.cuda()
            step.zero_grad()
            cost = nn.functional.cross_entropy(clf(xs), ys)
            cost.backward()
            step.step()
        print(ep, cost.item())


if __name__ == "__main__":
    main()
)PY";

// PackageReexport: run.py
const char* const PackageReexport0 = R"PY(import torch
from torch.utils.data import DataLoader, TensorDataset
from kit import Scorer, fit_epoch

if __name__ == "__main__":
    torch.manual_seed(8)
    rows = TensorDataset(torch.randn(72, 6), torch.randint(0, 3, (72,)))
    feed = DataLoader(rows, batch_size=9, shuffle=True)
    scorer = Scorer()
    tuner = torch.optim.SGD(scorer.parameters(), lr=0.05)
    for ep in range(2):
        print(ep, fit_epoch(scorer, feed, tuner))
)PY";

// PackageReexport: kit/__init__.py
const char* const PackageReexport1 = R"PY(from .nets import Scorer
from .looping import fit_epoch
)PY";

// PackageReexport: kit/nets.py
const char* const PackageReexport2 = R"PY(import torch
from torch import nn


def smoothed(logits, labels):
    return nn.functional.cross_entropy(logits, labels, label_smoothing=0.1)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))

    def forward(self, x):
        return self.layers(x)
)PY";

// PackageReexport: kit/looping.py
const char* const PackageReexport3 = R"PY(from .nets import smoothed


def fit_epoch(net, feed, opt):
    net.train()
    for x, y in feed:
        opt.zero_grad()
        cost = smoothed(net(x), y)
        cost.backward()
        opt.step()
    return cost.item()
)PY";

// SpreadKeywords: main.py
const char* const SpreadKeywords0 = R"PY(import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train_for(model, feed, **opts):
    adam = torch.optim.Adam(model.parameters(), lr=opts["rate"], weight_decay=opts["decay"])
    for rnd in range(opts["rounds"]):
        for x, y in feed:
            adam.zero_grad()
            miss = nn.functional.mse_loss(model(x), y)
            miss.backward()
            adam.step()
        print(rnd, miss.item())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, default=0.005)
    ap.add_argument("--rounds", type=int, default=2)
    cli = ap.parse_args()
    torch.manual_seed(8)
    xs = torch.randn(96, 4)
    feed = DataLoader(TensorDataset(xs, xs[:, :2] * 2.0), batch_size=8, shuffle=True)
    model = nn.Sequential(nn.Linear(4, 10), nn.Tanh(), nn.Linear(10, 2))
    settings = {"rate": cli.rate, "rounds": cli.rounds, "decay": 1e-4}
    train_for(model, feed, **settings)


if __name__ == "__main__":
    main()
)PY";

// AfterTheCall: main.py
const char* const AfterTheCall0 = R"PY(import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Ranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(7, 2)

    def forward(self, x):
        return self.lin(x)

    def export(self, where):
        torch.save(self.state_dict(), where)


def fit(ranker, feed):
    sgd = torch.optim.SGD(ranker.parameters(), lr=0.1)
    for ep in range(2):
        for x, y in feed:
            sgd.zero_grad()
            loss = nn.functional.cross_entropy(ranker(x), y)
            loss.backward()
            sgd.step()
    return loss.item()


def main():
    torch.manual_seed(9)
    feed = DataLoader(TensorDataset(torch.randn(70, 7), torch.randint(0, 2, (70,))), batch_size=10)
    ranker = Ranker()
    last = fit(ranker, feed)
    where = f"ranker_{last:.3f}.pt"
    ranker.export(where)


if __name__ == "__main__":
    main()
)PY";

// TupleConstants: main.py
const char* const TupleConstants0 = R"PY(import torch
from torch import nn

rounds, pace = 40, 0.03
torch.manual_seed(4)
xs = torch.linspace(-2, 2, 64).unsqueeze(1)
ys = 3 * xs ** 2 - xs + 0.5
curve = nn.Sequential(nn.Linear(1, 24), nn.Tanh(), nn.Linear(24, 1))
sgd = torch.optim.SGD(curve.parameters(), lr=pace)
for step in range(rounds):
    sgd.zero_grad()
    loss = nn.functional.mse_loss(curve(xs), ys)
    loss.backward()
    sgd.step()
    if step % 10 == 0:
        print(step, loss.item())
)PY";

// PackagesNamedLikeTheRunner: train.py
const char* const PackagesNamedLikeTheRunner0 = R"PY(import torch
from torch.utils.data import DataLoader

from data.toy import toy_set
from model.blocks import Tagger


def main():
    torch.manual_seed(3)
    feed = DataLoader(toy_set(120), batch_size=15, shuffle=True)
    tagger = Tagger(18)
    sgd = torch.optim.SGD(tagger.parameters(), lr=0.05)
    for ep in range(2):
        for x, y in feed:
            sgd.zero_grad()
            loss = torch.nn.functional.cross_entropy(tagger(x), y)
            loss.backward()
            sgd.step()
        print(ep, loss.item())


if __name__ == "__main__":
    main()
)PY";

// PackagesNamedLikeTheRunner: model/__init__.py
const char* const PackagesNamedLikeTheRunner1 = R"PY()PY";

// PackagesNamedLikeTheRunner: model/blocks.py
const char* const PackagesNamedLikeTheRunner2 = R"PY(from torch import nn


class Tagger(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, width), nn.ReLU(), nn.Linear(width, 4))

    def forward(self, x):
        return self.net(x)
)PY";

// PackagesNamedLikeTheRunner: data/__init__.py
const char* const PackagesNamedLikeTheRunner3 = R"PY()PY";

// PackagesNamedLikeTheRunner: data/toy.py
const char* const PackagesNamedLikeTheRunner4 = R"PY(import torch
from torch.utils.data import TensorDataset


def toy_set(n):
    xs = torch.randn(n, 6)
    return TensorDataset(xs, xs.argmax(dim=1) % 4)
)PY";

std::string withLoop(const char* loop)
{
    std::string s = ProgressOverAttributeLoop;
    s.replace(s.find("@LOOP@"), 6, loop);
    return s;
}

const std::string ProgressOverAttribute0 =
    withLoop("for inputs, goals in tqdm(feeds.fit, desc=f\"ep {ep}\", leave=False):");
const std::string ProgressBound0 =
    withLoop("bar = tqdm(feeds.fit, desc=f\"ep {ep}\", leave=False)\n"
             "        for inputs, goals in bar:");

struct Original
{
    const char* name;
    std::map<std::string, std::string> files; // path -> text
};

std::vector<Original> originals()
{
    return {
        {"SeedValue", {{"main.py", SeedValue0}}},
        {"ProgressOverAttribute", {{"main.py", ProgressOverAttribute0}}},
        {"ProgressBound", {{"main.py", ProgressBound0}}},
        {"TwoCallsBelow", {{"main.py", TwoCallsBelow0}}},
        {"RenamedTwoLevels", {{"main.py", RenamedTwoLevels0}}},
        {"BuiltWithDevice", {{"main.py", BuiltWithDevice0}}},
        {"ParametersByName", {{"main.py", ParametersByName0}}},
        {"DerivedDeviceFlag", {{"main.py", DerivedDeviceFlag0}}},
        {"PackageReexport",
         {{"run.py", PackageReexport0},
          {"kit/__init__.py", PackageReexport1},
          {"kit/nets.py", PackageReexport2},
          {"kit/looping.py", PackageReexport3}}},
        {"SpreadKeywords", {{"main.py", SpreadKeywords0}}},
        {"AfterTheCall", {{"main.py", AfterTheCall0}}},
        {"TupleConstants", {{"main.py", TupleConstants0}}},
        {"PackagesNamedLikeTheRunner",
         {{"train.py", PackagesNamedLikeTheRunner0},
          {"model/__init__.py", PackagesNamedLikeTheRunner1},
          {"model/blocks.py", PackagesNamedLikeTheRunner2},
          {"data/__init__.py", PackagesNamedLikeTheRunner3},
          {"data/toy.py", PackagesNamedLikeTheRunner4}}},
    };
}

// Writes the original named `name` under `root`.
void writeNamed(const fs::path& root, const QString& name)
{
    for (const auto& o : originals())
        if (name == o.name)
            writeOriginal(root, o.files);
}

} // namespace

class TestPortSetupReach : public QObject
{
    Q_OBJECT

private slots:
    void verifies_data();
    void verifies();
    void runnerModulesAvoidPackages();
};

void TestPortSetupReach::verifies_data()
{
    QTest::addColumn<QString>("original");
    QTest::addColumn<QString>("target");
    for (const auto& o : originals())
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", o.name, target) << o.name << target;
}

void TestPortSetupReach::verifies()
{
    QFETCH(QString, original);
    QFETCH(QString, target);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeNamed(root, original);
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    const std::string text = allText(*r.value);
    // What each pattern must give, beyond the verification.
    if (original == "TupleConstants" && target == "cerebras-pytorch")
        QVERIFY2(text.find("learning_rate: 0.03") != std::string::npos, text.c_str());
    if (original == "SpreadKeywords" && target == "cerebras-pytorch")
        QVERIFY2(text.find("learning_rate: 5.0e-3") != std::string::npos ||
                     text.find("learning_rate: 0.005") != std::string::npos,
                 text.c_str());
    if (original == "RenamedTwoLevels" && target == "cerebras-pytorch")
        QVERIFY2(text.find("learning_rate: 0.04") != std::string::npos, text.c_str());
    if (original == "BuiltWithDevice") {
        QVERIFY2(text.find("Tagger(width=16, device=") != std::string::npos, text.c_str());
        if (target == "cerebras-pytorch")
            QVERIFY2(text.find("learning_rate: 1.0e-3") != std::string::npos, text.c_str());
    }
    if (original == "ParametersByName" && target == "determined-pytorchtrial")
        QVERIFY2(text.find("wrap_model(model)") != std::string::npos, text.c_str());
    // torch's eps for RMSprop (1e-8), which the runner would set to its own 1e-6.
    if (original == "ParametersByName" && target == "cerebras-pytorch")
        QVERIFY2(text.find("eps: 1.0e-8") != std::string::npos, text.c_str());
    if (original == "ParametersByName" && target == "graphcore-poptorch")
        QVERIFY2(text.find("TrainingModel(model") != std::string::npos, text.c_str());
    if (original == "DerivedDeviceFlag")
        QVERIFY2(text.find("(\"accel\")") == std::string::npos &&
                     text.find("cfg.accel") == std::string::npos &&
                     text.find("[\"accel\"]") == std::string::npos,
                 text.c_str());
    if (original == "AfterTheCall")
        QVERIFY2(text.find(".export(") == std::string::npos, text.c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortSetupReach::runnerModulesAvoidPackages()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeNamed(root, "PackagesNamedLikeTheRunner");
    auto r = generateFrom(root, "cerebras-pytorch", "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    std::set<std::string> paths;
    for (const auto& f : r.value->files)
        paths.insert(f.path);
    QVERIFY(paths.count("ported_model.py") && paths.count("ported_data.py"));
    QVERIFY(!paths.count("model.py") && !paths.count("data.py"));
    QVERIFY(paths.count("model/blocks.py") && paths.count("data/toy.py"));
    QVERIFY(has(allText(*r.value), "from ported_model import"));
}

QTEST_GUILESS_MAIN(TestPortSetupReach)
#include "test_port_setup_reach.moc"
