// The port plan's patterns, each on a small fixture written for it (issue 24), and generation
// for every target: the structure the target needs, the user's code moved verbatim, manual items
// where the target cannot take a construct, and the output folder rules.
#include "tests/port/port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// A script in the style of the PyTorch examples; pieces are swapped per pattern.
const char* const Header = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        # two layers
        self.fc1 = nn.Linear(8, hidden)
        self.fc2 = nn.Linear(hidden, 3)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


parser = argparse.ArgumentParser()
parser.add_argument('--batch-size', type=int, default=4)
parser.add_argument('--lr', type=float, default=0.1)
parser.add_argument('--hidden', type=int, default=16)
parser.add_argument('--epochs', type=int, default=1)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
dataset = TensorDataset(torch.randn(32, 8), torch.randint(0, 3, (32,)))
train_loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
)";

struct Fixture
{
    QTemporaryDir dir;
    fs::path root() const { return fs::path(dir.path().toStdString()) / "original"; }
    void write(const std::string& body)
    {
        fs::create_directories(root());
        std::ofstream(root() / "main.py") << Header << body;
    }
};

std::optional<analysis::ProjectAnalysis> analyse(const fs::path& root)
{
    auto a = analysis::analyzeProject(root);
    if (!a)
        return std::nullopt;
    return std::move(*a.value);
}

const port::GeneratedFile* file(const port::PortResult& r, const std::string& path)
{
    for (const auto& f : r.files)
        if (f.path == path)
            return &f;
    return nullptr;
}

} // namespace

#include "tests/port/test_port.h"

void TestPort::plansPatterns_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("expect");

    QTest::addRow("for data, target in loader")
        << R"(model = Net(args.hidden).to(device)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for epoch in range(args.epochs):
    for data, target in train_loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
)"
        << "batch=data,target;index=;loss=F.nll_loss(output, target);model=Net;iter=train_loader";
    QTest::addRow("enumerate loop")
        << R"(model = Net(args.hidden)
optimizer = optim.Adam(model.parameters(), lr=args.lr)
def train(model, loader, optimizer):
    for batch_idx, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
train(model, train_loader, optimizer)
)"
        << "batch=data,target;index=batch_idx;model=Net;iter=loader;dataloader=1";
    QTest::addRow("loss in a helper")
        << R"(def compute_loss(output, target):
    return F.nll_loss(output, target) * 1.0
model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = compute_loss(model(data), target)
    loss.backward()
    optimizer.step()
)"
        << "helper=compute_loss;loss=compute_loss(model(data), target)";
    QTest::addRow("model from a factory") << R"(def build_model(hidden):
    return Net(hidden)
model = build_model(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)"
                                          << "model=build_model;factory=1";
    // Two constructions chosen by a flag: the flags they read, each once.
    QTest::addRow("model chosen by a flag") << R"(if args.hidden > 8:
    model = Net(args.hidden)
else:
    model = Net(args.hidden * 2)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)"
                                            << "flags=hidden";
    QTest::addRow("train and eval switches") << R"(model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for epoch in range(args.epochs):
    for data, target in train_loader:
        model.train()
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        total = 0
        for data, target in train_loader:
            total += F.nll_loss(model(data), target).item()
)"
                                             << "switches=1;eval=1";
    QTest::addRow("StepLR scheduler") << R"(model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(args.epochs):
    for data, target in train_loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
    scheduler.step()
)"
                                      << "scheduler=torch.optim.lr_scheduler.StepLR;perbatch=0";
    // The criterion is a loss module the loss calls, never the torch.nn model it runs through.
    QTest::addRow("criterion module") << R"(model = nn.Sequential(nn.Linear(8, 3))
judge = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = judge(model(data), target)
    loss.backward()
    optimizer.step()
)"
                                      << "criterion=judge;model=torch.nn.Sequential";
    QTest::addRow("loss written out, no criterion") << R"(model = nn.Sequential(nn.Linear(8, 3))
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = ((model(data) - target[:, None]) ** 2).mean()
    loss.backward()
    optimizer.step()
)"
                                                    << "criterion=;model=torch.nn.Sequential";
}

void TestPort::plansPatterns()
{
    QFETCH(QString, body);
    QFETCH(QString, expect);
    Fixture f;
    f.write(body.toStdString());
    auto a = analyse(f.root());
    QVERIFY(a);
    auto plan = port::planPort(*a);
    QVERIFY2(plan, plan.error.message.c_str());
    const auto& p = *plan.value;
    QVERIFY(p.loop);
    for (const auto& item : expect.split(';')) {
        const auto kv = item.split('=');
        const std::string k = kv[0].toStdString();
        const std::string v = kv.mid(1).join('=').toStdString();
        if (k == "batch") {
            std::string names;
            for (const auto& n : p.loop->batchNames)
                names += (names.empty() ? "" : ",") + n;
            QCOMPARE(names, v);
        } else if (k == "index") {
            QCOMPARE(p.loop->indexName, v);
        } else if (k == "loss") {
            QCOMPARE(p.lossExpression.text, v);
        } else if (k == "model") {
            QCOMPARE(p.modelClass, v);
        } else if (k == "factory") {
            QCOMPARE(p.modelFromFactory, v == "1");
        } else if (k == "iter") {
            QCOMPARE(p.loop->iterable, v);
        } else if (k == "dataloader") {
            QVERIFY(p.train.isDataLoader); // traced through train()'s parameter
        } else if (k == "helper") {
            QVERIFY(std::find(p.lossHelpers.begin(), p.lossHelpers.end(), v) !=
                    p.lossHelpers.end());
        } else if (k == "switches") {
            QVERIFY(!p.loop->modeSwitches.empty());
        } else if (k == "eval") {
            QVERIFY(p.evaluation.has_value());
        } else if (k == "scheduler") {
            QCOMPARE(p.schedulers.size(), std::size_t(1));
            QCOMPARE(p.schedulers[0].qualified, v);
        } else if (k == "flags") {
            std::string names;
            for (const auto& n : p.modelFlags)
                names += (names.empty() ? "" : ",") + n;
            QCOMPARE(names, v);
        } else if (k == "perbatch") {
            QCOMPARE(p.schedulers[0].perBatch, v == "1");
        } else if (k == "criterion") {
            QCOMPARE(p.criterionVariable, v);
        }
    }
    // Every pattern ports to Determined and PopTorch in full.
    for (const char* target : {"determined-pytorchtrial", "graphcore-poptorch"}) {
        auto r = port::generatePort(p, target, "");
        QVERIFY(r);
        QVERIFY2(r.value->full(), (std::string(target) + ": " +
                                   (r.value->manual.empty() ? "" : r.value->manual[0].message))
                                      .c_str());
    }
}

void TestPort::determinedStructure()
{
    Fixture f;
    f.write(R"(model = Net(args.hidden).to(device)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(args.epochs):
    for data, target in train_loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)  # the loss
        loss.backward()
        optimizer.step()
    scheduler.step()
)");
    auto a = analyse(f.root());
    auto plan = port::planPort(*a);
    QVERIFY(plan);
    auto r = port::generatePort(*plan.value, "determined", "");
    QVERIFY(r);
    QCOMPARE(r.value->target, std::string("determined-pytorchtrial"));
    const auto* def = file(*r.value, "model_def.py");
    QVERIFY(def);
    const std::string& t = def->text;
    QVERIFY(has(t, "class Trial(PyTorchTrial):"));
    QVERIFY(has(t, "self.context.wrap_model(model)"));
    QVERIFY(has(t, "self.context.wrap_optimizer(optimizer)"));
    QVERIFY(has(t, "wrap_lr_scheduler"));
    QVERIFY(has(t, "STEP_EVERY_EPOCH"));
    QVERIFY(has(t, "self.context.get_per_slot_batch_size()"));
    QVERIFY(has(t, "self.context.backward(loss)"));
    QVERIFY(has(t, "self.context.step_optimizer(self.optimizer)"));
    QVERIFY(has(t, "lr=self.context.get_hparam(\"learning_rate\")") ||
            has(t, "lr=self.context.get_hparam(\"lr\")"));
    QVERIFY(!has(t, ".to(device)"));
    QVERIFY(!has(t, "args."));
    // Verbatim: the model class and the comment on the loss line.
    QVERIFY(has(t, "        # two layers\n        self.fc1 = nn.Linear(8, hidden)"));
    QVERIFY(has(t, "loss = F.nll_loss(output, target)  # the loss"));
    const auto* yaml = file(*r.value, "const.yaml");
    QVERIFY(yaml);
    QVERIFY(has(yaml->text, "entrypoint: model_def:Trial"));
    QVERIFY(has(yaml->text, "global_batch_size: 4"));
}

void TestPort::popTorchStructure()
{
    Fixture f;
    f.write(R"(model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)");
    auto a = analyse(f.root());
    auto plan = port::planPort(*a);
    QVERIFY(plan);
    auto r = port::generatePort(*plan.value, "graphcore-poptorch", "");
    QVERIFY(r);
    const auto* t = file(*r.value, "train.py");
    QVERIFY(t);
    QVERIFY(has(t->text, "def forward(self, data, target):"));
    QVERIFY(has(t->text, "loss = F.nll_loss(self.model(data), target)"));
    QVERIFY(has(t->text, "poptorch.Options()"));
    QVERIFY(has(t->text, "poptorch.DataLoader("));
    QVERIFY(has(t->text, "poptorch.trainingModel("));
    QVERIFY(has(t->text, "poptorch.inferenceModel(") || !plan.value->evaluation);
    QVERIFY(!has(t->text, ".backward()"));
    QVERIFY(!has(t->text, "optimizer.step()"));
}

void TestPort::cerebrasTrainerStructure()
{
    Fixture f;
    f.write(R"(model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)");
    auto a = analyse(f.root());
    auto plan = port::planPort(*a);
    QVERIFY(plan);
    auto r = port::generatePort(*plan.value, "cerebras", "");
    QVERIFY(r);
    QCOMPARE(r.value->api, std::string("trainer"));
    const auto* m = file(*r.value, "model.py");
    QVERIFY(m);
    QVERIFY(has(m->text, "(ModelConfig):"));
    QVERIFY(has(m->text, "name: Literal["));
    QVERIFY(has(m->text, "hidden: int = 16"));
    QVERIFY(has(m->text, "Net(config.hidden)"));
    QVERIFY(has(m->text, "registry.register_model("));
    const auto* y = file(*r.value, "configs/params.yaml");
    QVERIFY(y);
    QVERIFY(has(y->text, "trainer:\n  init:"));
    QVERIFY(has(y->text, "train_dataloader:"));
    QVERIFY(has(y->text, "SGD:\n        learning_rate: 0.1"));
    auto runner = port::generatePort(*plan.value, "cerebras", "runner");
    QVERIFY(runner);
    QCOMPARE(runner.value->target, std::string("cerebras-pytorch"));
    QVERIFY(has(file(*runner.value, "model.py")->text, "(PyTorchBaseModel):"));
    QVERIFY(has(file(*runner.value, "data.py")->text, "def get_train_dataloader(params):"));
}

void TestPort::twoOptimizers()
{
    Fixture f;
    f.write(R"(netG = Net(args.hidden)
netD = Net(args.hidden)
optimizerD = optim.Adam(netD.parameters(), lr=args.lr)
optimizerG = optim.Adam(netG.parameters(), lr=args.lr)
for data, target in train_loader:
    netD.zero_grad()
    errD = F.nll_loss(netD(data), target)
    errD.backward()
    optimizerD.step()
    optimizerG.step()
)");
    auto a = analyse(f.root());
    auto plan = port::planPort(*a);
    QVERIFY(plan);
    QCOMPARE(plan.value->optimizers.size(), std::size_t(2));
    auto pop = port::generatePort(*plan.value, "graphcore-poptorch", "");
    QVERIFY(pop);
    QVERIFY(!pop.value->full());
    bool named = false;
    for (const auto& m : pop.value->manual)
        named = named || (m.checkId == "port.manual" && has(m.message, "second optimizer"));
    QVERIFY(named);
    QVERIFY(has(file(*pop.value, "train.py")->text, "# TODO(portolan):"));
    // Determined takes several optimizers.
    auto det = port::generatePort(*plan.value, "determined-pytorchtrial", "");
    QVERIFY(det);
    QVERIFY(has(file(*det.value, "model_def.py")->text,
                "self.context.step_optimizer(self.optimizerG)"));
}

void TestPort::lbfgsClosure()
{
    Fixture f;
    f.write(R"(model = Net(args.hidden)
optimizer = optim.LBFGS(model.parameters(), lr=args.lr)
for data, target in train_loader:
    def closure():
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        return loss
    optimizer.step(closure)
)");
    auto a = analyse(f.root());
    auto plan = port::planPort(*a);
    QVERIFY(plan);
    QCOMPARE(plan.value->optimizers.size(), std::size_t(1));
    QVERIFY(plan.value->optimizers[0].closure);
    auto pop = port::generatePort(*plan.value, "graphcore-poptorch", "");
    QVERIFY(pop);
    QVERIFY(!pop.value->full());
    bool closure = false;
    for (const auto& m : pop.value->manual)
        closure = closure || has(m.message, "closure");
    QVERIFY(closure);
}

void TestPort::outputFolder()
{
    Fixture f;
    f.write(R"(model = Net(args.hidden)
optimizer = optim.SGD(model.parameters(), lr=args.lr)
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    optimizer.step()
)");
    std::ifstream in(f.root() / "main.py");
    const std::string before((std::istreambuf_iterator<char>(in)), {});
    auto a = analyse(f.root());
    auto plan = port::planPort(*a);
    auto r = port::generatePort(*plan.value, "determined-pytorchtrial", "");
    QVERIFY(r);
    const fs::path out = fs::path(f.dir.path().toStdString()) / "port";
    QVERIFY(!port::writePort(*r.value, out));
    QVERIFY(fs::exists(out / "model_def.py"));
    QVERIFY(fs::exists(out / "const.yaml"));
    // A second write into the now non-empty folder is refused.
    QVERIFY(port::writePort(*r.value, out).has_value());
    std::ifstream again(f.root() / "main.py");
    const std::string after((std::istreambuf_iterator<char>(again)), {});
    QCOMPARE(after, before);
    QVERIFY(!fs::exists(f.root() / "model_def.py"));
}

// The one status rule: full means nothing left by hand and, once checked, no check error; the
// check's errors are then listed with what is left, so a partial port always says what.
void TestPort::statusRule()
{
    port::PortResult r;
    port::VerifyResult v;
    v.checkErrors = 0;
    v.dryRunSteps = 3; // the port's dry run ran (one that did not is test_port_target_classes')
    QVERIFY(r.full());
    QVERIFY(r.full(&v));
    guides::Finding error;
    error.checkId = "some-guide.some-check";
    error.severity = Severity::Error;
    error.message = "a construct the guide rejects";
    v.checkErrors = 1;
    v.checkFindings.push_back(error);
    QVERIFY(!r.full(&v));
    QCOMPARE(r.status(&v), std::string("partial"));
    auto j = port::toJson(r, "out", &v);
    QCOMPARE(j["status"].get<std::string>(), std::string("partial"));
    QCOMPARE(j["manual"].size(), std::size_t(1));
    QCOMPARE(j["manual"][0]["message"].get<std::string>(), error.message);
    // Not checked at all (the guide could not run): partial, and it says so.
    v.checkErrors = -1;
    v.checkFindings.clear();
    QVERIFY(!r.full(&v));
    QCOMPARE(r.leftFor(&v).size(), std::size_t(1));
    // A manual item alone makes it partial, checked or not.
    v.checkErrors = 0;
    r.manual.push_back(port::manualFinding("left", port::CodeRef{"main.py", 3, 0, 0, 0, ""}));
    QVERIFY(!r.full());
    QVERIFY(!r.full(&v));
    QCOMPARE(port::toJson(r, "out", nullptr)["manual"].size(), std::size_t(1));
}

void TestPort::generatesPatterns()
{
    QFETCH(QString, body);
    QFETCH(QString, target);
    QFETCH(bool, full);
    QFETCH(QString, contains);
    QFETCH(QString, absent);
    QFETCH(QString, manual);
    Fixture f;
    f.write(body.toStdString());
    auto a = analyse(f.root());
    QVERIFY(a);
    auto plan = port::planPort(*a);
    QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
    auto r = port::generatePort(*plan.value, target.toStdString(), "");
    QVERIFY(r);
    const std::string all = allText(*r.value), manuals = manualText(*r.value);
    QVERIFY2(r.value->full() == full, manuals.c_str());
    QVERIFY2(has(all, contains.toStdString()), all.c_str());
    if (!absent.isEmpty())
        QVERIFY2(!has(all, absent.toStdString()), all.c_str());
    if (!manual.isEmpty())
        QVERIFY2(has(manuals, manual.toStdString()), manuals.c_str());
    // Every manual item is written into the port at its spot.
    if (!r.value->full())
        QVERIFY(has(all, "TODO(portolan)"));
}

// The flags parsed in a helper function the training function calls (`args = parse_args()`):
// the PopTorch port keeps the helper at module level and calls it, instead of pasting the
// helper's body (and its `return`) into main().
void TestPort::argparseInHelper()
{
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    return parser.parse_args()


def main():
    args = parse_args()
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4)
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
)");
    auto a = analyse(root);
    QVERIFY(a);
    auto plan = port::planPort(*a);
    QVERIFY(plan);
    auto r = port::generatePort(*plan.value, "graphcore-poptorch", "");
    QVERIFY(r);
    const auto* train = file(*r.value, "train.py");
    QVERIFY(train);
    const std::string& t = train->text;
    QVERIFY2(has(t, "\ndef parse_args():\n"), t.c_str());
    QVERIFY2(has(t, "def main():\n    args = parse_args()\n"), t.c_str());
    QVERIFY2(!has(t, "def main():\n    parser = "), t.c_str());
}

QTEST_GUILESS_MAIN(TestPort)
